"""A shared server is no way into its network: a webhook URL that names a link-local address
(169.254.0.0/16, fe80::/10, where cloud metadata services answer) is refused at registration,
and a delivery whose host resolves to one at send time fails without connecting.

Resolution is the delivery engine's sender's `resolver`, which these tests replace with a table of
their own: a name made to resolve to a link-local address and, first, to the loopback address
of a receiver. A delivery that connected anyway would reach that receiver and nothing else,
so no test ever sends a packet beyond loopback.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.errors import SeedError
from mockserver.seeds.loader import load_seed
from mockserver.testing.receiver import WebhookReceiver, closed_port
from mockserver.webhooks import targets
from tests.support.api import assert_envelope
from tests.support.webhooks import deliveries, new_document, register, settle

Table = dict[str, list[str]]


@pytest.mark.parametrize(
    "url",
    [
        "https://169.254.169.254/latest/meta-data/",
        "https://169.254.0.1:8443/hooks",
        "https://[fe80::1]/hooks",
        "https://[fe80::a9fe:a9fe%25eth0]/hooks",
        "https://[::ffff:169.254.169.254]/hooks",
        "https://2852039166/hooks",  # 169.254.169.254 as one number
        "https://0xa9fea9fe/hooks",
        "https://169.254.43518/hooks",
        "http://169.254.169.254/hooks",
    ],
)
def test_a_link_local_url_is_refused_at_registration(inproc: httpx.Client, url: str) -> None:
    response = inproc.post("/v1/webhook_endpoints", json={"url": url, "events": ["*"]})
    error = assert_envelope(response, 422, "validation_error")
    assert error["param"] == "url"
    assert "link-local" in error["message"]
    assert inproc.get("/v1/webhook_endpoints").json()["data"] == []


@pytest.mark.parametrize(
    "url", ["https://169.253.255.255/hooks", "https://[fec0::1]/hooks", "https://254.169.1.1/x"]
)
def test_addresses_beside_the_link_local_ranges_are_taken(inproc: httpx.Client, url: str) -> None:
    assert register(inproc, url, ["vault.created"])["url"] == url


def test_a_scenario_cannot_add_a_link_local_endpoint(inproc: httpx.Client) -> None:
    text = (
        "name: t\nsetup:\n"
        "  - add_webhook_endpoint: {url: 'https://169.254.169.254/x', events: ['*']}\n"
    )
    response = inproc.post("/_mock/scenarios", json={"yaml": text})
    error = assert_envelope(response, 422, "validation_error")
    assert "link-local" in error["message"]
    assert inproc.get("/v1/webhook_endpoints").json()["data"] == []


def test_a_seed_cannot_hold_a_link_local_endpoint(tmp_path: Path) -> None:
    seed = tmp_path / "hooks.yaml"
    seed.write_text(
        "version: 1\naccounts:\n  - id: acct_x\n    name: X\n    default_region: us\n"
        "    environments:\n      sandbox:\n        webhook_endpoints:\n"
        "          - id: whk_x\n            url: https://[fe80::1]/hooks\n"
        "            events: ['*']\n            secret: whsec_abcdefabcdefabcdefabcdef\n"
        "            created_at: '2025-01-01T00:00:00Z'\n"
    )
    with pytest.raises(SeedError, match="link-local"):
        load_seed(seed)


@pytest.fixture
def resolve(hooks_app: Starlette, monkeypatch: pytest.MonkeyPatch) -> Callable[[Table], None]:
    """Make the delivery engine resolve names from a table (any other name: no address)."""

    def use(table: Table) -> None:
        async def resolver(host: str, port: int) -> list[str]:
            if host not in table:
                raise OSError(f"{host}: no such name in the test's table")
            return table[host]

        monkeypatch.setattr(hooks_app.state.webhooks.sender, "resolver", resolver)

    return use


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as server:
        yield server


@pytest.mark.parametrize("link_local", ["169.254.169.254", "fe80::1"])
def test_a_name_that_resolves_to_a_link_local_address_is_never_connected_to(
    inproc: httpx.Client,
    resolve: Callable[[Table], None],
    receiver: WebhookReceiver,
    link_local: str,
) -> None:
    resolve({"localhost": ["127.0.0.1", link_local]})  # the receiver's address comes first
    register(inproc, f"http://localhost:{receiver.port}/hooks", ["document.created"])
    new_document(inproc)
    settle(inproc)
    [delivery] = deliveries(inproc)
    [attempt] = delivery["attempts"]
    assert attempt["status_code"] is None
    assert attempt["error"].startswith(f"refused: localhost resolves to {link_local}, ")
    assert "link-local" in attempt["error"]
    assert receiver.received == []  # not even the loopback address was tried
    assert delivery["status"] == "pending"  # a failure like any other: retried on schedule


def test_a_delivery_goes_to_the_checked_address_with_the_hosts_name(
    inproc: httpx.Client, resolve: Callable[[Table], None], receiver: WebhookReceiver
) -> None:
    resolve({"localhost": ["127.0.0.1"]})
    register(inproc, f"http://localhost:{receiver.port}/hooks", ["document.created"])
    new_document(inproc)
    settle(inproc)
    [received] = receiver.received
    assert received.headers["host"] == f"localhost:{receiver.port}"
    [delivery] = deliveries(inproc)
    assert delivery["status"] == "succeeded"


def test_every_checked_address_is_tried_in_turn(
    inproc: httpx.Client, resolve: Callable[[Table], None], receiver: WebhookReceiver
) -> None:
    resolve({"localhost": ["127.0.0.2", "127.0.0.1"]})  # nothing listens on 127.0.0.2
    register(inproc, f"http://localhost:{receiver.port}/hooks", ["document.created"])
    new_document(inproc)
    settle(inproc)
    assert len(receiver.received) == 1


def test_a_name_that_does_not_resolve_fails_to_connect(
    inproc: httpx.Client, resolve: Callable[[Table], None]
) -> None:
    resolve({})
    register(inproc, f"http://localhost:{closed_port()}/hooks", ["document.created"])
    new_document(inproc)
    settle(inproc)
    [attempt] = deliveries(inproc)[0]["attempts"]
    assert attempt["error"].startswith("connection failed: localhost: no such name")


@pytest.mark.parametrize("host", ["169.254.169.254", "fe80::1", "::ffff:169.254.169.254"])
def test_a_link_local_literal_is_refused_without_a_lookup(host: str) -> None:
    """What a snapshot or a state directory could bring back without registering it."""

    async def resolver(host: str, port: int) -> list[str]:
        raise AssertionError("an address is not looked up")

    with pytest.raises(targets.Refused, match="link-local"):
        asyncio.run(targets.addresses(host, 443, resolver))
    assert asyncio.run(targets.addresses("127.0.0.1", 443, resolver)) == ["127.0.0.1"]
