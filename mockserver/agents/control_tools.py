"""The tools that steer the sandbox: status, reset, the clock, scenarios, snapshots and
accounts. Each is one or a few control-plane calls (`/_mock`, in the server's scope or under
`/_mock/accounts/{id}` in an account's)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from mockserver.agents.client import MockClient
from mockserver.agents.tools import Tool, schema
from mockserver.engine.control_plane.webhooks import DEFAULT_KEY

NAME = {"type": "string", "minLength": 1, "maxLength": 64}


def _segment(value: str) -> str:
    return quote(value, safe="")


async def status(client: MockClient, args: dict[str, Any]) -> Any:
    clock = await client.control("GET", client.scoped("/clock"))
    scenarios = await client.control("GET", client.scoped("/scenarios"))
    journal = await client.control("GET", client.scoped("/requests"), params={"limit": 1})
    snapshots = await client.control("GET", client.scoped("/snapshots"))
    health = await client.control("GET", "/_mock/health")
    found: dict[str, Any] = {
        "version": health.get("version"),
        "scope": "server" if client.account is None else f"account {client.account}",
        "clock": clock,
        "scenarios_loaded": [item["name"] for item in scenarios.get("data", [])],
        "journal_requests": journal.get("total"),
        "snapshots": [item.get("name") for item in snapshots.get("data", [])],
    }
    if client.account is None:
        accounts = await client.control("GET", "/_mock/accounts")
        found["accounts"] = [
            {"id": item["id"], "name": item.get("name"), "keys": item.get("keys")}
            for item in accounts.get("data", [])
        ]
        found["default_key"] = DEFAULT_KEY  # what api_request and event_trigger send
    else:
        account = await client.control("GET", f"/_mock/accounts/{_segment(client.account)}")
        found["account"] = account
    return found


async def reset(client: MockClient, args: dict[str, Any]) -> Any:
    await client.control("POST", client.scoped("/reset"))
    return {"reset": True, "clock": await client.control("GET", client.scoped("/clock"))}


async def clock_advance(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control(
        "POST", client.scoped("/clock/advance"), {"seconds": args["seconds"]}
    )


async def clock_set(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control("POST", client.scoped("/clock/set"), {"at": args["at"]})


async def scenario_load(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control("POST", client.scoped("/scenarios"), args)


async def scenario_unload(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control("DELETE", client.scoped("/scenarios"))


async def scenarios_list(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control("GET", client.scoped("/scenarios"))


async def snapshot_save(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control("POST", client.scoped("/snapshots"), {"name": args["name"]})


async def snapshot_restore(client: MockClient, args: dict[str, Any]) -> Any:
    path = client.scoped(f"/snapshots/{_segment(args['name'])}/restore")
    return await client.control("POST", path)


async def snapshots_list(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control("GET", client.scoped("/snapshots"))


async def account_create(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control("POST", "/_mock/accounts", args)


async def account_delete(client: MockClient, args: dict[str, Any]) -> Any:
    account = args["account_id"]
    await client.control("DELETE", f"/_mock/accounts/{_segment(account)}")
    return {"deleted": account}


async def accounts_list(client: MockClient, args: dict[str, Any]) -> Any:
    return await client.control("GET", "/_mock/accounts")


SCOPE_NOTE = " Scoped to an account, it acts on that account's sandbox alone."

TOOLS = [
    Tool(
        "status",
        "Read the mock's state: its version, the scope this server acts in, the mock clock "
        "(time and mode), the loaded scenarios, how many requests the journal holds, the saved "
        "snapshots, and the API key api_request sends by default (scoped to an account: the "
        "account with its keys and clock). "
        "Changes nothing. Call it first.",
        schema({}),
        status,
        read_only=True,
    ),
    Tool(
        "reset",
        "Put the sandbox back to its start: the seed's data and keys, the clock at its start "
        "time (frozen), no scenarios, an empty request journal, no webhook deliveries, empty "
        "rate windows and idempotency records (server-wide: accounts made since are removed; "
        "snapshots are kept). Destroys every change made since. Returns the clock." + SCOPE_NOTE,
        schema({}),
        reset,
        destructive=True,
    ),
    Tool(
        "clock_advance",
        "Move the mock clock forward by `seconds` (0 to 10 years), running every timer that "
        "falls due in order (document locks, export readiness, webhook retries, token expiry, "
        "rate windows, scenario timelines) before it answers. Returns the new time, the mode "
        "and how many timers ran." + SCOPE_NOTE,
        schema({"seconds": {"type": "number", "minimum": 0}}, ["seconds"]),
        clock_advance,
        own_clock=True,
    ),
    Tool(
        "clock_set",
        "Set the mock clock to an RFC 3339 time (`at`, e.g. 2026-02-01T00:00:00Z). Forward runs "
        "the timers that fall due, in order; backward only sets the time. Returns the new time "
        "and mode." + SCOPE_NOTE,
        schema({"at": {"type": "string", "minLength": 1, "maxLength": 64}}, ["at"]),
        clock_set,
        own_clock=True,
    ),
    Tool(
        "scenario_load",
        "Load a scenario: by `name` (a shipped one: scenarios_list shows them, and the "
        "mockserver://scenarios/{name} resources hold their YAML), or your own file as `yaml` "
        "text (the format: resource mockserver://docs/scenario-format), with `source` naming it "
        "in errors. Its rules start answering matching API requests (injected errors, 429 "
        "bursts, transport faults such as a lost response), its setup and timeline run. Loading "
        "a name again replaces it. Returns the loaded scenario with its rules." + SCOPE_NOTE,
        schema(
            {
                "name": NAME,
                "yaml": {"type": "string", "minLength": 1},
                "source": {"type": "string", "minLength": 1, "maxLength": 255},
            }
        ),
        scenario_load,
    ),
    Tool(
        "scenario_unload",
        "Disarm every loaded scenario: its rules, faults, deprecations and pending timeline "
        "entries stop. What scenarios already changed (holds, revoked keys, added objects, the "
        "clock) stays. Returns how many were unloaded." + SCOPE_NOTE,
        schema({}),
        scenario_unload,
        destructive=True,
    ),
    Tool(
        "scenarios_list",
        "List the loaded scenarios (with each rule's matched and fired counters and the "
        "timeline) and the names available to scenario_load. Changes nothing." + SCOPE_NOTE,
        schema({}),
        scenarios_list,
        read_only=True,
    ),
    Tool(
        "snapshot_save",
        "Save the whole sandbox (data, clock, timers, scenarios, journal, deliveries) under "
        "`name`, replacing a snapshot of that name. Returns the snapshot's description."
        + SCOPE_NOTE,
        schema({"name": NAME}, ["name"]),
        snapshot_save,
    ),
    Tool(
        "snapshot_restore",
        "Put the sandbox back exactly as it was when the snapshot `name` was saved: every "
        "change since is lost. Returns the restored snapshot." + SCOPE_NOTE,
        schema({"name": NAME}, ["name"]),
        snapshot_restore,
        destructive=True,
    ),
    Tool(
        "snapshots_list",
        "List the saved snapshots. Changes nothing." + SCOPE_NOTE,
        schema({}),
        snapshots_list,
        read_only=True,
    ),
    Tool(
        "account_create",
        "Create an account with a sandbox of its own (its data, keys, journal, scenarios; with "
        "`clock`, a clock of its own). `name` makes its id and keys reproducible; `region` is us "
        "or eu. Returns the account with its API keys (keys.full, keys.readonly).",
        schema(
            {
                "name": NAME,
                "region": {"enum": ["us", "eu"]},
                "clock": schema(
                    {
                        "mode": {"enum": ["frozen", "real"]},
                        "start_time": {"type": "string", "minLength": 1, "maxLength": 64},
                    },
                    ["mode"],
                ),
            }
        ),
        account_create,
        scoped=False,
    ),
    Tool(
        "account_delete",
        "Delete an account made with account_create, with its data and journal entries; its "
        "keys stop working. Seeded accounts cannot be deleted. Returns its id.",
        schema({"account_id": {"type": "string", "minLength": 1, "maxLength": 64}}, ["account_id"]),
        account_delete,
        destructive=True,
        scoped=False,
    ),
    Tool(
        "accounts_list",
        "List the accounts made with account_create, with their keys and clocks. Changes nothing.",
        schema({}),
        accounts_list,
        read_only=True,
        scoped=False,
    ),
]
