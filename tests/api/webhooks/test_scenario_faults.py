"""Scenario webhook faults and endpoints, wired into the real delivery engine."""

from __future__ import annotations

import json

import httpx

from mockserver.testing.receiver import WebhookReceiver
from tests.support.webhooks import settle


def scenario(receiver: WebhookReceiver, faults: str) -> str:
    return f"""
name: faults
setup:
  - add_webhook_endpoint:
      id: whk_scenario
      url: {receiver.url}
      events: ["*"]
webhooks:
{faults}
"""


def sign(client: httpx.Client) -> None:
    for _ in range(2):
        response = client.post(
            "/v1/workflows/wf_mock_in_review/advance", json={"decision": "approve"}
        )
        assert response.status_code == 200
    settle(client)


def deliveries(client: httpx.Client, **query: str) -> list[dict[str, object]]:
    data: list[dict[str, object]] = client.get("/_mock/webhooks/deliveries", params=query).json()[
        "data"
    ]
    return data


def test_scenario_endpoints_are_real_endpoints(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    loaded = inproc.post("/_mock/scenarios", json={"yaml": scenario(receiver, "  []")})
    assert loaded.status_code == 201, loaded.text
    listed = inproc.get("/v1/webhook_endpoints").json()["data"]
    assert [e["id"] for e in listed] == ["whk_scenario"]
    sign(inproc)
    assert receiver.wait_for(1)


def test_fail_n_attempts_then_the_receiver_gets_it(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    faults = "  - {name: down, endpoint: whk_scenario, fault: fail, status: 502, attempts: [1, 2]}"
    assert (
        inproc.post("/_mock/scenarios", json={"yaml": scenario(receiver, faults)}).status_code
        == 201
    )
    sign(inproc)
    first = deliveries(inproc)[0]
    assert [a["status_code"] for a in first["attempts"]] == [502]  # type: ignore[index]
    assert "injected by scenario rule 'down'" in first["attempts"][0]["error"]  # type: ignore[index]
    assert receiver.received == []  # an injected failure sends nothing
    inproc.post("/_mock/clock/advance", json={"seconds": 600})
    settle(inproc)
    first = deliveries(inproc, event_id=str(first["event_id"]))[0]
    assert [a["status_code"] for a in first["attempts"]] == [502, 502, 200]  # type: ignore[index]
    assert first["status"] == "succeeded"


def test_timeout_fault_needs_no_hanging_receiver(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    faults = "  - {name: slow, endpoint: whk_scenario, fault: timeout, attempts: [1]}"
    inproc.post("/_mock/scenarios", json={"yaml": scenario(receiver, faults)})
    sign(inproc)
    attempt = deliveries(inproc)[0]["attempts"][0]  # type: ignore[index]
    assert attempt["status_code"] is None
    assert "timeout" in attempt["error"]


def test_duplicate_fault_sends_the_same_event_twice(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    faults = (
        "  - {name: twice, endpoint: whk_scenario, event: signature.completed,"
        " attempts: [1], fault: duplicate}"
    )
    inproc.post("/_mock/scenarios", json={"yaml": scenario(receiver, faults)})
    sign(inproc)
    inproc.post("/_mock/clock/advance", json={"seconds": 1})
    settle(inproc)
    inproc.post("/_mock/clock/advance", json={"seconds": 600})
    settle(inproc)
    events = [json.loads(r.body) for r in receiver.received]
    signatures = [e["id"] for e in events if e["type"] == "signature.completed"]
    # two signers: each event's first attempt arrives twice, in order (same id, same bytes)
    assert len(signatures) == 4
    assert signatures[0] == signatures[1] != signatures[2] == signatures[3]


def test_delay_fault_holds_the_attempt_back_on_the_clock(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    faults = "  - {name: later, endpoint: whk_scenario, fault: delay, delay_seconds: 120}"
    inproc.post("/_mock/scenarios", json={"yaml": scenario(receiver, faults)})
    sign(inproc)
    assert receiver.received == []
    assert deliveries(inproc)[0]["attempts"] == []
    inproc.post("/_mock/clock/advance", json={"seconds": 120})
    settle(inproc)
    assert receiver.wait_for(1)
    assert deliveries(inproc)[0]["attempts"][0]["at"] == "2026-01-15T09:02:00Z"  # type: ignore[index]


def test_webhook_chaos_fails_a_share_of_attempts_and_says_so(
    inproc: httpx.Client, receiver: WebhookReceiver
) -> None:
    chaos = (
        "  []\nchaos:\n  seed: 5\n  webhooks:\n"
        "    - {name: flaky-receiver, endpoint: whk_scenario, probability: 1, fault: fail,"
        " status: 503}\n"
    )
    assert (
        inproc.post("/_mock/scenarios", json={"yaml": scenario(receiver, chaos)}).status_code == 201
    )
    sign(inproc)
    attempts = [a for d in deliveries(inproc) for a in d["attempts"]]  # type: ignore[attr-defined]
    assert attempts
    assert {a["status_code"] for a in attempts} == {503}
    assert all("injected by chaos rule 'flaky-receiver' (draw 0." in a["error"] for a in attempts)
    assert receiver.received == []
    summary = inproc.get("/_mock/scenarios").json()["data"][0]["chaos"]["webhooks"][0]
    assert summary["matched"] == summary["hit"] == len(attempts)
