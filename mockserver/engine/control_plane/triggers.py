"""How to make each webhook event happen: the recipes of `mockserver trigger`.

A recipe is the list of requests a client would make for the event to happen for real: a
vault, a document, a workflow and its approval for `signature.completed`; the same and a
clock advance past the lock for `document.locked`. Recipes only name requests (method, path,
JSON body) and hand them to a `Call`: `POST /_mock/events/trigger` and the inspector's form run
them through the app itself (`self_call.py`), so every request goes through every middleware
and the journal, the audit log and the delivery engine all see a real flow. This is the one
copy of them; the CLI posts to that endpoint.

`--override FIELD=VALUE` names a field of the event's `data` (dotted for nested ones); each
recipe knows which request field makes that data field (`Field`), and sets it there before the
request is sent. A field no request of the recipe sets cannot be overridden: 422 naming it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mockserver.core.errors import (
    ApiError,
    AuthenticationError,
    BadRequest,
    Conflict,
    InternalError,
    NotFound,
    PermissionDenied,
    RateLimited,
    ValidationError,
)

# (method, path, JSON body or None) -> (status, parsed JSON answer)
Call = Callable[[str, str, Any], Awaitable[tuple[int, Any]]]

LOCK_AFTER = 300  # seconds: a vault made through the API locks its signed documents after this
SIGNER = "signer@example.com"
REVIEWER = "reviewer@example.com"
ENDPOINT_URL = "https://127.0.0.1:9/mockserver-trigger"  # nothing listens; it is deleted at once


@dataclass(frozen=True, slots=True)
class Field:
    """A data field that can be overridden, and where the recipe's requests set it: the body
    (`document`, `workflow`, ...) and the dotted path in it; `*` stands for any one key."""

    data: str
    body: str
    path: str

    def match(self, name: str) -> str | None:
        """The request path for the data field `name`, or None if this is not its field."""
        if "*" not in self.data:
            return self.path if name == self.data else None
        head = self.data.removesuffix("*")
        rest = name.removeprefix(head)
        if not name.startswith(head) or not rest or "." in rest:
            return None
        return self.path.replace("*", rest)


DOCUMENT_FIELDS = (
    Field("title", "document", "title"),
    Field("metadata", "document", "metadata"),
    Field("metadata.*", "document", "metadata.*"),
    Field("region", "vault", "region"),
)
VAULT_FIELDS = (Field("name", "vault", "name"), Field("region", "vault", "region"))
ENDPOINT_FIELDS = (Field("url", "endpoint", "url"), Field("events", "endpoint", "events"))


def _workflow_fields(steps: int, decided: bool) -> tuple[Field, ...]:
    assignees = tuple(
        Field(f"steps.{i}.assignee", "workflow", f"steps.{i}.assignee") for i in range(steps)
    )
    return (*assignees, Field("steps.0.comment", "advance", "comment")) if decided else assignees


@dataclass(eq=False)
class Run:
    """One trigger: its requests, the ids it made, the overrides it applies."""

    call: Call
    event_type: str
    overrides: dict[str, tuple[str, str, Any]]  # data field -> (body, path, value)
    objects: dict[str, str] = field(default_factory=dict)
    region: str = ""

    def body(self, name: str, default: dict[str, Any]) -> dict[str, Any]:
        """The body `name` of the recipe with the overrides aimed at it applied."""
        body = copy.deepcopy(default)
        for target, path, value in self.overrides.values():
            if target == name:
                set_path(body, path, value)
        return body

    async def send(self, method: str, path: str, body: Any = None, name: str = "") -> Any:
        """One request; a refusal stops the trigger with that error (param named as an
        override when the overridden value was refused)."""
        status, answer = await self.call(method, path, body)
        if status < 300:
            return answer
        error = answer.get("error", {}) if isinstance(answer, dict) else {}
        param = error.get("param")
        for data_field, (target, request_path, _) in self.overrides.items():
            if target == name and param and _within(param, request_path):
                param = f"overrides.{data_field}"
        message = error.get("message") or f"answered {status}"
        raise _error_for(status)(
            f"Triggering {self.event_type}: {method} {path} was refused ({status}): {message}",
            param=param,
        )

    @property
    def prefix(self) -> str:
        return f"/{self.region}/v1"

    async def vault(self) -> str:
        if not self.region:
            whoami = await self.send("GET", "/v1/whoami")
            self.region = whoami["region"]
        body = self.body("vault", {"name": f"Vault for {self.event_type}", "region": self.region})
        if isinstance(body.get("region"), str) and body["region"] in ("us", "eu"):
            self.region = body["region"]  # created through its region's base URL
        made = await self.send("POST", f"{self.prefix}/vaults", body, "vault")
        self.objects["vault"] = made["id"]
        return str(made["id"])

    async def document(self) -> str:
        vault_id = await self.vault()
        body = self.body(
            "document", {"title": f"Triggered {self.event_type}", "vault_id": vault_id}
        )
        made = await self.send("POST", f"{self.prefix}/documents", body, "document")
        self.objects["document"] = made["id"]
        return str(made["id"])

    async def workflow(self, steps: int = 1) -> str:
        doc_id = await self.document()
        people = [SIGNER, REVIEWER][:steps]
        default = {"document_id": doc_id, "steps": [{"assignee": p} for p in people]}
        made = await self.send(
            "POST", f"{self.prefix}/workflows", self.body("workflow", default), "workflow"
        )
        self.objects["workflow"] = made["id"]
        return str(made["id"])

    async def decide(self, workflow_id: str, decision: str) -> None:
        body = self.body("advance", {"decision": decision})
        await self.send("POST", f"{self.prefix}/workflows/{workflow_id}/advance", body, "advance")

    async def hold(self, doc_id: str, on: bool) -> None:
        await self.send("POST", f"/_mock/documents/{doc_id}/legal_hold", {"on": on})

    async def events(self, resource_id: str, prefix: str = "") -> list[str]:
        """Ids of the events of the triggered type about `resource_id`, oldest first."""
        query = f"resource_id={resource_id}&type={self.event_type}&limit=100"
        page = await self.send("GET", f"{prefix or self.prefix}/audit_logs?{query}")
        return [event["id"] for event in reversed(page["data"])]


def _within(param: str, path: str) -> bool:
    """Whether the API's `param` (`steps[0].assignee`, `metadata.k`) names `path` or in it."""
    dotted = param.replace("[", ".").replace("]", "")
    return dotted == path or dotted.startswith(path + ".")


