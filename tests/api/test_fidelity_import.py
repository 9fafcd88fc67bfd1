"""Import in-process: record a flow through the proxy, import it, replay it on a fresh mock.

Each test changes the upstream's state directly (not through the proxy, so the recording does
not see it), records a flow that depends on it, and checks that the imported scenario loads
and replays, and what it holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from mockserver.cli.main import main
from mockserver.fidelity.importer import build_scenario
from mockserver.fidelity.setup import SeedIds
from tests.api.test_fidelity_proxy import AUTH, _record

READONLY = {"Authorization": "Bearer sk_test_mock_readonly"}


@pytest.fixture(scope="module")
def seed() -> SeedIds:
    return SeedIds()


def _replayed(
    scenario: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> list[str]:
    path = tmp_path / "imported.yaml"
    path.write_text(yaml.safe_dump(scenario, sort_keys=False))
    status = main(["replay", str(path)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0, "\n".join(lines)
    return lines


async def _doc(client: httpx.AsyncClient, title: str, vault: str = "vault_mock_us") -> str:
    made = await client.post("/v1/documents", json={"title": title, "vault_id": vault})
    assert made.status_code == 201
    ident: str = made.json()["id"]
    return ident


def test_cursors_keys_and_clock_moves_replay(
    seed: SeedIds, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def flow(proxy: httpx.AsyncClient, upstream: httpx.AsyncClient) -> None:
        proxy.headers.update(AUTH)
        first = await proxy.get("/v1/documents", params={"limit": "2", "status": "draft"})
        cursor = first.json()["next_cursor"]
        await proxy.get("/v1/documents", params={"limit": "2", "status": "draft", "cursor": cursor})
        await proxy.post("/v1/vaults", json={"name": "No", "region": "us"}, headers=READONLY)
        export = (
            await proxy.post("/v1/audit_logs/export", json={"period": "2026-01-01/2026-01-31"})
        ).json()
        await proxy.post("/_mock/clock/advance", json={"seconds": 5})
        done = (await proxy.get(f"/v1/audit_logs/export/{export['id']}")).json()
        assert (
            await proxy.get(done["download_url"], headers={"Authorization": ""})
        ).status_code == 200
        missing = await proxy.get("/v1/vaults/vault_never_was")  # not recreated: it is not there
        assert missing.status_code == 404

    scenario = build_scenario(_record(flow), name="flow", key="sk_test_mock_full", seed=seed)
    steps = scenario["steps"]
    assert "setup" not in scenario  # everything read is in the seed or was created
    assert steps[1]["request"]["query"]["cursor"] == "${cur_1}"
    assert steps[0]["capture"] == {"cur_1": "body.next_cursor"}
    assert steps[2]["request"]["key"] == "sk_test_mock_readonly"
    assert steps[2]["expect"] == {"status": 403, "body": {"error": {"type": "permission_error"}}}
    assert steps[4] == {"advance": 5}
    assert steps[6]["request"]["path"] == "${download_1}"
    assert "query" not in steps[6]["request"]
    lines = _replayed(scenario, tmp_path, capsys)
    assert steps[7]["expect"] == {"status": 404, "body": {"error": {"type": "not_found"}}}
    assert lines[-1] == "8 passed, 0 failed"


def test_documents_in_every_state_are_set_up_from_what_was_read(
    seed: SeedIds, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids: dict[str, str] = {}

    async def flow(proxy: httpx.AsyncClient, upstream: httpx.AsyncClient) -> None:
        upstream.headers.update(AUTH)
        for state in ("draft", "review", "signed", "locked", "held"):
            ids[state] = await _doc(upstream, f"Extra {state}")
        for state in ("review", "signed", "locked"):
            made = await upstream.post(
                "/v1/workflows",
                json={
                    "document_id": ids[state],
                    "steps": [{"assignee": "a@example.com"}, {"assignee": "b@example.com"}],
                },
            )
            ids[f"wf_{state}"] = made.json()["id"]
        for state in ("locked", "signed"):  # the clock moves past the first one's lock
            for _ in range(2):
                await upstream.post(
                    f"/v1/workflows/{ids[f'wf_{state}']}/advance", json={"decision": "approve"}
                )
            if state == "locked":
                await upstream.post("/_mock/clock/advance", json={"seconds": 400})
        await upstream.post(
            f"/v1/workflows/{ids['wf_review']}/advance", json={"decision": "approve"}
        )
        await upstream.post(f"/_mock/documents/{ids['held']}/legal_hold", json={"on": True})
        proxy.headers.update(AUTH)
        for state in ("draft", "review", "signed", "locked", "held"):
            await proxy.get(f"/v1/documents/{ids[state]}")
        await proxy.get(f"/v1/workflows/{ids['wf_review']}")
        await proxy.delete(f"/v1/documents/{ids['held']}")  # 409: under hold

    scenario = build_scenario(_record(flow), name="states", key="sk_test_mock_full", seed=seed)
    added = {next(iter(a.values())).get("id") for a in scenario["setup"]}
    assert {ids[s] for s in ("draft", "review", "signed", "locked", "held", "wf_review")} <= added
    assert scenario["steps"][0] == {"advance": 301}  # past the lock of the locked one
    (later,) = scenario["timeline"]  # and the signed one is signed after that
    assert later["after"] == 301
    assert later["do"][0]["add_workflow"]["document_id"] == ids["signed"]
    expected = [s["expect"]["body"].get("status") for s in scenario["steps"][1:6]]
    assert expected == ["draft", "in_review", "signed", "locked", "draft"]
    assert scenario["steps"][6]["expect"]["body"]["current_step"] == 2
    assert scenario["steps"][7]["expect"]["status"] == 409
    lines = _replayed(scenario, tmp_path, capsys)
    assert lines[-1] == "8 passed, 0 failed"


def test_a_bad_recording_is_a_file_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"request": {"method": "GET", "path": "/v1/whoami"}, "response": {"status": 200}}\n'
        '{"at": 1}\n'
    )
    assert main(["import", str(bad), "--scenario-out", str(tmp_path / "x.yaml")]) == 2
    assert f"{bad}:2: not an exchange" in capsys.readouterr().err
