"""A clock move makes the attempts due at one time to different endpoints together, and the
result is the same as making them one by one: the same journal, the same requests to each
receiver, in the same order, with the same signatures."""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

import pytest

from mockserver.core import scheduler
from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import WebhookReceiver, closed_port
from mockserver.web.app import create_app
from mockserver.webhooks.deliveries import RETRY_OFFSETS
from tests.support.keys import auth
from tests.support.webhooks import advance, deliveries, new_document, register, settle, t_of

ALWAYS_500 = [500] * len(RETRY_OFFSETS) * 3


def run(batch_max: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[Any]]:
    """Five endpoints (four scripted receivers, one refusing), three documents, a redelivery,
    then 24 h and a minute: the journal without real durations, and each receiver's requests."""
    monkeypatch.setattr(scheduler, "BATCH_MAX", batch_max)
    app = create_app(Settings(clock_mode="frozen", webhook_timeout=30.0))
    scripts = [ALWAYS_500, [500] * 4, [503, 404] * 20, ALWAYS_500]
    with ExitStack() as stack, inprocess_client(app, headers=auth()) as client:
        receivers = [stack.enter_context(WebhookReceiver()) for _ in scripts]
        for receiver, script in zip(receivers, scripts, strict=True):
            receiver.respond(*script)  # then 200
            register(client, receiver.url, ["document.created"])
        register(client, f"http://127.0.0.1:{closed_port()}/hooks", ["document.created"])
        new_document(client, "first")
        new_document(client, "second")
        settle(client)
        advance(client, 600)
        oldest = deliveries(client)[0]["id"]
        redelivered = client.post(f"/_mock/webhooks/deliveries/{oldest}/redeliver")
        assert redelivered.status_code == 202
        new_document(client, "third")
        settle(client)
        advance(client, 86400 + 60)
        journal = deliveries(client)
        settle(client)
    urls = [r.url for r in receivers]
    for delivery in journal:  # receivers' ports differ from run to run; real durations too
        delivery["url"] = urls.index(delivery["url"]) if delivery["url"] in urls else "refused"
        for attempt in delivery["attempts"]:
            attempt.pop("duration_ms")
    requests = [
        [
            (json.loads(r.body)["id"], t_of(r), r.headers["x-service-signature"])
            for r in rec.received
        ]
        for rec in receivers
    ]
    return journal, requests


def test_attempts_made_together_give_what_attempts_made_one_by_one_give(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    together = scheduler.BATCH_MAX
    assert together > 1
    journal, requests = run(together, monkeypatch)
    one_by_one = run(1, monkeypatch)
    assert journal == one_by_one[0]
    assert requests == one_by_one[1]
    statuses = {d["status"] for d in journal}
    assert statuses == {"failed", "succeeded", "pending"}
    assert sum(len(d["attempts"]) for d in journal) > 100
