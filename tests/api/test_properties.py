"""Properties a fuzzer cannot see, because each spans many requests, checked through HTTP
in-process on sequences hypothesis draws:

- the audit chain of every region verifies (the documented recipe) after any sequence of
  creates, deletes, workflow starts and decisions, exports and clock moves;
- a cursor walk of `/v1/documents` returns exactly the list as it stood when the walk began,
  whatever is inserted (and the clock moved) between its pages: nothing repeated or skipped;
- a retry with the same `Idempotency-Key` gets the first answer byte for byte (status, body,
  headers but the documented fresh ones) whatever happened in between, when the first answer
  is one the mock keeps; otherwise it runs again.

Example budgets are small in the suite; `make fuzz` runs them with `FUZZ_PROFILE=long`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.audit import all_events, verify
from tests.support.keys import auth

LONG = os.environ.get("FUZZ_PROFILE") == "long"
BUDGET = settings(
    max_examples=1000 if LONG else 100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
VAULTS = {"us": "vault_mock_us", "eu": "vault_mock_eu"}
PEOPLE = ("ann@example.com", "ben@example.com")
# headers a replay answers afresh (docs/reference/api.md, Idempotency), and the transport's
FRESH = {
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "idempotent-replayed",
    "date",
    "server",
}
KEPT = {200, 201, 202, 404, 409}


@pytest.fixture(scope="module")
def app() -> Starlette:
    return create_app(Settings(clock_mode="frozen", rate_limit=False))


@pytest.fixture
def client(app: Starlette) -> Iterator[httpx.Client]:
    with inprocess_client(app, headers=auth()) as api:
        yield api


def fresh(app: Starlette) -> None:
    app.state.store.reset()


# --- the audit chain ------------------------------------------------------------------------

Step = tuple[str, int, int]  # (action, a pick among the known ids, a number)
ACTIONS = (
    "vault",
    "document",
    "delete",
    "workflow",
    "approve",
    "reject",
    "clock",
    "export",
    "legal_hold",
)
steps = st.lists(
    st.tuples(st.sampled_from(ACTIONS), st.integers(0, 50), st.integers(0, 3)),
    max_size=16,
)


def pick(items: list[str], index: int) -> str | None:
    return items[index % len(items)] if items else None


class World:
    """What a sequence created so far, by region."""

    def __init__(self) -> None:
        self.vaults = {region: [vault] for region, vault in VAULTS.items()}
        self.documents: dict[str, list[str]] = {"us": [], "eu": []}
        self.workflows: dict[str, list[str]] = {"us": [], "eu": []}

    def apply(self, api: httpx.Client, step: Step) -> httpx.Response:
        action, index, number = step
        region = ("us", "eu")[number % 2]
        base = f"/{region}/v1"
        if action == "vault":
            answer = api.post(f"{base}/vaults", json={"name": f"V{index}", "region": region})
            self.vaults[region].append(answer.json()["id"])
        elif action == "document":
            vault = pick(self.vaults[region], index)
            body = {"title": f"Doc {index}", "vault_id": vault, "metadata": {"n": number}}
            answer = api.post(f"{base}/documents", json=body)
            self.documents[region].append(answer.json()["id"])
        elif action == "delete":
            doc = pick(self.documents[region], index) or "doc_missing"
            answer = api.delete(f"{base}/documents/{doc}")
        elif action == "workflow":
            doc = pick(self.documents[region], index) or "doc_missing"
            condition = "metadata.n > 1" if number > 1 else None
            steps_ = [{"assignee": person, "condition": condition} for person in PEOPLE]
            answer = api.post(f"{base}/workflows", json={"document_id": doc, "steps": steps_})
            if answer.status_code == 201:
                self.workflows[region].append(answer.json()["id"])
        elif action in ("approve", "reject"):
            workflow = pick(self.workflows[region], index) or "wf_missing"
            answer = api.post(f"{base}/workflows/{workflow}/advance", json={"decision": action})
        elif action == "clock":
            answer = api.post("/_mock/clock/advance", json={"seconds": 60 * index + number})
        elif action == "export":
            answer = api.post(f"{base}/audit_logs/export", json={"period": "2026-01-01/2026-12-31"})
        else:
            doc = pick(self.documents[region], index) or "doc_missing"
            answer = api.post(f"/_mock/documents/{doc}/legal_hold", json={"on": number > 1})
        assert answer.status_code < 500, answer.text
        return answer


@pytest.mark.slow
def test_the_audit_chain_verifies_after_any_sequence(app: Starlette, client: httpx.Client) -> None:
    @BUDGET
    @given(steps)
    def run(sequence: list[Step]) -> None:
        fresh(app)
        world = World()
        statuses = [world.apply(client, step).status_code for step in sequence]
        event(f"successful steps: {sum(1 for s in statuses if s < 300) // 4 * 4}+")
        for region in ("us", "eu"):
            events = all_events(client, prefix=f"/{region}/v1")
            verify(events)
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1))

    run()


# --- cursor walks ---------------------------------------------------------------------------


def walk(
    api: httpx.Client,
    limit: int,
    query: str,
    vaults: tuple[str, str],
    between: Iterator[tuple[int, int]] | None = None,
) -> list[str]:
    """The ids of a cursor walk of /v1/documents; before each next page, insert documents
    (into both vaults in turn) and move the clock as `between` says."""
    seen: list[str] = []
    cursor = ""
    while True:
        page = api.get(f"/v1/documents?limit={limit}{query}{cursor}")
        assert page.status_code == 200, page.text
        body = page.json()
        seen.extend(doc["id"] for doc in body["data"])
        if not body["has_more"]:
            assert body["next_cursor"] is None
            return seen
        cursor = f"&cursor={body['next_cursor']}"
        inserts, seconds = next(between) if between else (0, 0)
        for n in range(inserts):
            body = {"title": f"New {n}", "vault_id": vaults[n % 2]}
            assert api.post("/v1/documents", json=body).status_code == 201
        if seconds:
            api.post("/_mock/clock/advance", json={"seconds": seconds})


@st.composite
def walks(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "before": draw(st.integers(0, 30)),
        "limit": draw(st.integers(1, 10)),
        "query": draw(st.sampled_from(["", "&status=draft", "&vault_id=vault_mock_us"])),
        "between": draw(
            st.lists(st.tuples(st.integers(0, 4), st.sampled_from([0, 0, 1, 3600])), max_size=20)
        ),
    }


def test_a_cursor_walk_never_repeats_or_skips_under_inserts(
    app: Starlette, client: httpx.Client
) -> None:
    @BUDGET
    @given(walks())
    def run(case: dict[str, Any]) -> None:
        fresh(app)
        second = client.post("/v1/vaults", json={"name": "Second", "region": "us"}).json()["id"]
        vaults = (VAULTS["us"], second)
        for n in range(case["before"]):
            body = {"title": f"Old {n}", "vault_id": vaults[n % 2]}
            assert client.post("/v1/documents", json=body).status_code == 201
        expected = walk(client, 100, case["query"], vaults)
        assert len(set(expected)) == len(expected)
        between = iter([*case["between"], *[(0, 0)] * 100])
        walked = walk(client, case["limit"], case["query"], vaults, between)
        event(f"pages of the walk: {'many' if len(walked) > 3 * case['limit'] else 'few'}")
        assert walked == expected

    run()


# --- idempotent replays ---------------------------------------------------------------------


@st.composite
def first_requests(draw: st.DrawFn) -> tuple[str, Any]:
    """A POST the mock keeps or refuses: valid, naming what does not exist, in a wrong state,
    or invalid."""
    kind = draw(st.sampled_from(["document", "vault", "workflow", "advance", "export"]))
    text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=8)
    if kind == "document":
        vault = draw(st.sampled_from([VAULTS["us"], "vault_nowhere"]))
        metadata = draw(
            st.dictionaries(st.text("abcdef", min_size=1, max_size=4), text, max_size=3)
        )
        return "/v1/documents", {"title": draw(text), "vault_id": vault, "metadata": metadata}
    if kind == "vault":
        return "/v1/vaults", {"name": draw(text), "region": draw(st.sampled_from(["us", "eu"]))}
    if kind == "workflow":
        doc = draw(st.sampled_from(["$draft", "$in_review", "doc_nowhere"]))
        assignee = draw(st.sampled_from([*PEOPLE, "not an email"]))
        return "/v1/workflows", {"document_id": doc, "steps": [{"assignee": assignee}]}
    if kind == "advance":
        workflow = draw(st.sampled_from(["$workflow", "wf_nowhere"]))
        decision = draw(st.sampled_from(["approve", "reject", "maybe"]))
        return f"/v1/workflows/{workflow}/advance", {"decision": decision}
    period = draw(st.sampled_from(["2026-01-01/2026-01-31", "2026-02-01/2026-01-01"]))
    return "/v1/audit_logs/export", {"period": period}


DAY = 24 * 3600
# What may happen between a request and its retry, and the mock seconds each moves the clock.
BETWEEN = {"an hour": 3600, "most of a day": 20 * 3600, "another key": 0, "delete": 0, "decide": 0}
meanwhile = st.lists(st.sampled_from(sorted(BETWEEN)), max_size=5)
keys = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=40)


def fill(value: Any, names: dict[str, str]) -> Any:
    """`value` with the `$name` placeholders replaced by the ids of this example's setup."""
    if isinstance(value, str):
        for name, real in names.items():
            value = value.replace(name, real)
        return value
    if isinstance(value, dict):
        return {k: fill(v, names) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [fill(v, names) for v in value]
    return value


def setup(api: httpx.Client) -> dict[str, str]:
    """A draft, a document in review and its workflow; their ids by placeholder."""
    draft = api.post("/v1/documents", json={"title": "D", "vault_id": VAULTS["us"]}).json()
    reviewed = api.post("/v1/documents", json={"title": "R", "vault_id": VAULTS["us"]}).json()
    body = {"document_id": reviewed["id"], "steps": [{"assignee": p} for p in PEOPLE]}
    workflow = api.post("/v1/workflows", json=body).json()
    return {"$draft": draft["id"], "$in_review": reviewed["id"], "$workflow": workflow["id"]}


def without_fresh(answer: httpx.Response) -> list[tuple[str, str]]:
    return [(k, v) for k, v in answer.headers.multi_items() if k not in FRESH]


def test_an_idempotent_replay_is_the_first_answer_byte_for_byte(
    app: Starlette, client: httpx.Client
) -> None:
    @BUDGET
    @given(first_requests(), meanwhile, keys)
    def run(request: tuple[str, Any], between: list[str], key: str) -> None:
        fresh(app)
        names = setup(client)
        path, body = fill(request, names)
        first = client.post(path, json=body, headers={"Idempotency-Key": key})
        assert first.status_code < 500, first.text
        for action in between:
            if BETWEEN[action]:
                client.post("/_mock/clock/advance", json={"seconds": BETWEEN[action]})
            elif action == "another key":
                client.post(path, json=body, headers={"Idempotency-Key": key + "."})
            elif action == "delete":
                client.delete(f"/v1/documents/{names['$draft']}")
            else:
                decision = {"decision": "approve"}
                client.post(f"/v1/workflows/{names['$workflow']}/advance", json=decision)
        retry = client.post(path, json=body, headers={"Idempotency-Key": key})
        replayed = retry.headers.get("idempotent-replayed") == "true"
        event(f"first answer {first.status_code}, replayed: {replayed}")
        if first.status_code in KEPT and sum(BETWEEN[a] for a in between) < DAY:
            assert replayed
            assert retry.status_code == first.status_code
            assert retry.content == first.content
            assert without_fresh(retry) == without_fresh(first)
        else:
            assert not replayed

    run()
