"""The inspector's webhooks page over HTTP, without a browser: deliveries grouped by endpoint
with a summary of their states, the delivery being tried before the queued ones, what each
queued one waits for, short ids and short button labels; and the view filtered by account."""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.engine import inspector_webhooks
from mockserver.engine.inspector_webhooks import MAX_ATTEMPTS, endpoint_groups
from mockserver.testing.receiver import HOLD, WebhookReceiver, closed_port
from tests.support.keys import EU, auth
from tests.support.webhooks import advance, deliveries, register, settle

UI = "/_mock/ui"


def dead_endpoint(client: httpx.Client, events: int) -> dict[str, Any]:
    """An endpoint nothing answers (connection refused), and `events` vaults made for it."""
    endpoint = register(client, f"http://127.0.0.1:{closed_port()}/hooks", ["vault.created"])
    for n in range(events):
        response = client.post("/v1/vaults", json={"name": f"Vault {n}", "region": "us"})
        assert response.status_code == 201, response.text
    settle(client)
    return endpoint


def sections(page: str) -> list[str]:
    """The endpoint sections of a webhooks page, in order."""
    return re.findall(r'<section class="endpoint".*?</section>', page, re.S)


def listed(section: str) -> list[str]:
    """The delivery ids of an endpoint section, in the order the page lists them."""
    return re.findall(r'data-testid="delivery" data-delivery="(whd_\w+)"', section)


def article(section: str, delivery_id: str) -> str:
    found = re.search(rf'<article [^>]*data-delivery="{delivery_id}".*?</article>', section, re.S)
    assert found is not None, delivery_id
    return found.group(0)


