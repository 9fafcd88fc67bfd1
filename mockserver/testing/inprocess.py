"""A synchronous httpx client that calls the app in-process, with no socket.

httpx's ASGITransport is async-only; `InProcessTransport` calls it through an anyio blocking
portal (`anyio.from_thread.start_blocking_portal`): an event loop in a thread of its own, which
the transport starts and stops. The app runs on that one loop, as it would under uvicorn.
ASGITransport runs no lifespan, so the transport enters the sandbox's background life
(`web.app.running`: the webhook client, the real clock's ticks) on the portal for as long as
it is open; work the app leaves running (a webhook attempt) goes on there between requests.

A transport can outlive its clients: the pytest plugin keeps one for the session and hands each
test a new client on it (`InProcessTransport.client`), so no test pays for starting a thread.
A scenario's transport fault raises the httpx error a socket would give (`transport_faults.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from concurrent.futures import Future
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

import anyio.from_thread
import httpx

from mockserver.engine.transport_error import TransportFaultError
from mockserver.serving.asgi import ASGIApp
from mockserver.testing.transport_faults import act_out


class InProcessTransport(httpx.BaseTransport):
    """Sends each request through `httpx.ASGITransport` on the loop of a blocking portal."""

    def __init__(self, app: ASGIApp) -> None:
        self._asgi = httpx.ASGITransport(app=app)
        self._closed = False
        self._calls: set[Future[httpx.Response]] = set()  # requests under way
        self._calls_lock = threading.Lock()
        self._stack = contextlib.ExitStack()
        try:
            portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
            self._portal = portal
            background = _background(app)
            if background is not None:
                self._stack.enter_context(portal.wrap_async_context_manager(background))
            # The portal's own tasks (and the ticker `running()` started): never the app's work.
            self._loop, self._own = portal.call(_loop_and_tasks)
        except BaseException:
            self._stack.close()
            raise

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
        call = self._portal.start_task_soon(self._send, request)
        with self._calls_lock:
            self._calls.add(call)
        try:
            return call.result()
        except TransportFaultError as faulted:  # a scenario broke the "connection"
            return act_out(faulted.response, request)
        finally:
            with self._calls_lock:
                self._calls.discard(call)

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
        """Cancel the requests under way and the work the app left running on the loop (a
        webhook attempt), and wait until they have unwound, as asyncio.run would at its end.
        The sandbox's background life goes on."""
        with self._calls_lock:
            calls = list(self._calls)
        for call in calls:  # the portal cancels the request's task; its caller gets the error
            call.cancel()
        # A test that left nothing running costs no trip to the loop. all_tasks may be called
        # from another thread (it copies the loop's task set, with a retry for that).
        if calls or asyncio.all_tasks(self._loop) - self._own:
            self._portal.call(self._cancel_left)

    async def _cancel_left(self) -> None:
        tasks = asyncio.all_tasks() - self._own - {asyncio.current_task()}
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        """Cancel what the app left running, end the sandbox's background life (it closes its
        webhook client), then stop the portal's loop and thread."""
        if self._closed:
            return
        self._closed = True
        try:
            self.cancel_tasks()
        finally:
            self._stack.close()


class _Borrowed(httpx.BaseTransport):
    """Another's transport, lent to one client: closing the client does not close it."""

    def __init__(self, transport: InProcessTransport) -> None:
        self._transport = transport

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._transport.handle_request(request)


def _background(app: ASGIApp) -> AbstractAsyncContextManager[None] | None:
    """The background life of an app `create_app` built (its lifespan, `running`); None for
    another ASGI app (one wrapping it), which then runs without, as under a server that runs
    no lifespan."""
    sandbox = getattr(getattr(app, "state", None), "sandbox", None)
    if sandbox is None:
        return None
    lifespan = app.router.lifespan_context  # type: ignore[attr-defined]  # `create_app`'s `running`
    return cast(AbstractAsyncContextManager[None], lifespan(app))


async def _loop_and_tasks() -> tuple[asyncio.AbstractEventLoop, set[asyncio.Task[Any]]]:
    """The running loop and the tasks on it but the caller's."""
    return asyncio.get_running_loop(), asyncio.all_tasks() - {asyncio.current_task()}


def inprocess_client(app: ASGIApp, base_url: str = "http://mock", **kwargs: Any) -> httpx.Client:
    """An httpx.Client wired to `app` in-process, on a transport of its own (closed with it)."""
    return httpx.Client(transport=InProcessTransport(app), base_url=base_url, **kwargs)
