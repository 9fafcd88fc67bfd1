"""Start-up imports none of the optional heavy parts: Jinja2 (the inspector's pages), Faker
(`seed generate`), trustme (TLS), testcontainers and the fidelity commands are imported by
their first use, not by `mockserver run`; watchfiles (`--watch`) not by an app served
in-process, as every `mock_client` session serves one (uvicorn, which `mockserver run` and
`mock_server` use, imports it itself). The check runs in a fresh interpreter, since this
test process has them all loaded."""

from __future__ import annotations

import subprocess
import sys

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


IN_PROCESS = """
import sys
from mockserver import Settings, create_app
from mockserver.testing.inprocess import inprocess_client

app = create_app(Settings(clock_mode="frozen"))
with inprocess_client(app) as client:
    key = {"Authorization": "Bearer sk_test_mock_full"}
    assert client.get("/v1/documents/doc_mock_draft", headers=key).status_code == 200
    assert client.post("/_mock/reset").status_code == 200
print(",".join(name for name in ("watchfiles", "uvicorn") if name in sys.modules))
"""


def test_an_app_served_in_process_imports_no_file_watching() -> None:
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == ""


INSPECTOR = (
    "mockserver.web.inspector.pages",
    "mockserver.web.inspector.actions",
    "mockserver.web.inspector.web",
)
# The app every pytest session builds imports the inspector's pages and forms (and with them
# Jinja2) only when one of them is first asked for: all of them, with their route table.
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
    assert done.stdout.strip() == "|" + ",".join(INSPECTOR)


def test_each_is_made_by_its_first_use() -> None:
    from mockserver.scenarios.schema_errors import _validator
    from mockserver.web.inspector.web import _templates

    assert _validator().schema["type"] == "object"
    assert _templates().env.filters["pretty"] is not None
