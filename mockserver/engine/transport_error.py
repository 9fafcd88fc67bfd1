"""The error an answer with a transport fault raises where no connection can be broken."""

from __future__ import annotations

from mockserver.core.errors import MockError
from mockserver.engine.request import Response


class TransportFaultError(MockError):
    """Raised by the ASGI app for an answer with a transport fault (`response.fault`) when no
    connection of the mock's own HTTP server carries the request (an ASGI transport
    in-process): whoever called the app acts the fault out, as the pytest plugin's transport
    does by raising the httpx error a socket would give."""

    def __init__(self, response: Response) -> None:
        super().__init__(f"transport fault: {response.fault!r}")
        self.response = response
