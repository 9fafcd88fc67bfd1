"""The audit chain as a client reads it: every event, and the documented verification recipe."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx


def all_events(client: httpx.Client, query: str = "", prefix: str = "/v1") -> list[dict[str, Any]]:
    """Every event of the chain, oldest first, walking the cursors."""
    events: list[dict[str, Any]] = []
    cursor = ""
    while True:
        body = client.get(f"{prefix}/audit_logs?limit=100{query}{cursor}").json()
        events.extend(body["data"])
        if not body["has_more"]:
            return events[::-1]
        cursor = f"&cursor={body['next_cursor']}"


def verify(events: list[dict[str, Any]]) -> None:
    """The documentation's recipe (the first ten minutes), verbatim."""
    prev = "0" * 64
    for event in events:
        body = {k: v for k, v in event.items() if k != "hash"}
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        assert event["prev_hash"] == prev, f"broken link at {event['id']}"
        assert event["hash"] == digest, f"altered event {event['id']}"
        prev = event["hash"]
