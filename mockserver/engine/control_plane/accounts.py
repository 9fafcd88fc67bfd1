"""`/_mock/accounts`: making, reading and removing accounts with a sandbox of their own
(docs/reference/control-plane.md, "Accounts").

    POST   /_mock/accounts   {"region"?, "name"?, "clock"?: {"mode", "start_time"?}}
    GET    /_mock/accounts   the accounts made through the control plane
    GET    /_mock/accounts/{id}   one account (seeded ones too), with its clock
    DELETE /_mock/accounts/{id}   remove an account made through the control plane

The rest of an account's control plane (its clock, reset, snapshots, scenarios, journal and
deliveries) is the server's own endpoints under `/_mock/accounts/{id}/`, run on the account's
sandbox (`web/control.py`).
"""

from __future__ import annotations

from typing import Any

from mockserver.core.clock import format_ts
from mockserver.core.errors import NotFound
from mockserver.domain.models import Account
from mockserver.engine.accounts.sandboxes import AccountSandbox
from mockserver.engine.accounts.spec import parse_spec
from mockserver.engine.answers import json_response
from mockserver.engine.control_plane.call import ControlCall
from mockserver.engine.request import Response
from mockserver.engine.sandbox import SandboxState


async def new_account(call: ControlCall) -> Response:
    """A fresh account with its keys; an empty body means the defaults."""
    body: dict[str, Any] = {}
    if (await call.body()).strip():
        body = await call.json()
    tenants = call.tenants
    spec = parse_spec(body, tenants.default_start(), call.sandbox.store.clock.now())
    return json_response(account_view(call, tenants.open(spec)), status=201)


async def list_accounts(call: ControlCall) -> Response:
    return json_response(
        {"object": "list", "data": [account_view(call, tenant) for tenant in call.tenants]}
    )


async def get_account(call: ControlCall) -> Response:
    account_id = call.params["account_id"]
    tenant = call.tenants.by_id.get(account_id)
    if tenant is not None:
        return json_response(account_view(call, tenant))
    store = call.sandbox.store
    account = store.accounts.get(account_id)
    if account is None:
        raise NotFound.resource("account", account_id)
    store.scheduler.run_due()
    clock = store.clock
    shown = {"now": format_ts(clock.now()), "mode": clock.shown_mode(), "own": False}
    return json_response(_account_fields(account, None, shown))


async def delete_account(call: ControlCall) -> Response:
    account_id = call.params["account_id"]
    call.tenants.get(account_id)  # 404, or 409 for a seeded account
    call.tenants.remove(account_id)
    return json_response({"id": account_id, "object": "account", "deleted": True})


def account_view(call: ControlCall, tenant: AccountSandbox[SandboxState]) -> dict[str, Any]:
    """An account made through the control plane, as the control plane shows it."""
    state = tenant.sandbox.control.clock()
    made = tenant.made
    return _account_fields(
        made.account,
        {"full": made.full.key, "readonly": made.readonly.key},
        {**state.as_json(), "own": tenant.own_clock},
    )


def _account_fields(
    account: Account, keys: dict[str, str] | None, clock: dict[str, Any]
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "id": account.id,
        "object": "account",
        "name": account.name,
        "default_region": account.default_region,
        "environment": "sandbox",
    }
    if keys is not None:
        fields["keys"] = keys
    fields["users"] = [
        {"email": user.email, "permissions": list(user.permissions)} for user in account.users
    ]
    fields["clock"] = clock
    return fields
