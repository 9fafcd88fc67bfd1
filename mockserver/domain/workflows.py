"""Approval workflows: the workflow state machine and the document transitions it drives.

    (create, document draft)  -> in_progress   document -> in_review
    in_progress + approve     -> in_progress   next step (steps whose condition is false skip)
    approve on the last step  -> completed     document -> signed, signature.completed per signer
    in_progress + reject      -> rejected      document -> draft

A step's condition is evaluated on the document as retrieve shows it, when the step becomes
current. Anyone with workflows:write decides the current step: the decision is recorded as
the step's assignee's, the audit event's actor is the caller.

Changes go to `world.writable_workflow` / `writable_document` copies: seeded objects are shared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mockserver.core.errors import Conflict, ValidationError
from mockserver.domain import documents, views
from mockserver.domain import validation as v
from mockserver.domain.conditions import MAX_LENGTH, ConditionSyntaxError, parse
from mockserver.domain.elsewhere import not_found
from mockserver.domain.models import DECISIONS, Document, Limits, Workflow, WorkflowStep
from mockserver.domain.store import World

COMMENT_MAX = 2000


def _steps(raw: Any, limits: Limits) -> list[WorkflowStep]:
    steps = []
    for i, item in enumerate(v.array(raw, "steps", max_items=limits.steps_max, min_items=1)):
        where = f"steps[{i}]"
        fields = v.obj(item, where)
        assignee = v.email(v.required(fields, "assignee", f"{where}.assignee"), f"{where}.assignee")
        condition = fields.get("condition")
        if condition is not None:
            param = f"{where}.condition"
            condition = v.string(condition, param, max_len=MAX_LENGTH)
            try:
                parse(condition)
            except ConditionSyntaxError as error:
                raise ValidationError(f"Invalid condition: {error.message}", param=param) from None
        steps.append(WorkflowStep(assignee=assignee, condition=condition))
    return steps


def record(world: World, workflow: Workflow, doc: Document, type: str, actor: str, at: int) -> None:
    world.record(
        workflow.region,
        type,
        actor,
        at,
        workflow.id,
        (doc.id, doc.vault_id),
        views.workflow_detail(workflow),
    )


def _holds(condition: str, view: Mapping[str, Any]) -> bool:
    """Whether the step condition `condition` is true of the document `view`."""
    return parse(condition).evaluate(view)


def _skip_false_steps(workflow: Workflow, doc: Document, at: int) -> bool:
    """Skip current steps whose condition is false; True when no step is left."""
    view = views.document_detail(doc)
    while workflow.current_step <= len(workflow.steps):
        step = workflow.steps[workflow.current_step - 1]
        if step.condition is None or _holds(step.condition, view):
            return False
        step.decision = "skipped"
        step.decided_at = at
        workflow.current_step += 1
    workflow.current_step = len(workflow.steps)
    return True


def _complete(world: World, workflow: Workflow, doc: Document, actor: str, at: int) -> None:
    workflow.status = "completed"
    world.active_workflows.pop(doc.id, None)
    record(world, workflow, doc, "workflow.completed", actor, at)
    signers = list(dict.fromkeys(s.assignee for s in workflow.steps if s.decision == "approve"))
    doc = documents.sign(world, doc, signers, actor, at)
    for signer in signers:
        world.record(
            doc.region,
            "signature.completed",
            actor,
            at,
            doc.id,
            (doc.vault_id,),
            views.signature_completed(doc, signer),
        )


def create(
    world: World,
    region: str,
    body: Mapping[str, Any],
    limits: Limits,
    actor: str,
    now: int,
    *,
    new_id: str | None = None,
) -> Workflow:
    """Start approval of a draft document, which moves to in_review; `new_id` fixes the id."""
    document_id = v.string(v.required(body, "document_id"), "document_id", max_len=255)
    steps = _steps(v.required(body, "steps"), limits)
    doc = documents.get(world, region, document_id, param="document_id")
    if doc.id in world.active_workflows:
        raise Conflict(
            f"Document {doc.id} already has an in_progress workflow "
            f"({world.active_workflows[doc.id]})."
        ).because(
            "state",
            resource=doc.id,
            current=doc.status,
            allowed=["no in_progress workflow"],
            workflow=world.active_workflows[doc.id],
        )
    if doc.status != "draft":
        raise Conflict(
            f"Document {doc.id} is {doc.status}; only draft documents can enter a workflow."
        ).because("state", resource=doc.id, current=doc.status, allowed=["draft"])
    workflow = Workflow(
        id=new_id or world.new_id("wf_"),
        document_id=doc.id,
        region=region,
        status="in_progress",
        current_step=1,
        created_at=now,
        steps=steps,
    )
    world.add_workflow(workflow)
    doc = world.writable_document(doc)
    doc.status = "in_review"
    finished = _skip_false_steps(workflow, doc, now)
    record(world, workflow, doc, "workflow.created", actor, now)
    documents.record(world, doc, "document.in_review", actor, now)
    if finished:
        _complete(world, workflow, doc, actor, now)
    return workflow


def get(world: World, region: str, workflow_id: str) -> Workflow:
    workflow = world.regions[region].workflows.get(workflow_id)
    if workflow is None:
        raise not_found(world, region, "workflow", workflow_id)
    return workflow


def advance(
    world: World, region: str, workflow_id: str, body: Mapping[str, Any], actor: str, now: int
) -> Workflow:
    """Decide the current step: approve moves on (or completes), reject halts."""
    decision = v.choice(v.required(body, "decision"), "decision", DECISIONS)
    comment = body.get("comment")
    if comment is not None:
        comment = v.string(comment, "comment", max_len=COMMENT_MAX, min_len=0)
    workflow = get(world, region, workflow_id)
    if workflow.status != "in_progress":
        raise Conflict(
            f"Workflow {workflow.id} is {workflow.status}; only in_progress workflows advance."
        ).because("state", resource=workflow.id, current=workflow.status, allowed=["in_progress"])
    doc = world.regions[region].documents[workflow.document_id]
    if doc.deleted:
        raise Conflict(f"Document {doc.id} of workflow {workflow.id} has been deleted.").because(
            "state", resource=doc.id, current="deleted", allowed=["not deleted"]
        )
    workflow = world.writable_workflow(workflow)
    step = workflow.steps[workflow.current_step - 1]
    step.decision = decision
    step.decided_at = now
    step.comment = comment
    workflow.last_decision = (step.assignee, decision)
    if decision == "reject":
        workflow.status = "rejected"
        world.active_workflows.pop(doc.id, None)
        record(world, workflow, doc, "workflow.rejected", actor, now)
        documents.move(world, doc, "draft", actor, now)
        return workflow
    workflow.current_step += 1
    if _skip_false_steps(workflow, doc, now):
        _complete(world, workflow, doc, actor, now)
    else:
        record(world, workflow, doc, "workflow.advanced", actor, now)
    return workflow
