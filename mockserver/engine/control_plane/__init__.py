"""The `/_mock` control plane: reset, the clock, legal holds, scenarios, the journal and
verification, accounts, webhooks and events, snapshots, the data as a seed
(docs/reference/control-plane.md).

Not part of the v1 contract. Every endpoint parses its input and calls the control facade
(`engine/control.py`), where the rules live. Off with `--no-admin` (no route at all) and, with
`--admin-token`, every call must carry `X-Mock-Admin-Token`; without one, the pipeline refuses
what a web page could send (`origin_guard.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mockserver.core.first_call import imported_on_first_call
from mockserver.engine.control_plane.call import Endpoint, guarded, scoped
from mockserver.engine.routing import Route

if TYPE_CHECKING:
    from mockserver.engine.sandbox import Sandbox


def later(module: str, name: str) -> Endpoint:
    """The endpoint `name` of the control-plane module `module`, imported by the first request
    for it: a sandbox is built for every pytest session and every `run`, and most never take a
    control-plane call of a kind."""
    return imported_on_first_call(f"mockserver.engine.control_plane.{module}", name)


# (methods, path, module, endpoint): every control-plane endpoint, in the order they are matched;
# each module is imported by the first request for one of its endpoints (`later`).
SERVER_ENDPOINTS: list[tuple[list[str], str, str, str]] = [
    (["POST"], "/_mock/reset", "clock", "reset"),
    (["GET"], "/_mock/clock", "clock", "get_clock"),
    (["POST"], "/_mock/clock/advance", "clock", "advance_clock"),
    (["POST"], "/_mock/clock/set", "clock", "set_clock"),
    (["POST"], "/_mock/documents/{doc_id}/legal_hold", "clock", "legal_hold"),
    (["GET"], "/_mock/webhooks/deliveries", "webhooks", "list_deliveries"),
    (["POST"], "/_mock/webhooks/deliveries/{delivery_id}/redeliver", "webhooks", "redeliver"),
    (["POST"], "/_mock/webhooks/wait", "webhooks", "wait"),
    (["POST"], "/_mock/events/trigger", "webhooks", "trigger"),
    (["POST"], "/_mock/events/{evt_id}/resend", "webhooks", "resend"),
    (["POST"], "/_mock/scenarios", "scenarios", "load"),
    (["GET"], "/_mock/scenarios", "scenarios", "list_scenarios"),
    (["DELETE"], "/_mock/scenarios", "scenarios", "unload"),
    (["GET"], "/_mock/requests", "scenarios", "requests"),
    (["POST"], "/_mock/accounts", "accounts", "new_account"),
    (["GET"], "/_mock/accounts", "accounts", "list_accounts"),
    (["GET"], "/_mock/accounts/{account_id}", "accounts", "get_account"),
    (["DELETE"], "/_mock/accounts/{account_id}", "accounts", "delete_account"),
    (["POST"], "/_mock/requests/verify", "scenarios", "verify_requests"),
    (["POST"], "/_mock/snapshots", "snapshots", "save"),
    (["GET"], "/_mock/snapshots", "snapshots", "listing"),
    (["POST"], "/_mock/snapshots/upload", "snapshots", "upload"),
    (["POST"], "/_mock/snapshots/{name}/restore", "snapshots", "restore"),
    (["GET"], "/_mock/snapshots/{name}/download", "snapshots", "download"),
    (["DELETE"], "/_mock/snapshots/{name}", "snapshots", "delete"),
    (["GET"], "/_mock/seed", "seed", "export"),
]
# The paths of those an account's sandbox serves too, under /_mock/accounts/{account_id}: the
# same endpoints, on that account alone.
PER_ACCOUNT = {
    "/reset",
    "/clock",
    "/clock/advance",
    "/clock/set",
    "/webhooks/deliveries",
    "/webhooks/wait",
    "/scenarios",
    "/requests",
    "/requests/verify",
    "/snapshots",
    "/snapshots/upload",
    "/snapshots/{name}/restore",
    "/snapshots/{name}/download",
    "/snapshots/{name}",
}
ACCOUNT_ENDPOINTS: list[tuple[list[str], str, str, str]] = [
    (methods, path.removeprefix("/_mock"), module, name)
    for methods, path, module, name in SERVER_ENDPOINTS
    if path.removeprefix("/_mock") in PER_ACCOUNT
]


def control_routes(sandbox: Sandbox) -> list[Route]:
    """Every control-plane route of `sandbox`, in the order they are matched."""
    return [
        guarded(sandbox, methods, path, later(module, name))
        for methods, path, module, name in SERVER_ENDPOINTS
    ] + [
        scoped(sandbox, methods, path, later(module, name))
        for methods, path, module, name in ACCOUNT_ENDPOINTS
    ]
