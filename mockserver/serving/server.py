"""uvicorn, set up the way the mock is served: by `mockserver run` and by the test servers.

Both serve the app on uvicorn's HTTP protocol held to the slow-client limits of `guard.py`,
HTTPS-only when TLS is on (`https_only.py`), with no access log and without uvicorn's wall-clock
`Date` header: the app sends its own, from the mock clock. A request still running when the
shutdown grace ends is answered 503 (`stopping.py`).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import uvicorn

# uvicorn's own HTTP protocol (httptools, else h11), which the slow-client guard subclasses: the
# one name of its internals the mock imports, the exception the architecture page's walk of a
# request states. It is behaviour the mock must have: no public hook of uvicorn bounds a request
# head's time and size. uvicorn is pinned to a tested range, and tests/serving pins what the
# guard reads of it.
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from mockserver.serving.asgi import ASGIApp
from mockserver.serving.certs import TlsFiles
from mockserver.serving.guard import guarded_protocol, uvicorn_limits
from mockserver.serving.https_only import https_only
from mockserver.serving.listen import StopSignals
from mockserver.serving.prompt_stop import PromptServer
from mockserver.serving.stopping import AnswerWhenStopped

# Seconds the requests being answered when SIGTERM or SIGINT comes (or a test server's `stop()`)
# get to finish; then they are cancelled (and answered 503, `stopping.py`) and the app shuts
# down, so a stop takes well under 5 s.
GRACE = 2


def protocol_options(tls: TlsFiles | None) -> dict[str, Any]:
    """uvicorn's protocol options: its HTTP protocol (httptools if installed, else h11) under
    the slow-client guard, wrapped HTTPS-only with TLS; a new protocol class per call, so per
    server. Raises OSError or ValueError when the TLS material does not load."""
    protocol = guarded_protocol(AutoHTTPProtocol)
    return https_only(tls.server_context(), protocol) if tls else {"http": protocol}


def config(app: ASGIApp, options: dict[str, Any], **settings: Any) -> uvicorn.Config:
    """A uvicorn configuration serving `app` as the mock is served; `settings` are uvicorn's
    (host, port, log_level, lifespan, ...)."""
    return uvicorn.Config(AnswerWhenStopped(app), **_fixed(), **options, **settings)


def server(app: ASGIApp, options: dict[str, Any], **settings: Any) -> PromptServer:
    """A uvicorn server for `app` (see `config`), to run in a thread of one's own; its `stop()`
    stops it at once."""
    return PromptServer(config(app, options, **settings), grace=GRACE)


class _Server(uvicorn.Server):
    """uvicorn's server, telling `started` once it serves (the app started, the sockets
    listening), and stopping at once when a stop signal came before it could take them."""

    def __init__(self, config: uvicorn.Config, stop: StopSignals, started: Callable[[], None]):
        super().__init__(config)
        self._stop = stop
        self._started = started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self._stop.requested is not None:
            self.should_exit = True
        elif self.started:
            self._started()


def serve(
    app: ASGIApp,
    options: dict[str, Any],
    sockets: list[socket.socket],
    stop: StopSignals,
    started: Callable[[], None],
    **settings: Any,
) -> None:
    """Serve `app` on `sockets` (bound by `listen.listen`) until SIGTERM or SIGINT; call
    `started` once it serves. Raises SystemExit(3) when the app cannot start."""
    config = uvicorn.Config(
        AnswerWhenStopped(app), **_fixed(), **options, timeout_graceful_shutdown=GRACE, **settings
    )
    server = _Server(config, stop, started)
    stop.serving = True
    try:
        server.run(sockets=sockets)
    finally:
        stop.serving = False


def _fixed() -> dict[str, Any]:
    """What every server of the mock sets: ASGI 3 (named, since the app may be a callable that
    returns its awaitable, `PacedCollection`, which uvicorn's guess would take for ASGI 2), no
    access log, the app's own `Date`, the limits, and the peer as it is: uvicorn's proxy headers
    would take a loopback client's `X-Forwarded-For` as its address, which a scenario's
    transport fault finds its connection by."""
    return {
        "interface": "asgi3",
        "access_log": False,
        "date_header": False,
        "proxy_headers": False,
        "ws": "auto",  # uvicorn's own WebSocket protocol: the app closes a WebSocket, so 403
        **uvicorn_limits(),
    }


def serve_as_is(app: ASGIApp, *, host: str, port: int, log_level: str) -> None:
    """Serve an app whose answers are someone else's (the recording proxy): uvicorn adds no
    header of its own (no `server`, no `date`), so a client gets exactly what the app sends."""
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        server_header=False,
        date_header=False,
    )
