"""The inspector's read-only pages (GET): each reads state, builds its view model and renders.

They work without JavaScript; the script only refreshes them when `/_mock/ui/state` says
something changed. Bad filter values get the API's error envelope (422 with `param`), as every
other `/_mock` call does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from mockserver.core.errors import NotFound, ValidationError
from mockserver.engine import inspector_views as views
from mockserver.engine.control_plane.triggers import RECIPES
from mockserver.engine.inspector_views import DELIVERY_STATUSES, delivery_status
from mockserver.engine.inspector_webhooks import MAX_ATTEMPTS, endpoint_groups
from mockserver.engine.journal import Journal
from mockserver.web.context import sandbox_of, server_of
from mockserver.web.inspector.web import page, ui
from mockserver.web.render import json_response

if TYPE_CHECKING:
    from mockserver.domain.store import Store
    from mockserver.scenarios.engine import ScenarioEngine
    from mockserver.webhooks.delivery import DeliveryEngine

# Preset steps of the clock's advance buttons: (label, seconds).
CLOCK_STEPS = (
    ("+1 min", 60),
    ("+5 min", 300),
    ("+1 h", 3600),
    ("+1 day", 86400),
    ("+1 week", 7 * 86400),
)
METHODS = ("GET", "POST", "DELETE", "PUT", "PATCH")
# The webhook status filter's options: the journal's statuses, in the page's words where the
# page has its own (a pending delivery is shown as retrying, sending or queued).
STATUS_LABELS = {"succeeded": "delivered"}


def journal_of(request: Request) -> Journal:
    return sandbox_of(request).journal


def webhooks_of(request: Request) -> DeliveryEngine:
    return sandbox_of(request).webhooks


def scenarios_of(request: Request) -> ScenarioEngine:
    return sandbox_of(request).scenarios


@ui
async def overview(request: Request, store: Store) -> Response:
    store.scheduler.run_due()
    return page(
        request,
        "overview.html",
        steps=CLOCK_STEPS,
        scenarios=scenarios_of(request).summary(),
        notice=request.query_params.get("notice", "")[:300],
        pending_timers=len(store.scheduler),
        accounts=views.accounts(server_of(request)),
    )


@ui
async def scenarios_page(request: Request, store: Store) -> Response:
    """Each loaded scenario's file, version, load time, rules with their counters and last
    reload error; and the watched files that never loaded."""
    store.scheduler.run_due()
    return page(request, "scenarios.html", scenarios=scenarios_of(request).summary())


@ui
async def requests_page(request: Request, store: Store) -> Response:
    query = request.query_params
    method = (query.get("method") or "").upper() or None
    if method is not None and method not in METHODS:
        raise ValidationError(f"'method' must be one of {', '.join(METHODS)}.", param="method")
    status_text = query.get("status") or None
    status = None
    if status_text is not None:
        if not status_text.isdigit() or not 100 <= int(status_text) <= 599:
            raise ValidationError("'status' must be an HTTP status code.", param="status")
        status = int(status_text)
    path = query.get("path") or None
    key = query.get("key") or None
    journal = journal_of(request)
    rows = views.journal_rows(
        journal.find(
            method=method, path=path, status=status, key=key, limit=views.PAGE, key_prefix=True
        )
    )
    filters = {"method": method or "", "path": path or "", "status": status_text or ""}
    return page(
        request,
        "requests.html",
        rows=rows,
        total=len(journal),
        filters={**filters, "key": key or ""},
        methods=METHODS,
    )


@ui
async def request_detail(request: Request, store: Store) -> Response:
    seq: int = request.path_params["seq"]
    entry = views.journal_entry(journal_of(request), seq)
    if entry is None:
        raise NotFound(f"No request #{seq} in the journal (it keeps the latest ones).")
    return page(request, "request.html", entry=entry)


@ui
async def webhooks_page(request: Request, store: Store) -> Response:
    status = request.query_params.get("status") or None
    if status is not None:
        delivery_status(status)
    store.scheduler.run_due()
    return page(
        request,
        "webhooks.html",
        groups=endpoint_groups(webhooks_of(request), status),
        max_attempts=MAX_ATTEMPTS,
        status_filter=status or "",
        status_label=STATUS_LABELS.get(status, status) if status else "",
        statuses=[(s, STATUS_LABELS.get(s, s)) for s in DELIVERY_STATUSES],
        event_types=list(RECIPES),
        notice=request.query_params.get("notice", "")[:300],
    )


@ui
async def resources_page(request: Request, store: Store) -> Response:
    store.scheduler.run_due()
    return page(request, "resources.html", worlds=views.resources(store))


@ui
async def audit_page(request: Request, store: Store) -> Response:
    """The chains; `?verify=all` or `?verify=ACCOUNT:ENV:REGION` re-checks whole chains."""
    store.scheduler.run_due()
    target = request.query_params.get("verify") or None
    chains = views.audit_chains(store)
    if target is not None:
        names = {f"{c['account']}:{c['environment']}:{c['region']}" for c in chains}
        if target != "all" and target not in names:
            raise ValidationError(
                "'verify' must be 'all' or ACCOUNT:ENVIRONMENT:REGION of a listed chain.",
                param="verify",
            )
        for chain in chains:
            name = f"{chain['account']}:{chain['environment']}:{chain['region']}"
            if target in ("all", name):
                world = store.world(chain["account"], chain["environment"])
                chain["verification"] = views.verify(world, chain["region"])
    return page(request, "audit.html", chains=chains, target=target or "")


@ui
async def state(request: Request, store: Store) -> Response:
    """What the live refresh polls: the clock and a fingerprint of everything shown."""
    store.scheduler.run_due()
    mark = views.live_mark(server_of(request))
    fingerprint = views.fingerprint(store, journal_of(request), webhooks_of(request), mark)
    return json_response({**views.clock(store), "fingerprint": fingerprint})
