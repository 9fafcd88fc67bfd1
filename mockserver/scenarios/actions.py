"""Setup and timeline actions: check them all, then apply them through the domain.

A scenario's actions are first checked together against the store as it is (keys exist,
named documents, vaults and workflows exist or are added by an earlier action, fixed ids are
free, fields pass the API's own validation), so a bad scenario is refused, with every problem
found, before anything changes. An action that needs what a bad or skipped one would have
added is not checked, so one mistake is one problem. Applying then goes through the same
domain functions the API uses, so every change writes its audit events. Writes are
attributed to the owner of the action's `key` (the scenario's `key` by default); legal
holds, as on the control plane, to `system`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from mockserver.core.errors import ApiError, NotFound, ScenarioError
from mockserver.domain import documents, vaults, workflows
from mockserver.domain import validation as v
from mockserver.domain.models import ApiKey, Document
from mockserver.domain.store import Store, World
from mockserver.scenarios.model import Action, Scenario

# Adds a webhook endpoint: (world, spec, now). Set by the webhooks feature when it is present.
WebhookSetup = Callable[[World, dict[str, Any], int], None]


@dataclass(slots=True)
class _Planned:
    """What the check pass knows an earlier action will have added."""

    kind: str  # vault | document | workflow
    world: tuple[str, str]
    region: str = ""
    in_workflow: bool = False


class _Unchecked(Exception):
    """An action that needs what a skipped part of the file would have given (an id it adds,
    the default key): it is not checked, and nothing referring to it is reported either."""


@dataclass(slots=True)
class Checker:
    """Checks a run of actions in order, remembering what the earlier ones add."""

    store: Store
    scenario: Scenario
    names: frozenset[str] = frozenset()  # rules, faults, deprecations enable/disable may name
    planned: dict[str, _Planned] = field(default_factory=dict)
    skipped: set[str] = field(init=False)  # ids of actions skipped: bad, or not checked

    def __post_init__(self) -> None:
        self.skipped = set(self.scenario.skipped_ids)

    def check(self, actions: list[Action]) -> list[ScenarioError]:
        """Check each action in turn; the problems found, one per action at most. What a bad
        action adds is skipped: a later action that needs it is not checked."""
        problems: list[ScenarioError] = []
        for action in actions:
            try:
                getattr(self, f"_check_{action.kind}")(action, action.args)
                continue
            except ScenarioError as error:
                problems.append(error)
            except _Unchecked:
                pass
            ident = action.args.get("id")
            if isinstance(ident, str) and ident not in self.planned:
                self.skipped.add(ident)
        return problems

    def _fail(self, action: Action, message: str, field: str | None = None) -> ScenarioError:
        return self.scenario.error((*action.at, field) if field else action.at, message)

    def _missing(
        self, action: Action, ident: str, message: str, field: str | None = None
    ) -> NoReturn:
        """Refuse a reference to `ident`, which is not there; unless a skipped action would
        have added it: then this one is not checked."""
        if ident in self.skipped:
            raise _Unchecked
        raise self._fail(action, message, field)

    def _key(self, action: Action, args: dict[str, Any]) -> ApiKey:
        if "key" not in args and self.scenario.key_refused:
            raise _Unchecked
        key = args.get("key", self.scenario.key)
        found = self.store.keys.get(key)
        if found is None:
            raise self._fail(action, f"unknown key '{key}'", "key" if "key" in args else None)
        return found

    def _free(self, action: Action, world: World, ident: str | None) -> None:
        if ident is None:
            return
        taken = ident in self.planned or any(
            ident in region.vaults or ident in region.documents or ident in region.workflows
            for region in world.regions.values()
        )
        if taken:
            raise self._fail(action, f"the id '{ident}' is already taken", "id")

    def _validated(self, action: Action, run: Callable[[], object]) -> None:
        """Run one of the API's validators; its error is reported at the field it names."""
        try:
            run()
        except ApiError as error:
            param = (error.param or "").split("[")[0].split(".")[0] or None
            raise self._fail(action, error.message, param) from None

    def _check_legal_hold(self, action: Action, args: dict[str, Any]) -> None:
        ident = args["document"]
        if ident in self.planned and self.planned[ident].kind == "document":
            return
        if find_document(self.store, ident, args.get("key")) is None:
            self._missing(action, ident, f"no document '{ident}'", "document")

    def _check_revoke_key(self, action: Action, args: dict[str, Any]) -> None:
        self._key(action, args)

    def _check_add_vault(self, action: Action, args: dict[str, Any]) -> None:
        key = self._key(action, args)
        world = world_of(self.store, key)
        self._free(action, world, args.get("id"))
        if "id" in args:  # planned before its fields are checked: a bad name is one problem
            self.planned[args["id"]] = _Planned("vault", _world_key(key), args["region"])
        limits = self.store.limits
        self._validated(action, lambda: v.string(args["name"], "name", max_len=limits.name_max))
        for i, member in enumerate(args.get("members", [])):
            param = f"members[{i}]"
            self._validated(action, lambda: v.email(member, param))  # noqa: B023  # called now

    def _check_add_document(self, action: Action, args: dict[str, Any]) -> None:
        key = self._key(action, args)
        world = world_of(self.store, key)
        self._free(action, world, args.get("id"))
        vault_id = args["vault_id"]
        planned = self.planned.get(vault_id)
        if planned is not None and planned.kind == "vault" and planned.world == _world_key(key):
            region = planned.region
        else:
            found = next((r for r, d in world.regions.items() if vault_id in d.vaults), None)
            if found is None:
                self._missing(
                    action, vault_id, f"no vault '{vault_id}' for key {key.key}", "vault_id"
                )
            region = found
        if "id" in args:
            self.planned[args["id"]] = _Planned("document", _world_key(key), region)
        limits = self.store.limits
        self._validated(action, lambda: v.string(args["title"], "title", max_len=limits.title_max))
        if "metadata" in args:
            self._validated(action, lambda: v.metadata(args["metadata"], limits))

    def _check_add_workflow(self, action: Action, args: dict[str, Any]) -> None:
        key = self._key(action, args)
        world = world_of(self.store, key)
        self._free(action, world, args.get("id"))
        doc_id = args["document_id"]
        planned = self.planned.get(doc_id)
        if planned is not None and planned.kind == "document":
            if planned.in_workflow:
                raise self._fail(action, f"document '{doc_id}' is already in a workflow")
            planned.in_workflow = True
        else:
            doc = _document_in(world, doc_id)
            if doc is None:
                self._missing(action, doc_id, f"no document '{doc_id}' for key {key.key}")
            if doc.status != "draft" or doc.id in world.active_workflows:
                raise self._fail(action, f"document '{doc_id}' is {doc.status}, not a free draft")
        for i, step in enumerate(args["steps"]):
            assignee, param = step["assignee"], f"steps[{i}]"
            self._validated(action, lambda: v.email(assignee, param))  # noqa: B023  # called now
        if "id" in args:
            self.planned[args["id"]] = _Planned("workflow", _world_key(key))

    def _check_advance_workflow(self, action: Action, args: dict[str, Any]) -> None:
        key = self._key(action, args)
        ident = args["workflow"]
        if ident in self.planned and self.planned[ident].kind == "workflow":
            return
        world = world_of(self.store, key)
        if not any(ident in region.workflows for region in world.regions.values()):
            self._missing(action, ident, f"no workflow '{ident}' for key {key.key}", "workflow")

    def _check_add_webhook_endpoint(self, action: Action, args: dict[str, Any]) -> None:
        self._key(action, args)
        if not args["url"].startswith(("https://", "http://")):
            raise self._fail(action, "url must be an https:// URL", "url")

    def _check_enable(self, action: Action, args: dict[str, Any]) -> None:
        pass  # names are checked by the loader

    _check_disable = _check_enable


