"""A synchronous httpx client that calls the app in-process, with no socket.

httpx's ASGITransport is async-only; this transport runs it on one private event loop in a
background thread, so plain synchronous tests (and any sync client code) can use it. The app
runs on that one loop, as it would under uvicorn. A transport can outlive its clients: the
pytest plugin keeps one for the session and hands each test a new client on it
(`InProcessTransport.client`), so no test pays for starting a thread and a loop. A scenario's
transport fault raises the httpx error a socket would give (`transport_faults.py`).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx

from mockserver.engine.transport_error import TransportFaultError
from mockserver.serving.asgi import ASGIApp
from mockserver.testing.transport_faults import act_out


class InProcessTransport(httpx.BaseTransport):
    """Sends each request through `httpx.ASGITransport` on a dedicated event loop."""

    def __init__(self, app: ASGIApp) -> None:
        self._asgi = httpx.ASGITransport(app=app)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    async def _send(self, request: httpx.Request) -> httpx.Response:
        response = await self._asgi.handle_async_request(request)
        # Raw bytes as a stream: the client decodes them (gzip) once, or hands them out raw.
        content = b"".join([chunk async for chunk in response.aiter_raw()])
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=httpx.ByteStream(content),
            request=request,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        sent = asyncio.run_coroutine_threadsafe(self._send(request), self._loop)
        try:
            return sent.result()
        except TransportFaultError as faulted:  # a scenario broke the "connection"
            return act_out(faulted.response, request)

    def client(
        self,
        base_url: str = "http://mock",
        *,
        cls: type[httpx.Client] = httpx.Client,
        **kwargs: Any,
    ) -> httpx.Client:
        """A new client (of `cls`) on this transport; closing it leaves the transport open."""
        return cls(transport=_Borrowed(self), base_url=base_url, **kwargs)

    def cancel_tasks(self) -> None:
        """Cancel the work the app left running on the loop (a webhook attempt) and wait until
        it has unwound, as asyncio.run would do at its end."""
        # all_tasks may be called from another thread (it copies the loop's task set with a
        # retry for that); a test that left nothing running costs no trip to the loop.
        if self._loop.is_running() and asyncio.all_tasks(self._loop):
            asyncio.run_coroutine_threadsafe(_cancel_tasks(), self._loop).result(timeout=5)

    def close(self) -> None:
        if self._loop.is_running():
            # Work the app left running unwinds here rather than being destroyed with the loop.
            self.cancel_tasks()
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
        self._loop.close()


class _Borrowed(httpx.BaseTransport):
    """Another's transport, lent to one client: closing the client does not close it."""

    def __init__(self, transport: InProcessTransport) -> None:
        self._transport = transport

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._transport.handle_request(request)


async def _cancel_tasks() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def inprocess_client(app: ASGIApp, base_url: str = "http://mock", **kwargs: Any) -> httpx.Client:
    """An httpx.Client wired to `app` in-process, on a transport of its own (closed with it)."""
    return httpx.Client(transport=InProcessTransport(app), base_url=base_url, **kwargs)
