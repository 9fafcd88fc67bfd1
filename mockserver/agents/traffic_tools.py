"""The tools about traffic: one API request, the request journal (list, explain, verify),
webhook deliveries, triggered events and legal holds. An API request goes through the whole
app like any client's; an account-scoped server sends only that account's keys."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from mockserver.agents.client import Broken, MockClient, Refused
from mockserver.agents.hints import hint
from mockserver.agents.tools import Tool, schema
from mockserver.engine.control_plane.webhooks import DEFAULT_KEY

# What a summary of a journal entry keeps (the entry itself also has headers and bodies).
SUMMARY = (
    "seq",
    "request_id",
    "time",
    "account",
    "method",
    "path",
    "query",
    "key",
    "status",
    "rule",
    "explain",
    "fault",
    "committed",
)
ID = {"type": "string", "minLength": 1, "maxLength": 255}


def _summary(entry: dict[str, Any]) -> dict[str, Any]:
    """A journal entry without its headers and bodies."""
    return {name: entry.get(name) for name in SUMMARY}


async def _account_keys(client: MockClient) -> dict[str, str]:
    """The scoped account's API keys (`full`, `readonly`)."""
    assert client.account is not None
    account = await client.control("GET", f"/_mock/accounts/{quote(client.account, safe='')}")
    keys: dict[str, str] = account.get("keys") or {}
    return keys


async def _key(client: MockClient, key: str | None) -> str:
    """The key to send: `key`, else the scope's full key. Scoped to an account, a key that
    is not the account's is refused: the tools act in its sandbox alone."""
    if client.account is None:
        return DEFAULT_KEY if key is None else key
    keys = await _account_keys(client)
    if key is None:
        return keys.get("full", "")
    if key and key not in keys.values():
        raise Refused(
            403,
            {
                "error": {
                    "type": "permission_error",
                    "message": f"This server acts for account {client.account} only: use one "
                    "of its keys (status shows them).",
                    "param": "key",
                }
            },
            "Leave `key` out to send the account's full key, or pass its read-only key.",
        )
    return key


async def _entry(client: MockClient, **query: Any) -> dict[str, Any] | None:
    """The newest journal entry (in scope) that matches `query`."""
    found = await client.control("GET", client.scoped("/requests"), params={**query, "limit": 1})
    data: list[dict[str, Any]] = found.get("data", [])
    return data[0] if data else None


async def api_request(client: MockClient, args: dict[str, Any]) -> Any:
    headers = {name.lower(): value for name, value in (args.get("headers") or {}).items()}
    if "authorization" in headers:
        raise Refused(
            422,
            {
                "error": {
                    "type": "validation_error",
                    "message": "Pass the credential as `key`, not as an Authorization header.",
                    "param": "headers.authorization",
                }
            },
            "Call again with `key`.",
        )
    key = await _key(client, args.get("key"))
    if key:
        headers["authorization"] = f"Bearer {key}"
    method, path = args["method"], args["path"]
    try:
        response = await client.send(method, path, body=args.get("body"), headers=headers)
    except Broken as broken:
        raise await _broken(client, broken, method, path) from None
    try:
        body = response.json()
    except ValueError:
        body = response.text
    request_id = response.headers.get("x-request-id")
    answer = {
        "status": response.status_code,
        "headers": dict(response.headers),
        "body": body,
        "request_id": request_id,
    }
    if response.status_code >= 400:
        entry = None if request_id is None else await _entry(client, request_id=request_id)
        explain = None if entry is None else entry.get("explain")
        raise Refused(response.status_code, body, hint(body, explain), answer)
    return answer


async def _broken(client: MockClient, broken: Broken, method: str, path: str) -> Refused:
    """The tool error of a request whose connection broke: what the fault was, from the
    fault itself (in-process) or the journal's newest entry for the request (over the
    network, where only the connection's end shows)."""
    fault, committed = broken.fault, broken.committed
    if fault is None:
        entry = await _entry(client, method=method, path=path.partition("?")[0])
        if entry is not None and entry.get("fault"):
            fault, committed = entry["fault"], entry.get("committed")
    ran = (
        "The request ran and its effects stay (committed): a retry must not do it twice "
        "(send an Idempotency-Key, or read the state first)."
        if committed
        else "The request did not run (not committed): a retry is safe."
    )
    message = f"{broken} The client got no answer."
    error = {
        "type": "connection_broken",
        "message": message,
        "fault": fault,
        "committed": committed,
    }
    return Refused(
        0,
        {"error": error},
        f"{ran if fault else ''} requests_list and request_explain show the journal's entry "
        "with its `fault` and `committed`.".strip(),
    )