def _world_key(key: ApiKey) -> tuple[str, str]:
    return (key.account_id, key.environment)


def world_of(store: Store, key: ApiKey) -> World:
    return store.world(key.account_id, key.environment)


def _document_in(world: World, ident: str) -> Document | None:
    for region in world.regions.values():
        doc = region.documents.get(ident)
        if doc is not None and not doc.deleted:
            return doc
    return None


def find_document(store: Store, ident: str, key: str | None) -> tuple[World, Document] | None:
    """The document in the key's world, or (no key) in any world, as the control plane does."""
    if key is not None:
        api_key = store.keys.get(key)
        candidates = [] if api_key is None else [world_of(store, api_key)]
    else:
        candidates = store.seeded_worlds()
    for world in candidates:
        doc = _document_in(world, ident)
        if doc is not None:
            return world, doc
    return None


class Applier:
    """Applies checked actions; `toggle` turns rules, faults and deprecations on and off."""

    def __init__(
        self,
        store: Store,
        scenario: Scenario,
        toggle: Callable[[str, bool], None],
        webhook_setup: WebhookSetup | None,
        pending_webhooks: list[dict[str, Any]],
    ) -> None:
        self.store = store
        self.scenario = scenario
        self.toggle = toggle
        self.webhook_setup = webhook_setup
        self.pending_webhooks = pending_webhooks

    def apply(self, action: Action) -> None:
        """Apply one action; a domain error becomes a ScenarioError at the action's line."""
        try:
            getattr(self, f"_{action.kind}")(action.args, self.store.now())
        except ApiError as error:
            where = f" ({error.param})" if error.param else ""
            raise self.scenario.error(action.at, f"{error.message}{where}") from None

    def _key(self, args: dict[str, Any]) -> ApiKey:
        return self.store.keys[args.get("key", self.scenario.key)]

    def _legal_hold(self, args: dict[str, Any], now: int) -> None:
        found = find_document(self.store, args["document"], args.get("key"))
        if found is None:
            raise NotFound.resource("document", args["document"])
        documents.set_legal_hold(found[0], found[1], args.get("hold", True), now)

    def _revoke_key(self, args: dict[str, Any], now: int) -> None:
        self.store.keys[args["key"]].revoked = True

    def _add_vault(self, args: dict[str, Any], now: int) -> None:
        key = self._key(args)
        body: dict[str, Any] = {k: args[k] for k in ("name", "region", "members") if k in args}
        world = world_of(self.store, key)
        limits = self.store.limits
        vaults.create(world, args["region"], body, limits, key.owner, now, new_id=args.get("id"))

    def _add_document(self, args: dict[str, Any], now: int) -> None:
        key = self._key(args)
        world = world_of(self.store, key)
        region = next(r for r, d in world.regions.items() if args["vault_id"] in d.vaults)
        body: dict[str, Any] = {k: args[k] for k in ("title", "vault_id", "metadata") if k in args}
        doc = documents.create(
            world, region, body, self.store.limits, key.owner, now, new_id=args.get("id")
        )
        if args.get("legal_hold"):
            documents.set_legal_hold(world, doc, True, now)

    def _add_workflow(self, args: dict[str, Any], now: int) -> None:
        key = self._key(args)
        world = world_of(self.store, key)
        doc = _document_in(world, args["document_id"])
        region = doc.region if doc is not None else world.account.default_region
        body = {"document_id": args["document_id"], "steps": args["steps"]}
        workflows.create(
            world, region, body, self.store.limits, key.owner, now, new_id=args.get("id")
        )

    def _advance_workflow(self, args: dict[str, Any], now: int) -> None:
        key = self._key(args)
        world = world_of(self.store, key)
        ident = args["workflow"]
        region = next((r for r, d in world.regions.items() if ident in d.workflows), "us")
        body: dict[str, Any] = {k: args[k] for k in ("decision", "comment") if k in args}
        workflows.advance(world, region, ident, body, key.owner, now)

    def _add_webhook_endpoint(self, args: dict[str, Any], now: int) -> None:
        key = self._key(args)
        spec = {**args, "key": key.key}
        if self.webhook_setup is None:
            self.pending_webhooks.append(spec)  # kept as data until webhooks are wired in
        else:
            self.webhook_setup(world_of(self.store, key), spec, now)

    def _enable(self, args: dict[str, Any], now: int) -> None:
        self.toggle(args["name"], True)

    def _disable(self, args: dict[str, Any], now: int) -> None:
        self.toggle(args["name"], False)
