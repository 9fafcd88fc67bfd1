"""The compiled request path (mockserver/native.py): when it is used, and that it answers
exactly as the Python modules do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mockserver import native

# Requests of every kind the compiled modules serve, in the one process; prints every answer.
SCRIPT = r"""
import json, sys
from mockserver import native
from mockserver.core.config import Settings
from mockserver.web.app import create_app
from mockserver.testing.inprocess import inprocess_client
import mockserver.web.pipeline as pipeline

auth = {"Authorization": "Bearer sk_test_mock_full"}
doc = {"title": "NDA", "vault_id": "vault_mock_us", "metadata": {"kind": "nda", "n": 1}}
key = {"Idempotency-Key": "a"}
bad = {"json": {**doc, "title": 3}, "headers": {"Idempotency-Key": "b"}}
broken = {"content": b"{", "headers": {"Content-Type": "application/json"}}
out = {"status": native.running(), "pipeline": pipeline.__file__.rsplit(".", 1)[1], "answers": []}
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


def run_script(pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if pure:
        env[native.PURE_ENV] = "1"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    result: dict = json.loads(done.stdout)
    return result


def test_compiled_and_python_give_the_same_bytes() -> None:
    python = run_script(pure=True)
    assert python["status"] == "forced pure"
    assert python["pipeline"] == "py"
    built = run_script(pure=False)
    # `make test` builds first; a bare pytest without a build compares Python with itself.
    assert built["pipeline"] == ("py" if built["status"] == "pure" else "so")
    assert built["status"] in ("compiled", "pure")
    assert built["answers"] == python["answers"]
    statuses = [answer[0] for answer in built["answers"]]
    assert statuses == [201, 201, 422, 400, 200, 422, 200, 401, 200, 200, 200]


@pytest.fixture
def fake_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A build of one file and a manifest in a temporary place."""
    manifest = tmp_path / "_native.json"
    monkeypatch.setattr(native, "MANIFEST", manifest)
    monkeypatch.setattr(native, "built_files", lambda: [tmp_path / "x.so"])
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    return manifest


def test_a_current_build_is_used(fake_build: Path) -> None:
    fake_build.write_text(json.dumps(native.digests()))
    assert native.status() == "compiled"


def test_a_changed_source_makes_the_build_stale(fake_build: Path) -> None:
    recorded = native.digests()
    recorded["mockserver.web.pipeline"] = "0" * 64
    fake_build.write_text(json.dumps(recorded))
    assert native.status() == "stale"


def test_a_build_without_its_manifest_is_stale(fake_build: Path) -> None:
    assert native.status() == "stale"
    fake_build.write_text("{not json")
    assert native.status() == "stale"


def test_pure_is_forced_by_the_environment(
    fake_build: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_build.write_text(json.dumps(native.digests()))
    monkeypatch.setenv(native.PURE_ENV, "1")
    assert native.status() == "forced pure"


def test_without_a_build_everything_is_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "built_files", list)
    assert native.status() == "pure"


def test_a_stale_build_loads_every_compiled_module_from_its_source() -> None:
    finder = native._FromSource()
    for module in native.MODULES:
        spec = finder.find_spec(module, None)
        assert spec is not None
        assert spec.origin == str(native.source_of(module))
    assert finder.find_spec("mockserver.cli.main", None) is None
    assert all(native.source_of(m).is_file() for m in native.MODULES)


@pytest.mark.parametrize(("state", "installed"), [("stale", True), ("compiled", False)])
def test_activate_puts_the_sources_first_only_when_the_build_is_not_current(
    monkeypatch: pytest.MonkeyPatch, state: str, installed: bool
) -> None:
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if not _ours(f)])
    monkeypatch.setattr(native, "status", lambda: state)
    monkeypatch.setattr(native, "_acted_on", None)
    assert native.activate() == state
    assert native.activate() == state  # twice: still one finder at most
    assert native.running() == state
    assert [_ours(f) for f in sys.meta_path].count(True) == int(installed)
    assert _ours(sys.meta_path[0]) is installed


def _ours(finder: object) -> bool:
    return isinstance(finder, native._FromSource)
