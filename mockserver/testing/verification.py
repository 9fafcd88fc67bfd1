"""Request assertions for the pytest fixtures: `assert_requested`, `assert_not_requested` and
`assert_requested_in_order`, over `POST /_mock/requests/verify`.

`Verifying` is a mixin: a fixture object gives it `_verify_call` (the endpoint's JSON answer to
a body) and `_last_seq` (the newest journal seq), and gets the assertions. Every check goes
through the public endpoint, so the fixtures say exactly what the endpoint says. An order is
checked greedily, each step by the earliest match after the previous step's: that earliest
match is found by a binary search on `since_seq` (a dozen calls for a full journal).

No third-party import here: the plugin imports this module only when a fixture is used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

JOURNAL_SHOWN = 50  # requests at most in a failed test's "mock journal" section
Matcher = dict[str, Any]
Step = tuple[str, str] | Mapping[str, Any]


def matcher_of(
    method: str | Sequence[str] | None = None,
    path: str | None = None,
    *,
    key: str | None = None,
    query: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    body: Any = None,
    status: int | Sequence[int] | None = None,
) -> Matcher:
    """The endpoint's matcher of the given fields (None: any)."""
    given = {
        "method": method if method is None or isinstance(method, str) else list(method),
        "path": path,
        "key": key,
        "query": None if query is None else dict(query),
        "headers": None if headers is None else dict(headers),
        "body": body,
        "status": status if status is None or isinstance(status, int) else list(status),
    }
    return {name: value for name, value in given.items() if value is not None}


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def _expectation(count: Mapping[str, int]) -> str:
    if "count" in count:
        n = count["count"]
        return f"exactly {n} request{'s' if n != 1 else ''}"
    if "at_most" in count:
        return f"at most {count['at_most']} request{'s' if count['at_most'] != 1 else ''}"
    n = count.get("at_least", 1)
    return f"at least {n} request{'s' if n != 1 else ''}"


def describe_near_misses(near_misses: Sequence[Mapping[str, Any]]) -> str:
    """The near misses of a verify answer, one block each, closest first."""
    if not near_misses:
        return "No near misses: no other request came close."
    lines = ["Near misses (closest first):"]
    for miss in near_misses:
        lines.append(f"  #{miss['seq']} {miss['method']} {miss['path']} -> {miss['status']}")
        for difference in miss["differences"]:
            lines.append(
                f"      {difference['field']}: expected {_show(difference['expected'])}, "
                f"got {_show(difference['actual'])}"
            )
    return "\n".join(lines)


def failure_message(
    matcher: Matcher, count: Mapping[str, int], answer: Mapping[str, Any], since: int = 0
) -> str:
    """What an assertion says when the journal did not meet `count`: the matcher, what was
    expected and found, and the near misses with their differences."""
    after = f" after request #{since}" if since else ""
    return (
        f"Expected {_expectation(count)} matching {_show(matcher)}{after}; "
        f"found {answer['matched']}.\n{describe_near_misses(answer['near_misses'])}"
    )


