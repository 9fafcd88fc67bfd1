"""What a seed keeps for the server's life is lean: strings a seed repeats (emails, statuses,
decisions, conditions, comments, metadata) are one object each."""

from __future__ import annotations

from collections import defaultdict

from mockserver.core.shipped import default_seed_path
from mockserver.seeds.loader import load_seed


def test_repeated_strings_are_one_object_each() -> None:
    seed = load_seed(default_seed_path())
    seen: defaultdict[str, set[int]] = defaultdict(set)
    for env in seed.environments.values():
        for doc in env.documents:
            for value in (doc.status, *doc.signers, *doc.metadata, *doc.metadata.values()):
                if isinstance(value, str):
                    seen[value].add(id(value))
        for workflow in env.workflows:
            seen[workflow.status].add(id(workflow.status))
            for step in workflow.steps:
                for text in (step.assignee, step.condition, step.decision, step.comment):
                    if text is not None:
                        seen[text].add(id(text))
    repeated = [text for text, ids in seen.items() if len(ids) > 1]
    assert repeated == []
    assert len(seen) > 20
