"""A reset keeps a world that nothing changed since it was built (a test that only read), for
its next first use, and builds any other again. Kept or built, the world answers alike: the
same objects, the same next ids and audit events, its lock timers armed again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from mockserver.core.config import Settings
from mockserver.domain import documents
from mockserver.domain.models import copy_document
from mockserver.domain.store import World
from mockserver.engine.sandbox import SandboxState

KEY = ("acct_mock_us", "sandbox")


@pytest.fixture
def sandbox() -> SandboxState:
    return SandboxState.build(Settings(clock_mode="frozen"))


def world(sandbox: SandboxState) -> World:
    return sandbox.store.world(*KEY)


def test_a_world_only_read_is_kept(sandbox: SandboxState) -> None:
    first = world(sandbox)
    assert first.regions["us"].documents["doc_mock_draft"].title  # a read
    sandbox.control.reset()
    assert world(sandbox) is first
    sandbox.control.reset()
    sandbox.control.reset()  # kept until its next use, however many resets come first
    assert world(sandbox) is first


def add_a_document(w: World) -> None:
    doc = copy_document(w.regions["us"].documents["doc_mock_draft"])
    doc.id = "doc_new"
    w.add_document(doc)


CHANGES: dict[str, Callable[[SandboxState], object]] = {
    "an object added": lambda s: add_a_document(world(s)),
    "a seeded object changed": lambda s: s.control.legal_hold("doc_mock_draft", True),
    "an id drawn": lambda s: world(s).ids.new("doc_"),
    "an event replaced": lambda s: (
        world(s).regions["us"].audit.replace(0, world(s).regions["us"].audit.event(1))
    ),
    "a lock timer run": lambda s: asyncio.run(s.control.advance(400)),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_world_changed_in_any_way_is_built_again(sandbox: SandboxState, change: str) -> None:
    first = world(sandbox)
    CHANGES[change](sandbox)
    assert not first.as_built()
    sandbox.control.reset()
    again = world(sandbox)
    assert again is not first
    assert again.as_built()


def test_kept_or_built_a_world_answers_alike(sandbox: SandboxState) -> None:
    """The same sequence after a reset, on a kept world and on one built again."""

    def script(s: SandboxState) -> tuple[object, ...]:
        w = world(s)
        draft = w.regions["us"].documents["doc_mock_draft"]
        held = documents.set_legal_hold(w, draft, True, s.store.now())
        asyncio.run(s.control.advance(400))  # doc_mock_signed's lock timer runs
        signed = w.regions["us"].documents["doc_mock_signed"]
        chain = w.regions["us"].audit
        return held.legal_hold, signed.status, len(chain), chain.head, w.ids.new("doc_")

    kept = SandboxState.build(Settings(clock_mode="frozen"))
    first = world(kept)
    kept.control.reset()
    built = SandboxState.build(Settings(clock_mode="frozen"))
    built.store.world(*KEY).ids.new("doc_")  # this one is built again after the reset
    built.control.reset()
    assert world(kept) is first
    answers = script(kept)
    assert answers == script(built)
    assert answers[:2] == (True, "locked")
