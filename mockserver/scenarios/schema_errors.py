"""What the scenario schema refuses, in QA's words and at the node it is about.

jsonschema names each offending node by its path; an unknown field is reported at the field
itself (with the closest known name), each missing or unknown field on its own, and a node's
`x-error` replaces jsonschema's message for it. Each complaint also names the part of the
file it falls in (a rule, a setup action, a step, the clock ...), so that the loader can go
on checking the other parts.
"""

from __future__ import annotations

import difflib
import functools
from typing import TYPE_CHECKING, Any

from mockserver.core.errors import ScenarioError
from mockserver.scenarios.model import Scenario
from mockserver.scenarios.schema import SCENARIO_SCHEMA
from mockserver.seeds.yaml_lines import PathT

if TYPE_CHECKING:
    import jsonschema
    from jsonschema.exceptions import ValidationError as SchemaError

# The top-level lists, whose items are checked one by one past the schema.
LISTS = ("setup", "rules", "webhooks", "deprecations", "timeline", "steps")
CHAOS_LISTS = ("rules", "webhooks")  # ... and the chaos block's

_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    """The scenario schema's validator, made (and jsonschema imported) by the first scenario
    loaded: a server without scenarios starts a twentieth of a second sooner."""
    import jsonschema

    return jsonschema.Draft202012Validator(SCENARIO_SCHEMA)


def schema_problems(
    scenario: Scenario, value: dict[str, Any]
) -> tuple[list[ScenarioError], set[PathT]]:
    """Every complaint of the schema about `value` (the file's top-level mapping), in the
    file's order (the deeper node first on a line), each once; and the parts of the file
    they fall in (`part_of`), which the checks past the schema must skip."""
    errors = list(_validator().iter_errors(value))
    found = [
        (scenario.line_of(path), -len(path), path, message)
        for error in errors
        for path, message in _explained(error)
    ]
    found.sort(key=lambda item: item[:2])  # stable: jsonschema's order within a node
    problems: dict[str, ScenarioError] = {}
    refused: set[PathT] = set()
    for _, _, path, message in found:
        problem = scenario.error(path, message)
        problems.setdefault(str(problem), problem)
        part = part_of(path)
        if part is not None:
            refused.add(part)
    return list(problems.values()), refused


def part_of(path: PathT) -> PathT | None:
    """The part of the file the node at `path` is in, as the checks past the schema take
    them: an item of a top-level list (`("rules", 0)`) or of a chaos list (`("chaos", "rules",
    0)`), a field of the chaos block, else a top-level field (`("clock",)`, or a whole list);
    None for the top level itself (a missing `name`)."""
    if not path:
        return None
    if path[0] in LISTS and len(path) > 1:
        return path[:2]
    if path[0] == "chaos" and len(path) > 1:  # its seed, latency, or one of its rules
        return path[:3] if path[1] in CHAOS_LISTS and len(path) > 2 else path[:2]
    return path[:1]


def _explained(error: SchemaError) -> list[tuple[PathT, str]]:
    """Where and what each problem of one schema error is: an unknown field is reported at
    the field itself, and each unknown or missing field on its own."""
    path: PathT = tuple(error.absolute_path)
    schema: Any = error.schema if isinstance(error.schema, dict) else {}
    instance: Any = error.instance
    if isinstance(instance, dict) and error.validator == "additionalProperties":
        known = [str(name) for name in schema.get("properties", {})]
        unknown = [str(key) for key in instance if key not in known]
        if unknown:
            return [((*path, key), _unknown_field(key, known)) for key in unknown]
    if isinstance(instance, dict) and error.validator == "required":
        expected: Any = error.validator_value
        missing = [name for name in expected if name not in instance]
        if missing:
            return [(path, f"missing required field '{name}'") for name in missing]
    return [(path, _message(error))]


def _unknown_field(unknown: str, known: list[str]) -> str:
    close = difflib.get_close_matches(unknown, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f"; known: {', '.join(known)}"
    return f"unknown field '{unknown}'{hint}"


def _message(error: SchemaError) -> str:
    """jsonschema's complaint in QA's words."""
    schema: Any = error.schema if isinstance(error.schema, dict) else {}
    kind: Any = error.validator
    expected: Any = error.validator_value
    if (
        kind in ("pattern", "oneOf", "not", "minProperties", "maxProperties")
        and "x-error" in schema
    ):
        return str(schema["x-error"])
    if kind == "type":
        types = [expected] if isinstance(expected, str) else list(expected)
        return "must be " + " or ".join(_TYPE_WORDS.get(t, t) for t in types)
    if kind == "enum":
        return "must be one of: " + ", ".join(str(choice) for choice in expected)
    if kind == "const":
        return f"must be {expected}"
    if kind == "minimum":
        return f"must be at least {expected}"
    if kind == "exclusiveMinimum":
        return f"must be more than {expected}"
    if kind == "maximum":
        return f"must be at most {expected}"
    if kind == "minItems":
        return f"must have at least {expected} item{'s' if expected != 1 else ''}"
    if kind == "minLength":
        return "must not be empty"
    return str(error.message)
