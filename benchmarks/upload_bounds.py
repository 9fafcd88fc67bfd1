"""What a snapshot upload costs the server: its peak memory and how long the event loop stops.

A fresh `mockserver run` (frozen clock, no rate limit) is sent crafted files while a second
thread asks `GET /_mock/clock` every 20 ms; the figures are the growth of the server's peak
RSS (VmHWM) over the upload and the longest wait of a clock call meanwhile. Targets:
a 64 KiB gzip of 64 MiB of tiny objects raises the peak by under 300 MiB, and no
upload holds the loop more than 2 s. With `--journal`, the server's own largest download (a
full journal of 16 KiB bodies each way, some 320 MiB) is uploaded back and must load.

    python -m benchmarks.upload_bounds [--journal]
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

INFLATED = 64 << 20
JOURNAL_BODY = 16 << 10
AUTH = {"Authorization": "Bearer sk_test_mock_full"}


@dataclass(frozen=True)
class Upload:
    name: str
    sent_bytes: int
    status: int
    seconds: float
    peak_growth_mib: float
    longest_wait_s: float


def tiny_objects(item: bytes) -> bytes:
    """64 MiB of `item` in a snapshot's envelope, gzipped."""
    head = b'{"format": 4, "state": {"journal": ['
    count = INFLATED // (len(item) + 1)
    return gzip.compress(head + b",".join([item] * count) + b"]}}", compresslevel=9)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _status_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise LookupError(field)


class Served:
    """A `mockserver run` child and calls to it."""

    def __init__(self) -> None:
        self.port = _free_port()
        command = [sys.executable, "-m", "mockserver", "run", "--port", str(self.port)]
        command += ["--clock", "frozen", "--no-rate-limit"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.call("GET", "/_mock/clock")
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.1)

    def call(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        try:
            connection.request(method, path, body=body, headers={**AUTH, **(headers or {})})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def peak_mib(self) -> float:
        return _status_kib(self.process.pid, "VmHWM") / 1024

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@contextmanager
def longest_wait(served: Served) -> Iterator[Callable[[], float]]:
    """Ask the clock every 20 ms meanwhile; yields what gives the longest wait seen."""
    waits: list[float] = [0.0]
    done = threading.Event()

    def ask() -> None:
        while not done.is_set():
            started = time.monotonic()
            served.call("GET", "/_mock/clock")
            waits.append(time.monotonic() - started)
            time.sleep(0.02)

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    try:
        yield lambda: max(waits)
    finally:
        done.set()
        asker.join()


def upload(served: Served, name: str, data: bytes) -> Upload:
    before = served.peak_mib()
    with longest_wait(served) as longest:
        started = time.monotonic()
        status, _ = served.call("POST", "/_mock/snapshots/upload?name=up", data)
        seconds = time.monotonic() - started
    return Upload(name, len(data), status, seconds, served.peak_mib() - before, longest())


def full_journal(served: Served) -> bytes:
    """The server's own largest download: a journal of 16 KiB bodies each way."""
    answer = json.dumps('"\\' * JOURNAL_BODY)
    rule = (
        "name: big\nrules:\n  - name: r\n    match: {path: /v1/whoami, method: POST}\n"
        f"    respond: {{status: 200, body: {{x: {answer}}}}}\n"
    )
    served.call("POST", "/_mock/scenarios", json.dumps({"yaml": rule}).encode())
    body = json.dumps({"q": '"\\' * JOURNAL_BODY}).encode()
    for _ in range(10_000):
        served.call("POST", "/v1/whoami", body, {"Content-Type": "application/json"})
    served.call("POST", "/_mock/snapshots", json.dumps({"name": "big"}).encode())
    status, data = served.call("GET", "/_mock/snapshots/big/download")
    assert status == 200
    return data


def measure(journal: bool = False) -> list[Upload]:
    uploads = []
    cases = [("64 MiB of {} (gzip)", b"{}"), ('64 MiB of "a" (gzip)', b'"a"')]
    for name, item in cases:
        served = Served()
        try:
            uploads.append(upload(served, name, tiny_objects(item)))
        finally:
            served.stop()
    if journal:
        served = Served()
        try:
            data = full_journal(served)
            uploads.append(upload(served, "own full journal", data))
        finally:
            served.stop()
    return uploads


def table(uploads: list[Upload]) -> str:
    rows = ["| upload | bytes sent | status | seconds | peak RSS growth | longest wait |"]
    rows.append("|---|---|---|---|---|---|")
    for u in uploads:
        rows.append(
            f"| {u.name} | {u.sent_bytes:,} | {u.status} | {u.seconds:.2f} "
            f"| {u.peak_growth_mib:.0f} MiB | {u.longest_wait_s:.2f} s |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--journal", action="store_true", help="also the own largest download")
    print(table(measure(parser.parse_args().journal)))


if __name__ == "__main__":
    main()
