"""The webhook guide (docs/guides/webhooks.md) is true: its receiver runs and verifies real
deliveries, and its retry table is the schedule the engine uses."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mockserver.testing.receiver import closed_port, release_port
from mockserver.webhooks.deliveries import RETRY_CAP, RETRY_OFFSETS
from tests.support.webhooks import deliveries, new_document, register, settle

README = Path(__file__).resolve().parents[3] / "docs" / "guides" / "webhooks.md"


def readme_receiver() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    [code] = [b for b in blocks if "class Receiver" in b]
    return code


def test_the_receiver_is_twenty_lines() -> None:
    assert len(readme_receiver().strip().splitlines()) <= 20


@pytest.fixture
def receiver_process(
    inproc: httpx.Client,
) -> Iterator[tuple[subprocess.Popen[str], dict[str, str]]]:
    port = closed_port()
    endpoint = register(inproc, f"http://127.0.0.1:{port}/hooks", ["document.created"])
    env = {**os.environ, "WEBHOOK_SECRET": endpoint["signing_secret"], "PORT": str(port)}
    release_port(port)  # the receiver's process takes it
    process = subprocess.Popen(
        [sys.executable, "-c", readme_receiver()],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        _wait_listening(port)
        yield process, {"port": str(port), "secret": endpoint["signing_secret"]}
    finally:
        process.kill()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def _wait_listening(port: int, timeout: float = 10.0) -> None:
    pause = threading.Event()
    for _ in range(int(timeout / 0.02)):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            pause.wait(0.02)
    raise AssertionError("the README receiver did not start")


def _read_line(process: subprocess.Popen[str], timeout: float = 10.0) -> str:
    lines: list[str] = []
    assert process.stdout is not None
    reader = threading.Thread(target=lambda: lines.append(process.stdout.readline()))  # type: ignore[union-attr]
    reader.daemon = True
    reader.start()
    reader.join(timeout)
    assert lines, "the README receiver printed nothing"
    return lines[0].strip()


def test_the_readme_receiver_verifies_real_deliveries(
    inproc: httpx.Client, receiver_process: tuple[subprocess.Popen[str], dict[str, str]]
) -> None:
    process, info = receiver_process
    doc_id = new_document(inproc)
    event = inproc.get(f"/v1/audit_logs?resource_id={doc_id}").json()["data"][0]
    assert _read_line(process) == f"{event['id']} document.created {doc_id}"
    settle(inproc)
    [delivered] = deliveries(inproc)
    assert delivered["status"] == "succeeded"
    assert delivered["attempts"][0]["status_code"] == 200
    # a forged delivery is refused, so the mock would retry it
    url = f"http://127.0.0.1:{info['port']}/hooks"
    body = json.dumps({"id": "evt_forged", "type": "document.created", "data": {}}).encode()
    bad = hmac.new(b"whsec_guess", b"1." + body, hashlib.sha256).hexdigest()
    forged = httpx.post(url, content=body, headers={"X-Service-Signature": f"t=1,v1={bad}"})
    assert forged.status_code == 400


def schedule_table() -> str:
    """The README's retry table, made from the schedule: runs of hourly retries on one row."""

    def human(seconds: int) -> str:
        hours, minutes = divmod(seconds // 60, 60)
        return " ".join(
            p for p in (f"{hours} h" if hours else "", f"{minutes} min" if minutes else "") if p
        )

    rows = [
        "| attempt | seconds after the first | that is | wait since the previous |",
        "|---|---|---|---|",
    ]
    rows.append("| 1 | 0 | at once | |")
    attempts = list(enumerate(RETRY_OFFSETS, start=1))[1:]
    i = 0
    while i < len(attempts):
        n, offset = attempts[i]
        wait = offset - RETRY_OFFSETS[n - 2]
        run = i
        while run + 1 < len(attempts) and attempts[run + 1][1] - attempts[run][1] == RETRY_CAP:
            run += 1
        if wait == RETRY_CAP and run > i:
            last_n, last_offset = attempts[run]
            rows.append(
                f"| {n} ... {last_n} | {offset} ... {last_offset} | "
                f"{human(offset)} ... {human(last_offset)} | {human(RETRY_CAP)} each |"
            )
            i = run + 1
            continue
        rows.append(f"| {n} | {offset} | {human(offset)} | {human(wait)} |")
        i += 1
    return "\n".join(rows)


def test_the_readme_retry_table_is_the_schedule() -> None:
    assert schedule_table() in README.read_text()
