"""`mockserver conform`: the same steps against the upstream and a fresh mock, compared.

Each side has its own replay runner, so each captures its own ids and later steps name them.
Steps that name no key use `--key` upstream and the scenario's key on the mock; a step that
names a key sends it to both. A scenario's setup and rules are loaded into the mock only: the
upstream already is what the scenario describes. Clock steps run on both; an upstream without
a control plane (the real service) waits an `advance` out in real time instead.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import httpx

from mockserver.core.config import Settings
from mockserver.fidelity.shape import Comparer, Difference, documented_enums
from mockserver.openapi.document import build_document
from mockserver.scenarios.model import Scenario, Step
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.replay import Runner, UndefinedVariable
from mockserver.web.app import create_app

LONGEST_WAIT: Final = 600  # seconds an upstream without a control plane waits for `advance`
MOCK_BASE: Final = "http://mockserver"


class UpstreamUnreachable(Exception):
    """The upstream did not answer (refused, timed out, broke off)."""


@dataclass(slots=True)
class Outcome:
    """One step, run on both sides: its statuses and how the answers differ."""

    number: int
    label: str
    compared: bool  # a request step (its answers are compared)
    upstream_status: int | None = None
    mock_status: int | None = None
    differences: list[Difference] = field(default_factory=list)
    note: str | None = None  # a step that could not run as written on a side

    @property
    def same(self) -> bool:
        return not self.differences and self.note is None


def fresh_mock(scenario: Scenario) -> httpx.Client:
    """An in-process client of a new mock of the default seed (frozen clock) with the
    scenario's setup, rules and faults loaded."""
    app = create_app(Settings(clock_mode="frozen"))
    app.state.control.arm(scenario)
    return inprocess_client(app, base_url=MOCK_BASE, timeout=60)


def upstream_client(base_url: str, timeout: float) -> httpx.Client:
    """A client of the upstream, rooted at its base URL (not at `/v1`)."""
    return httpx.Client(base_url=base_url, timeout=timeout)


def comparer() -> Comparer:
    """A comparer that knows the documented enums of the API."""
    return Comparer(documented_enums(build_document()))


def conform(
    scenario: Scenario,
    *,
    upstream: httpx.Client,
    upstream_key: str,
    mock: httpx.Client,
    out: Callable[[Outcome], None],
    compare: Comparer | None = None,
) -> list[Outcome]:
    """Run every step on both sides and compare; `out` sees each outcome as it is known.
    Raises UpstreamUnreachable when the upstream does not answer."""
    compare = compare or comparer()
    theirs = Runner(upstream, scenario, key=upstream_key)
    ours = Runner(mock, scenario)
    outcomes: list[Outcome] = []
    for number, step in enumerate(scenario.steps, 1):
        try:
            if step.kind == "request":
                outcome = _request(number, step, theirs, ours, compare)
            else:
                outcome = _other(number, step, theirs, ours)
        except httpx.TransportError as error:
            detail = str(error) or type(error).__name__
            raise UpstreamUnreachable(f"{upstream.base_url}: {detail}") from None
        outcomes.append(outcome)
        out(outcome)
    return outcomes


def _request(number: int, step: Step, theirs: Runner, ours: Runner, compare: Comparer) -> Outcome:
    spec = step.data["request"]
    label = step.name or f"{spec['method']} {spec['path']}"
    outcome = Outcome(number, label, compared=True)
    try:
        upstream, _ = theirs.send(step)
    except UndefinedVariable as error:
        outcome.note = f"not sent upstream: {error}"
        return outcome
    try:
        mock, _ = ours.send(step)
    except UndefinedVariable as error:
        outcome.note = f"not sent to the mock: {error}"
        return outcome
    outcome.upstream_status, outcome.mock_status = upstream.status_code, mock.status_code
    outcome.differences = compare.compare(_answer(upstream), _answer(mock))
    for side, runner, response in (("upstream", theirs, upstream), ("mock", ours, mock)):
        problem = runner.capture(step, response)
        if problem is not None and outcome.note is None:
            outcome.note = f"{side}: {problem}"
    return outcome


def _other(number: int, step: Step, theirs: Runner, ours: Runner) -> Outcome:
    label, problem = ours.step(step)
    outcome = Outcome(number, step.name or label, compared=False)
    if problem is not None:
        outcome.note = f"mock: {problem}"
    _, upstream_problem = theirs.step(step)
    if upstream_problem is not None and step.kind == "advance":
        seconds = min(int(step.data["advance"]), LONGEST_WAIT)
        time.sleep(seconds)  # the real service's clock is the wall clock
    elif upstream_problem is not None and outcome.note is None:
        outcome.note = f"upstream: {upstream_problem}"
    return outcome


def _answer(response: httpx.Response) -> tuple[int, dict[str, str], Any]:
    headers = {name.lower(): value for name, value in response.headers.items()}
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    body: Any = response.text
    if media == "application/json" or media.endswith("+json"):
        try:
            body = json.loads(response.content)
        except ValueError:
            body = response.text
    else:
        body = None  # a CSV or an HTML page: compared by its media type
    return response.status_code, headers, body