async def requests_list(client: MockClient, args: dict[str, Any]) -> Any:
    params: dict[str, Any] = {
        name: args[name]
        for name in ("method", "path", "status", "account", "request_id")
        if name in args
    }
    params["limit"] = args.get("limit", 20)
    found = await client.control("GET", client.scoped("/requests"), params=params)
    data = found.get("data", [])
    if not args.get("detail"):
        data = [_summary(entry) for entry in data]
    return {"requests": data, "total": found.get("total")}


async def request_explain(client: MockClient, args: dict[str, Any]) -> Any:
    if ("request_id" in args) == ("seq" in args):
        raise Refused(
            422,
            {
                "error": {
                    "type": "validation_error",
                    "message": "Give exactly one of request_id or seq.",
                    "param": "request_id",
                }
            },
            "Pass the X-Request-Id a response carried as request_id, or a journal seq.",
        )
    query = {"request_id": args["request_id"]} if "request_id" in args else {"seq": args["seq"]}
    entry = await _entry(client, **query)
    if entry is None:
        which = next(iter(query.items()))
        raise Refused(
            404,
            {
                "error": {
                    "type": "not_found",
                    "message": f"No journal entry with {which[0]} {which[1]!r} in this scope.",
                    "param": which[0],
                }
            },
            "The journal keeps the latest requests since the last reset; requests_list shows "
            "what it holds.",
        )
    explain = entry.get("explain")
    refused = explain is not None and not entry.get("fault")
    return {
        **_summary(entry),
        "refused": refused,
        "why": hint(entry["response"].get("body"), explain) if explain else None,
        "response_body": entry["response"].get("body"),
    }


async def requests_verify(client: MockClient, args: dict[str, Any]) -> Any:
    matcher = dict(args.get("matcher") or {})
    if "account" in args:
        matcher["account"] = args["account"]
    body: dict[str, Any] = {"matcher": matcher}
    for name in ("count", "at_least", "at_most", "since_seq"):
        if name in args:
            body[name] = args[name]
    return await client.control("POST", client.scoped("/requests/verify"), body)


async def deliveries_list(client: MockClient, args: dict[str, Any]) -> Any:
    params: dict[str, Any] = {
        name: args[name] for name in ("status", "event_type", "after", "account") if name in args
    }
    return await client.control("GET", client.scoped("/webhooks/deliveries"), params=params)


async def delivery_redeliver(client: MockClient, args: dict[str, Any]) -> Any:
    delivery = quote(args["delivery_id"], safe="")
    return await client.control("POST", client.scoped(f"/webhooks/deliveries/{delivery}/redeliver"))


async def event_trigger(client: MockClient, args: dict[str, Any]) -> Any:
    body: dict[str, Any] = {"type": args["type"], "key": await _key(client, args.get("key"))}
    if "overrides" in args:
        body["overrides"] = args["overrides"]
    return await client.control("POST", "/_mock/events/trigger", body)


async def legal_hold(client: MockClient, args: dict[str, Any]) -> Any:
    document = quote(args["document_id"], safe="")
    path = client.scoped(f"/documents/{document}/legal_hold")
    return await client.control("POST", path, {"on": args.get("on", True)})


SCOPE_NOTE = " Scoped to an account, only that account's are seen."
REQUEST_FIELDS = {
    "method": {"type": "string", "minLength": 1, "maxLength": 16},
    "path": {"type": "string", "minLength": 1, "maxLength": 2048},
    "status": {"type": "integer", "minimum": 100, "maximum": 599},
    "account": ID,
}
COUNTS = {
    "count": {"type": "integer", "minimum": 0},
    "at_least": {"type": "integer", "minimum": 0},
    "at_most": {"type": "integer", "minimum": 0},
    "since_seq": {"type": "integer", "minimum": 0},
}

