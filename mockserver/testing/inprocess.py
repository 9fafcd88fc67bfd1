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
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx

from mockserver.engine.transport_error import TransportFaultError
from mockserver.serving.asgi import ASGIApp
from mockserver.testing.transport_faults import act_out

_T = TypeVar("_T")
# How often the background thread looks again while a call sent to it has not reached the loop.
IDLE_LOOK = 0.001


class InProcessTransport(httpx.BaseTransport):
    """Sends each request through `httpx.ASGITransport` on one private event loop.

    Who drives the loop: a request made while the loop has nothing else to do (no task left
    running, no other request on it) runs on the caller's thread, which drives the loop until
    its answer is there; this saves the two thread wake-ups of a trip to another thread (about
    a tenth of a millisecond each on an idle machine). Work the app leaves running (a webhook
    attempt, the real clock's ticker), and requests made meanwhile or from a thread that runs
    an event loop of its own, go to a background thread, which drives the same loop until no
    such work is left. Only one thread drives the loop at a time (`_turn`).
    """

    def __init__(self, app: ASGIApp) -> None:
        self._asgi = httpx.ASGITransport(app=app)
        self._loop = asyncio.new_event_loop()
        self._turn = threading.Condition()
        self._inline = False  # a caller's thread drives the loop
        self._waiting = 0  # calls sent to the background thread and not yet answered
        self._closing = False
        # The background thread's task while it drives the loop, else None.
        self._driver: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._drive, daemon=True)
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
        try:
            return self._run(self._send(request))
        except TransportFaultError as faulted:  # a scenario broke the "connection"
            return act_out(faulted.response, request)

    def _run(self, work: Coroutine[Any, Any, _T]) -> _T:
        """`work`'s result, run on this thread when the loop is free, else on the background
        thread's turn."""
        with self._turn:
            inline = not (self._inline or self._driver is not None or self._closing)
            inline = inline and not _loop_running_here() and not self._busy()
            if inline:
                self._inline = True
            else:
                self._waiting += 1
                self._turn.notify_all()
        if inline:
            try:
                return self._loop.run_until_complete(work)
            finally:
                with self._turn:
                    self._inline = False
                    if self._waiting or self._busy():  # the background thread takes the rest
                        self._turn.notify_all()
        try:
            return asyncio.run_coroutine_threadsafe(work, self._loop).result()
        finally:
            with self._turn:
                self._waiting -= 1

    def _left(self) -> set[asyncio.Task[Any]]:
        """The tasks the app left running on the loop (not the background thread's own)."""
        # all_tasks may be called from another thread (it copies the loop's task set with a
        # retry for that).
        return asyncio.all_tasks(self._loop) - {self._driver}

    def _busy(self) -> bool:
        """Whether the loop has work of its own (a task the app left running)."""
        return bool(self._left())

    def _drive(self) -> None:
        """The background thread: drive the loop while work is left or calls wait for it."""
        while True:
            with self._turn:
                while not self._closing and (self._inline or not (self._waiting or self._busy())):
                    self._turn.wait()
                if self._closing and not self._waiting:
                    return
                # Made while no thread drives the loop: no other thread touches it now.
                driver = self._driver = self._loop.create_task(self._until_idle())
            try:
                self._loop.run_until_complete(driver)
            finally:
                with self._turn:
                    self._driver = None
                    self._turn.notify_all()

    async def _until_idle(self) -> None:
        """Run until no task is left and no call waits for this thread."""
        while True:
            tasks = self._left()
            if tasks:
                await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                continue
            with self._turn:
                if not self._waiting:
                    return
            await asyncio.sleep(IDLE_LOOK)  # a call is on its way: its task is not made yet

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
        # A test that left nothing running costs no turn on the loop.
        if not self._loop.is_closed() and self._busy():
            self._run(self._cancel_left())

    async def _cancel_left(self) -> None:
        tasks = self._left() - {asyncio.current_task()}
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        if self._loop.is_closed():
            return
        # Work the app left running unwinds here rather than being destroyed with the loop.
        self.cancel_tasks()
        with self._turn:
            self._closing = True
            self._turn.notify_all()
        self._thread.join(timeout=5)
        self._loop.close()


class _Borrowed(httpx.BaseTransport):
    """Another's transport, lent to one client: closing the client does not close it."""

    def __init__(self, transport: InProcessTransport) -> None:
        self._transport = transport

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._transport.handle_request(request)


def _loop_running_here() -> bool:
    """Whether this thread already runs an event loop (an async test calling a sync client)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def inprocess_client(app: ASGIApp, base_url: str = "http://mock", **kwargs: Any) -> httpx.Client:
    """An httpx.Client wired to `app` in-process, on a transport of its own (closed with it)."""
    return httpx.Client(transport=InProcessTransport(app), base_url=base_url, **kwargs)
