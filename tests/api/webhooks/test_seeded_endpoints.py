"""Webhook endpoints a seed lists: served as if created, delivered to, back after a reset."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.core.errors import SeedError
from mockserver.seeds.loader import load_seed_text
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import WebhookReceiver
from mockserver.web.app import create_app
from tests.support.keys import auth
from tests.support.webhooks import START, settle, verify_both

SEED = """\
version: 1
reference_time: "2025-06-01T12:00:00Z"
accounts:
  - id: acct_hooks
    name: Hooks Ltd
    default_region: eu
    users: [{{email: owner@hooks.example, name: Owner, permissions: all}}]
    keys: [{{key: sk_test_hooks, owner: owner@hooks.example, scopes: all}}]
    environments:
      sandbox:
        vaults:
          - {{id: vault_hooks, name: Hooks, region: eu, created_at: "2025-01-01T00:00:00Z"}}
        webhook_endpoints:
          - id: whk_all
            url: "{url}"
            events: ["*"]
            secret: whsec_seeded_secret
            created_at: "2025-06-01T11:00:00Z"
          - {{id: whk_vaults, url: "https://hooks.example/v", events: [vault.created],
              created_at: "2025-06-01T11:00:00Z"}}
"""


def _app(tmp_path: Path, url: str) -> Starlette:
    path = tmp_path / "seed.yaml"
    path.write_text(SEED.format(url=url), encoding="utf-8")
    return create_app(Settings(clock_mode="frozen", seed_path=path))


def test_seeded_endpoints_are_listed_delivered_to_and_back_after_a_reset(tmp_path: Path) -> None:
    with WebhookReceiver() as receiver:
        app = _app(tmp_path, receiver.url)
        with inprocess_client(app, headers=auth("sk_test_hooks")) as api:
            listed = api.get("/v1/webhook_endpoints").json()["data"]
            # Newest first; the two of one second in the file's order, the last one first.
            assert [e["id"] for e in listed] == ["whk_vaults", "whk_all"]
            # The seed's reference time lands on the clock's start, an hour after the creation.
            assert listed[1] == {
                "id": "whk_all",
                "object": "webhook_endpoint",
                "url": receiver.url,
                "events": ["*"],
                "status": "active",
                "created_at": "2026-01-15T08:00:00Z",
            }
            made = api.post("/eu/v1/documents", json={"title": "T", "vault_id": "vault_hooks"})
            assert made.status_code == 201
            settle(api)
            [delivery] = receiver.wait_for(1)
            verify_both(delivery, "whsec_seeded_secret", START)
            api.delete("/v1/webhook_endpoints/whk_all")
            assert len(api.get("/v1/webhook_endpoints").json()["data"]) == 1
            api.post("/_mock/reset")
            assert len(api.get("/v1/webhook_endpoints").json()["data"]) == 2


def test_an_endpoint_without_a_secret_gets_the_same_one_every_time() -> None:
    seeds = [load_seed_text(SEED.format(url="https://a.example/"), "s") for _ in range(2)]
    secrets = [s.environments[("acct_hooks", "sandbox")].webhook_endpoints[1].secret for s in seeds]
    assert secrets[0] == secrets[1]
    assert secrets[0].startswith("whsec_")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("id: whk_all", "id: hook_all", "invalid id 'hook_all': expected 'whk_'"),
        ('events: ["*"]', "events: []", "must be a non-empty list of event types"),
        ('events: ["*"]', 'events: ["*", vault.created]', "list it alone"),
        ('events: ["*"]', "events: [vault.made]", "unknown event type 'vault.made'"),
        ('events: ["*"]', "events: [vault.created, vault.created]", "duplicate event type"),
        ("secret: whsec_seeded_secret", "secret: seeded", "must start with 'whsec_'"),
        ("secret: whsec_seeded_secret", "colour: red", "unknown field 'colour'"),
        (
            '2025-06-01T11:00:00Z"\n          - {',
            '2025-06-02T00:00:00Z"\n          - {',
            "is after the reference time",
        ),
        ("https://hooks.example/v", "http://hooks.example/v", "only for loopback hosts"),
        ("https://hooks.example/v", "https://hooks.example/v#top", "a URL fragment is never sent"),
        ("https://hooks.example/v", "hooks.example/v", "invalid webhook URL 'hooks.example/v'"),
        ("id: whk_all", "id: whk_vaults", "duplicate webhook endpoint id 'whk_vaults'"),
    ],
)
def test_bad_endpoints_name_their_line(old: str, new: str, message: str) -> None:
    text = SEED.format(url="https://a.example/")
    assert old in text, old
    with pytest.raises(SeedError, match=r"s:1[3-9]: accounts") as caught:
        load_seed_text(text.replace(old, new, 1), "s")
    assert message in str(caught.value)


def test_at_most_sixteen_endpoints_an_environment() -> None:
    many = "".join(
        f'          - {{id: whk_{n}, url: "https://a.example/", events: ["*"], '
        'created_at: "2025-01-01T00:00:00Z"}\n'
        for n in range(17)
    )
    text = SEED.format(url="https://a.example/").split("        webhook_endpoints:\n")[0]
    with pytest.raises(SeedError, match="at most 16 endpoints allowed"):
        load_seed_text(text + "        webhook_endpoints:\n" + many, "s")
