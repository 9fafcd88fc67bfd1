"""Driving the app through raw ASGI, for what an HTTP client will not send: bodies that arrive
in pieces on cue, and query strings with bytes a client would have escaped."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import orjson
from starlette.types import ASGIApp, Message


@dataclass
class Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes

    def header(self, name: str) -> str | None:
        wanted = name.lower().encode()
        values = [v.decode("latin-1") for k, v in self.headers if k == wanted]
        return values[0] if values else None

    def json(self) -> Any:
        return orjson.loads(self.body)


@dataclass
class Pause:
    """Hold a body after its first chunk: `reached` is set when the app waits for the rest,
    which it gets once `release` is set."""

    reached: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)


async def request(
    app: ASGIApp,
    method: str,
    path: str,
    *,
    query: bytes = b"",
    headers: list[tuple[bytes, bytes]] | None = None,
    chunks: list[bytes] | None = None,
    pause: Pause | None = None,
    scope_headers: Any = None,
    client: tuple[str, int] = ("127.0.0.1", 50000),
) -> Answer:
    """Send one request to `path` (decoded, as ASGI has it); `chunks` arrive one by one, with
    `pause` after the first. `scope_headers`, when given, is the scope's headers as they are
    (any shape), instead of `Host: mock` and `headers`; `client` is the peer's address."""
    pending = list(chunks or [b""])
    messages: list[Message] = []

    async def receive() -> Message:
        if not pending:
            await asyncio.Event().wait()  # no more body: the client just stays connected
        if pause is not None and len(pending) < len(chunks or [b""]) and not pause.release.is_set():
            pause.reached.set()
            await pause.release.wait()
        chunk = pending.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(pending)}

    async def send(message: Message) -> None:
        messages.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": quote(path).encode(),
        "root_path": "",
        "query_string": query,
        "headers": [(b"host", b"mock"), *(headers or [])]
        if scope_headers is None
        else scope_headers,
        "client": client,
        "server": ("mock", 80),
    }
    await app(scope, receive, send)
    start = messages[0]
    body = b"".join(m.get("body", b"") for m in messages[1:])
    return Answer(start["status"], list(start["headers"]), body)
