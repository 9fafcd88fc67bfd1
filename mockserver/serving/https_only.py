"""HTTPS only: each new connection is either upgraded to TLS or answered 400, before the app.

uvicorn given `ssl=` drops a plain-HTTP connection in the middle of the handshake with no answer,
while the real service answers one. So the server listens in plain TCP and this protocol meets
every new connection first:

    connection_made    reading paused; wait (at most `first_byte_timeout`) for the first byte
                       and peek at it (MSG_PEEK on a duplicate of the socket: nothing is read)
      0x16             a TLS handshake record: `loop.start_tls` runs the handshake from the
                       untouched socket (TLS 1.2+ per the context, at most `handshake_timeout`),
                       then uvicorn's own HTTP protocol takes the TLS transport, exactly as if
                       uvicorn had accepted the connection with `ssl=`
      anything else    read the request head (up to 16 KiB), answer the fixed `REFUSAL` (400,
                       `Connection: close`), drain for `linger` seconds and close; the app never
                       sees the request
      EOF, reset, time close

Peeking rather than reading is what keeps this on public APIs: `start_tls` cannot be handed bytes
already read from the transport. It needs an event loop that honours `pause_reading()` inside
`connection_made`. asyncio's does (it starts reading only after `connection_made`); uvloop starts
reading right after it, whatever the protocol asked. So `https_only()` selects uvicorn's `asyncio`
loop, and a first TLS record that arrives through `data_received` anyway is logged and closed
rather than misread.

Nothing here raises into the event loop: garbage, resets and stalls each end one connection.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import socket
import ssl
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger("mockserver.serving")

TLS_HANDSHAKE_RECORD = 0x16
MAX_PLAIN_HEAD = 16 * 1024
# Decrypted bytes that arrive with the handshake, before uvicorn's protocol takes over.
MAX_EARLY_DATA = 1024 * 1024

REFUSAL_BODY = (
    b"400 Bad Request: this port speaks HTTPS only (TLS 1.2 or later).\n"
    b"The plain HTTP request was not processed; send it to the https:// URL instead.\n"
)
REFUSAL = (
    b"HTTP/1.1 400 Bad Request\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: " + str(len(REFUSAL_BODY)).encode() + b"\r\n"
    b"Connection: close\r\n"
    b"\r\n" + REFUSAL_BODY
)

ProtocolFactory = Callable[..., asyncio.Protocol]


class ServerState(Protocol):
    """What the sniffer uses of the per-server state uvicorn hands every protocol it builds:
    the set of open connections, which a shutdown closes (the rest is passed on untouched)."""

    connections: set[Any]


class _State(enum.Enum):
    SNIFFING = enum.auto()
    UPGRADING = enum.auto()
    REFUSING = enum.auto()
    HANDED_OFF = enum.auto()
    CLOSED = enum.auto()


class HttpsOnlyProtocol(asyncio.Protocol):
    """One connection's first moments; `https_only()` binds `context` and `inner` per server.

    Built by uvicorn exactly like its own HTTP protocols, and tracked in the server's connection
    set until the hand-off, so a shutdown closes connections that are still being sniffed.
    """

    context: ClassVar[ssl.SSLContext]
    inner: ClassVar[ProtocolFactory]
    first_byte_timeout: ClassVar[float] = 10.0
    handshake_timeout: ClassVar[float] = 10.0
    linger: ClassVar[float] = 2.0

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self._config = config
        self._server_state = server_state
        self._app_state = app_state
        self._loop = _loop or asyncio.get_running_loop()
        # uvicorn types the set as its own protocols; it only calls `shutdown()` on members.
        self._connections: set[Any] = server_state.connections
        self._transport: asyncio.Transport | None = None
        self._state = _State.SNIFFING
        self._peek: socket.socket | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._upgrade_task: asyncio.Task[None] | None = None
        self._buffer = bytearray()
        self._answered = False

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)
        self._connections.add(self)
        self._transport.pause_reading()
        self._timer = self._loop.call_later(self.first_byte_timeout, self._close)
        try:
            self._peek = transport.get_extra_info("socket").dup()
            self._peek.setblocking(False)
            self._loop.add_reader(self._peek.fileno(), self._on_first_byte)
        except (AttributeError, NotImplementedError, OSError, RuntimeError):
            log.exception("cannot watch a new connection for its first byte; closing it")
            self._close()

    def data_received(self, data: bytes) -> None:
        if self._state is _State.UPGRADING:
            # Decrypted request bytes that came with the handshake: kept for uvicorn's protocol.
            self._buffer += data
            if len(self._buffer) > MAX_EARLY_DATA:
                self._close()
        elif self._state is _State.REFUSING:
            if not self._answered:
                self._buffer += data
                if b"\r\n\r\n" in self._buffer or len(self._buffer) >= MAX_PLAIN_HEAD:
                    self._answer()
        elif self._state is _State.SNIFFING:
            # The loop read although reading was paused (see the module docstring).
            self._stop_sniffing()
            if data[0] == TLS_HANDSHAKE_RECORD:
                log.error("TLS needs uvicorn's asyncio loop (the loop read the handshake itself)")
                self._close()
            else:
                self._refuse()
                self.data_received(data)

    def eof_received(self) -> bool:
        if self._state is _State.REFUSING:
            self._answer()
        elif self._state is not _State.HANDED_OFF:
            self._close()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if self._state is not _State.HANDED_OFF:
            self._state = _State.CLOSED
            self._forget()

    # uvicorn's connection interface

    def shutdown(self) -> None:
        """Called by uvicorn on shutdown: a connection not yet handed off is simply closed."""
        self._close()

    # The steps

    def _on_first_byte(self) -> None:
        assert self._peek is not None
        try:
            first = self._peek.recv(1, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            first = b""
        self._stop_sniffing()
        if not first:
            self._close()
        elif first[0] == TLS_HANDSHAKE_RECORD:
            self._state = _State.UPGRADING
            self._upgrade_task = self._loop.create_task(self._upgrade())
        else:
            self._refuse()

    async def _upgrade(self) -> None:
        assert self._transport is not None
        try:
            tls = await self._loop.start_tls(
                self._transport,
                self,
                self.context,
                server_side=True,
                ssl_handshake_timeout=self.handshake_timeout,
            )
        except asyncio.CancelledError:
            self._close()
            raise
        except OSError as exc:  # ssl.SSLError, resets and the handshake timeout alike
            log.debug("TLS handshake failed: %r", exc)
            self._close()
            return
        except Exception:
            log.exception("unexpected error during the TLS handshake")
            self._close()
            return
        if tls is None or self._state is not _State.UPGRADING or tls.is_closing():
            self._close()  # lost, refused or shut down while the handshake finished
            return
        self._hand_off(tls)

    def _hand_off(self, tls: asyncio.Transport) -> None:
        """Give the TLS transport to uvicorn's HTTP protocol, with any bytes already decrypted."""
        # Through the class, so a plain function given as `inner` is not bound as a method.
        inner = type(self).inner(
            config=self._config,
            server_state=self._server_state,
            app_state=self._app_state,
            _loop=self._loop,
        )
        self._state = _State.HANDED_OFF
        self._forget()
        tls.set_protocol(inner)
        inner.connection_made(tls)
        if self._buffer:
            early, self._buffer = bytes(self._buffer), bytearray()
            inner.data_received(early)

    def _refuse(self) -> None:
        """Plain HTTP: read the head, then answer 400 (on time even if the head never ends)."""
        assert self._transport is not None
        self._state = _State.REFUSING
        self._cancel_timer()
        self._timer = self._loop.call_later(self.first_byte_timeout, self._answer)
        self._transport.resume_reading()

    def _answer(self) -> None:
        if self._answered or self._state is not _State.REFUSING or self._transport is None:
            return
        self._answered = True
        self._buffer = bytearray()
        self._cancel_timer()
        self._transport.write(REFUSAL)
        if self._transport.can_write_eof():
            self._transport.write_eof()
        # Keep reading (and dropping) until the client closes, so the close is not a reset that
        # could destroy the answer before the client reads it.
        self._timer = self._loop.call_later(self.linger, self._close)

    # Bookkeeping

    def _close(self) -> None:
        if self._state is _State.HANDED_OFF:
            return
        self._state = _State.CLOSED
        self._forget()
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()

    def _forget(self) -> None:
        """Stop watching, cancel timers and leave the server's connection set."""
        self._stop_sniffing()
        self._cancel_timer()
        self._connections.discard(self)

    def _stop_sniffing(self) -> None:
        if self._peek is not None:
            # Unregister before closing: epoll would keep reporting a closed duplicate.
            self._loop.remove_reader(self._peek.fileno())
            self._peek.close()
            self._peek = None

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def https_only(context: ssl.SSLContext, inner: ProtocolFactory) -> dict[str, Any]:
    """uvicorn options (`http=`, `loop=`) for a server that speaks only HTTPS with `context`;
    `inner` is the HTTP protocol that serves TLS connections (`server.protocol_options`)."""

    class BoundHttpsOnlyProtocol(HttpsOnlyProtocol):
        pass

    BoundHttpsOnlyProtocol.context = context
    BoundHttpsOnlyProtocol.inner = inner
    return {"http": BoundHttpsOnlyProtocol, "loop": "asyncio"}
