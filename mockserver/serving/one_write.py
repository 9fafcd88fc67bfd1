"""One write per response: uvicorn's head and body leave in a single send.

uvicorn's HTTP protocols write a response's status line and headers as one `transport.write`
and its body as another, in the same step of the event loop. On a TCP connection each write is a
`send(2)`, and on loopback the sender's CPU also runs the receiving side of the TCP stack, so
two small writes cost nearly twice one: a profile of the POST load put a fifth of the server's
CPU in `write`. `OneWrite` wraps the connection's transport and holds a write until the next one
or the end of the loop step, whichever comes first, then sends what it holds in one write.

The bytes on the wire and their order are unchanged; only how they are split into segments
differs, which no HTTP client can rely on. A held write is sent before the transport closes,
and dropped by `abort`, as the underlying transport would drop its buffer.
`one_write_protocol` makes a uvicorn protocol class that installs it on each connection; the CLI
and `testing.live` serve with it (and `https_only` uses it for its TLS connections).
"""

from __future__ import annotations

import asyncio
from typing import Any, cast


class OneWrite(asyncio.Transport):
    """A transport that sends the writes of one loop step as a single write."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        held = self._held
        if held is None:
            self._held = bytes(data)
            self._loop.call_soon(self.flush)
        else:  # the body after its head: both go now, the scheduled flush finds nothing
            self._held = None
            self._transport.write(held + data)

    def writelines(self, list_of_data: Any) -> None:
        self.write(b"".join(list_of_data))

    def flush(self) -> None:
        """Send what is held (the end of the loop step, or a close)."""
        held, self._held = self._held, None
        if held is not None and not self._transport.is_closing():
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + len(self._held or b"")

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)


def one_write_protocol(base: type[asyncio.Protocol] | None = None) -> type[asyncio.Protocol]:
    """A subclass of uvicorn's HTTP protocol `base` (by default uvicorn's own choice: httptools
    if installed, else h11) whose connections write through `OneWrite`."""
    if base is None:
        from uvicorn.protocols.http.auto import AutoHTTPProtocol

        base = AutoHTTPProtocol

    class OneWriteProtocol(base):  # type: ignore[valid-type, misc]
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            # uvloop's transports are not asyncio.Transport subclasses: any transport goes
            super().connection_made(
                OneWrite(cast(asyncio.Transport, transport), asyncio.get_running_loop())
            )

    return OneWriteProtocol
