"""Which save of a scenario serves: `source`, `version` and `loaded_at` on every loaded
scenario, the journal's `scenario` mark on what a rule touched, and unloading one scenario
by name."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import pytest

from mockserver.core.config import Settings
from mockserver.core.errors import ScenarioError
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.api import assert_envelope

TEAPOT = """\
name: teapot
rules:
  - name: brew
    match: {method: GET, path: /v1/vaults}
    respond: {status: %d}
"""


def test_a_scenario_shows_its_source_version_and_load_time(both: httpx.Client) -> None:
    text = TEAPOT % 418
    made = both.post("/_mock/scenarios", json={"yaml": text, "source": "qa/teapot.yaml"})
    assert made.status_code == 201
    shown = made.json()
    assert shown["source"] == "qa/teapot.yaml"
    assert shown["version"] == hashlib.sha256(text.encode()).hexdigest()[:12]
    assert shown["loaded_at"] == both.get("/_mock/clock").json()["now"]
    assert shown["reload_error"] is None
    inline = both.post("/_mock/scenarios", json={"yaml": text.replace("teapot", "kettle")})
    assert inline.json()["source"] is None  # sent as text, from no file
    assert "errors" not in both.get("/_mock/scenarios").json()  # only a watching server's


def test_the_journal_names_the_version_whose_rule_answered(both: httpx.Client) -> None:
    both.post("/_mock/scenarios", json={"yaml": TEAPOT % 418})
    first = both.get("/_mock/scenarios").json()["data"][0]["version"]
    assert both.get("/v1/vaults").status_code == 418
    both.post("/_mock/scenarios", json={"yaml": TEAPOT % 503})  # the same name: replaced
    second = both.get("/_mock/scenarios").json()["data"][0]["version"]
    assert both.get("/v1/vaults").status_code == 503
    both.get("/v1/documents")  # touched by no rule
    entries = both.get("/_mock/requests", params={"limit": 3}).json()["data"]
    assert "scenario" not in entries[0]
    assert entries[1]["rule"] == "brew"
    assert entries[1]["scenario"] == {"name": "teapot", "version": second, "rule": "brew"}
    assert entries[2]["scenario"] == {"name": "teapot", "version": first, "rule": "brew"}
    page = both.get("/_mock/ui/requests").text
    assert f"teapot@{second}" in page
    assert f"teapot@{first}" in page


def test_one_scenario_unloads_by_name(both: httpx.Client) -> None:
    both.post("/_mock/scenarios", json={"yaml": TEAPOT % 418})
    both.post("/_mock/scenarios", json={"name": "legal_hold"})
    gone = both.delete("/_mock/scenarios", params={"name": "teapot"})
    assert gone.status_code == 200
    assert gone.json() == {"unloaded": 1}
    assert [s["name"] for s in both.get("/_mock/scenarios").json()["data"]] == ["legal_hold"]
    assert both.get("/v1/vaults").status_code == 200
    missing = both.delete("/_mock/scenarios", params={"name": "teapot"})
    assert_envelope(missing, 404, "not_found")
    assert missing.json()["error"]["param"] == "name"


def test_the_scenarios_page_shows_file_version_and_rule_counts(both: httpx.Client) -> None:
    both.post("/_mock/scenarios", json={"yaml": TEAPOT % 418, "source": "qa/teapot.yaml"})
    both.get("/v1/vaults")
    version = both.get("/_mock/scenarios").json()["data"][0]["version"]
    page = both.get("/_mock/ui/scenarios")
    assert page.status_code == 200
    assert "qa/teapot.yaml" in page.text
    assert version in page.text
    assert '<td class="num">1</td><td class="num">1</td>' in page.text  # brew: matched, fired


HELD = """\
name: held
clock: {advance: 3600}
setup:
  - legal_hold: {document: doc_mock_draft}
rules:
  - name: brew
    match: {method: GET, path: /v1/vaults}
    respond: {status: %d}
