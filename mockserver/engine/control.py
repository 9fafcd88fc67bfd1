"""The control facade: every way to steer a sandbox from outside the API, in one place.

The `/_mock` endpoints, the inspector's buttons, the CLI and the pytest plugin all call these
methods; they parse their own input (JSON, forms, arguments) and render the results their own
way, but the rules (what a reset clears, how the clock moves and which timers run, where a
legal hold applies, how a scenario is found and armed) live only here. Values are checked
here too, so every caller refuses the same things: a refusal is an ApiError with its `param`.
"""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

from mockserver.core.clock import LAST_SECOND, format_ts
from mockserver.core.errors import (
    Conflict,
    LoadError,
    NotFound,
    ScenarioError,
    SeedError,
    ValidationError,
)
from mockserver.domain import documents
from mockserver.domain import validation as v
from mockserver.domain.models import Document
from mockserver.engine import snapshots
from mockserver.engine.accounts.sandboxes import AccountSandbox
from mockserver.engine.accounts.spec import AccountSpec
from mockserver.engine.control_plane.self_call import self_caller
from mockserver.engine.control_plane.triggers import trigger as run_trigger
from mockserver.engine.parts import Parts
from mockserver.engine.request import Request, Serve
from mockserver.engine.snapshots import Snapshot
from mockserver.scenarios.engine import Loaded
from mockserver.scenarios.loader import read_scenario_text
from mockserver.scenarios.model import Scenario
from mockserver.scenarios.reach import closest
from mockserver.seeds.export import seed_text
from mockserver.seeds.loader import load_seed_text
from mockserver.seeds.source_text import read_source
from mockserver.webhooks.deliveries import Delivery
from mockserver.webhooks.resend import find_event, resend

KEY_MAX = 255
TEN_YEARS = 10 * 366 * 86400  # the furthest one advance may move the clock, in seconds
SETTLE_MARGIN = 5.0  # seconds a snapshot waits for webhook attempts beyond their timeout


class ClockState(NamedTuple):
    """The mock clock as the control plane shows it."""

    now: float  # Unix seconds (a real clock has fractions)
    mode: str  # "real" or "frozen"

    def as_json(self) -> dict[str, str]:
        return {"now": format_ts(self.now), "mode": self.mode}


