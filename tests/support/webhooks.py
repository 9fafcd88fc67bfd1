"""Helpers of the webhook tests: registering endpoints, reading the journal, verifying."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import httpx
import stripe

from mockserver.core.clock import parse_ts
from mockserver.testing.receiver import Received

START = int(parse_ts("2026-01-15T09:00:00Z"))  # the frozen clock's start


def register(
    client: httpx.Client, url: str, events: list[str] | None = None, **headers: str
) -> dict[str, Any]:
    response = client.post(
        "/v1/webhook_endpoints", json={"url": url, "events": events or ["*"]}, headers=headers
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def wide(text: str) -> str:
    """`text` in fullwidth forms (U+FF01..U+FF5E), as some keyboards type them."""
    return text.translate({c: c + 0xFEE0 for c in range(0x21, 0x7F)})


def deliveries(client: httpx.Client, **filters: str) -> list[dict[str, Any]]:
    response = client.get("/_mock/webhooks/deliveries", params=filters)
    assert response.status_code == 200, response.text
    data: list[dict[str, Any]] = response.json()["data"]
    return data


def settle(client: httpx.Client) -> None:
    """Wait for every attempt under way (the mock bounds the wait)."""
    response = client.post("/_mock/webhooks/wait")
    assert response.status_code == 200, response.text
    assert response.json()["idle"] is True


def advance(client: httpx.Client, seconds: float) -> dict[str, Any]:
    response = client.post("/_mock/clock/advance", json={"seconds": seconds})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def new_document(client: httpx.Client, title: str = "Contract", **headers: str) -> str:
    response = client.post(
        "/v1/documents", json={"title": title, "vault_id": "vault_mock_us"}, headers=headers
    )
    assert response.status_code == 201, response.text
    doc_id: str = response.json()["id"]
    return doc_id


def t_of(request: Received) -> int:
    """The `t` of a delivery's signature header."""
    fields = dict(item.split("=", 1) for item in request.headers["x-service-signature"].split(","))
    return int(fields["t"])


def verify_recipe(body: bytes, header: str, secret: str, now: int, tolerance: int = 300) -> bool:
    """The webhook guide's verification recipe, against a clock the caller chooses."""
    fields = dict(item.split("=", 1) for item in header.split(","))
    t = int(fields["t"])
    expected = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields["v1"]) and abs(now - t) <= tolerance


def verify_both(request: Received, secret: str, now: int) -> None:
    """The delivery verifies with Stripe's library and with our recipe, and with neither when
    the secret or the body is wrong."""
    header = request.headers["x-service-signature"]
    # tolerance=None: the frozen mock clock is far from the wall clock Stripe compares with.
    assert stripe.WebhookSignature.verify_header(request.body, header, secret, None) is True
    assert verify_recipe(request.body, header, secret, now)
    assert not verify_recipe(request.body + b" ", header, secret, now)
    assert not verify_recipe(request.body, header, secret + "x", now)
    try:
        stripe.WebhookSignature.verify_header(request.body, header, "whsec_wrong", None)
    except stripe.SignatureVerificationError:
        pass
    else:
        raise AssertionError("a wrong secret verified")
