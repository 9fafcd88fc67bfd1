"""record, import and conform against a second `mockserver run` process on a real socket.

One upstream process (frozen clock) serves the whole module and is reset before each use;
`mockserver record` runs as a process of its own in front of it. Both are stopped by PID.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mockserver.cli.main import main
from mockserver.fidelity.tour import tour_path
from tests.support.cli import MOCKSERVER, free_port

FULL = "sk_test_mock_full"
AUTH = {"Authorization": f"Bearer {FULL}"}


def _start(args: list[str], port: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [*MOCKSERVER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    pause = threading.Event()
    for _ in range(400):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return process
        except httpx.TransportError:
            if process.poll() is not None:
                raise AssertionError(process.communicate()[1]) from None
            pause.wait(0.05)
    process.terminate()
    raise AssertionError(f"{args[0]} did not start")


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.communicate(timeout=10)


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    port = free_port()
    process = _start(["run", "--port", str(port), "--clock", "frozen"], port)
    yield f"http://127.0.0.1:{port}"
    _stop(process)


@pytest.fixture
def fresh(upstream: str) -> str:
    """The upstream, back to its seed with no scenario loaded."""
    assert httpx.post(f"{upstream}/_mock/reset").status_code == 200
    return upstream


@pytest.fixture
def proxy(fresh: str, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    out, port = tmp_path / "recording.jsonl", free_port()
    process = _start(["record", "--upstream", fresh, "--out", str(out), "--port", str(port)], port)
    pause = threading.Event()
    while not out.exists() or not out.stat().st_size:  # the probe that saw the proxy up...
        pause.wait(0.01)
    out.write_bytes(b"")  # ...is forgotten (the proxy appends, so this empties its file)
    assert httpx.post(f"{fresh}/_mock/reset").status_code == 200
    yield f"http://127.0.0.1:{port}", out
    _stop(process)


# -- conform ---------------------------------------------------------------------------------

DRIFT = """
name: drift
rules:
  - name: document_changed
    match: {method: GET, path: "/v1/documents/{id}", nth: 1}
    respond:
      status: 200
      body: {id: doc_injected_0001, object: document, title: T, vault_id: vault_mock_us,
             metadata: {}, status: draft, version: 1, created_at: "2026-01-15T09:00:00Z",
             region: us, signers: [], signed_at: null, legal_hold: false, versions: [],
             color: blue}
  - name: error_type_changed
    match: {method: GET, path: /v1/documents/doc_conform_does_not_exist}
    respond: {status: 404, error: {type: conflict, message: Not here.}}
  - name: status_changed
    match: {method: GET, path: /v1/webhook_endpoints}
    respond: {status: 500}
