"""The workflows of a seed's environment, read and checked: each against its document (one
open and one completed at most per document, never before it), its steps in order, and the
documents' states they imply (an in_review document needs an open workflow; a signed one with
no signer a completed workflow that skipped every step). Part of the seed builder
(`builder.py`), which gives each record its ids and reports its problems."""

from __future__ import annotations

from typing import NoReturn, Protocol

from mockserver.domain.models import WORKFLOW_STATUSES, Document, SeedData, Workflow, WorkflowStep
from mockserver.seeds.validation import (
    SIGNED_STATUSES,
    WORKFLOW,
    Invalid,
    PathT,
    Reference,
    choice,
    fail,
    fresh,
    integer,
    items,
    prefixed_id,
    read_step,
    render_path,
    workflow_state,
)


class Builder(Protocol):
    """What reading workflows needs of the seed builder (`builder.py`): the seed so far, its
    reference time, the conditions' errors, and where problems and ids are recorded."""

    seed: SeedData
    reference: Reference
    condition_errors: dict[str, str | None]
    problems: list[Invalid]

    def skip(self, value: object, problem: Invalid | None) -> None: ...

    def claim(self, kind: str, ident: str, path: PathT, key: str) -> None: ...

    def missing(
        self, section: str, kind: str, ident: object, path: PathT, key: str
    ) -> NoReturn: ...


class RefersToSkipped(Exception):
    """A record refers to one skipped as bad: skipped too, its problem already reported."""


def read_workflows(
    builder: Builder,
    value: object,
    path: PathT,
    documents: list[Document],
    placed: list[int],
) -> list[Workflow]:
    """The environment's workflows; then every in_review document (at its `placed` index
    in the file) must have had one open."""
    by_id = {doc.id: doc for doc in documents}
    # (status, document id) -> path: a document has one open and one completed at most
    first: dict[tuple[str, str], PathT] = {}
    workflows = []
    complete = True  # no workflow skipped: the in_review check below can be trusted
    for index, item in enumerate(items(value, path, "workflows")):
        at = (*path, "workflows", index)
        try:
            workflow = read_workflow(builder, item, at, by_id)
            if workflow.status != "rejected":
                seen = first.setdefault((workflow.status, workflow.document_id), at)
                if seen is not at:
                    problem = (
                        f"already has a workflow that is {workflow.status} ({render_path(seen)})"
                    )
                    fail(at, "document_id", f"document '{workflow.document_id}' {problem}")
        except (Invalid, RefersToSkipped) as error:
            builder.skip(item, error if isinstance(error, Invalid) else None)
            complete = False
            continue
        workflows.append(workflow)
    for index, doc in zip(placed, documents, strict=True):
        if not complete:
            break
        at = (*path, "documents", index)
        if doc.status == "in_review" and ("in_progress", doc.id) not in first:
            problem = "is in_review, so it needs an in_progress workflow under workflows"
            builder.problems.append(Invalid(at, problem, at=(*at, "status")))
        # The API signs with no signer only when a workflow's conditions skip every step.
        if doc.status in SIGNED_STATUSES and not doc.signers:
            if ("completed", doc.id) not in first:
                problem = (
                    f"a {doc.status} document needs at least one signer (none only when "
                    "its completed workflow skipped every step)"
                )
                builder.problems.append(Invalid(at, problem, at=(*at, "signers")))
    return workflows


def read_workflow(
    builder: Builder, value: object, path: PathT, documents: dict[str, Document]
) -> Workflow:
    raw = WORKFLOW.check(value, path)
    workflow_id = prefixed_id(raw["id"], path, "id", "wf_")
    builder.claim("workflow id", workflow_id, path, "id")
    doc_id = raw["document_id"]
    doc = documents.get(doc_id) if type(doc_id) is str else None
    if doc is None:
        builder.missing("documents", "document", doc_id, path, "document_id")
    status = choice(raw["status"], path, "status", WORKFLOW_STATUSES)
    created_at = builder.reference.moment(raw["created_at"], path, "created_at")
    if created_at < doc.created_at:
        fail(path, "created_at", f"is before the created_at of document '{doc.id}'")
    current = integer(raw["current_step"], path, "current_step", 1)
    steps = read_steps(builder, raw["steps"], path, created_at)
    workflow_state(path, status, current, steps, doc)
    last = next((s for s in reversed(steps) if s.decision in ("approve", "reject")), None)
    return Workflow(
        id=fresh(workflow_id),
        document_id=doc.id,
        region=doc.region,
        status=status,
        current_step=current,
        created_at=created_at,
        steps=steps,
        last_decision=None if last is None else (last.assignee, last.decision or ""),
    )


def read_steps(builder: Builder, value: object, path: PathT, created_at: int) -> list[WorkflowStep]:
    """1..steps_max steps whose decisions come in step order, none before `created_at`."""
    raw = items(value, path, "steps")
    if not raw:
        fail(path, "steps", "must list at least one step")
    most = builder.seed.limits.steps_max
    if len(raw) > most:
        fail(path, "steps", f"at most {most} steps allowed (got {len(raw)})")
    steps: list[WorkflowStep] = []
    after, previous = created_at, "the workflow's created_at"
    for index, item in enumerate(raw):
        at = (*path, "steps", index)
        step = read_step(item, at, builder.reference, builder.condition_errors)
        if step.decided_at is not None:
            if step.decided_at < after:
                fail(at, "decided_at", f"is before {previous}")
            after, previous = step.decided_at, f"the decided_at of steps[{index}]"
        steps.append(step)
    return steps
