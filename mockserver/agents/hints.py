"""What a model should do next after a refusal: a hint from the error envelope's type and
`param` (and, for a refused API request, the journal's `explain` of why)."""

from __future__ import annotations

from typing import Any

BY_TYPE = {
    "validation_error": "Fix the argument named by `param` (the message says what it must be) "
    "and call again.",
    "not_found": "Nothing of that id or name exists here: the list tools (scenarios_list, "
    "snapshots_list, requests_list, deliveries_list, accounts_list) show what does.",
    "conflict": "The sandbox's state does not allow this now: status and the list tools show "
    "that state; change it first.",
    "authentication_error": "The call lacks a valid credential: for the control plane, start "
    "the MCP server with the mock's --admin-token; for the API, pass one of the keys status "
    "shows.",
    "permission_error": "The credential may not do this: use a key with the scope the message "
    "names, or call from an allowed origin.",
    "rate_limit_error": "Wait the retry_after seconds, or move the clock (clock_advance) so the "
    "rate window passes.",
    "bad_request": "The request itself is malformed: fix the field the message names.",
}
BY_CHECK = {
    "authentication": "The key was missing, malformed, unknown, revoked or expired.",
    "scope": "The key lacks the scope the operation needs (`needed`); use a key that holds it.",
    "not_found": "The object does not exist for this key (or lives in another region: "
    "`region` says where; send the request to that region's path, /eu/v1 or /us/v1).",
    "state": "The object's status does not allow the operation (`current` versus `allowed`).",
    "idempotency": "An Idempotency-Key was reused with a different request (`differs`), or "
    "its first request is still running.",
    "rate_limit": "The key's rate window is full: wait `retry_after` seconds or advance the clock.",
    "validation": "A field of the body or query is invalid (`param`).",
    "request": "The request is malformed (`param`).",
    "scenario": "A loaded scenario's rule answered it (`rule`, `scenario`): scenario_unload "
    "disarms it.",
    "internal": "The mock failed: this is a mock bug, not the client's.",
}


def envelope_of(body: Any) -> dict[str, Any] | None:
    """The `error` object of an envelope, if `body` is one."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error: dict[str, Any] = body["error"]
        return error
    return None


def hint(body: Any, explain: dict[str, Any] | None = None) -> str:
    """The hint for an error answer `body`; with the journal's `explain`, why it was refused."""
    parts: list[str] = []
    if explain:
        reasons = ", ".join(f"{k}={v}" for k, v in explain.items() if k != "message")
        parts.append(f"Why the mock refused it: {reasons}.")
        check_hint = BY_CHECK.get(str(explain.get("check")))
        if check_hint:
            parts.append(check_hint)
        return " ".join(parts)
    error = envelope_of(body)
    if error is not None:
        type_hint = BY_TYPE.get(str(error.get("type")))
        if type_hint:
            parts.append(type_hint)
    return " ".join(parts) or "See the message."
