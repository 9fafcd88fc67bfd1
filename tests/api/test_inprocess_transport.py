"""The in-process transport (`mock_client`'s): every request runs on the loop of the
transport's portal thread and gets its answer, from any thread, a delayed one holding up no
other; work the app leaves running goes on between requests, and the end of a test cancels it.

No test bounds the wall time: each waits for what it expects up to `WAIT`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.inprocess import InProcessTransport, inprocess_client
from mockserver.testing.receiver import WebhookReceiver
from mockserver.web.app import create_app
from tests.support.keys import auth
from tests.support.webhooks import register

WAIT = 30.0
DELAYED = "/v1/documents/doc_mock_draft"
# A rule that holds one GET for far longer than any test waits; the test cancels it.
HOLD = f"""
name: held
rules:
  - name: hold
    match: {{method: GET, path: {DELAYED}}}
    respond: {{delay_ms: 30000}}
"""


@pytest.fixture
def transport(fresh_app: Starlette) -> Iterator[InProcessTransport]:
    made = InProcessTransport(fresh_app)
    yield made
    made.close()


def test_requests_from_many_threads_all_get_their_own_answers(
    transport: InProcessTransport,
) -> None:
    ids: list[str] = []
    failures: list[BaseException] = []

    def ask() -> None:
        try:
            with transport.client(headers=auth()) as client:
                for _ in range(25):
                    answer = client.get("/v1/whoami")
                    assert answer.status_code == 200
                    ids.append(answer.headers["x-request-id"])
        except BaseException as failure:
            failures.append(failure)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert failures == []
    assert len(ids) == 100
    assert len(set(ids)) == 100


def test_a_delayed_request_holds_up_no_other_thread(transport: InProcessTransport) -> None:
    with transport.client(headers=auth()) as client:
        loaded = client.post("/_mock/scenarios", json={"yaml": HOLD, "source": "held.yaml"})
        assert loaded.status_code == 201
        outcome: list[BaseException | httpx.Response] = []

        def held() -> None:
            try:
                outcome.append(client.get(DELAYED))
            except BaseException as failure:
                outcome.append(failure)

        holding = threading.Thread(target=held)
        holding.start()
        matched = 0
        for _ in range(int(WAIT / 0.01)):  # until the held request is in (it counts the rule)
            rules = client.get("/_mock/scenarios").json()["data"][0]["rules"]
            matched = rules[0]["matched"]
            if matched:
                break
            threading.Event().wait(0.01)
        assert matched == 1
        assert client.get("/v1/whoami").status_code == 200  # answered while the GET is held
        assert holding.is_alive()
        transport.cancel_tasks()  # what the plugin does after a test: the held GET ends
        holding.join(WAIT)
    assert not holding.is_alive()
    [ended] = outcome
    assert isinstance(ended, concurrent.futures.CancelledError)


def test_a_webhook_left_running_is_delivered_while_the_test_only_waits(
    transport: InProcessTransport,
) -> None:
    with WebhookReceiver() as receiver, transport.client(headers=auth()) as client:
        register(client, receiver.url, ["vault.created"])
        made = client.post("/v1/vaults", json={"name": "Left running", "region": "us"})
        assert made.status_code == 201
        # No request follows: the delivery, left running by the create, still arrives.
        [delivery] = receiver.wait_for(1, timeout=WAIT)
    event = json.loads(delivery.body)
    assert event["type"] == "vault.created"
    assert made.json()["id"] in delivery.body.decode()


def test_a_thread_running_its_own_loop_is_answered_too(transport: InProcessTransport) -> None:
    async def inside_a_loop() -> int:
        with transport.client(headers=auth()) as client:
            return client.get("/v1/whoami").status_code

    assert asyncio.run(inside_a_loop()) == 200


def test_a_real_clock_app_keeps_answering() -> None:
    # The real clock's ticker never ends: it runs on the portal's loop beside the requests.
    made = InProcessTransport(create_app(Settings(clock_mode="real")))
    try:
        with made.client(headers=auth()) as client:
            for _ in range(20):
                assert client.get("/v1/whoami").status_code == 200
    finally:
        made.close()


def test_a_real_clock_timeline_runs_while_the_test_only_waits() -> None:
    # ASGITransport runs no lifespan: the transport runs the sandbox's background life, whose
    # ticker runs timers as the real clock reaches them, with no request to run them.
    app = create_app(Settings(clock_mode="real", strict_webhook_urls=False))
    with WebhookReceiver() as receiver, inprocess_client(app, headers=auth()) as client:
        timeline = f"""
name: later
setup:
  - add_webhook_endpoint: {{url: "{receiver.url}", events: [document.legal_hold_placed]}}
timeline:
  - after: 1
    do: [{{legal_hold: {{document: doc_mock_draft}}}}]
"""
        loaded = client.post("/_mock/scenarios", json={"yaml": timeline, "source": "later.yaml"})
        assert loaded.status_code == 201, loaded.text
        [delivery] = receiver.wait_for(1, timeout=WAIT)
    event = json.loads(delivery.body)
    assert event["type"] == "document.legal_hold_placed"
    assert "doc_mock_draft" in delivery.body.decode()
