"""The copies a world is built from (and rebuilt from at every reset) carry every field of every
model over, times shifted. Each field is changed in turn, so a field added to a model and not
to its copy function fails here instead of silently resetting to its default."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mockserver.domain.models import (
    Document,
    DocumentVersion,
    EnvironmentSeed,
    Member,
    Vault,
    Workflow,
    WorkflowStep,
)
from mockserver.seeds.world import shifted

TIMES = {"created_at", "signed_at", "decided_at"}
VERSIONS = [DocumentVersion(1, "a", 5), DocumentVersion(2, "b", 9)]
STEPS = [WorkflowStep("a@x.co"), WorkflowStep("b@x.co", "1 > 0")]


def vault(**changes: Any) -> Vault:
    base = Vault("vault_a", "A", "us", 100, [Member("a@x.co", "owner")], lock_after=60, seq=3)
    return dataclasses.replace(base, **changes)


def document(**changes: Any) -> Document:
    base = Document(
        "doc_a", "vault_a", "us", "T", "signed", 100, "ab", {"k": 1}, 2,
        [DocumentVersion(1, "aa", 90)], ["s@x.co"], True, 150, False, 4,
    )  # fmt: skip
    return dataclasses.replace(base, **changes)


def workflow(**changes: Any) -> Workflow:
    step = WorkflowStep("a@x.co", "1 > 0", "approve", 120, "ok")
    base = Workflow("wf_a", "doc_a", "us", "completed", 1, 110, [step], ("a@x.co", "approve"), 5)
    return dataclasses.replace(base, **changes)


def other(value: Any) -> Any:
    """A value of the same kind that differs from `value`."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, dict):
        return {**value, "other": 2}
    if isinstance(value, list):
        return [*value, value[0]]
    if isinstance(value, tuple):
        return (value[0], "reject")
    return 7  # None: an optional time


def variants(make: Any, base: Any) -> list[Any]:
    """One object per field with that field changed (not the rendered JSON caches, which a
    copy must not carry: they are made on first use)."""
    fields = [f for f in dataclasses.fields(base) if f.init]
    return [make(**{f.name: other(getattr(base, f.name))}) for f in fields]


def shift_fields(obj: Any, by: int) -> Any:
    """What a shifted copy must equal: `obj` with every time moved `by`."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if f.name in TIMES and value is not None:
            changes[f.name] = value + by
        elif isinstance(value, list) and value and dataclasses.is_dataclass(value[0]):
            changes[f.name] = [shift_fields(item, by) for item in value]
    return dataclasses.replace(obj, **changes)


@pytest.mark.parametrize(
    ("kind", "objects"),
    [
        ("vaults", variants(vault, vault())),
        ("documents", variants(document, document())),
        ("workflows", variants(workflow, workflow())),
        ("documents", [document(versions=VERSIONS)]),
        ("workflows", [workflow(steps=STEPS)]),
    ],
)
def test_shifted_copies_carry_every_field(kind: str, objects: list[Any]) -> None:
    seed = EnvironmentSeed(**{kind: objects})
    for by in (0, 3600):
        copies = getattr(shifted(seed, by), kind)
        assert copies == [shift_fields(o, by) for o in objects]


def test_shifted_copies_share_no_mutable_state() -> None:
    seed = EnvironmentSeed([vault()], [document()], [workflow()])
    copy = shifted(seed, 0)
    copy.vaults[0].members[0].role = "viewer"
    copy.documents[0].metadata["k"] = 2
    copy.documents[0].versions[0].sha256 = "zz"
    copy.documents[0].signers.append("t@x.co")
    copy.workflows[0].steps[0].decision = "reject"
    assert seed == EnvironmentSeed([vault()], [document()], [workflow()])


def test_copies_render_anew() -> None:
    """A copy is about to change: the rendered JSON of the original must not come along."""
    original = document()
    original.summary_json, original.detail_json = b"{}", b"{}"
    copy = shifted(EnvironmentSeed([], [original], []), 0).documents[0]
    assert (copy.summary_json, copy.detail_json) == (None, None)
    assert copy == original