def _error_for(status: int) -> type[ApiError]:
    by_status: dict[int, type[ApiError]] = {
        400: BadRequest,
        401: AuthenticationError,
        403: PermissionDenied,
        404: NotFound,
        409: Conflict,
        422: ValidationError,
        429: RateLimited,
    }
    return by_status.get(status, InternalError)


def set_path(body: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted path in a JSON body: numbers index lists, other parts key objects (made
    when missing)."""
    *parents, last = path.split(".")
    node: Any = body
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


# -- the recipes: each makes its event happen and returns the ids of the events --------------


async def _document_event(run: Run) -> list[str]:
    """The document events: a vault and a document, then what moves it to the status."""
    kind = run.event_type.removeprefix("document.")
    if kind == "created":
        return await run.events(await run.document())
    if kind in ("deleted", "legal_hold_placed", "legal_hold_released"):
        doc_id = await run.document()
        if kind == "deleted":
            await run.send("DELETE", f"{run.prefix}/documents/{doc_id}")
        else:
            await run.hold(doc_id, True)
            if kind == "legal_hold_released":
                await run.hold(doc_id, False)
        return await run.events(doc_id)
    workflow_id = await run.workflow()
    if kind != "in_review":
        await run.decide(workflow_id, "reject" if kind == "draft" else "approve")
    if kind == "locked":
        await run.send("POST", "/_mock/clock/advance", {"seconds": LOCK_AFTER + 1})
    return await run.events(run.objects["document"])


async def _workflow_event(run: Run) -> list[str]:
    kind = run.event_type.removeprefix("workflow.")
    workflow_id = await run.workflow(steps=2 if kind == "advanced" else 1)
    if kind != "created":
        await run.decide(workflow_id, "reject" if kind == "rejected" else "approve")
    return await run.events(workflow_id)


async def _signature(run: Run) -> list[str]:
    await run.decide(await run.workflow(), "approve")
    return await run.events(run.objects["document"])


async def _vault(run: Run) -> list[str]:
    return await run.events(await run.vault())


async def _export(run: Run) -> list[str]:
    clock = await run.send("GET", "/_mock/clock")
    day = clock["now"][:10]
    body = run.body("export", {"period": f"{day}/{day}", "format": "csv"})
    made = await run.send("POST", "/v1/audit_logs/export", body, "export")
    run.objects["audit_export"] = made["id"]
    return await run.events(made["id"], "/v1")


async def _endpoint(run: Run) -> list[str]:
    """Registered and deleted at once, so a trigger never leaves an endpoint behind."""
    body = run.body("endpoint", {"url": ENDPOINT_URL, "events": ["webhook_endpoint.deleted"]})
    made = await run.send("POST", "/v1/webhook_endpoints", body, "endpoint")
    run.objects["webhook_endpoint"] = made["id"]
    await run.send("DELETE", f"/v1/webhook_endpoints/{made['id']}")
    return await run.events(made["id"], "/v1")


@dataclass(frozen=True, slots=True)
class Recipe:
    run: Callable[[Run], Awaitable[list[str]]]
    fields: tuple[Field, ...]


RECIPES: dict[str, Recipe] = {
    **{
        f"document.{kind}": Recipe(_document_event, DOCUMENT_FIELDS)
        for kind in (
            "created",
            "in_review",
            "signed",
            "locked",
            "draft",
            "deleted",
            "legal_hold_placed",
            "legal_hold_released",
        )
    },
    "workflow.created": Recipe(_workflow_event, _workflow_fields(1, decided=False)),
    "workflow.advanced": Recipe(_workflow_event, _workflow_fields(2, decided=True)),
    "workflow.completed": Recipe(_workflow_event, _workflow_fields(1, decided=True)),
    "workflow.rejected": Recipe(_workflow_event, _workflow_fields(1, decided=True)),
    "signature.completed": Recipe(_signature, (Field("signer", "workflow", "steps.0.assignee"),)),
    "vault.created": Recipe(_vault, VAULT_FIELDS),
    "audit_export.created": Recipe(_export, (Field("period", "export", "period"),)),
    "webhook_endpoint.created": Recipe(_endpoint, ENDPOINT_FIELDS),
    "webhook_endpoint.deleted": Recipe(_endpoint, ENDPOINT_FIELDS),
}


def overridable(event_type: str) -> list[str]:
    """The data fields of an event type that `--override` can set."""
    return [f.data.replace("*", "<key>") for f in RECIPES[event_type].fields]


def plan(event_type: str, overrides: Mapping[str, Any], call: Call) -> Run:
    """A trigger ready to run; 422 for an unknown type (`param: type`) or a field that cannot
    be overridden (`param: overrides.FIELD`)."""
    recipe = RECIPES.get(event_type)
    if recipe is None:
        raise ValidationError(
            f"'{event_type[:100]}' is not an event type that can be triggered. Known types: "
            f"{', '.join(RECIPES)}.",
            param="type",
        )
    aimed: dict[str, tuple[str, str, Any]] = {}
    for name, value in overrides.items():
        for candidate in recipe.fields:
            path = candidate.match(name)
            if path is not None:
                aimed[name] = (candidate.body, path, value)
                break
        else:
            raise ValidationError(
                f"The field '{name[:100]}' of {event_type} cannot be overridden. Fields that "
                f"can: {', '.join(overridable(event_type))}.",
                param=f"overrides.{name[:100]}",
            )
    return Run(call, event_type, aimed)


async def trigger(event_type: str, overrides: Mapping[str, Any], call: Call) -> dict[str, Any]:
    """Make the event happen; `{"event_type", "event_ids", "objects"}`."""
    run = plan(event_type, overrides, call)
    event_ids = await RECIPES[event_type].run(run)
    return {"event_type": event_type, "event_ids": event_ids, "objects": run.objects}


def parse_override(text: str) -> tuple[str, Any]:
    """`FIELD=VALUE` as (field, value): the value as JSON when it parses, else the string.
    ValueError without `=` or with an empty field."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"expected FIELD=VALUE, got {text!r}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value