TOOLS = [
    Tool(
        "api_request",
        "Make one request to the mocked API (/v1, or /us/v1 and /eu/v1 for a region), exactly "
        "as a client would: it is authenticated, rate-limited, journaled and may be answered by "
        'a loaded scenario\'s rule. `key` is the API key (default: the full-scope key; "" sends '
        "none); `body` is JSON; `headers` adds headers such as Idempotency-Key. Returns status, "
        "headers, body and request_id. An error answer is a tool error carrying the API's error "
        "envelope and why the mock refused it. Changes whatever the request changes.",
        schema(
            {
                "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
                "path": {
                    "type": "string",
                    "pattern": "^/((us|eu)/)?v1(/|\\?|$)",
                    "maxLength": 2048,
                },
                "key": {"type": "string", "maxLength": 255},
                "body": {"type": ["object", "array"]},
                "headers": {
                    "type": "object",
                    "additionalProperties": {"type": "string", "maxLength": 1024},
                },
            },
            ["method", "path"],
        ),
        api_request,
    ),
    Tool(
        "requests_list",
        "List the request journal, newest first: each API request with its seq, request_id, "
        "method, path, status, masked key, the scenario rule that answered it, the transport "
        "fault that broke it (`fault`, `committed`) and, for an error, `explain` (why it was "
        "refused). Filters: method, path (a prefix), status, account, request_id; `limit` (1 to "
        "10000, default 20); `detail` adds headers and bodies. Changes nothing." + SCOPE_NOTE,
        schema(
            {
                **REQUEST_FIELDS,
                "request_id": ID,
                "limit": {"type": "integer", "minimum": 1, "maximum": 10000},
                "detail": {"type": "boolean"},
            }
        ),
        requests_list,
        read_only=True,
        server_only=("account",),
    ),
    Tool(
        "request_explain",
        "Explain one journaled request: give the `request_id` a client got (its X-Request-Id) or "
        "the journal's `seq`. Returns the request, its status, whether it was refused and why "
        "(the failed check: authentication, scope, not_found, state, idempotency, rate_limit, "
        "validation, scenario, with its details), or the transport fault that broke it, and the "
        "answer's body. Changes nothing." + SCOPE_NOTE,
        schema({"request_id": ID, "seq": {"type": "integer", "minimum": 1}}),
        request_explain,
        read_only=True,
    ),
    Tool(
        "requests_verify",
        "Check that the journal holds the expected requests: `matcher` has any of method (a "
        "name or a list), path (a pattern: {name} or * within a segment, ** across), key, query "
        'and headers ({name: value}, "*" for present), body (a JSON subset), status (a code or '
        "a list); expect `count` (exactly), `at_least` (default 1) or `at_most`, after "
        "`since_seq`. Returns ok, how many matched and, when not ok, the closest near misses "
        "with their differences. Changes nothing." + SCOPE_NOTE,
        schema({"matcher": {"type": "object"}, **COUNTS, "account": ID}),
        requests_verify,
        read_only=True,
        server_only=("account",),
    ),
    Tool(
        "deliveries_list",
        "List webhook deliveries: every attempt with its event, endpoint, status, error and next "
        "retry. Filters: status, event_type, after (a delivery id: only those after it), "
        "account. Changes nothing." + SCOPE_NOTE,
        schema(
            {
                "status": {"type": "string", "maxLength": 32},
                "event_type": {"type": "string", "maxLength": 100},
                "after": ID,
                "account": ID,
            }
        ),
        deliveries_list,
        read_only=True,
        server_only=("account",),
    ),
    Tool(
        "delivery_redeliver",
        "Send a webhook delivery's event again to its endpoint (same event id and body). Returns "
        "the new delivery." + SCOPE_NOTE,
        schema({"delivery_id": ID}, ["delivery_id"]),
        delivery_redeliver,
    ),
    Tool(
        "event_trigger",
        "Make a webhook event of `type` (e.g. document.signed) happen for real: the mock runs "
        "the API requests that cause it with `key` (default: the full-scope key; scoped to an "
        "account, its own), so they are journaled, audited and delivered to the subscribed "
        "endpoints. `overrides` sets data fields. Returns the event type, event ids and the "
        "objects made.",
        schema(
            {
                "type": {"type": "string", "minLength": 1, "maxLength": 100},
                "overrides": {"type": "object"},
                "key": {"type": "string", "maxLength": 255},
            },
            ["type"],
        ),
        event_trigger,
    ),
    Tool(
        "legal_hold",
        "Place (`on`: true, the default) or release (false) a legal hold on a document: a held "
        "document cannot be deleted (409). Writes the audit event. Returns the document id and "
        "its hold." + SCOPE_NOTE,
        schema({"document_id": ID, "on": {"type": "boolean"}}, ["document_id"]),
        legal_hold,
    ),
]
