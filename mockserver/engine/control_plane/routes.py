"""The control plane's route table: every `/_mock` endpoint of the server's sandbox, in the
order they are matched, and those an account's sandbox serves too under
`/_mock/accounts/{account_id}`. The app mounts them at `/_mock` (`web/control.py`)."""

from __future__ import annotations

from mockserver.engine.control_plane import accounts, clock, scenarios, seed, snapshots, webhooks
from mockserver.engine.control_plane.call import Endpoint

# (methods, path, endpoint): every control-plane endpoint, in the order they are matched.
SERVER_ENDPOINTS: list[tuple[list[str], str, Endpoint]] = [
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
    (["POST"], "/_mock/accounts", accounts.new_account),
    (["GET"], "/_mock/accounts", accounts.list_accounts),
    (["GET"], "/_mock/accounts/{account_id}", accounts.get_account),
    (["DELETE"], "/_mock/accounts/{account_id}", accounts.delete_account),
    (["POST"], "/_mock/requests/verify", scenarios.verify_requests),
    (["POST"], "/_mock/snapshots", snapshots.save),
    (["GET"], "/_mock/snapshots", snapshots.listing),
    (["POST"], "/_mock/snapshots/upload", snapshots.upload),
    (["POST"], "/_mock/snapshots/{name}/restore", snapshots.restore),
    (["GET"], "/_mock/snapshots/{name}/download", snapshots.download),
    (["DELETE"], "/_mock/snapshots/{name}", snapshots.delete),
    (["GET"], "/_mock/seed", seed.export),
]
# The paths of those an account's sandbox serves too, under /_mock/accounts/{account_id}: the
# same endpoints, on that account alone.
PER_ACCOUNT = {
    "/reset",
    "/clock",
    "/clock/advance",
    "/clock/set",
    "/documents/{doc_id}/legal_hold",
    "/webhooks/deliveries",
    "/webhooks/deliveries/{delivery_id}/redeliver",
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
ACCOUNT_ENDPOINTS: list[tuple[list[str], str, Endpoint]] = [
    (methods, path.removeprefix("/_mock"), endpoint)
    for methods, path, endpoint in SERVER_ENDPOINTS
    if path.removeprefix("/_mock") in PER_ACCOUNT
]
