"""Rules that can never fire: a match criterion naming something the sandbox does not have.

A rule for a key nobody holds, a path no endpoint serves (`/v1/documnets`) or a webhook fault
for an endpoint that does not exist loads and then silently does nothing. These checks find
them against the sandbox a scenario is loaded into (the seed's, or an account's) and return
them as warnings, each at its line: the scenario still loads (a key can be made later, a
warning must not stop a run), but `mockserver validate`, the console and
`GET /_mock/scenarios` say it. What a setup or timeline step acts on stays an error
(`actions.Checker`): that step would fail.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mockserver.core.problems import Problem
from mockserver.domain.oauth_state import TOKEN_PREFIX
from mockserver.domain.store import Store
from mockserver.scenarios.matching import PathPattern
from mockserver.scenarios.model import Match, Scenario, render_path
from mockserver.seeds.yaml_lines import PathT

# Every route the API serves (method, path template), as `web/api` routes them; a test keeps
# the two equal. Rules match paths without the regional prefix, so these are all there is.
API_ROUTES: tuple[tuple[str, str], ...] = (
    ("GET", "/v1/whoami"),
    ("GET", "/v1/oauth/authorize"),
    ("POST", "/v1/oauth/token"),
    ("GET", "/v1/vaults"),
    ("POST", "/v1/vaults"),
    ("GET", "/v1/vaults/{vault_id}"),
    ("GET", "/v1/documents"),
    ("POST", "/v1/documents"),
    ("GET", "/v1/documents/{doc_id}"),
    ("DELETE", "/v1/documents/{doc_id}"),
    ("POST", "/v1/workflows"),
    ("GET", "/v1/workflows/{workflow_id}"),
    ("POST", "/v1/workflows/{workflow_id}/advance"),
    ("GET", "/v1/audit_logs"),
    ("POST", "/v1/audit_logs/export"),
    ("GET", "/v1/audit_logs/export/{export_id}"),
    ("GET", "/v1/audit_logs/export/{export_id}/download"),
    ("GET", "/v1/webhook_endpoints"),
    ("POST", "/v1/webhook_endpoints"),
    ("DELETE", "/v1/webhook_endpoints/{endpoint_id}"),
    ("GET", "/v1/openapi.json"),
)


@dataclass(frozen=True, slots=True)
class Known:
    """What the sandbox a scenario goes into has: its keys, its webhook endpoints, and a name
    for it in messages (`the seed`, `account acct_...`)."""

    keys: frozenset[str]
    endpoints: frozenset[str]
    where: str = "the seed"


def unreachable(scenario: Scenario, known: Known) -> list[Problem]:
    """Every match criterion of `scenario` that names what `known` lacks, in the file's
    order: keys, paths (with their methods), webhook endpoints."""
    found: list[tuple[PathT, str]] = []
    for rule in scenario.rules:
        found += _match(rule.match, (*rule.at, "match"), known)
    if scenario.chaos is not None:
        for chaos_rule in scenario.chaos.rules:
            found += _match(chaos_rule.match, (*chaos_rule.at, "match"), known)
        latency = scenario.chaos.latency
        if latency is not None:
            found += _match(latency.match, (*latency.at, "match"), known)
    for deprecation in scenario.deprecations:
        methods = None if deprecation.method is None else frozenset([deprecation.method])
        found += _path(methods, deprecation.path, (*deprecation.at, "path"))
    endpoints = known.endpoints | added_endpoints(scenario)
    faults: list[tuple[str | None, PathT]] = [(f.endpoint, f.at) for f in scenario.webhooks]
    if scenario.chaos is not None:
        faults += [(w.endpoint, w.at) for w in scenario.chaos.webhooks]
    for endpoint, at in faults:
        if endpoint is not None and endpoint not in endpoints:
            found.append(
                (
                    (*at, "endpoint"),
                    f"no webhook endpoint '{endpoint}' in {known.where}: this fault never "
                    f"applies{_closest(endpoint, endpoints)}",
                )
            )
    problems = [
        Problem(scenario.source, scenario.line_of(at), f"{render_path(at)}: {message}", "warning")
        for at, message in found
    ]
    problems.sort(key=lambda problem: problem.line)
    return problems


def added_endpoints(scenario: Scenario) -> frozenset[str]:
    """The webhook endpoint ids the scenario's own setup and timeline add."""
    actions = [*scenario.setup, *(a for entry in scenario.timeline for a in entry.actions)]
    return frozenset(
        str(action.args["id"])
        for action in actions
        if action.kind == "add_webhook_endpoint" and "id" in action.args
    )


def _match(match: Match, at: PathT, known: Known) -> list[tuple[PathT, str]]:
    found: list[tuple[PathT, str]] = []
    for key in sorted(match.keys or ()):
        if key not in known.keys and not key.startswith(TOKEN_PREFIX):
            found.append(
                (
                    (*at, "key"),
                    f"no key '{key}' in {known.where}: this rule never matches"
                    f"{_closest(key, known.keys)}",
                )
            )
    if match.path is not None:
        found += _path(match.methods, match.path, (*at, "path"))
    return found


def _path(
    methods: frozenset[str] | None, pattern: PathPattern, at: PathT
) -> list[tuple[PathT, str]]:
    """A warning when no route of `methods` (None: any) has a path `pattern` can match."""
    wanted = pattern.text.split("/")
    routes = [(m, t) for m, t in API_ROUTES if _can_match(wanted, t.split("/"))]
    if any(methods is None or method in methods for method, _ in routes):
        return []
    if routes:  # the path is served, not for these methods
        served = ", ".join(sorted({method for method, _ in routes}))
        shown = "/".join(sorted(methods or ()))
        message = f"no endpoint serves {shown} {pattern.text} (only {served})"
        return [(at, f"{message}: this never matches")]
    templates = sorted({template for _, template in API_ROUTES})
    hint = _closest(pattern.text, templates)
    return [(at, f"no endpoint serves {pattern.text}: this never matches{hint}")]


def _can_match(pattern: Sequence[str], route: Sequence[str]) -> bool:
    """Whether some request path served by `route` (segments; `{x}` is any one segment) is
    matched by `pattern` (segments; `{x}` and `*` within one segment, `**` any number)."""
    if not pattern:
        return not route
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_can_match(rest, route[i:]) for i in range(len(route) + 1))
    if not route:
        return False
    segment = route[0]
    if segment.startswith("{") or head.startswith("{"):
        fits = True
    else:
        fits = PathPattern(head).matches(segment) if "*" in head else head == segment
    return fits and _can_match(rest, route[1:])


def closest(name: str, among: Iterable[str]) -> str | None:
    """The closest of `among` to a mistyped `name`, if one is close."""
    close = difflib.get_close_matches(name, list(among), n=1, cutoff=0.75)
    return close[0] if close else None


def _closest(name: str, among: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of `among`, or nothing."""
    close = closest(name, among)
    return f" (did you mean '{close}'?)" if close else ""


def known_of(
    store: Store,
    where: str = "the seed",
    more_endpoints: Iterable[str] = (),
    more_keys: Iterable[str] = (),
) -> Known:
    """What `store` has now: its keys and `more_keys`, the webhook endpoints of its seed and
    `more_endpoints`."""
    endpoints = {
        endpoint.id
        for environment in store.seed.environments.values()
        for endpoint in environment.webhook_endpoints
    }
    keys = frozenset(store.keys) | frozenset(more_keys)
    return Known(keys, frozenset(endpoints | set(more_endpoints)), where)
