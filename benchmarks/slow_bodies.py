"""New clients beside a thousand stalled request bodies.

A fresh `mockserver run` (frozen clock, no rate limit) gets `--stalled` connections (1,000, the
connection cap), each sending a request head and one byte of a 100-byte body, then nothing.
Meanwhile a new client every `--every` seconds opens a connection of its own and asks
`GET /v1/whoami`, for `--seconds` (past the 10 s body timeout). The figures: the new clients'
answer times (connect to the whole answer; target: within 1 s), and when and how each stalled
connection ended, counted from when its head was sent: a `408` (the body timeout, 10 s), or a
close with no answer (making room for a new client past the cap).

    python -m benchmarks.slow_bodies [--stalled 1000] [--seconds 13] [--every 0.1]
    python -m benchmarks.slow_bodies --server-path /path/to/other/checkout   # another version

The server runs in a child process; this one holds the client ends, so it raises its own
open-file limit to what they need (or stops, saying so).
"""

from __future__ import annotations

import argparse
import os
import resource
import selectors
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

HEAD = (
    b"POST /v1/vaults HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Authorization: Bearer sk_test_mock_full\r\n"
    b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
)
WHOAMI = (
    b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Authorization: Bearer sk_test_mock_full\r\nConnection: close\r\n\r\n"
)
WAIT = 30.0  # seconds a new client waits for its answer before it counts as unanswered


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(port: int, server_path: str | None) -> subprocess.Popen[bytes]:
    """`mockserver run` on `port`, once it answers (from `server_path`'s package if given)."""
    env = dict(os.environ)
    if server_path:
        env["PYTHONPATH"] = server_path
    command = [sys.executable, "-m", "mockserver", "run", "--port", str(port)]
    command += ["--clock", "frozen", "--no-rate-limit"]
    process = subprocess.Popen(command, env=env, cwd=server_path, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            ask(port)
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("the server did not start")


def ask(port: int) -> bytes:
    """The answer to one `GET /v1/whoami` on a new connection (the server closes it)."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        sock.sendall(WHOAMI)
        received = b""
        while more := sock.recv(65536):
            received += more
    return received


def raise_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise SystemExit(f"needs {needed} open files; the hard limit is {hard} (ulimit -Hn)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@dataclass
class Stalled:
    """How each stalled connection ended: (seconds after its head, status or 0 for a close
    with no answer)."""

    sent_at: dict[socket.socket, float] = field(default_factory=dict)
    ended: list[tuple[float, int]] = field(default_factory=list)
    received: dict[socket.socket, bytes] = field(default_factory=dict)

    def open(self, port: int, count: int) -> None:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
            sock.sendall(HEAD)
            self.sent_at[sock] = time.monotonic()
            sock.setblocking(False)

    def watch(self, until: float) -> None:
        """Record each connection's end as it comes, until `until` (a monotonic time)."""
        with selectors.DefaultSelector() as selector:
            for sock in self.sent_at:
                selector.register(sock, selectors.EVENT_READ, sock)
            while self.sent_at and time.monotonic() < until:
                for key, _ in selector.select(0.05):
                    sock = key.data
                    try:
                        more = sock.recv(65536)
                    except ConnectionResetError:
                        more = b""
                    if more:
                        self.received[sock] = self.received.get(sock, b"") + more
                        continue
                    answer = self.received.pop(sock, b"")
                    status = int(answer.split(b" ", 2)[1]) if answer else 0
                    self.ended.append((time.monotonic() - self.sent_at.pop(sock), status))
                    selector.unregister(sock)
                    sock.close()

    def close(self) -> None:
        for sock in self.sent_at:
            sock.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"min {min(values):.3f}  median {statistics.median(values):.3f}  "
        f"p99 {percentile(values, 0.99):.3f}  max {max(values):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stalled", type=int, default=1_000)
    parser.add_argument("--seconds", type=float, default=13.0)
    parser.add_argument("--every", type=float, default=0.1)
    parser.add_argument("--server-path", help="PYTHONPATH of the server (another checkout)")
    args = parser.parse_args()
    raise_file_limit(args.stalled + 256)
    port = free_port()
    server = start_server(port, args.server_path)
    stalled = Stalled()
    answers: list[tuple[float, float, int]] = []  # (when, seconds, status or 0)
    try:
        stalled.open(port, args.stalled)
        began = time.monotonic()
        until = began + args.seconds

        def new_clients() -> None:
            while time.monotonic() < until:
                asked = time.monotonic()
                try:
                    answer = ask(port)
                    status = int(answer.split(b" ", 2)[1]) if answer else 0
                except OSError:
                    status = 0
                answers.append((asked - began, time.monotonic() - asked, status))
                time.sleep(args.every)

        prober = threading.Thread(target=new_clients)
        prober.start()
        stalled.watch(until + 2.0)
        prober.join()
    finally:
        stalled.close()
        server.terminate()
        server.wait(10)

    served = [seconds for _, seconds, status in answers if status == 200]
    print(f"{args.stalled} stalled bodies; a new client every {args.every:g} s for "
          f"{args.seconds:g} s")  # fmt: skip
    print(f"new clients: {len(answers)}, answered 200: {len(served)}, "
          f"not: {len(answers) - len(served)}")  # fmt: skip
    print(f"  answer time (s): {spread(served)}")
    early = [seconds for at, seconds, status in answers if status == 200 and at < 9.0]
    print(f"  answer time (s) in the first 9 s, before any body times out: {spread(early)}")
    timed_out = [at for at, status in stalled.ended if status == 408]
    closed = [at for at, status in stalled.ended if status == 0]
    other = [(at, status) for at, status in stalled.ended if status not in (0, 408)]
    print(f"stalled connections: 408 {len(timed_out)}, closed with no answer {len(closed)}, "
          f"other {len(other)}, still open {len(stalled.sent_at)}")  # fmt: skip
    print(f"  408 after its head (s): {spread(timed_out)}")
    print(f"  closed after its head (s): {spread(closed)}")


if __name__ == "__main__":
    main()
