"""With a real clock and the app's lifespan (as `mockserver run` serves it), retries fall due and
are sent by the ticker, with no request to the mock."""

from __future__ import annotations

import httpx

from mockserver.core.clock import format_ts, parse_ts
from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.testing.receiver import WebhookReceiver
from mockserver.web.app import create_app
from tests.support.keys import auth
from tests.support.webhooks import deliveries, new_document, register, settle


def test_retries_are_sent_without_any_request() -> None:
    app = create_app(
        Settings(clock_mode="real", start_time="2026-01-15T09:00:00Z", webhook_timeout=30.0)
    )
    server = LiveServer(app, lifespan=True).start()
    try:
        with (
            WebhookReceiver() as receiver,
            httpx.Client(base_url=server.base_url, headers=auth(), timeout=30) as client,
        ):
            receiver.respond(500)  # then 200
            register(client, receiver.url, ["document.created"])
            new_document(client)
            receiver.wait_for(1)
            settle(client)
            [pending] = deliveries(client)
            # One second before the retry is due: the clock move itself runs nothing...
            just_before = format_ts(parse_ts(pending["next_attempt_at"]) - 1)
            moved = client.post("/_mock/clock/set", json={"at": just_before})
            assert moved.status_code == 200
            assert moved.json()["timers_run"] == 0
            # ...and with no request at all, the ticker sends the retry when the clock gets there.
            receiver.wait_for(2, timeout=30)
            settle(client)
            [done] = deliveries(client)
            assert done["status"] == "succeeded"
            retried_at = parse_ts(done["attempts"][1]["at"])
            assert retried_at >= parse_ts(pending["next_attempt_at"])  # on the clock, not before
    finally:
        server.stop()
