"""Webhook URLs are normalised when registered: a host in other Unicode forms (fullwidth digits
and dots, an internationalised name) is stored as the ASCII name a resolver and an HTTP client
read, so what is checked is what a delivery connects to, and every delivery can be attempted.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from mockserver.core.errors import SeedError
from mockserver.seeds.loader import load_seed
from mockserver.testing.receiver import closed_port
from tests.support.api import assert_envelope
from tests.support.webhooks import deliveries, new_document, register, settle, wide

FULLWIDTH_METADATA = wide("169.254.169.254")


@pytest.mark.parametrize(
    "url",
    [
        f"https://{FULLWIDTH_METADATA}/hook",
        "https://"
        + wide("169")
        + "\u3002"
        + wide("254")
        + "\u3002169\u3002254/hook",  # ideographic stops
        "https://169.254.169.254\uff0e/hook",  # a fullwidth trailing dot
        f"http://{wide('169.254.0.1')}:80/x",
    ],
)
def test_a_host_that_normalises_to_a_link_local_address_is_refused(
    inproc: httpx.Client, url: str
) -> None:
    response = inproc.post("/v1/webhook_endpoints", json={"url": url, "events": ["*"]})
    error = assert_envelope(response, 422, "validation_error")
    assert error["param"] == "url"
    assert "link-local" in error["message"]
    assert inproc.get("/v1/webhook_endpoints").json()["data"] == []


@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("https://bücher.example/hook", "https://xn--bcher-kva.example/hook"),
        (f"https://{wide('HOOKS.')}example/in?a=1", "https://hooks.example/in?a=1"),
        (f"https://hooks.example:{wide('8443')}/in", "https://hooks.example:8443/in"),
        ("https://user@bücher.example:8443/ü", "https://user@xn--bcher-kva.example:8443/ü"),
        (f"http://{wide('localhost')}/hooks", "http://localhost/hooks"),
    ],
)
def test_the_normalised_url_is_stored(inproc: httpx.Client, url: str, stored: str) -> None:
    assert register(inproc, url, ["vault.created"])["url"] == stored
    [listed] = inproc.get("/v1/webhook_endpoints").json()["data"]
    assert listed["url"] == stored


@pytest.mark.parametrize(
    "url",
    [
        "https://" + "a" * 64 + ".example/hook",  # a label longer than DNS allows
        "https://hooks..example/hook",  # an empty label
        "https://\u00ad/hook",  # a host that normalises to nothing
        f"https://[{wide('fe80::1')}]/hook",  # an IPv6 address is written in ASCII
        "https://hooks.example\uff0f@169.254.169.254/",  # NFKC would make it another URL
    ],
)
def test_a_host_that_is_no_name_is_refused(inproc: httpx.Client, url: str) -> None:
    response = inproc.post("/v1/webhook_endpoints", json={"url": url, "events": ["*"]})
    error = assert_envelope(response, 422, "validation_error")
    assert error["param"] == "url"


def test_a_fullwidth_loopback_host_is_delivered_to_and_the_queue_moves(
    inproc: httpx.Client,
) -> None:
    """Each delivery to a registered URL ends as an attempt: none is left in flight."""
    register(inproc, f"http://{wide('127.0.0.1')}:{closed_port()}/hook", ["document.created"])
    new_document(inproc)
    new_document(inproc)
    settle(inproc)
    first, second = deliveries(inproc)
    for delivery in (first, second):
        assert delivery["in_flight"] is False
    assert sum(len(d["attempts"]) for d in (first, second)) == 1
    [attempt] = [a for d in (first, second) for a in d["attempts"]]
    assert attempt["error"].startswith("connection failed")


def _seed(tmp_path: Path, url: str) -> Path:
    seed = tmp_path / "hooks.yaml"
    seed.write_text(
        "version: 1\naccounts:\n  - id: acct_x\n    name: X\n    default_region: us\n"
        "    environments:\n      sandbox:\n        webhook_endpoints:\n"
        f"          - id: whk_x\n            url: '{url}'\n"
        "            events: ['*']\n            secret: whsec_abcdefabcdefabcdefabcdef\n"
        "            created_at: '2025-01-01T00:00:00Z'\n",
        encoding="utf-8",
    )
    return seed


def test_a_seed_is_normalised_like_the_api(tmp_path: Path) -> None:
    with pytest.raises(SeedError, match="link-local"):
        load_seed(_seed(tmp_path, f"https://{FULLWIDTH_METADATA}/hook"))
    seed = load_seed(_seed(tmp_path, "https://bücher.example/hook"))
    [hook] = seed.environments["acct_x", "sandbox"].webhook_endpoints
    assert hook.url == "https://xn--bcher-kva.example/hook"
