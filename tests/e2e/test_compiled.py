"""The compiled request path: which build a process runs, and that it answers exactly as the
Python modules do.

`make test` runs the suite twice: on the sources (an editable install, all Python) and, with
`--compiled`, on the compiled wheel installed in a second venv (docs/development/
compiled-build.md). Each run asserts that it runs the build it expects: a broken build cannot
pass as Python, and extension modules left beside the sources (which would shadow them) fail
the run on the sources.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import threading
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import httpx

import mockserver
from mockserver.core.compiled import loaded_compiled, request_path_compiled
from tests.support.build import ROOT, compiled_modules
from tests.support.cli import free_port

# Requests of every kind the compiled modules serve, in the one process; prints every answer.
# With "python" as its first argument, a finder loads the compiled modules (argv[2], JSON)
# from the sources beside them, as a source install would: the same code, as Python.
SCRIPT = r"""
import importlib.machinery, importlib.util, json, sys
from pathlib import Path

class FromSource:
    def find_spec(self, name, path, target=None):
        if name not in MODULES:
            return None
        found = importlib.machinery.PathFinder.find_spec(name, path)
        source = Path(found.origin).with_name(name.rpartition(".")[2] + ".py")
        return importlib.util.spec_from_file_location(name, source)

MODULES = set(json.loads(sys.argv[2]))
if sys.argv[1] == "python":
    sys.meta_path.insert(0, FromSource())

from mockserver.core.compiled import request_path_compiled
from mockserver.core.config import Settings
from mockserver.web.app import create_app
from mockserver.testing.inprocess import inprocess_client
import mockserver.engine.pipeline as pipeline

auth = {"Authorization": "Bearer sk_test_mock_full"}
doc = {"title": "NDA", "vault_id": "vault_mock_us", "metadata": {"kind": "nda", "n": 1}}
key = {"Idempotency-Key": "a"}
bad = {"json": {**doc, "title": 3}, "headers": {"Idempotency-Key": "b"}}
broken = {"content": b"{", "headers": {"Content-Type": "application/json"}}
out = {
    "compiled": request_path_compiled(),
    "pipeline": pipeline.__file__.rsplit(".", 1)[1],
    "answers": [],
}
with inprocess_client(create_app(Settings(clock_mode="frozen")), headers=auth) as client:
    calls = [
        ("POST", "/v1/documents", {"json": doc, "headers": key}),
        ("POST", "/v1/documents", {"json": doc, "headers": key}),
        ("POST", "/v1/documents", bad),
        ("POST", "/eu/v1/documents", broken),
        ("GET", "/v1/documents", {"params": {"limit": 3}}),
        ("GET", "/v1/documents", {"params": {"limit": 0}}),
        ("GET", "/v1/documents/doc_mock_draft", {}),
        ("GET", "/v1/documents/doc_nope", {"headers": {"Authorization": "Bearer sk_nope"}}),
        ("DELETE", "/v1/documents/doc_mock_draft", {}),
        ("GET", "/v1/audit_logs", {"params": {"limit": 5}}),
        ("GET", "/v1/vaults", {}),
    ]
    for method, path, kwargs in calls:
        r = client.request(method, path, **kwargs)
        out["answers"].append([r.status_code, sorted(r.headers.items()), r.text])
print(json.dumps(out))
"""


def run_script(build: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, build, json.dumps(compiled_modules())],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict = json.loads(done.stdout)
    return result


def test_compiled_and_python_give_the_same_bytes(expect_compiled: bool) -> None:
    python = run_script("python")
    assert python["compiled"] is False
    assert python["pipeline"] == "py"
    built = run_script("installed")
    # On the sources the installed build is Python too, and compares Python with itself.
    assert built["compiled"] is expect_compiled
    assert built["pipeline"] == ("so" if expect_compiled else "py")
    assert built["answers"] == python["answers"]
    statuses = [answer[0] for answer in built["answers"]]
    assert statuses == [201, 201, 422, 400, 200, 422, 200, 401, 200, 200, 200]


def test_this_run_runs_the_build_it_expects(expect_compiled: bool) -> None:
    modules = compiled_modules()
    compiled = {name: loaded_compiled(importlib.import_module(name)) for name in modules}
    assert compiled == dict.fromkeys(modules, expect_compiled)
    assert request_path_compiled() is expect_compiled


def test_exactly_the_listed_modules_are_compiled(expect_compiled: bool) -> None:
    package = Path(mockserver.__file__).parent
    suffixes = tuple(EXTENSION_SUFFIXES)
    found = {
        ".".join(("mockserver", *path.relative_to(package).parts)).split(".cpython")[0]
        for path in package.rglob("*")
        if path.name.endswith(suffixes)
    }
    # Extension modules beside the sources (left by a wheel built in place) would shadow them.
    assert found == (set(compiled_modules()) if expect_compiled else set()), (
        "extension modules beside the sources shadow them: make clean removes them"
    )
    assert all(loaded_compiled(importlib.import_module(name)) for name in found)


def test_the_run_imports_the_build_it_tests(expect_compiled: bool) -> None:
    package = Path(mockserver.__file__).resolve().parent
    if expect_compiled:
        # the installed wheel, never a checkout's sources ahead of it on sys.path
        assert not (ROOT / "mockserver").exists()
        assert "site-packages" in package.parts
    else:
        assert package == ROOT / "mockserver"


def test_importing_mockserver_installs_no_import_machinery() -> None:
    probe = (
        "import sys; before = (list(sys.meta_path), list(sys.path_hooks)); "
        "import mockserver, mockserver.web.app, mockserver.cli.main; "
        "assert (sys.meta_path, sys.path_hooks) == before, (before, sys.meta_path)"
    )
    subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)


def test_mockserver_run_says_which_build_it_runs(expect_compiled: bool) -> None:
    port = free_port()
    command = [str(Path(sys.executable).with_name("mockserver")), "run", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        pause = threading.Event()
        for _ in range(300):
            try:
                httpx.get(f"http://127.0.0.1:{port}/v1/whoami")
                break
            except httpx.TransportError:
                assert process.poll() is None
                pause.wait(0.05)
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=10)
    said = [line for line in output.splitlines() if line.startswith("mockserver request path:")]
    assert said == [
        "mockserver request path: compiled (mypyc)"
        if expect_compiled
        else "mockserver request path: pure Python (this install has no compiled extension "
        "modules: the same API, with more CPU per request; `make wheel` in a clone of "
        "mockserver builds the platform wheel that has them)"
    ]


def test_the_compiled_build_page_shows_what_runs() -> None:
    """docs/development/compiled-build.md quotes the banner and the build command as they are."""
    cli = importlib.import_module("mockserver.cli.run")
    page = (ROOT / "docs" / "development" / "compiled-build.md").read_text(encoding="utf-8")
    banner = page.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    assert banner == [
        f"mockserver request path: {cli.COMPILED}",
        f"mockserver request path: {cli.PURE}",
    ]
    command = "HATCH_BUILD_HOOKS_ENABLE=1 python -m build\n"
    assert command in page
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"\t{command.replace('python', '$(BIN)/python')}" in makefile