"""


def test_conform_with_a_faithful_upstream_finds_no_drift(
    fresh: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, junit = tmp_path / "report.json", tmp_path / "report.xml"
    argv = ["conform", "--upstream", fresh, "--key", FULL, "--json", str(report)]
    status = main([*argv, "--junit", str(junit)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.splitlines()[-1] == "46 same, 0 drifted"
    assert json.loads(report.read_text())["drifted"] == 0
    assert 'tests="46" failures="0"' in junit.read_text()


def test_conform_names_each_change_of_a_drifting_upstream(
    fresh: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = httpx.post(f"{fresh}/_mock/scenarios", json={"yaml": DRIFT})
    assert loaded.status_code == 201, loaded.text
    report, junit = tmp_path / "report.json", tmp_path / "report.xml"
    argv = ["conform", "--upstream", fresh, "--key", FULL, "--json", str(report)]
    status = main([*argv, "--junit", str(junit)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert lines[-1] == "43 same, 3 drifted"
    step = "drift  19  retrieve the document"
    assert f"{step}: $.sha256: upstream (absent), mock hex string" in lines  # mock has it
    assert f"{step}: $.color: upstream string, mock (absent)" in lines  # upstream has it
    assert (
        "drift  20  retrieve a document that does not exist (404): $.error.type: "
        "upstream string 'conflict', mock string 'not_found'"
    ) in lines
    step = "drift  36  list webhook endpoints"
    assert f"{step}: status: upstream 500, mock 200" in lines
    assert f"{step}: $.error: upstream object, mock (absent)" in lines
    assert f"{step}: $.data: upstream (absent), mock array" in lines
    saved = json.loads(report.read_text())
    assert (saved["same"], saved["drifted"]) == (43, 3)
    nineteen = saved["steps"][18]
    assert {"path": "$.color", "upstream": "string", "mock": "(absent)"} in nineteen["differences"]
    assert 'failures="3"' in junit.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["conform", "--upstream", "ftp://example.com", "--key", FULL], "must be an http://"),
        (["record", "--upstream", "example.com", "--out", "x.jsonl"], "must be an http://"),
        (["record", "--upstream", "http://x", "--out", "/nonexistent/dir/x.jsonl"], "cannot open"),
        (["import", "/nonexistent.jsonl", "--scenario-out", "x.yaml"], "cannot read"),
        (["conform", "--upstream", "http://x", "--key", FULL, "--steps", "/no.yaml"], "no.yaml"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_conform_exits_2_when_the_upstream_does_not_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["conform", "--upstream", f"http://127.0.0.1:{free_port()}", "--key", FULL])
    assert status == 2
    assert "the upstream did not answer" in capsys.readouterr().err


def test_the_conform_tour_replays_on_the_mock(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tour_path())]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "47 passed, 0 failed"


# -- record ----------------------------------------------------------------------------------


def _flow(base: str) -> list[tuple[int, list[tuple[bytes, bytes]], bytes]]:
    """A flow with every kind of secret in it; each answer exactly as received."""
    answers: list[tuple[int, list[tuple[bytes, bytes]], bytes]] = []
    with httpx.Client(base_url=base, timeout=30) as client:

        def call(method: str, path: str, **options: Any) -> httpx.Response:
            with client.stream(method, path, **options) as response:
                body = b"".join(response.iter_raw())
                answers.append((response.status_code, list(response.headers.raw), body))
            return httpx.Response(response.status_code, headers=response.headers, content=body)

        call("GET", "/v1/whoami", headers=AUTH)
        call(
            "GET",
            "/v1/documents",
            headers={**AUTH, "Accept-Encoding": "gzip"},
            params={"limit": "100"},
        )
        call("GET", "/eu/v1/vaults", headers={"Authorization": "Bearer sk_test_mock_eu"})
        hook = call(
            "POST",
            "/v1/webhook_endpoints",
            headers=AUTH,
            json={"url": "https://example.com/hook", "events": ["*"]},
        )
        authorize = call(
            "GET",
            "/v1/oauth/authorize",
            params={
                "response_type": "code",
                "client_id": "mock_client",
                "redirect_uri": "http://127.0.0.1:8765/callback",
                "state": "xyz",
            },
        )
        code = httpx.URL(authorize.headers["location"]).params["code"]
        token = call(
            "POST",
            "/v1/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "client_id": "mock_client",
                "client_secret": "mock_secret",
                "redirect_uri": "http://127.0.0.1:8765/callback",
            },
        )
        access = token.json()["access_token"]
        call("GET", "/v1/whoami", headers={"Authorization": f"Bearer {access}"})
        export = call(
            "POST", "/v1/audit_logs/export", headers=AUTH, json={"period": "2026-01-01/2026-01-31"}
        )
        client.post("/_mock/clock/advance", json={"seconds": 3})
        done = call("GET", f"/v1/audit_logs/export/{export.json()['id']}", headers=AUTH)
        call(
            "GET",
            done.json()["download_url"]
            .replace(str(base), "")
            .replace(str(done.json()["download_url"]).split("/v1/")[0], ""),
        )
        call("POST", "/v1/documents", headers=AUTH, content=b"{not json")
    secrets = [
        FULL,
        "sk_test_mock_eu",
        "mock_secret",
        code,
        access,
        hook.json()["signing_secret"],
        done.json()["download_url"].split("signature=")[1],
    ]
    answers.append((0, [], "\n".join(secrets).encode()))
    return answers


def test_recording_changes_no_byte_and_keeps_no_secret(fresh: str, proxy: tuple[str, Path]) -> None:
    base, out = proxy
    direct = _flow(fresh)
    assert httpx.post(f"{fresh}/_mock/reset").status_code == 200
    proxied = _flow(base)
    assert proxied[:-1] == direct[:-1]  # status, every header (X-Request-Id too), body bytes
    assert any(b"gzip" in dict(headers).get(b"content-encoding", b"") for _, headers, _ in direct)
    text = out.read_text("utf-8")
    exchanges = [json.loads(line) for line in text.splitlines()]
    assert len(exchanges) == len(direct)  # the calls and the clock move, not the secrets
    for secret in proxied[-1][2].decode().splitlines():
        assert secret not in text, secret
    assert "whsec_" not in text
    assert exchanges[0]["request"]["headers"]["authorization"] == "Bearer sk_test_\u2026full"
    token = exchanges[5]
    assert token["request"]["body"]["client_secret"] == "[redacted]"
    assert token["request"]["body"]["code"] == "[redacted]"
    assert token["response"]["body"]["access_token"] == "[redacted]"
    assert exchanges[1]["response"]["body"]["object"] == "list"  # gzip recorded decoded
    assert exchanges[-1]["response"]["body"]["error"]["type"] == "bad_request"


def test_an_unreachable_upstream_is_a_502_and_recorded(tmp_path: Path) -> None:
    out, port = tmp_path / "down.jsonl", free_port()
    dead = f"http://127.0.0.1:{free_port()}"
    process = _start(["record", "--upstream", dead, "--out", str(out), "--port", str(port)], port)
    try:
        response = httpx.post(
            f"http://127.0.0.1:{port}/v1/documents",
            headers=AUTH,
            json={"title": "T", "vault_id": "vault_mock_us"},
        )
    finally:
        _stop(process)
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["type"] == "api_error"
    assert error["request_id"] == response.headers["x-request-id"]
    assert error["request_id"].startswith("req_")
    recorded = [json.loads(line) for line in out.read_text().splitlines()][-1]
    assert recorded["response"]["status"] == 502
    assert recorded["request"]["body"] == {"title": "T", "vault_id": "vault_mock_us"}
    assert FULL not in out.read_text()


# -- record, import, replay ------------------------------------------------------------------


def _prepare(upstream: str) -> dict[str, str]:
    """State the default seed does not have: a vault in eu with documents in three states."""
    with httpx.Client(base_url=upstream, headers=AUTH) as client:
        vault = client.post(
            "/eu/v1/vaults",
            json={"name": "Extra (EU)", "region": "eu", "members": ["extra@example.com"]},
        ).json()["id"]
        docs = [
            client.post(
                "/eu/v1/documents",
                json={"title": f"Extra {n}", "vault_id": vault, "metadata": {"n": str(n)}},
            ).json()["id"]
            for n in range(3)
        ]
        flow = client.post(
            "/eu/v1/workflows",
            json={"document_id": docs[1], "steps": [{"assignee": "a@example.com"}]},
        ).json()["id"]
        client.post(f"/eu/v1/workflows/{flow}/advance", json={"decision": "approve"})
        client.post(
            "/eu/v1/workflows",
            json={"document_id": docs[2], "steps": [{"assignee": "b@example.com"}]},
        )
    return {"vault": vault, "draft": docs[0], "signed": docs[1], "review": docs[2], "wf": flow}


def test_a_recorded_flow_replays_on_a_fresh_mock(
    fresh: str, proxy: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = _prepare(fresh)
    base, out = proxy
    eu = {"Authorization": "Bearer sk_test_mock_eu"}
    with httpx.Client(base_url=base, headers=AUTH, timeout=30) as c:
        c.get("/v1/whoami")
        c.get(f"/eu/v1/vaults/{extra['vault']}")
        c.get(f"/eu/v1/documents/{extra['draft']}")
        c.get(f"/eu/v1/documents/{extra['signed']}")
        c.get(f"/eu/v1/documents/{extra['review']}")
        c.get(f"/eu/v1/workflows/{extra['wf']}")
        c.delete(f"/eu/v1/documents/{extra['signed']}")  # retention: 409
        doc = c.post("/eu/v1/documents", json={"title": "New", "vault_id": extra["vault"]})
        new = doc.json()["id"]
        c.get(f"/eu/v1/documents/{new}")
        wf = c.post(
            "/eu/v1/workflows", json={"document_id": new, "steps": [{"assignee": "x@example.com"}]}
        ).json()["id"]
        c.post(f"/eu/v1/workflows/{wf}/advance", json={"decision": "approve"})
        c.get(f"/eu/v1/documents/{new}")
        c.get("/v1/documents/doc_mock_draft")
        c.post(
            "/v1/documents",
            json={"title": "Idem", "vault_id": "vault_mock_us"},
            headers={"Idempotency-Key": "k-1"},
        )
        c.delete(f"/eu/v1/documents/{extra['draft']}")
        c.get(f"/eu/v1/documents/{extra['draft']}")  # 404 now
        c.get("/v1/vaults", headers=eu)
        c.post("/v1/vaults", json={"name": "Bad", "region": "us"}, headers=eu)  # 422
        made = c.post("/v1/webhook_endpoints", json={"url": "https://e.example/h", "events": ["*"]})
        assert made.status_code == 201, made.text
        hook = made.json()["id"]
        c.delete(f"/v1/webhook_endpoints/{hook}")
    exchanges = out.read_text().splitlines()
    assert len(exchanges) == 20
    scenario = tmp_path / "recorded_flow.yaml"
    assert main(["import", str(out), "--scenario-out", str(scenario)]) == 0
    text = scenario.read_text()
    assert f"id: {extra['vault']}" in text
    assert f"id: {extra['signed']}" in text
    assert "{doc_1}" in text  # the created document is captured, then named
    assert main(["replay", str(scenario)]) == 0, capsys.readouterr().out
    assert capsys.readouterr().out.splitlines()[-1] == "20 passed, 0 failed"
