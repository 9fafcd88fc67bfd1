"""The plugin's scenario, journal and account helpers, used as a consumer suite would."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONSUMER = """
import pytest


@pytest.mark.mock_scenario("legal_hold")
def test_marker_loads_a_shipped_scenario(mock_server):
    with mock_server.client() as client:
        assert client.delete("/documents/doc_qa_held_contract").status_code == 409
    assert [e["status"] for e in mock_server.requests(method="DELETE")] == [409]


def test_the_scenario_is_gone_in_the_next_test(mock_server):
    with mock_server.client() as client:
        assert client.get("/documents/doc_qa_held_contract").status_code == 404
    assert [e["method"] for e in mock_server.requests()] == ["GET"]  # reset emptied it


def test_load_scenario_from_a_file(mock_server, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("name: mine\\nrules:\\n  - {name: r, respond: {status: 503}}\\n")
    mock_server.load_scenario(path)
    with mock_server.client() as client:
        assert client.get("/whoami").status_code == 503


def test_a_bad_file_names_its_line(mock_server, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\\nrules:\\n  - {name: r, respond: {statu: 503}}\\n")
    with pytest.raises(RuntimeError, match="bad.yaml:3: rules"):
        mock_server.load_scenario(path)


def test_deliveries(mock_server):
    from mockserver.testing.receiver import WebhookReceiver

    with WebhookReceiver() as receiver, mock_server.client() as client:
        body = {"url": receiver.url, "events": ["document.created"]}
        assert client.post("/webhook_endpoints", json=body).status_code == 201
        doc = client.post("/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()
        mock_server.wait_for_deliveries()
        assert len(receiver.received) == 1
    (delivery,) = mock_server.deliveries(event_type="document.created")
    assert delivery["status"] == "succeeded"
    assert [a["status_code"] for a in delivery["attempts"]] == [200]


def test_new_account(mock_server):
    account = mock_server.new_account(region="eu")
    with mock_server.client(account["keys"]["full"]) as client:
        assert client.get("/whoami").json()["account_id"] == account["id"]
        assert client.get("/vaults").json()["data"] == []
"""


def test_scenario_helpers_in_a_consumer_suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=6)
