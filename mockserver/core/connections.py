"""The open client connections of the mock's own HTTP servers, found by their two addresses.

A scenario's transport fault breaks the connection a request came on (resets it, closes it
half-way through an answer). ASGI gives an app no socket, so the serving layer registers each
connection here as it opens (`register`) and the app finds it again by the ASGI scope's
`server` and `client` addresses (`find`), the pair that names one TCP connection. A request
that came some other way (an ASGI transport in-process) has no connection here.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from typing import Any, cast

Address = tuple[str, int]
Key = tuple[Address, Address]  # (the server's address, the client's)


class Connection:
    """One open connection, as its transport, with the means to break it."""

    __slots__ = ("_lost", "transport")

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self._lost = asyncio.Event()

    def reset(self) -> None:
        """Close the connection at once with a TCP reset (RST), dropping anything unsent: the
        client's read fails with "connection reset by peer"."""
        if self.transport.is_closing():
            return  # the client left first
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except (OSError, ValueError):  # not a TCP socket, or already gone: a plain close
                pass
        self.transport.abort()

    def close(self) -> None:
        """Close the connection once what was written is sent (a FIN): the client reads the
        end of the stream where it expected more."""
        self.transport.close()

    @property
    def closing(self) -> bool:
        return self.transport.is_closing()

    def lost(self) -> None:
        """Told by the server when the connection is gone."""
        self._lost.set()

    async def wait_lost(self, timeout: float = 5.0) -> None:
        """Wait until the server has seen the connection go, so that it does not try to
        answer the request itself."""
        try:
            await asyncio.wait_for(self._lost.wait(), timeout)
        except TimeoutError:
            pass


_open: dict[Key, Connection] = {}


def _address(info: Any) -> Address | None:
    if isinstance(info, (tuple, list)) and len(info) >= 2 and isinstance(info[1], int):
        return (str(info[0]), info[1])
    return None  # a Unix socket's path, or no address


def register(transport: asyncio.BaseTransport) -> tuple[Key | None, Connection]:
    """Register a new connection; returns its key (None when it has no TCP addresses, so
    it cannot be found) and its Connection, to tell `lost` and `unregister` when it closes."""
    connection = Connection(cast(asyncio.Transport, transport))
    server = _address(transport.get_extra_info("sockname"))
    client = _address(transport.get_extra_info("peername"))
    if server is None or client is None:
        return None, connection
    key = (server, client)
    _open[key] = connection
    return key, connection


def unregister(key: Key | None) -> None:
    if key is not None:
        _open.pop(key, None)


def find(server: Any, client: Any) -> Connection | None:
    """The open connection with these ASGI scope addresses, if the mock's server has it."""
    server_address, client_address = _address(server), _address(client)
    if server_address is None or client_address is None:
        return None
    return _open.get((server_address, client_address))
