"""Start-up imports none of the optional heavy parts: Jinja2 (the inspector's pages), Faker
(`seed generate`), trustme (TLS), testcontainers and the fidelity commands are imported by
their first use, not by `mockserver run`. The check runs in a fresh interpreter, since this
test process has them all loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LAZY = ("jinja2", "faker", "trustme", "testcontainers", "mockserver.fidelity")

PROGRAM = f"""
import sys
import mockserver.cli.main
from mockserver.core.config import Settings
from mockserver.web.app import create_app

app = create_app(Settings(clock_mode="frozen"))
app.state.store.world("acct_mock_us", "sandbox")
print(",".join(name for name in {LAZY!r} if name in sys.modules))
"""


def test_serving_imports_none_of_the_optional_libraries_until_used() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == ""


INSPECTOR = (
    "mockserver.web.inspector.pages",
    "mockserver.web.inspector.actions",
    "mockserver.web.inspector.web",
)
# The app every pytest session builds imports the inspector's pages and forms (and with them
# Jinja2) only when one of them is first asked for.
PAGES = f"""
import sys
from mockserver import Settings, create_app
from mockserver.testing.inprocess import inprocess_client

app = create_app(Settings(clock_mode="frozen"))
with inprocess_client(app) as client:
    key = {{"Authorization": "Bearer sk_test_mock_full"}}
    assert client.get("/v1/documents/doc_mock_draft", headers=key).status_code == 200
    before = [name for name in {INSPECTOR!r} if name in sys.modules]
    assert client.get("/_mock/ui").status_code == 200
    after = [name for name in {INSPECTOR!r} if name in sys.modules]
print(",".join(before) + "|" + ",".join(after))
"""


def test_the_inspector_is_imported_by_its_first_page() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PAGES], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "|mockserver.web.inspector.pages,mockserver.web.inspector.web"


def test_each_is_made_by_its_first_use() -> None:
    from mockserver.scenarios.schema_errors import _validator
    from mockserver.web.inspector.web import _templates

    assert _validator().schema["type"] == "object"
    assert _templates().env.filters["pretty"] is not None


# What a sandbox that never saves a snapshot, loads no scenario, keeps no state directory,
# makes no account, sees no OAuth login or audit export and does not serve its OpenAPI document
# does not import: the pytest plugin's sessions build one for every run of a test, and pay for
# each import.
ENGINE_LAZY = (
    "mockserver.engine.snapshots.state",
    "mockserver.engine.snapshots.file",
    "mockserver.scenarios.loader",
    "mockserver.scenarios.model",
    "mockserver.scenarios.actions",
    "mockserver.engine.durable",
    "mockserver.openapi",
    "mockserver.engine.control_plane.triggers",
    "mockserver.webhooks.resend",
    "mockserver.domain.oauth",
    "mockserver.domain.oauth_token",
    "mockserver.domain.audit_exports",
    "mockserver.scenarios.decisions",
)

SESSION = f"""
import asyncio
import sys
from mockserver import Request, Sandbox, Settings

sandbox = Sandbox.build(Settings(clock_mode="frozen"))
sandbox.control.reset()
request = Request(
    "GET", "/v1/documents/doc_mock_draft", headers=[("authorization", "Bearer sk_test_mock_full")]
)
assert asyncio.run(sandbox.handle(request)).status == 200
print(",".join(name for name in {ENGINE_LAZY!r} if name in sys.modules))
"""


def test_a_sandbox_imports_its_occasional_parts_by_their_first_use() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SESSION], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == ""


PARSING = ("yaml", "mockserver.seeds.parser", "mockserver.seeds.builder")


def _twice_with_a_new_seed_cache(program: str, cache_home: Path) -> list[str]:
    """What `program` prints in a fresh interpreter, run twice with the seed cache on in
    `cache_home`: the first run parses the seed and fills the cache, the second reads it."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    env.pop("MOCKSERVER_SEED_CACHE", None)
    return [
        subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            env=env,
        ).stdout.strip()
        for _ in range(2)
    ]


def test_a_sandbox_of_the_cached_default_seed_does_not_import_yaml(tmp_path: Path) -> None:
    program = SESSION + f"print(any(name in sys.modules for name in {PARSING!r}))\n"
    outputs = [printed.split() for printed in _twice_with_a_new_seed_cache(program, tmp_path)]
    assert outputs == [["True"], ["False"]]


# The step-condition language comes with the first workflow step that has a condition.
FIRST_USE = """
import asyncio
import json
import sys
from mockserver import Request, Sandbox, Settings

KEY = ("authorization", "Bearer sk_test_mock_full")
sandbox = Sandbox.build(Settings(clock_mode="frozen"))


def loaded(name):
    return name in sys.modules


async def main():
    seen = [loaded("mockserver.domain.conditions")]
    body = {
        "document_id": "doc_mock_draft",
        "steps": [{"assignee": "alice@example.com", "condition": "pages > 0"}],
    }
    made = await sandbox.handle(
        Request("POST", "/v1/workflows", headers=[KEY, ("content-type", "application/json")],
                body=json.dumps(body).encode())
    )
    seen.append(made.status)
    seen.append(loaded("mockserver.domain.conditions"))
    print(seen)


asyncio.run(main())
"""


def test_step_conditions_are_imported_by_their_first_use(tmp_path: Path) -> None:
    # Parsing the seed file checks its conditions: the second run reads the seed cache.
    _, cached = _twice_with_a_new_seed_cache(FIRST_USE, tmp_path)
    assert cached == "[False, 201, True]"


# A server imports the websockets library when a request first asks for a WebSocket, and
# refuses it as uvicorn's own protocol does (the app closes every WebSocket at once).
WEBSOCKETS = """
import socket
import sys

import httpx

from mockserver import Settings, create_app
from mockserver.testing.live import LiveServer

live = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
key = {"Authorization": "Bearer sk_test_mock_full"}
with httpx.Client(base_url=live.base_url, headers=key) as client:
    assert client.get("/v1/documents/doc_mock_draft").status_code == 200
before = "websockets" in sys.modules
upgrade = (
    b"GET /v1/documents HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nUpgrade: websocket\\r\\n"
    b"Connection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n"
    b"Sec-WebSocket-Version: 13\\r\\n\\r\\n"
)
with socket.create_connection((live.host, live.port), timeout=60) as sock:
    sock.sendall(upgrade)
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
live.stop()
print(before, "websockets" in sys.modules, answer.split(b"\\r\\n")[0].decode())
"""


def test_a_server_imports_websockets_only_when_a_websocket_is_asked_for() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WEBSOCKETS], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "False True HTTP/1.1 403 Forbidden"