"""


def test_a_replace_load_swaps_the_rules_and_keeps_data_and_clock(both: httpx.Client) -> None:
    """`replace` (what a watched file's save sends): the new version's setup and clock moves
    are not applied again; a plain load of the same name applies them."""
    both.post("/_mock/scenarios", json={"yaml": HELD % 418})
    moved = both.get("/_mock/clock").json()["now"]
    released = both.post("/_mock/documents/doc_mock_draft/legal_hold", json={"on": False})
    assert released.status_code == 200

    swapped = both.post("/_mock/scenarios", json={"yaml": HELD % 503, "replace": True})
    assert swapped.status_code == 201
    assert both.get("/v1/vaults").status_code == 503
    assert both.get("/_mock/clock").json()["now"] == moved
    assert both.get("/v1/documents/doc_mock_draft").json()["legal_hold"] is False

    both.post("/_mock/scenarios", json={"yaml": HELD % 429})  # no replace: a whole load
    assert both.get("/v1/documents/doc_mock_draft").json()["legal_hold"] is True
    assert both.get("/_mock/clock").json()["now"] != moved


def test_replace_must_be_a_boolean(both: httpx.Client) -> None:
    refused = both.post("/_mock/scenarios", json={"yaml": HELD % 418, "replace": "yes"})
    assert_envelope(refused, 422, "validation_error")
    assert refused.json()["error"]["param"] == "replace"
    assert both.get("/_mock/scenarios").json()["data"] == []


def test_a_forced_429_names_the_version_of_its_burst(both: httpx.Client) -> None:
    both.post("/_mock/scenarios", json={"name": "rate_limit_burst"})
    version = both.get("/_mock/scenarios").json()["data"][0]["version"]
    statuses = [both.post("/v1/documents", json={"title": f"t{i}"}).status_code for i in range(3)]
    assert statuses[-1] == 429
    newest = both.get("/_mock/requests", params={"limit": 1}).json()["data"][0]
    assert newest["scenario"] == {
        "name": "rate_limit_burst",
        "version": version,
        "rule": newest["rule"],
    }
    assert newest["rule"]


def test_a_scenario_folder_is_loaded_at_start_without_watching(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "a.yaml").write_text(TEAPOT % 418)
    (folder / "b.yaml").write_text((TEAPOT % 429).replace("teapot", "kettle"))
    (folder / ".c.yaml").write_text("an editor's working copy: left out\n")
    (folder / "notes.txt").write_text("not a scenario\n")
    app = create_app(Settings(clock_mode="frozen", scenario_dir=folder))
    with inprocess_client(app, base_url="http://mock") as client:
        listed = client.get("/_mock/scenarios").json()
        assert [s["name"] for s in listed["data"]] == ["teapot", "kettle"]
        assert [s["source"] for s in listed["data"]] == [
            str(folder / "a.yaml"),
            str(folder / "b.yaml"),
        ]
        assert "errors" not in listed
    (folder / "b.yaml").write_text("name: kettle\nrules: 3\n")
    with pytest.raises(ScenarioError, match=r"b\.yaml:2: "):
        create_app(Settings(clock_mode="frozen", scenario_dir=folder))


CHAOS = """\
name: always_busy
chaos:
  seed: 7
  rules:
    - name: busy
      match: {method: GET, path: /v1/vaults}
      probability: 1
      respond: {status: 503, error: {message: Busy.}}
"""


def test_a_chaos_hit_names_the_version_of_its_scenario(both: httpx.Client) -> None:
    both.post("/_mock/scenarios", json={"yaml": CHAOS})
    version = both.get("/_mock/scenarios").json()["data"][0]["version"]
    assert both.get("/v1/vaults").status_code == 503
    newest = both.get("/_mock/requests", params={"limit": 1}).json()["data"][0]
    assert newest["chaos"]["rule"] == "busy"
    assert newest["scenario"] == {"name": "always_busy", "version": version, "rule": "busy"}
