"""`OneWrite` (mockserver/serving/one_write.py): the writes of one loop step leave as one."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import pytest

from mockserver.serving.one_write import OneWrite, one_write_protocol
from tests.support.keys import auth


class Recorder(asyncio.Transport):
    """A transport that records what reaches it."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: Any) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 1)}.get(name, default)


def run_step(steps: Any) -> Recorder:
    """Run `steps(transport)` in one loop step, then let the loop turn once more."""
    inner = Recorder()

    async def main() -> None:
        steps(OneWrite(inner, asyncio.get_running_loop()))
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    asyncio.run(main())
    return inner


def test_a_head_and_its_body_leave_in_one_write() -> None:
    inner = run_step(lambda t: (t.write(b"HTTP/1.1 200 OK\r\n\r\n"), t.write(b"{}")))
    assert inner.writes == [b"HTTP/1.1 200 OK\r\n\r\n{}"]


def test_a_lone_write_leaves_when_the_loop_step_ends() -> None:
    seen: list[list[bytes]] = []

    def steps(transport: OneWrite) -> None:
        transport.write(bytearray(b"HTTP/1.1 100 Continue\r\n\r\n"))
        seen.append(list(inner_of(transport).writes))  # still held within the step

    inner = run_step(steps)
    assert seen == [[]]
    assert inner.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]


def inner_of(transport: OneWrite) -> Recorder:
    inner = transport._transport
    assert isinstance(inner, Recorder)
    return inner


def test_order_is_kept_across_steps() -> None:
    inner = Recorder()

    async def main() -> None:
        transport = OneWrite(inner, asyncio.get_running_loop())
        transport.write(b"a")
        transport.write(b"b")
        transport.write(b"c")  # held again, after the pair went
        await asyncio.sleep(0)
        transport.writelines([b"d", b"e"])
        await asyncio.sleep(0)

    asyncio.run(main())
    assert inner.writes == [b"ab", b"c", b"de"]


def test_close_sends_what_is_held_first_and_abort_drops_it() -> None:
    closed = run_step(lambda t: (t.write(b"bye"), t.close()))
    assert closed.writes == [b"bye"]
    assert closed.closed
    aborted = run_step(lambda t: (t.write(b"lost"), t.abort()))
    assert aborted.writes == []
    assert aborted.aborted


def test_what_is_held_counts_in_the_write_buffer() -> None:
    sizes: list[int] = []
    run_step(lambda t: (t.write(b"12345"), sizes.append(t.get_write_buffer_size())))
    assert sizes == [5]


def test_the_protocol_wraps_uvicorns_own() -> None:
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    protocol = one_write_protocol()
    assert issubclass(protocol, AutoHTTPProtocol)
    assert protocol.__name__ == "OneWriteProtocol"


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_live_answer_arrives_whole(live: httpx.Client, method: str) -> None:
    """Over a real socket (the live fixture serves with the protocol): a raw keep-alive request
    gets its head and body, and a HEAD (no body write at all) gets its head."""
    host, port = live.base_url.host, live.base_url.port
    assert port is not None
    request = (
        f"{method} /v1/whoami HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: {auth()['Authorization']}\r\n\r\n"
    ).encode()
    with socket.create_connection((host, port), timeout=5) as sock:
        for _ in range(2):  # twice on one connection: nothing is left behind
            sock.sendall(request)
            data = b""
            while b"\r\n\r\n" not in data:
                data += sock.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            if method == "GET":
                while len(body) < length:
                    body += sock.recv(65536)
                assert body.startswith(b'{"account_id":')
            assert head.startswith(b"HTTP/1.1 200 OK")
