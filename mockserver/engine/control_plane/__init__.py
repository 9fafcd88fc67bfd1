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

from mockserver.engine.control_plane import clock, scenarios, seed, snapshots, webhooks
from mockserver.engine.control_plane.call import guarded
from mockserver.engine.routing import Route

if TYPE_CHECKING:
    from mockserver.engine.sandbox import Sandbox


def control_routes(sandbox: Sandbox) -> list[Route]:
    """Every control-plane route of `sandbox`, in the order they are matched."""
    table = [
        (["POST"], "/_mock/reset", clock.reset),
        (["GET"], "/_mock/clock", clock.get_clock),
        (["POST"], "/_mock/clock/advance", clock.advance_clock),
        (["POST"], "/_mock/clock/set", clock.set_clock),
        (["POST"], "/_mock/documents/{doc_id}/legal_hold", clock.legal_hold),
        (["GET"], "/_mock/webhooks/deliveries", webhooks.list_deliveries),
        (["POST"], "/_mock/webhooks/deliveries/{delivery_id}/redeliver", webhooks.redeliver),
        (["POST"], "/_mock/webhooks/wait", webhooks.wait),
        (["POST"], "/_mock/events/trigger", webhooks.trigger),
        (["POST"], "/_mock/events/{evt_id}/resend", webhooks.resend),
        (["POST"], "/_mock/scenarios", scenarios.load),
        (["GET"], "/_mock/scenarios", scenarios.list_scenarios),
        (["DELETE"], "/_mock/scenarios", scenarios.unload),
        (["GET"], "/_mock/requests", scenarios.requests),
        (["POST"], "/_mock/accounts", scenarios.new_account),
        (["POST"], "/_mock/requests/verify", scenarios.verify_requests),
        (["POST"], "/_mock/snapshots", snapshots.save),
        (["GET"], "/_mock/snapshots", snapshots.listing),
        (["POST"], "/_mock/snapshots/upload", snapshots.upload),
        (["POST"], "/_mock/snapshots/{name}/restore", snapshots.restore),
        (["GET"], "/_mock/snapshots/{name}/download", snapshots.download),
        (["DELETE"], "/_mock/snapshots/{name}", snapshots.delete),
        (["GET"], "/_mock/seed", seed.export),
    ]
    return [guarded(sandbox, methods, path, endpoint) for methods, path, endpoint in table]
