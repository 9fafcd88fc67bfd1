"""What `mockserver conform` found, as text lines, a JSON document and JUnit XML.

Text: one line per step, `same` or one `drift` line per difference naming the step, the JSON
path and each side's value; a step that is not compared (a clock step) is shown without a
verdict; the last line is `N same, N drifted`. JUnit: one test case per compared step, a
failure per drifted one, so CI systems show drift as failed tests.
"""

from __future__ import annotations

import json
from xml.etree import ElementTree

from mockserver.fidelity.conform import Outcome


def lines(outcome: Outcome) -> list[str]:
    """The text lines of one step."""
    head = f"{outcome.number:>3}  {outcome.label}"
    statuses = ""
    if outcome.compared and outcome.upstream_status is not None:
        statuses = f" -> {outcome.upstream_status}"
        if outcome.mock_status != outcome.upstream_status:
            statuses = f" -> upstream {outcome.upstream_status}, mock {outcome.mock_status}"
    if not outcome.compared:
        return [f"      {head}" + (f": {outcome.note}" if outcome.note else "")]
    if outcome.same:
        return [f"same  {head}{statuses}"]
    found = [
        f"drift {head}: {d.path}: upstream {d.upstream}, mock {d.mock}" for d in outcome.differences
    ]
    if outcome.note is not None:
        found.append(f"drift {head}: {outcome.note}")
    return found


def summary(outcomes: list[Outcome]) -> str:
    compared = [o for o in outcomes if o.compared]
    drifted = sum(1 for o in compared if not o.same)
    return f"{len(compared) - drifted} same, {drifted} drifted"


def drifted(outcomes: list[Outcome]) -> bool:
    return any(o.compared and not o.same for o in outcomes)


def as_json(outcomes: list[Outcome], upstream: str) -> str:
    """The report as a JSON document: every step, its verdict and its differences."""
    compared = [o for o in outcomes if o.compared]
    steps = [
        {
            "number": o.number,
            "step": o.label,
            "compared": o.compared,
            "same": o.same if o.compared else None,
            "status": {"upstream": o.upstream_status, "mock": o.mock_status},
            "differences": [
                {"path": d.path, "upstream": d.upstream, "mock": d.mock} for d in o.differences
            ],
            "note": o.note,
        }
        for o in outcomes
    ]
    drift = sum(1 for o in compared if not o.same)
    report = {
        "upstream": upstream,
        "same": len(compared) - drift,
        "drifted": drift,
        "steps": steps,
    }
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def as_junit(outcomes: list[Outcome], upstream: str) -> bytes:
    """The report as JUnit XML: a test case per compared step, a failure per drift."""
    compared = [o for o in outcomes if o.compared]
    suite = ElementTree.Element(
        "testsuite",
        name="mockserver conform",
        tests=str(len(compared)),
        failures=str(sum(1 for o in compared if not o.same)),
        errors="0",
    )
    ElementTree.SubElement(
        ElementTree.SubElement(suite, "properties"), "property", name="upstream", value=upstream
    )
    for outcome in compared:
        case = ElementTree.SubElement(
            suite, "testcase", classname="conform", name=f"{outcome.number} {outcome.label}"
        )
        if not outcome.same:
            text = "\n".join(lines(outcome))
            failure = ElementTree.SubElement(
                case, "failure", message=f"{len(outcome.differences)} differences", type="drift"
            )
            failure.text = text
    tree = ElementTree.ElementTree(suite)
    ElementTree.indent(tree)
    written: bytes = ElementTree.tostring(suite, encoding="utf-8", xml_declaration=True)
    return written + b"\n"
