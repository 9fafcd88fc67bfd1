"""View models of the inspector: plain dicts and lists built from the store, the journals and the
scenario engine, ready for a template.

Nothing here knows Starlette or Jinja2, so every view can be checked without a browser. Times
are rendered from the mock clock's values (never the wall clock), so two runs of the same calls
show the same pages, byte for byte, except journal durations (wall time by design). The
webhooks page's view, deliveries grouped by endpoint, is `inspector_webhooks`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from mockserver.audit.chain import first_broken_link
from mockserver.core.clock import format_ts
from mockserver.domain import validation as v
from mockserver.domain.models import DOCUMENT_STATUSES, Document, Workflow
from mockserver.domain.store import Store, World
from mockserver.engine.journal import Entry, Journal
from mockserver.webhooks.deliveries import DELIVERY_STATUSES as DELIVERY_STATUSES
from mockserver.webhooks.delivery import DeliveryEngine

if TYPE_CHECKING:
    from mockserver.engine.sandbox import SandboxState

PAGE = 200  # rows a list view shows at most: newest first
AUDIT_PAGE = 100  # audit events shown per chain (verification always reads the whole chain)
RATE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after")
DOCUMENT_PATH = ("draft", "in_review", "signed", "locked")
assert set(DOCUMENT_PATH) == set(DOCUMENT_STATUSES)


def _ts(value: float | None) -> str | None:
    return None if value is None else format_ts(value)


def pretty(body: Any) -> str:
    """A body for a `<pre>`: JSON indented, text as it is, nothing as an empty string."""
    if body is None:
        return ""
    if isinstance(body, str):
        return body
    return orjson.dumps(body, option=orjson.OPT_INDENT_2).decode()


def clock(store: Store) -> dict[str, Any]:
    return {"now": format_ts(store.clock.now()), "mode": store.clock.shown_mode()}


def watched(sandbox: SandboxState) -> dict[str, Any] | None:
    """The account sandbox a page shows (None: the whole server): id, name, own clock."""
    if sandbox.account is None:
        return None
    account = sandbox.store.accounts[sandbox.account]
    own = not sandbox.store.clock.followed
    return {"id": account.id, "name": account.name, "own_clock": own}


def accounts(server: SandboxState) -> list[dict[str, Any]]:
    """The accounts with a sandbox of their own, for the overview: id, name, region, clock,
    requests journaled."""
    requests = Counter(entry.account for entry in server.journal.entries())  # one pass
    rows = []
    for tenant in server.tenants or ():
        store = tenant.sandbox.store
        rows.append(
            {
                "id": tenant.id,
                "name": tenant.made.account.name,
                "region": tenant.spec.region,
                "now": format_ts(store.clock.now()),
                "mode": store.clock.shown_mode(),
                "own_clock": tenant.own_clock,
                "requests": requests[tenant.id],
            }
        )
    return rows


def reload_problems(server: SandboxState) -> list[dict[str, Any]]:
    """The problems of the watched files' last saves (`run --watch`), for the banner every
    page shows: the file, the scenario it holds (None: a seed, or a file never loaded), the
    first problem's line and message, and how many problems there are."""
    engine = server.scenarios
    found: list[tuple[str | None, str | None, dict[str, Any]]] = []
    seed = None
    for loaded in engine.loaded:
        error = engine.reload_errors.get(loaded.scenario.name)
        if error is not None:
            found.append((loaded.scenario.source, loaded.scenario.name, error))
    found += [(error["source"], None, error) for error in engine.file_errors.values()]
    live = server.live
    if live is not None and live.seed_error is not None:
        seed = str(live.seed)
        found.append((seed, None, live.seed_error))
    return [
        {
            "file": file,
            "scenario": name,
            "seed": file == seed,
            "line": error["line"],
            "message": error["message"],
            "count": len(error.get("problems", ())) or 1,
            "at": error["at"],
        }
        for file, name, error in found
    ]


def live_mark(server: SandboxState) -> str:
    """What changes when a watched file is loaded again or saved invalid: for the live
    refresh's fingerprint."""
    engine = server.scenarios
    versions = ",".join(loaded.scenario.version for loaded in engine.loaded)
    problems = [p["at"] + str(p["line"]) for p in reload_problems(server)]
    return f"{versions}|{len(problems)}|{','.join(problems)}"


def fingerprint(store: Store, journal: Journal, engine: DeliveryEngine, mark: str = "") -> str:
    """A short string that changes whenever something a page shows may have changed: what the
    live refresh polls. Cheap: counters only, no rendering. `mark`: the watched files'."""
    newest = journal.find(limit=1)
    selected = list(engine.journal.select())
    attempts = sum(len(d.attempts) for d in selected)
    in_flight = sum(d.in_flight for d in selected)
    events = sum(len(r.audit.events) for w in store.worlds.values() for r in w.regions.values())
    return ":".join(
        str(part)
        for part in (
            store.clock.now(),
            newest[0].seq if newest else 0,
            newest[0].status if newest else "",
            len(engine.journal),
            attempts,
            in_flight,
            len(store.worlds),
            events,
            len(store.scheduler),
            mark,
        )
    )


# ---------------------------------------------------------------- request journal


