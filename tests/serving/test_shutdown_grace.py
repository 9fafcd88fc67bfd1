"""A request still running when the shutdown grace ends, over real sockets: 503 `api_error`
("the server is stopping") in the error envelope, and no traceback in the log.

The request is held by a scenario rule's delay (30 s, far past the 2 s grace). No test bounds
the wall time: each waits for the answer it expects up to `WAIT`."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app
from tests.support.cli import Run
from tests.support.keys import auth

WAIT = 30.0
HELD = """\
name: held
description: GET /v1/whoami is held for 30 s of wall time.
rules:
  - name: hold_whoami
    match: {method: GET, path: /v1/whoami}
    respond: {delay_ms: 30000}
"""


def held_scenario(folder: Path) -> Path:
    path = folder / "held.yaml"
    path.write_text(HELD)
    return path


def ask_in_the_background(base_url: str, answers: list[httpx.Response]) -> threading.Thread:
    def ask() -> None:
        with httpx.Client(base_url=base_url, headers=auth(), timeout=WAIT) as client:
            answers.append(client.get("/v1/whoami"))

    asking = threading.Thread(target=ask, daemon=True)
    asking.start()
    return asking


def wait_until_held(base_url: str) -> None:
    """Return once the server's journal holds the whoami request (so it is being answered)."""
    deadline = time.monotonic() + WAIT
    with httpx.Client(base_url=base_url, timeout=WAIT) as control:
        while time.monotonic() < deadline:
            entries = control.get("/_mock/requests").json()["data"]
            if any(entry["path"] == "/v1/whoami" for entry in entries):
                return
            time.sleep(0.02)
    raise AssertionError("the held request never arrived")


def assert_stopping(answers: list[httpx.Response]) -> None:
    [answer] = answers
    assert answer.status_code == 503, answer.text
    assert answer.headers["connection"] == "close"
    error = answer.json()["error"]
    assert (error["type"], error["message"]) == ("api_error", "the server is stopping")


def test_a_request_held_past_the_grace_of_sigterm_gets_503(tmp_path: Path) -> None:
    """Found: `mockserver run` answered it uvicorn's plain-text 500 and logged the cancelled
    request's traceback."""
    run = Run(
        tmp_path, "--port", "0", "--clock", "frozen", "--scenario", str(held_scenario(tmp_path))
    )
    run.start()
    try:
        _, port = run.listening()
        base_url = f"http://127.0.0.1:{port}"
        answers: list[httpx.Response] = []
        asking = ask_in_the_background(base_url, answers)
        wait_until_held(base_url)
        run.stop()
        asking.join(WAIT)
    finally:
        run.kill()
    assert_stopping(answers)
    assert "Traceback" not in run.errors() + run.output()


def test_a_request_held_past_the_grace_of_a_test_server_s_stop_gets_503(tmp_path: Path) -> None:
    settings = Settings(clock_mode="frozen", scenario_paths=(held_scenario(tmp_path),))
    live = LiveServer(create_app(settings)).start()
    answers: list[httpx.Response] = []
    try:
        asking = ask_in_the_background(live.base_url, answers)
        wait_until_held(live.base_url)
    finally:
        live.stop()
    asking.join(WAIT)
    assert_stopping(answers)
