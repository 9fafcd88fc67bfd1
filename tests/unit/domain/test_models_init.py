"""The models whose `__init__` is written out (for the compiled build) take what a dataclass's
generated one would: every init field, in order, by position or name, with its default; the
fields outside `__init__` start at theirs. A field added to the class and not to `__init__`
fails here instead of being unset on a new object."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from mockserver.domain.models import Document, DocumentVersion

WRITTEN_OUT = [Document, DocumentVersion]
# A value of the right type (the compiled classes check types) for every init field, none of
# them the field's default.
GIVEN: dict[type[Any], dict[str, Any]] = {
    Document: {
        "id": "doc_a",
        "vault_id": "vault_a",
        "region": "eu",
        "title": "A",
        "status": "signed",
        "created_at": 100,
        "sha256": "ab" * 32,
        "metadata": {"kind": "nda"},
        "version": 2,
        "versions": [DocumentVersion(1, "cd" * 32, 90)],
        "signers": ["a@x.co"],
        "legal_hold": True,
        "signed_at": 110,
        "deleted": True,
        "seq": 7,
    },
    DocumentVersion: {"version": 3, "sha256": "ef" * 32, "created_at": 120},
}


def _default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


@pytest.mark.parametrize("cls", WRITTEN_OUT, ids=lambda cls: cls.__name__)
def test_a_written_out_init_takes_every_field_with_its_default(cls: type[Any]) -> None:
    fields = dataclasses.fields(cls)
    required = [f for f in fields if f.init and _default(f) is dataclasses.MISSING]
    values = {f.name: GIVEN[cls][f.name] for f in required}
    made = cls(*values.values())
    assert made == cls(**values)
    for field in fields:
        expected = values[field.name] if field.name in values else _default(field)
        assert getattr(made, field.name) == expected, field.name


@pytest.mark.parametrize("cls", WRITTEN_OUT, ids=lambda cls: cls.__name__)
def test_a_written_out_init_sets_every_init_field_it_is_given(cls: type[Any]) -> None:
    fields = [f for f in dataclasses.fields(cls) if f.init]
    values = {f.name: GIVEN[cls][f.name] for f in fields}
    by_position = cls(*values.values())
    for name, value in values.items():
        assert getattr(by_position, name) == value, name
    assert by_position == cls(**values)


def test_defaults_are_not_shared_between_documents() -> None:
    first, second = (
        Document("d1", "v", "us", "t", "draft", 1, "s"),
        Document("d2", "v", "us", "t", "draft", 1, "s"),
    )
    first.metadata["k"] = "v"
    first.versions.append(DocumentVersion(1, "s", 1))
    first.signers.append("a@x.co")
    assert (second.metadata, second.versions, second.signers) == ({}, [], [])
