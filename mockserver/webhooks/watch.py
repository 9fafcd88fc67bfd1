"""What the metrics and traces see of webhook attempts: a `Watch` is told of each attempt as it
starts, may add headers to its HTTP request (a trace's `traceparent`), and is told what the
attempt found. The server's engine and its accounts' engines share one list of watches; with
none (metrics and tracing off) an attempt is exactly what it was without them."""

from __future__ import annotations

from typing import Protocol

from mockserver.webhooks.deliveries import Delivery

OUTCOMES = ("delivered", "failed", "refused", "timeout")


class Watching(Protocol):
    """One attempt being watched."""

    headers: list[tuple[str, str]]  # added to the attempt's HTTP request

    def done(self, status: int | None, error: str | None) -> None:
        """The attempt found `status` (None: no answer) and `error` (None: delivered)."""


class Watch(Protocol):
    def attempt(self, delivery: Delivery) -> Watching:
        """An attempt of `delivery` starts."""


def outcome(status: int | None, error: str | None) -> str:
    """An attempt's outcome: `delivered` (a 2xx), `refused` (its host is one the mock does not
    send to), `timeout` (no answer in time, or a scenario's timeout fault), else `failed`."""
    if error is None:
        return "delivered"
    if error.startswith("refused:"):
        return "refused"
    if error.startswith("timeout:") or (status is None and ": timeout, " in error):
        return "timeout"
    return "failed"
