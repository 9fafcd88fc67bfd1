"""The JSON Schema of the snapshot file (draft 2020-12), made from the kinds that read it, so
the schema `mockserver schema snapshot` prints and the reader cannot disagree on a field."""

from __future__ import annotations

from typing import Any

from mockserver.engine.snapshots.file import FORMAT
from mockserver.engine.snapshots.kinds import SPECS
from mockserver.engine.snapshots.state import STATE


def _record(tag: str) -> dict[str, Any]:
    spec = SPECS[tag]
    properties: dict[str, Any] = {"$": {"const": tag}}
    if spec.shared:
        properties["$id"] = {"type": "integer", "minimum": 0}
    properties.update((name, kind.schema()) for name, kind in spec.fields.items())
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def snapshot_schema() -> dict[str, Any]:
    """The schema of a snapshot file of this format."""
    defs: dict[str, Any] = {tag: _record(tag) for tag in sorted(SPECS)}
    defs["reference"] = {
        "description": "A shared record written in full earlier in the file, by its '$id'.",
        "type": "object",
        "properties": {"$ref": {"type": "integer", "minimum": 0}},
        "required": ["$ref"],
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:mockserver:schema:snapshot:v{FORMAT}",
        "title": "mockserver snapshot file",
        "description": "The whole state of a sandbox, as a snapshot download gives it.",
        "type": "object",
        "properties": {
            "format": {"const": FORMAT},
            "mockserver": {"type": "string", "description": "The version that wrote it."},
            "seed": {"type": "string", "description": "The sha256 of the seed file."},
            "random_seed": {"type": "integer"},
            "start": {"type": "integer", "description": "Where the mock clock started."},
            "created_at": {"type": "integer", "description": "Mock time of the save."},
            "sha256": {
                "type": "string",
                "description": "Of the compact JSON of [created_at, state]; optional.",
            },
            "state": STATE.schema(),
        },
        "required": ["format", "mockserver", "seed", "random_seed", "start", "created_at", "state"],
        "additionalProperties": False,
        "$defs": defs,
    }