class Control:
    """Reset, the clock, legal holds, scenarios, accounts and redelivery of one sandbox."""

    def __init__(self, sandbox: Parts) -> None:
        self._sandbox = sandbox
        self._store = sandbox.store

    def reset(self) -> ClockState:
        """A clean slate: the seed's data, the clock at its start (frozen mode), and empty rate
        windows, idempotency records, journals, deliveries and scenarios."""
        self._store.reset()
        return self._state()

    def clock(self) -> ClockState:
        """The clock now, after running the timers that fell due (a real clock moves)."""
        self._store.scheduler.run_due()
        return self._state()

    def _own_clock(self) -> None:
        """409 for an account sandbox on the server clock: only the server moves that."""
        if self._store.clock.followed:
            raise Conflict(
                f"Account {self._sandbox.account} follows the server clock and has no clock of "
                "its own to move; move the server clock (/_mock/clock), or make an account "
                "with one ('clock' in POST /_mock/accounts).",
                param="account",
            )

    async def advance(self, seconds: float) -> tuple[ClockState, int]:
        """Move the clock forward by `seconds` (0 to ten years), running every timer that
        falls due on the way, webhook attempts awaited; the new state and the timers run."""
        self._own_clock()
        if not 0 <= seconds <= TEN_YEARS:
            raise ValidationError(
                f"'seconds' must be from 0 to {TEN_YEARS} (the clock never moves back by advance).",
                param="seconds",
            )
        if self._store.clock.now() + seconds > LAST_SECOND:
            raise ValidationError(
                "'seconds' would move the clock past 9999-12-31T23:59:59Z, the last time a "
                "timestamp can show.",
                param="seconds",
            )
        ran = await self._store.scheduler.advance_async(seconds)
        return self._state(), ran

    async def set_clock(self, at: float) -> tuple[ClockState, int]:
        """Set the clock to `at` (Unix seconds). Forward runs the timers due by then; backward
        runs nothing, and timers wait for the clock to come back."""
        self._own_clock()
        store = self._store
        if at >= store.clock.now():
            ran = await store.scheduler.run_until_async(at)
        else:
            store.clock.set(at)
            ran = 0
        return self._state(), ran

    def legal_hold(self, doc_id: str, on: bool) -> Document:
        """Place or release the legal hold of a live document, wherever it lives; 404 when no
        world has it."""
        stores = [self._store]
        if self._sandbox.tenants is not None:
            stores += [tenant.sandbox.store for tenant in self._sandbox.tenants]
        for store in stores:
            for world in store.seeded_worlds():
                for region in world.regions.values():
                    doc = region.documents.get(doc_id)
                    if doc is not None and not doc.deleted:
                        return documents.set_legal_hold(world, doc, on, store.now())
        raise NotFound.resource("document", doc_id)

    def load_scenario(self, name: str) -> Loaded:
        """Load a shipped (or `scenarios/`) scenario by name; 404 naming the available ones.
        A file that does not load raises ScenarioError and changes nothing."""
        scenarios = self._sandbox.scenarios
        path = scenarios.path_of(name) if name else None
        if path is None:
            available = scenarios.available()
            close = closest(name, available)
            hint = f" Did you mean '{close}'?" if close else ""
            raise NotFound(
                f"No scenario named '{name[:64]}'.{hint} Available: {', '.join(available)}.",
                param="name",
            )
        text = read_source(path, ScenarioError, "scenario")
        return self.arm(self.read_scenario(text, str(path)))

    def load_scenario_text(self, text: str, source: str, *, replace: bool = False) -> Loaded:
        """Load a scenario from YAML text (`source` names it in errors). With `replace`, a
        loaded scenario of its name has its rules, timeline and chaos swapped, the data and
        the clock kept (a watched file saved again)."""
        return self.arm(self.read_scenario(text, source), replace=replace)

    def read_scenario(self, text: str, source: str) -> Scenario:
        """A scenario read from YAML text and checked against this sandbox, changing nothing:
        one ScenarioError with every problem (`scenario_problems`)."""
        scenario, problems = self.scenario_problems(text, source)
        if problems:
            raise ScenarioError.every(problems)
        return scenario

    def scenario_problems(self, text: str, source: str) -> tuple[Scenario, list[LoadError]]:
        """A scenario read from YAML text and every problem of it, of its format and of what
        it refers to in this sandbox, in the file's order (what `mockserver validate`
        reports); changes nothing. ScenarioError when nothing of it can be read."""
        scenario, own = read_scenario_text(text, source)
        problems: list[LoadError] = list(own)
        try:
            self.check_scenario(self._sandbox.scenarios.adopt(scenario))
        except ScenarioError as error:
            problems += error.problems
        problems.sort(key=lambda problem: problem.line)  # stable: the file's own first
        return scenario, problems

    def check_scenario(self, scenario: Scenario) -> None:
        """The checks loading `scenario` would make here, changing nothing: ScenarioError with
        every problem (`mockserver validate` runs them against a sandbox of the seed)."""
        self._sandbox.scenarios.check(scenario)

    def arm(self, scenario: Scenario, *, replace: bool = False) -> Loaded:
        """Load a scenario already read from its file: apply its setup, arm its rules (with
        `replace`, see `load_scenario_text`). An account on the server clock cannot load one
        that moves the clock (409)."""
        engine = self._sandbox.scenarios
        moves = scenario.clock
        swap = replace and engine.replaces(scenario)
        if (moves.freeze or moves.set is not None or moves.advance) and not swap:
            self._own_clock()
        return engine.load(scenario, replace=replace)

    def scenarios(self) -> dict[str, Any]:
        """The loaded scenarios with their rule counters, and the names that can be loaded."""
        return self._sandbox.scenarios.summary()

    def unload_scenario(self, name: str) -> None:
        """Disarm the loaded scenario called `name`; 404 when none is."""
        if not self._sandbox.scenarios.unload(name):
            raise NotFound(f"No loaded scenario named '{name[:64]}'.", param="name")

    def unload_scenarios(self) -> int:
        """Disarm every loaded scenario; how many there were."""
        return self._sandbox.scenarios.unload_all()

    def new_account(self, region: str = "us", name: str | None = None) -> AccountSandbox[Any]:
        """A fresh account with a sandbox of its own, its users and two sandbox keys, on the
        server clock (`engine/accounts`; the control plane's POST /_mock/accounts)."""
        tenants = self._sandbox.tenants
        if tenants is None:
            raise Conflict("An account's sandbox cannot make accounts.")
        return tenants.open(AccountSpec(region, name, None))

    def _sandboxes(self) -> list[Parts]:
        """This sandbox and, for the server's, every account sandbox."""
        tenants = self._sandbox.tenants
        return [self._sandbox, *(tenant.sandbox for tenant in tenants or ())]

    def redeliver(self, delivery_id: str) -> Delivery:
        """Queue a delivery's event again for its endpoint (same id, same bytes), in whichever
        sandbox delivered it."""
        for sandbox in self._sandboxes():
            if sandbox.webhooks.journal.get(delivery_id) is not None:
                return sandbox.webhooks.redeliver(delivery_id)
        return self._sandbox.webhooks.redeliver(delivery_id)  # the 404

    def resend_event(self, event_id: str, endpoint_id: str | None = None) -> list[Delivery]:
        """Queue an event again (same id, same body, signed anew at its attempt) for one
        endpoint or every endpoint subscribed to its type (`webhooks.resend`), in whichever
        sandbox wrote it."""
        for sandbox in self._sandboxes()[1:]:  # an account's, if one wrote it
            try:
                find_event(sandbox.store, sandbox.webhooks, event_id)
            except NotFound:
                continue
            return resend(sandbox.store, sandbox.webhooks, event_id, endpoint_id)
        return resend(self._store, self._sandbox.webhooks, event_id, endpoint_id)

    async def trigger(
        self, event_type: Any, overrides: Any, key: Any, origin: Request, enter: Serve
    ) -> dict[str, Any]:
        """Make a webhook event happen: check the input, then run the event type's recipe as
        requests to this sandbox, entering the app through `enter` (`own_requests`), from the
        client of `origin` with the API key `key`."""
        event_type = v.string(event_type, "type", max_len=100)
        if overrides is None:
            overrides = {}
        if not isinstance(overrides, dict):
            raise ValidationError(
                "'overrides' must be an object of data field names to values.", param="overrides"
            )
        key = v.string(key, "key", max_len=KEY_MAX)
        sandbox = self._sandbox
        call = self_caller(enter, sandbox.settings.admin_token, origin, key)
        return await run_trigger(event_type, overrides, call)

    async def settle(self, timeout: float) -> tuple[bool, int]:
        """Wait until no timer's work (a webhook attempt) is under way, `timeout` seconds at
        most: whether it went quiet, and how much is still running."""
        scheduler = self._store.scheduler
        idle = await scheduler.settle(timeout)
        return idle, scheduler.busy

    def seed_file(self) -> str:
        """The sandbox's data as seed YAML (`seeds/export.py`), once the timers that fell due
        have run; checked as `mockserver validate` checks a seed, so it always loads: a state a
        seed cannot hold (times after the clock's, when the clock was set back) is 409."""
        store = self._store
        store.scheduler.run_due()
        tenants = list(self._sandbox.tenants or ())
        for tenant in tenants:
            tenant.sandbox.store.scheduler.run_due()
        more = [(t.sandbox.store, t.sandbox.webhooks.endpoint_seeds()) for t in tenants]
        text = seed_text(store, self._sandbox.webhooks.endpoint_seeds(), more)
        try:
            load_seed_text(text, "the exported seed")
        except SeedError as error:
            raise Conflict(
                f"The sandbox's data cannot be written as a valid seed: {error}"
            ) from None
        return text

    # -- snapshots ---------------------------------------------------------------------

    async def save_snapshot(self, name: Any) -> Snapshot:
        """Save the whole sandbox as `name` (replacing one of that name) once the webhook
        attempts under way are done; 409 if they still run after the delivery timeout."""
        name = snapshots.check_name(name)
        snapshots.check_room(self._sandbox, name)
        scheduler = self._store.scheduler
        if not await scheduler.settle(self._sandbox.webhooks.timeout + SETTLE_MARGIN):
            raise Conflict(
                "Webhook attempts are still under way (a receiver does not answer); "
                "take the snapshot once they are done.",
                param="name",
            )
        return snapshots.take(self._sandbox, name)

    def restore_snapshot(self, name: str) -> Snapshot:
        """Put the sandbox back exactly as it was when `name` was saved; 404 if unknown."""
        snapshot = snapshots.find(self._sandbox, name)
        snapshots.put_back(self._sandbox, snapshot)
        return snapshot

    def snapshots(self) -> list[Snapshot]:
        """The named snapshots, in the order they were first saved."""
        return list(snapshots.listing(self._sandbox))

    def delete_snapshot(self, name: str) -> None:
        """Forget snapshot `name`; 404 if unknown."""
        snapshots.find(self._sandbox, name)
        del self._sandbox.snapshots.named[name]

    def snapshot_file(self, name: str) -> bytes:
        """Snapshot `name` as one file, for `add_snapshot_file` on another server."""
        snapshot = snapshots.find(self._sandbox, name)
        return snapshot.data

    async def add_snapshot_file(self, name: Any, data: bytes) -> Snapshot:
        """Keep a snapshot file as `name`: 422 (param `file`) for a file that is not one, is
        damaged, or was written by another version or for another seed; nothing changes then.
        The file is read in a worker thread, so that the server answers meanwhile."""
        name = snapshots.check_name(name)
        snapshots.check_room(self._sandbox, name, len(data))  # before the work of reading it
        snapshot = await asyncio.to_thread(snapshots.read_file, self._sandbox, name, data)
        return snapshots.keep(self._sandbox, snapshot)

    def _state(self) -> ClockState:
        clock = self._store.clock
        return ClockState(clock.now(), clock.shown_mode())