class Verifying:
    """The request assertions of a fixture object."""

    def _verify_call(self, body: Matcher) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _last_seq(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def verify_requests(self, matcher: Mapping[str, Any], **expectation: int) -> dict[str, Any]:
        """The endpoint's answer for a matcher and `count` / `at_least` / `at_most` /
        `since_seq`: `{"ok", "matched", "near_misses"}`."""
        return self._verify_call({**matcher, **expectation})

    def assert_requested(
        self,
        method: str | Sequence[str] | None = None,
        path: str | None = None,
        *,
        times: int | None = None,
        at_least: int | None = None,
        at_most: int | None = None,
        key: str | None = None,
        query: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        status: int | Sequence[int] | None = None,
    ) -> int:
        """Assert the journal holds requests matching the fields (`times`: exactly; else
        `at_least` (default 1) and/or `at_most`); how many matched. `path` matches like a
        scenario rule's (`{id}`, `*`, `**`), `body` as a subset."""
        __tracebackhide__ = True  # pytest shows the caller's line, not this one
        matcher = matcher_of(
            method, path, key=key, query=query, headers=headers, body=body, status=status
        )
        counts: list[dict[str, int]] = []
        if times is not None:
            counts.append({"count": times})
        if at_least is not None:
            counts.append({"at_least": at_least})
        if at_most is not None:
            counts.append({"at_most": at_most})
        matched = 0
        for count in counts or [{"at_least": 1}]:
            answer = self._verify_call({**matcher, **count})
            if not answer["ok"]:
                raise AssertionError(failure_message(matcher, count, answer))
            matched = int(answer["matched"])
        return matched

    def assert_not_requested(
        self,
        method: str | Sequence[str] | None = None,
        path: str | None = None,
        *,
        key: str | None = None,
        query: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        status: int | Sequence[int] | None = None,
    ) -> None:
        """Assert no request in the journal matches the fields."""
        __tracebackhide__ = True  # pytest shows the caller's line, not this one
        matcher = matcher_of(
            method, path, key=key, query=query, headers=headers, body=body, status=status
        )
        answer = self._verify_call({**matcher, "count": 0})
        if not answer["ok"]:
            raise AssertionError(
                f"Expected no request matching {_show(matcher)}; found {answer['matched']}."
            )

    def assert_requested_in_order(self, steps: Sequence[Step]) -> list[int]:
        """Assert requests matching each step were made in this order (others may come
        between them); each step a `(method, path)` pair or a matcher dict. The seq of the
        request that matched each step."""
        __tracebackhide__ = True  # pytest shows the caller's line, not this one
        seqs: list[int] = []
        since = 0
        last = self._last_seq()
        for index, step in enumerate(steps, start=1):
            matcher = _step_matcher(step)
            answer = self._verify_call({**matcher, "since_seq": since})
            if not answer["ok"]:
                where = f" (step {index - 1} matched request #{since})" if since else ""
                raise AssertionError(
                    f"Step {index} of {len(steps)} in order{where}: "
                    + failure_message(matcher, {"at_least": 1}, answer, since)
                )
            since = self._first_match(matcher, since, int(answer["matched"]), last)
            seqs.append(since)
        return seqs

    def _first_match(self, matcher: Matcher, since: int, total: int, last: int) -> int:
        """The seq of the earliest request after `since` that matches (`total` of them do):
        the least `x` whose requests after it number fewer than `total`."""
        low, high = since + 1, last
        while low < high:
            middle = (low + high) // 2
            if self._verify_call({**matcher, "since_seq": middle})["matched"] < total:
                high = middle
            else:
                low = middle + 1
        return low


def _step_matcher(step: Step) -> Matcher:
    if isinstance(step, Mapping):
        return dict(step)
    if isinstance(step, tuple) and len(step) == 2:
        method, path = step
        return matcher_of(method, path)
    raise TypeError(f"a step is a (method, path) pair or a matcher dict, not {step!r}")


def journal_section(entries: Sequence[Mapping[str, Any]], total: int) -> str:
    """The "mock journal" report section: one line per request (method, path, status), with
    `explain` under each error answer. `entries`: oldest first, at most the ones to show."""
    if not entries:
        return "No API requests were made."
    lines = []
    if total > len(entries):
        lines.append(f"(the latest {len(entries)} of {total} requests)")
    for entry in entries:
        query = f"?{entry['query']}" if entry.get("query") else ""
        line = f"#{entry['seq']} {entry['method']} {entry['path']}{query} -> {entry['status']}"
        rule = entry.get("rule")
        if rule:
            line += f" (rule {rule})"
        lines.append(line)
        explain = entry.get("explain")
        if explain:
            fields = {k: v for k, v in explain.items() if k not in ("check", "message")}
            extra = f" {_show(fields)}" if fields else ""
            lines.append(f"    explain: {explain['check']}: {explain['message']}{extra}")
    return "\n".join(lines)
