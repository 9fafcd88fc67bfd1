"""Nothing imports the MCP SDK until an MCP path or command is used: importing mockserver,
building an app and serving API and control-plane requests leave it out of `sys.modules`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import sys
import mockserver
import mockserver.cli.main
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from mockserver.core.config import Settings

app = create_app(Settings(clock_mode="frozen"))
with inprocess_client(app, headers={"Authorization": "Bearer sk_test_mock_full"}) as client:
    assert client.get("/v1/whoami").status_code == 200
    assert client.get("/_mock/clock").status_code == 200
    print("before", sorted(name for name in ("mcp", "mcp_types") if name in sys.modules))
    answer = client.post(
        "/_mock/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"accept": "application/json, text/event-stream"},
    )
    print("status", answer.status_code)
    print("after", sorted(name for name in ("mcp", "mcp_types") if name in sys.modules))
"""


def test_the_sdk_is_imported_only_by_an_mcp_request() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["before []", "status 200", "after ['mcp', 'mcp_types']"]
