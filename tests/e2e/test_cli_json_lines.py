"""`mockserver run --log-format json`: every line the server writes once its options are
parsed is a JSON object, its reasons for not starting included, so that a log collector
reading a container's output never meets a line it cannot parse."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import MOCKSERVER


def _run(*options: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOCKSERVER_")}
    return subprocess.run(
        [*MOCKSERVER, "run", "--log-format", "json", *options],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def _objects(text: str) -> list[dict[str, Any]]:
    """Each line of `text` as the JSON object it must be."""
    objects = []
    for line in text.splitlines():
        try:
            objects.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not a JSON line: {line!r}")
    return objects


def _the_error(result: subprocess.CompletedProcess[str], status: int) -> str:
    """The one error object's message, once the run exited with `status`."""
    assert result.returncode == status, result.stderr
    assert _objects(result.stdout) == []
    [error] = _objects(result.stderr)
    assert error["event"] == "log"
    assert error["level"] == "error"
    assert error["time"].endswith("Z")
    message: str = error["message"]
    return message


def test_a_refused_bind_is_a_json_line() -> None:
    message = _the_error(_run("--host", "0.0.0.0", "--port", "0"), 2)
    assert "--admin-token" in message


def test_a_port_that_cannot_be_bound_is_a_json_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        message = _the_error(_run("--port", str(port)), 3)
    assert message.startswith(f"mockserver: cannot listen on 127.0.0.1:{port}: ")


def test_tls_options_that_do_not_go_together_are_a_json_line(tmp_path: Path) -> None:
    message = _the_error(_run("--port", "0", "--tls-key", str(tmp_path / "key.pem")), 2)
    assert message == "mockserver: cannot set up TLS: --tls-key needs --tls-cert"


def test_a_bad_seed_is_a_json_line(tmp_path: Path) -> None:
    seed = tmp_path / "bad.yaml"
    seed.write_text(
        "version: 1\naccounts:\n  - id: acct_x\n    name: X\n    default_region: mars\n"
    )
    message = _the_error(_run("--port", "0", "--seed", str(seed)), 2)
    assert message.startswith(f"{seed}:5: ")


def test_a_record_of_any_logger_is_a_json_line() -> None:
    """asyncio's "Task exception was never retrieved" and any library's record, too."""
    code = (
        "import logging, logging.config\n"
        "from mockserver.serving.console import log_config\n"
        "logging.config.dictConfig(log_config('json'))\n"
        "logging.getLogger('asyncio').error('Task exception was never retrieved')\n"
        "logging.getLogger('some.library').warning('careful')\n"
    )
    result = subprocess.run(
        [MOCKSERVER[0], "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert [(o["logger"], o["message"]) for o in _objects(result.stderr)] == [
        ("asyncio", "Task exception was never retrieved"),
        ("some.library", "careful"),
    ]