def text(fragment: str) -> str:
    """What a reader sees of an HTML fragment: tags dropped, entities read, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def summary(section: str) -> str:
    found = re.search(r'data-testid="endpoint-summary">([^<]*)<', section)
    assert found is not None
    return found.group(1)


def test_a_dead_endpoint_is_one_group_whose_summary_counts_its_deliveries(
    api: httpx.Client,
) -> None:
    endpoint = dead_endpoint(api, 5)
    [group] = sections(api.get(f"{UI}/webhooks").text)
    assert f'data-endpoint="{endpoint["id"]}"' in group
    assert endpoint["url"] in group
    assert '<span class="tag st-active" data-testid="endpoint-state">active</span>' in group
    assert "vault.created" in text(group.split("</p>", 1)[0])  # what it is subscribed to
    assert summary(group) == "1 retrying · 4 queued"
    assert len(listed(group)) == 5
    # A day later the first event has had every attempt and failed; the next one is retried.
    advance(api, 86400)
    settle(api)
    [group] = sections(api.get(f"{UI}/webhooks").text)
    statuses = Counter(d["status"] for d in deliveries(api))
    assert statuses == {"failed": 1, "pending": 4}
    assert summary(group) == "1 retrying · 3 queued · 1 failed"


def test_the_delivery_being_tried_comes_before_the_queued_ones(api: httpx.Client) -> None:
    dead_endpoint(api, 4)
    journal = [d["id"] for d in deliveries(api)]  # oldest first: the head, then the queue
    [group] = sections(api.get(f"{UI}/webhooks").text)
    assert listed(group) == journal
    head = article(group, journal[0])
    assert head.count('data-testid="attempt"') == 1
    assert 'data-testid="next-retry"' in head
    assert f"retry at 2026-01-15T09:01:00Z: attempt 2 of {MAX_ATTEMPTS}" in text(head)
    assert "the last try is at 2026-01-16T09:00:00Z" in text(head)  # 24 h after the first
    for queued in journal[1:]:
        assert 'data-testid="attempt"' not in article(group, queued)
        assert ">queued</span>" in article(group, queued)


def test_finished_deliveries_follow_the_one_being_tried_newest_first(api: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        register(api, receiver.url, ["vault.created"])
        receiver.respond(200, 200, 500)  # the third event is retried
        for n in range(4):
            api.post("/v1/vaults", json={"name": f"Vault {n}", "region": "us"})
        settle(api)
        journal = [d["id"] for d in deliveries(api)]
        [group] = sections(api.get(f"{UI}/webhooks").text)
    assert listed(group) == [journal[2], journal[1], journal[0], journal[3]]
    assert summary(group) == "2 delivered · 1 retrying · 1 queued"


def test_a_queued_delivery_names_what_it_waits_for(api: httpx.Client) -> None:
    dead_endpoint(api, 3)
    head, second, third = deliveries(api)
    [group] = sections(api.get(f"{UI}/webhooks").text)
    waits = re.search(r'data-testid="waits">(.*?)</p>', article(group, second["id"]))
    assert waits is not None
    said = text(waits.group(1))
    assert said == (
        f"Waits behind vault.created {head['event_id']} "
        f"(delivery {head['id']}): attempt 1 of {MAX_ATTEMPTS} failed, "
        "next at 2026-01-15T09:01:00Z, the last try at 2026-01-16T09:00:00Z."
    )
    assert f'title="{head["event_id"]}"' in waits.group(1)  # the whole id, to read or copy
    assert f'data-copy="{head["id"]}"' in waits.group(1)
    last = re.search(r'data-testid="waits">(.*?)</p>', article(group, third["id"]))
    assert last is not None
    assert text(last.group(1)).endswith("2 deliveries are ahead of this one.")


def test_queued_behind_an_attempt_under_way(api: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        register(api, receiver.url, ["vault.created"])
        receiver.respond(HOLD)
        api.post("/v1/vaults", json={"name": "Held", "region": "us"})
        api.post("/v1/vaults", json={"name": "Behind", "region": "us"})
        receiver.wait_for(1)
        held, behind = deliveries(api)
        [group] = sections(api.get(f"{UI}/webhooks").text)
        receiver.release()
        settle(api)
    assert summary(group) == "1 sending · 1 queued"
    assert f"attempt 1 of {MAX_ATTEMPTS} under way" in text(article(group, held["id"]))
    assert f"its attempt 1 of {MAX_ATTEMPTS} is under way." in text(article(group, behind["id"]))


def test_the_head_held_back_by_a_scenario_says_when_its_first_attempt_is(
    api: httpx.Client,
) -> None:
    endpoint = register(api, f"http://127.0.0.1:{closed_port()}/hooks", ["vault.created"])
    rule = f"{{name: later, endpoint: {endpoint['id']}, fault: delay, delay_seconds: 120}}"
    loaded = api.post("/_mock/scenarios", json={"yaml": f"name: later\nwebhooks:\n  - {rule}\n"})
    assert loaded.status_code == 201, loaded.text
    api.post("/v1/vaults", json={"name": "Later", "region": "us"})
    api.post("/v1/vaults", json={"name": "After", "region": "us"})
    first, second = deliveries(api)
    [group] = sections(api.get(f"{UI}/webhooks").text)
    assert summary(group) == "2 queued"
    assert "Next in line: first attempt at 2026-01-15T09:02:00Z." in text(
        article(group, first["id"])
    )
    assert "its first attempt is at 2026-01-15T09:02:00Z." in text(article(group, second["id"]))


def test_no_button_label_holds_a_whole_id(api: httpx.Client) -> None:
    dead_endpoint(api, 2)
    with WebhookReceiver() as receiver:
        register(api, receiver.url, ["vault.created"])
        api.post("/v1/vaults", json={"name": "Delivered", "region": "us"})
        settle(api)
    page = api.get(f"{UI}/webhooks").text
    journal = deliveries(api)
    ids = {d["id"] for d in journal} | {d["event_id"] for d in journal}
    labels = {text(label) for label in re.findall(r"<button[^>]*>(.*?)</button>", page, re.S)}
    assert not [(label, i) for label in labels for i in ids if i in label]
    assert labels == {"Filter", "Trigger event", "Redeliver", "Resend event"}
    assert page.count(">Redeliver</button>") == len(journal)
    for whole in ids:  # shown whole (never cut), in its tooltip and for copying
        assert f'<code class="id" title="{whole}" data-copy="{whole}">{whole}<' in page


def test_the_page_and_its_stylesheet_use_no_icon_glyphs(api: httpx.Client) -> None:
    dead_endpoint(api, 2)
    page = api.get(f"{UI}/webhooks").text
    assert {c for c in page if not c.isascii()} <= {"·", "…"}  # in every font
    assert api.get(f"{UI}/static/inspector.css").text.isascii()


def test_a_deleted_endpoint_keeps_its_group_without_redelivery(api: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        endpoint = register(api, receiver.url, ["vault.created"])
        api.post("/v1/vaults", json={"name": "Before", "region": "us"})
        settle(api)
    assert api.delete(f"/v1/webhook_endpoints/{endpoint['id']}").status_code == 200
    [group] = sections(api.get(f"{UI}/webhooks").text)
    assert ">deleted</span>" in group
    assert "deleted, gets no new events" in text(group)
    assert summary(group) == "1 delivered"
    assert "/redeliver" not in group  # it would be refused: the endpoint is gone
    assert "/resend" in group


def test_the_status_filter_keeps_the_groups_with_such_deliveries(api: httpx.Client) -> None:
    dead_endpoint(api, 2)
    with WebhookReceiver() as receiver:
        register(api, receiver.url, ["vault.created"])
        api.post("/v1/vaults", json={"name": "Delivered", "region": "us"})
        settle(api)
    both = sections(api.get(f"{UI}/webhooks").text)
    assert [summary(s) for s in both] == ["1 retrying · 2 queued", "1 delivered"]
    [pending] = sections(api.get(f"{UI}/webhooks", params={"status": "pending"}).text)
    assert len(listed(pending)) == 3
    assert summary(pending) == "1 retrying · 2 queued"
    [delivered] = sections(api.get(f"{UI}/webhooks", params={"status": "succeeded"}).text)
    assert len(listed(delivered)) == 1
    empty = api.get(f"{UI}/webhooks", params={"status": "dropped"}).text
    assert sections(empty) == []
    assert "No delivery with status dropped." in empty


def test_a_long_queue_lists_its_first_deliveries_and_counts_them_all(
    api: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inspector_webhooks, "SHOWN", 3)
    endpoint = dead_endpoint(api, 5)
    journal = [d["id"] for d in deliveries(api)]
    [group] = sections(api.get(f"{UI}/webhooks").text)
    assert listed(group) == journal[:3]
    assert summary(group) == "1 retrying · 4 queued"
    more = re.search(r'data-testid="more">(.*?)</p>', group)
    assert more is not None
    assert text(more.group(1)) == (
        f"2 more not shown; GET /_mock/webhooks/deliveries?endpoint_id={endpoint['id']} "
        "lists them all."
    )


def test_an_endpoint_with_no_delivery_yet_is_shown(api: httpx.Client) -> None:
    assert "No webhook endpoint yet." in api.get(f"{UI}/webhooks").text
    register(api, "http://127.0.0.1:9/hooks", ["*"])
    [group] = sections(api.get(f"{UI}/webhooks").text)
    assert summary(group) == "no delivery yet"
    assert "every event type" in text(group)


def test_the_view_keeps_one_account_when_asked(api: httpx.Client, fresh_app: Starlette) -> None:
    # Another account of the seed (one made with POST /_mock/accounts has a sandbox, and a
    # delivery engine, of its own).
    other_key = auth(EU)
    other = {"id": api.get("/v1/whoami", headers=other_key).json()["account_id"]}
    theirs = register(api, f"http://127.0.0.1:{closed_port()}/theirs", ["*"], **other_key)
    api.post("/v1/vaults", json={"name": "Theirs", "region": "eu"}, headers=other_key)
    ours = dead_endpoint(api, 1)
    settle(api)
    engine = fresh_app.state.webhooks
    assert [g.id for g in endpoint_groups(engine)] == [theirs["id"], ours["id"]]
    [only] = endpoint_groups(engine, account_id=other["id"])
    assert (only.id, only.account_id) == (theirs["id"], other["id"])
    assert {d.event_type for d in only.deliveries} == {"vault.created"}
    [mine] = endpoint_groups(engine, account_id="acct_mock_us")
    assert mine.id == ours["id"]
    assert endpoint_groups(engine, account_id="acct_nobody") == []
    assert [g.summary for g in endpoint_groups(engine, "pending", other["id"])] == ["1 retrying"]
