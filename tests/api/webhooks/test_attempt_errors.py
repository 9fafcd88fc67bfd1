"""Whatever goes wrong in an attempt is a failed attempt: recorded with its error, retried on
the schedule, and the endpoint's queue moves on once the delivery has failed. No error (an
unusable URL, an exception a resolver was never meant to raise) leaves a delivery in flight
without an attempt.
"""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette

from mockserver.core.clock import format_ts
from mockserver.webhooks.deliveries import RETRY_OFFSETS, RETRY_WINDOW
from tests.support.webhooks import (
    START,
    advance,
    deliveries,
    new_document,
    register,
    settle,
    wide,
)


def _failed_once_and_retried(client: httpx.Client, error_start: str) -> None:
    """The endpoint's first delivery has one failed attempt and waits for its retry; the second
    waits behind it; nothing is in flight."""
    first, second = deliveries(client)  # oldest first
    [attempt] = first["attempts"]
    assert attempt["status_code"] is None
    assert attempt["error"].startswith(error_start), attempt["error"]
    assert first["status"] == "pending"
    assert first["in_flight"] is False
    assert first["next_attempt_at"] == format_ts(START + RETRY_OFFSETS[1])
    assert second["attempts"] == []
    assert second["in_flight"] is False


def _the_queue_moves(client: httpx.Client) -> None:
    """A day later the first delivery has failed and the second has been attempted."""
    advance(client, RETRY_WINDOW + 1)
    first, second = deliveries(client)  # oldest first
    assert first["status"] == "failed"
    assert len(first["attempts"]) == len(RETRY_OFFSETS)
    assert second["attempts"]


def test_an_exception_the_resolver_was_not_meant_to_raise_is_a_failed_attempt(
    inproc: httpx.Client, hooks_app: Starlette, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        raise RuntimeError("the resolver broke")

    monkeypatch.setattr(hooks_app.state.webhooks.sender, "resolver", resolver)
    register(inproc, "https://hooks.example/in", ["document.created"])
    new_document(inproc)
    new_document(inproc)
    settle(inproc)
    _failed_once_and_retried(inproc, "RuntimeError: the resolver broke")
    _the_queue_moves(inproc)


def test_a_url_the_http_client_refuses_is_a_failed_attempt(
    inproc: httpx.Client, hooks_app: Starlette
) -> None:
    """A URL registered before URLs were normalised (a state directory, a snapshot) that the
    HTTP client cannot send to."""
    created = register(inproc, "https://hooks.example/in", ["document.created"])
    [book] = [b for b in hooks_app.state.webhooks.books.values() if created["id"] in b.endpoints]
    book.endpoints[created["id"]].url = f"https://{wide('169.254.169.254')}/hook"
    new_document(inproc)
    new_document(inproc)
    settle(inproc)
    _failed_once_and_retried(inproc, "unusable URL: ")
    _the_queue_moves(inproc)
