"""uvicorn's server, stopping the moment it is told to: the test servers' (`LiveServer`).

uvicorn's own server looks for `should_exit` every 100 ms and then pauses 100 ms in its
shutdown, so a one-test pytest run with `mock_server` waited 100 to 200 ms at its end for a
server with nothing left to do. This one waits on an event that `stop()` sets from any thread,
and its shutdown waits only as long as a connection still answers a request (looked at every
millisecond, for at most `grace` seconds), then as uvicorn's: the listeners closed, the
lifespan shut down. Everything it uses is uvicorn's public `Server` interface: `main_loop`,
`on_tick`, `shutdown`, `servers`, `server_state` and `lifespan`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

import uvicorn

# How often the shutdown looks whether the last connection has gone: short, since a stopping
# test server usually has none left.
LOOK_EVERY = 0.001
# `should_exit` set without `stop()` (as uvicorn's server is stopped) is still seen this soon.
LATEST = 0.1


class PromptServer(uvicorn.Server):
    """A uvicorn server that `stop()` (from any thread) stops at once; connections still
    answering get `grace` seconds, then their requests are cancelled."""

    def __init__(self, config: uvicorn.Config, *, grace: float) -> None:
        super().__init__(config)
        self._grace = grace
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    def stop(self) -> None:
        """Tell the server to stop; returns at once (the server's thread ends soon after)."""
        self.should_exit = True
        loop, stopping = self._loop, self._stopping
        if loop is None or stopping is None:
            return  # not serving yet: `main_loop` sees `should_exit` when it begins
        try:
            loop.call_soon_threadsafe(stopping.set)
        except RuntimeError:
            pass  # the loop has closed: the server has stopped already

    async def main_loop(self) -> None:
        self._stopping = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        # uvicorn's first tick sets the headers every response carries (the `server` header);
        # the later ticks only refresh a `Date` header, which the mock's servers do not send.
        if await self.on_tick(0):
            return
        while not self.should_exit:  # set directly, as on uvicorn's server: seen within LATEST
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), LATEST)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        state = self.server_state
        for connection in list(state.connections):
            connection.shutdown()  # an idle connection closes, a busy one after its answer
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._grace
        while (state.connections or state.tasks) and loop.time() < deadline:
            await asyncio.sleep(LOOK_EVERY)
        for task in state.tasks:
            task.cancel(msg="the test server stopped")
        for server in self.servers:
            await server.wait_closed()
        if not self.force_exit:
            await self.lifespan.shutdown()
