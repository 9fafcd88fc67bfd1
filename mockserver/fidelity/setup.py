"""The setup of an imported scenario: what the recording read but did not create.

Every document, vault and workflow a recorded request names (in its path or body) or a
recorded answer describes, that no recorded request created and that the mock's seed does
not already hold, is recreated with its recorded id, in the state it was first seen in: a
vault with its name, region and members; a document with its title, metadata and legal hold,
brought to its status through a workflow (`in_review`: a workflow started; `signed`: every
step approved, one per signer; `locked`: signed, and the clock moved past the lock by a first
step, with the documents seen `signed` signed on the timeline after that, so that they stay
signed); a workflow with its steps and the decisions taken so far.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from mockserver.core.config import Settings
from mockserver.engine.sandbox import SandboxState

LOCK_AFTER: Final = 301  # seconds: just past the default lock delay, for `locked`
PLACEHOLDER_ASSIGNEE: Final = "reviewer@example.com"
_KINDS: Final = {"vault_": "vault", "doc_": "document", "wf_": "workflow"}
_SETUP_ID: Final = re.compile(r"(vault|doc|wf)_[A-Za-z0-9_]+\Z")


@dataclass(slots=True)
class Seen:
    """What the recording showed of the resources it did not create, first sight first."""

    vaults: dict[str, dict[str, Any]] = field(default_factory=dict)
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)
    workflows: dict[str, dict[str, Any]] = field(default_factory=dict)
    routed: dict[str, str] = field(default_factory=dict)  # id -> region of the request

    def resource(self, ident: str, fields: dict[str, Any] | None, region: str) -> None:
        """Note `ident` (named by a request or described by `fields`), once per field."""
        if not _SETUP_ID.match(ident):
            return
        kind = next(k for prefix, k in _KINDS.items() if ident.startswith(prefix))
        store = {"vault": self.vaults, "document": self.documents, "workflow": self.workflows}
        known = store[kind].setdefault(ident, {})
        for name, value in (fields or {}).items():
            known.setdefault(name, value)
        self.routed.setdefault(ident, region)

    def describe(self, body: Any, region: str) -> None:
        """Note every resource an answer describes (a list's items too)."""
        if isinstance(body, dict):
            ident = body.get("id")
            if isinstance(ident, str) and body.get("object") in (
                "vault",
                "document",
                "workflow",
            ):
                self.resource(ident, body, region)
            for value in body.values():
                if isinstance(value, list):
                    for item in value:
                        self.describe(item, region)


class SeedIds:
    """The keys, vaults, documents and workflows of the seed a replay starts from."""

    def __init__(self, seed_path: Path | None = None) -> None:
        """`seed_path` None: the packaged default seed. SeedError for a bad seed."""
        self._sandbox = SandboxState.build(Settings(seed_path=seed_path, clock_mode="frozen"))

    def keys(self) -> list[str]:
        return list(self._sandbox.store.seed.keys)

    def held(self, candidates: set[str]) -> set[str]:
        """Those of `candidates` that some world of the seed holds (a recording may use
        several keys: each reaches its own)."""
        store = self._sandbox.store
        worlds = {(k.account_id, k.environment) for k in store.keys.values()}
        regions = [region for world in worlds for region in store.world(*world).regions.values()]
        return {
            ident
            for ident in candidates
            for region in regions
            if ident in region.vaults or ident in region.documents or ident in region.workflows
        }


@dataclass(slots=True)
class Plan:
    """How a replay recreates what was seen: setup actions at load; with locked documents,
    a first step that moves the clock past their lock (`advance`), and the signing of the
    documents seen `signed` put off until then (`later`), so that they are not locked too."""

    setup: list[dict[str, Any]] = field(default_factory=list)
    later: list[dict[str, Any]] = field(default_factory=list)
    advance: int = 0


def plan(seen: Seen, created: set[str], existing: set[str]) -> Plan:
    """The plan recreating what `seen` holds but neither `created` nor `existing` does."""
    skip = created | existing
    made = Plan()
    vaults_needed = {ident for ident in seen.vaults if ident not in skip}
    documents = {
        ident: doc
        for ident, doc in seen.documents.items()
        if ident not in skip and isinstance(doc.get("vault_id"), str)
    }
    for doc in documents.values():
        if doc["vault_id"] not in skip:
            vaults_needed.add(doc["vault_id"])
            seen.resource(doc["vault_id"], {"region": doc.get("region")}, doc.get("region") or "us")
    for ident in sorted(vaults_needed):
        made.setup.append({"add_vault": _vault(ident, seen.vaults.get(ident, {}), seen)})
    workflows_of = {
        wf.get("document_id"): ident for ident, wf in seen.workflows.items() if ident not in skip
    }
    if any(doc.get("status") == "locked" for doc in documents.values()):
        made.advance = LOCK_AFTER
    for ident, doc in documents.items():
        made.setup.append({"add_document": _document(ident, doc)})
        status = doc.get("status", "draft")
        workflow = workflows_of.pop(ident, None)
        if workflow is not None:
            actions = _workflow(workflow, seen.workflows[workflow])
        else:
            actions = _status(ident, doc, status)
        signed_later = made.advance and status == "signed"
        (made.later if signed_later else made.setup).extend(actions)
    for document_id, ident in workflows_of.items():
        if isinstance(document_id, str) and document_id in skip:
            made.setup.extend(_workflow(ident, seen.workflows[ident]))
    return made


def _status(ident: str, doc: dict[str, Any], status: str) -> list[dict[str, Any]]:
    """The actions that bring a new draft to `status`: a workflow of one step per signer (or
    one placeholder step), approved through for `signed` and `locked`."""
    if status not in ("in_review", "signed", "locked"):
        return []
    signers = [s for s in _list(doc, "signers") if isinstance(s, str)]
    steps = [{"assignee": s} for s in signers] or [{"assignee": PLACEHOLDER_ASSIGNEE}]
    workflow: dict[str, Any] = {"document_id": ident, "steps": steps}
    if status == "in_review":
        return [{"add_workflow": workflow}]
    workflow = {"id": f"wf_{ident.removeprefix('doc_')}_setup", **workflow}
    approvals = [
        {"advance_workflow": {"workflow": workflow["id"], "decision": "approve"}} for _ in steps
    ]
    return [{"add_workflow": workflow}, *approvals]


def _vault(ident: str, fields: dict[str, Any], seen: Seen) -> dict[str, Any]:
    region = fields.get("region") or seen.routed.get(ident) or "us"
    vault: dict[str, Any] = {
        "id": ident,
        "name": fields.get("name") or f"Recorded vault {ident}",
        "region": region,
    }
    members = [
        m.get("email") if isinstance(m, dict) else m
        for m in _list(fields, "members")
        if not (isinstance(m, dict) and m.get("role") == "owner")  # the creating key's owner
    ]
    emails = [m for m in members if isinstance(m, str) and "@" in m]
    if emails:
        vault["members"] = emails
    return vault


def _document(ident: str, fields: dict[str, Any]) -> dict[str, Any]:
    document: dict[str, Any] = {
        "id": ident,
        "vault_id": fields["vault_id"],
        "title": fields.get("title") or f"Recorded document {ident}",
    }
    if isinstance(fields.get("metadata"), dict) and fields["metadata"]:
        document["metadata"] = fields["metadata"]
    if fields.get("legal_hold") is True:
        document["legal_hold"] = True
    return document


def _workflow(ident: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
    """A workflow with its recorded steps, and the decisions recorded on them so far."""
    steps: list[dict[str, Any]] = []
    decisions: list[str] = []
    for step in _list(fields, "steps"):
        if not isinstance(step, dict):
            continue
        made: dict[str, Any] = {"assignee": step.get("assignee") or PLACEHOLDER_ASSIGNEE}
        if isinstance(step.get("condition"), str):
            made["condition"] = step["condition"]
        steps.append(made)
        if step.get("decision") in ("approve", "reject"):
            decisions.append(step["decision"])
    if not steps:
        steps = [{"assignee": PLACEHOLDER_ASSIGNEE}]
    actions: list[dict[str, Any]] = [
        {"add_workflow": {"id": ident, "document_id": fields.get("document_id"), "steps": steps}}
    ]
    actions.extend(
        {"advance_workflow": {"workflow": ident, "decision": decision}} for decision in decisions
    )
    return actions


def _list(fields: dict[str, Any], name: str) -> list[Any]:
    """A field that is a list (a list view shows some as counts instead)."""
    value = fields.get(name)
    return value if isinstance(value, list) else []
