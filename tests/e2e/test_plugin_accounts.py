"""`mock_account`, the way consumers use it: a parametrised suite, each test in its own account,
alone and under `pytest -n 2`, giving every test the same ids whichever way it ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONSUMER = """
import json, os
import pytest

@pytest.mark.parametrize("n", range(6))
def test_each_test_has_its_own_account(mock_account, n, tmp_path_factory):
    with mock_account.client() as client:
        assert client.get("/v1/documents").json()["data"] == []
        vault = client.post("/v1/vaults", json={"name": f"v{n}", "region": "us"}).json()
        doc = client.post("/v1/documents", json={"title": f"d{n}", "vault_id": vault["id"]}).json()
        flow = client.post(
            "/v1/workflows", json={"document_id": doc["id"], "steps": [{"assignee": "a@x.io"}]}
        ).json()
        client.post(f"/v1/workflows/{flow['id']}/advance", json={"decision": "approve"})
        assert client.get(f"/v1/documents/{doc['id']}").json()["status"] == "signed"
        mock_account.advance(301)
        assert client.get(f"/v1/documents/{doc['id']}").json()["status"] == "locked"
        assert [d["id"] for d in client.get("/v1/documents").json()["data"]] == [doc["id"]]
    mock_account.assert_requested("POST", "/v1/documents", times=1)
    out = os.environ["IDS_OUT"]
    with open(os.path.join(out, f"{n}.json"), "w") as f:
        json.dump({"account": mock_account.id, "doc": doc["id"], "now": mock_account.now()}, f)


@pytest.mark.parametrize("n", range(4))
def test_scenarios_snapshots_and_reset_stay_in_the_account(mock_account, n):
    with mock_account.client() as client:
        client.post("/v1/vaults", json={"name": "kept", "region": "us"})
        mock_account.snapshot("one")
        client.post("/v1/vaults", json={"name": "gone", "region": "us"})
        mock_account.restore("one")
        assert [v["name"] for v in client.get("/v1/vaults").json()["data"]] == ["kept"]
        mock_account.reset()
        assert client.get("/v1/vaults").json()["data"] == []
    assert len(mock_account.requests()) == 1
"""


def _ids(pytester: pytest.Pytester, *args: str) -> dict[str, object]:
    out = pytester.path / f"ids{len(args)}"
    out.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IDS_OUT", str(out))
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", *args)
    result.assert_outcomes(passed=10)
    return {p.name: json.loads(p.read_text()) for p in sorted(out.iterdir())}


def test_a_mock_account_suite_passes_alone_and_under_xdist_with_the_same_ids(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    alone = _ids(pytester)
    parallel = _ids(pytester, "-n", "2")
    assert alone == parallel
    assert len({ids["account"] for ids in alone.values()}) == 6  # type: ignore[index]


def test_a_mock_account_scenario_answers_only_in_its_account(pytester: pytest.Pytester) -> None:
    scenario = Path(pytester.path / "down.yaml")
    scenario.write_text(
        "name: down\nrules:\n  - name: vaults-down\n"
        "    match: {method: GET, path: /v1/vaults}\n    respond: {status: 503}\n"
    )
    pytester.makepyfile(
        test_scenario=f"""
def test_only_here(mock_account, mock_server):
    mock_account.load_scenario({str(scenario)!r})
    with mock_account.client() as mine, mock_server.client() as seeded:
        assert mine.get("/v1/vaults").status_code == 503
        assert seeded.get("/v1/vaults").status_code == 200
    mock_account.assert_requested("GET", "/v1/vaults", times=1)
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1)
