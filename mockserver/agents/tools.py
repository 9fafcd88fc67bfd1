"""What an MCP tool is, apart from the SDK: a name, a description written for a model, an
input JSON Schema, its hints (read-only, destructive), whether it has an account form, and the
function that runs it as requests to the mock (`client.py`).

`call` checks the arguments against the schema and turns every refusal into a `Refused` the
server answers as a tool error (`isError: true`), so a bad argument is something the model can
act on, never a protocol failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from mockserver.agents.client import MockClient, Refused

Run = Callable[[MockClient, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class Tool:
    """One tool. `scoped`: it has an account form, so an account-scoped server lists it;
    `own_clock`: scoped to an account, only one with a clock of its own has it."""

    name: str
    description: str
    schema: dict[str, Any]
    run: Run
    read_only: bool = False
    destructive: bool = False
    scoped: bool = True
    own_clock: bool = False
    server_only: tuple[str, ...] = ()  # arguments an account-scoped server does not take

    def input_schema(self, scoped: bool) -> dict[str, Any]:
        """The input schema; scoped to an account, without the server-only arguments."""
        if not scoped or not self.server_only:
            return self.schema
        properties = {
            name: value
            for name, value in self.schema["properties"].items()
            if name not in self.server_only
        }
        return {**self.schema, "properties": properties}

    def offered(self, account: dict[str, Any] | None) -> bool:
        """Whether a server scoped to `account` (its control-plane view; None: the server's
        whole sandbox) offers this tool."""
        if account is None:
            return True
        if not self.scoped:
            return False
        return not self.own_clock or bool(account.get("clock", {}).get("own"))


def schema(properties: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    """An object schema of `properties` that takes no other member."""
    made: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        made["required"] = list(required)
    return made


def checked(tool: Tool, arguments: dict[str, Any] | None, scoped: bool) -> dict[str, Any]:
    """`arguments` when the tool's schema (`scoped` to an account, or not) accepts them;
    Refused (422, with the argument's name as `param`) when not."""
    arguments = dict(arguments or {})
    errors = sorted(
        Draft202012Validator(tool.input_schema(scoped)).iter_errors(arguments),
        key=lambda error: list(error.absolute_path),
    )
    if errors:
        error = errors[0]
        where = ".".join(str(part) for part in error.absolute_path)
        if error.validator == "required":  # the missing member, not the object holding it
            missing = [name for name in error.validator_value if name not in error.instance]
            where = ".".join(filter(None, [where, *missing[:1]]))
        elif error.validator == "additionalProperties":
            known = error.schema.get("properties", {})
            stray = sorted(name for name in error.instance if name not in known)
            where = ".".join(filter(None, [where, *stray[:1]]))
        raise Refused(
            422,
            {
                "error": {
                    "type": "validation_error",
                    "message": f"Argument {where or '(arguments)'}: {error.message}",
                    "param": where or None,
                }
            },
            f"Call {tool.name} again with arguments its input schema accepts.",
        )
    return arguments