def journal_rows(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    return [entry.render() for entry in entries]


def journal_entry(journal: Journal, seq: int) -> dict[str, Any] | None:
    """One entry with its detail: bodies for display and the rate-limit state it was given."""
    entry = next((e for e in journal.find(limit=len(journal)) if e.seq == seq), None)
    if entry is None:
        return None
    view = entry.render()
    response_headers = view["response"]["headers"]
    view["rate_limit"] = {name: response_headers.get(name) for name in RATE_HEADERS}
    view["request"]["pretty"] = pretty(view["request"]["body"])
    view["request"]["unread"] = unread_body(view["request"])
    view["response"]["pretty"] = pretty(view["response"]["body"])
    return view


def unread_body(request: dict[str, Any]) -> str | None:
    """What a request said of the body it sent when none of it was read (it was answered
    before: a refused credential, a rate limit, ...): `Content-Length: N` or `chunked`. None
    when it was read, or sent none."""
    if request["size"]:
        return None
    headers = request["headers"]
    length = headers.get("content-length", "0").strip()
    if length.isdigit() and int(length) > 0:
        return f"Content-Length: {int(length)}"
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return "Transfer-Encoding: chunked"
    return None


# ---------------------------------------------------------------- resources


@dataclass(frozen=True, slots=True)
class Step:
    """One state of a state machine, and whether the resource is in it or past it."""

    name: str
    current: bool
    done: bool


def document_path(status: str) -> list[Step]:
    position = DOCUMENT_PATH.index(status)
    return [
        Step(name, index == position, index < position) for index, name in enumerate(DOCUMENT_PATH)
    ]


def _document(world: World, doc: Document) -> dict[str, Any]:
    vault = world.regions[doc.region].vaults.get(doc.vault_id)
    locks_at = None
    if doc.status == "signed" and doc.signed_at is not None and vault is not None:
        locks_at = doc.signed_at + vault.lock_after
    return {
        "id": doc.id,
        "title": doc.title,
        "vault_id": doc.vault_id,
        "status": doc.status,
        "path": document_path(doc.status),
        "version": doc.version,
        "legal_hold": doc.legal_hold,
        "signed_at": _ts(doc.signed_at),
        "locks_at": _ts(locks_at),
        "workflow_id": world.active_workflows.get(doc.id),
    }


def _workflow(workflow: Workflow) -> dict[str, Any]:
    return {
        "id": workflow.id,
        "document_id": workflow.document_id,
        "status": workflow.status,
        "current_step": workflow.current_step,
        "steps": [
            {
                "number": number,
                "assignee": step.assignee,
                "condition": step.condition,
                "decision": step.decision,
                "decided_at": _ts(step.decided_at),
                "current": workflow.status == "in_progress" and number == workflow.current_step,
            }
            for number, step in enumerate(workflow.steps, start=1)
        ],
    }


def resources(store: Store) -> list[dict[str, Any]]:
    """Every world (account, environment) the seed defines or that exists, by region: vaults,
    live documents with their lifecycle position, workflows with their current step
    (documents and workflows newest first)."""
    out = []
    for world in store.seeded_worlds():
        regions = []
        for name, region in world.regions.items():
            # newest first, as the API lists them: what was just made is at the top
            docs = [_document(world, d) for d in reversed(region.doc_order) if not d.deleted]
            workflows = sorted(region.workflows.values(), key=lambda w: w.seq, reverse=True)
            if not (region.vaults or docs or workflows):
                continue
            regions.append(
                {
                    "name": name,
                    "vaults": [
                        {
                            "id": v.id,
                            "name": v.name,
                            "members": len(v.members),
                            "lock_after": v.lock_after,
                            "documents": sum(
                                not d.deleted for d in region.docs_by_vault.get(v.id, ())
                            ),
                        }
                        for v in region.vault_order
                    ],
                    "documents": docs,
                    "workflows": [_workflow(w) for w in workflows],
                }
            )
        out.append(
            {
                "account": world.account.id,
                "account_name": world.account.name,
                "environment": world.environment,
                "regions": regions,
            }
        )
    return out


# ---------------------------------------------------------------- audit chains


def verify(world: World, region: str) -> dict[str, Any]:
    """Re-check every hash and link of one chain from its served bytes: how many events were
    checked and, if one fails, which (index, seq, id)."""
    events = world.regions[region].audit.events
    served: list[dict[str, Any]] = []
    for event in events:  # bytes that are no longer JSON break the chain where they stand
        try:
            parsed = orjson.loads(event.raw)
        except orjson.JSONDecodeError:
            break
        served.append(parsed if isinstance(parsed, dict) else {})
    broken = first_broken_link(served)
    if broken is None and len(served) < len(events):
        broken = len(served)
    result: dict[str, Any] = {"checked": len(events), "ok": broken is None, "broken": None}
    if broken is not None:
        stored = events[broken]
        result["broken"] = {"index": broken, "seq": stored.seq, "id": stored.id}
    return result


def _readable(raw: bytes) -> dict[str, Any]:
    """A stored event for display; bytes that are not a JSON object show as text."""
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        parsed = {"id": "(unreadable)", "type": raw[:80].decode("utf-8", "replace")}
    for field in ("seq", "at", "type", "actor", "resource_id", "hash", "id"):
        parsed.setdefault(field, "")
    return parsed


def audit_chains(store: Store) -> list[dict[str, Any]]:
    """Every non-empty chain with its latest events (newest first) and its head hash."""
    chains = []
    for world in store.seeded_worlds():
        for name, region in world.regions.items():
            events = region.audit.events
            if not events:
                continue
            latest = [_readable(event.raw) for event in events[-AUDIT_PAGE:]]
            chains.append(
                {
                    "account": world.account.id,
                    "environment": world.environment,
                    "region": name,
                    "length": len(events),
                    "head": region.audit.head,
                    "events": list(reversed(latest)),
                }
            )
    return chains


def delivery_status(status: str) -> str:
    """A delivery status filter, or 422 naming the ones there are."""
    return str(v.choice(status, "status", DELIVERY_STATUSES))
