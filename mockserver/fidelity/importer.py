"""`mockserver import`: a recording turned into a scenario of our format.

Each recorded API request (`/v1`, `/us/v1`, `/eu/v1`) becomes a step that sends it again and
expects the recorded status and the stable fields of the recorded body (`stable.py`). A value
the upstream assigned (an id, a cursor, a pre-signed URL) that a later request uses is
captured by the step whose answer first held it, and the later request names it as
`${variable}`; so the replay follows the mock's own ids. The setup (and, with locked
documents, a timeline) recreates what the recording read but did not create (`setup.py`).
Keys: a recorded credential is the seed's key with the same redacted form (`sk_test_…full`),
else the scenario's key; secrets the recording redacted cannot be sent again. Of the other
paths, only the clock moves of a mock upstream (`POST /_mock/clock/advance` and `/set`) are
kept, as clock steps; the rest is left out.
"""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import urlsplit

import yaml

from mockserver.fidelity import redaction
from mockserver.fidelity.setup import SeedIds, Seen, plan
from mockserver.fidelity.stable import ID, Names

_API: Final = re.compile(r"(/(us|eu))?/v1(/|\Z)")
_REPLAYED_HEADERS: Final = ("idempotency-key", "x-mock-explain")
_DOWNLOAD: Final = re.compile(r"/v1/audit_logs/export/[^/]+/download\Z")


class _Dumper(yaml.SafeDumper):
    """Writes a value used twice out twice: scenario files refuse YAML aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def scenario_yaml(
    exchanges: list[dict[str, Any]], *, name: str, key: str, source: str, seed: SeedIds
) -> str:
    """The scenario file text of a recording (as `mockserver import` writes it), for a
    replay that starts from `seed`."""
    scenario = build_scenario(exchanges, name=name, key=key, seed=seed)
    header = (
        f"# Imported by `mockserver import` from {source}.\n"
        "# Replay it on the mock with `mockserver replay FILE`.\n"
    )
    return header + yaml.dump(
        scenario,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=None,
    )


def build_scenario(
    exchanges: list[dict[str, Any]], *, name: str, key: str, seed: SeedIds
) -> dict[str, Any]:
    """The scenario of a recording as a mapping: setup, then one step per API request."""
    api = [e for e in exchanges if _API.match(e["request"]["path"])]
    keys = _keys(seed)
    existing = seed.held(_ids(api))
    created: set[str] = set()
    seen = Seen()
    for exchange in api:
        _observe(exchange, seen, created)
    recreated = plan(seen, created, existing)
    setup_ids = {
        action[kind]["id"]
        for action in recreated.setup + recreated.later
        for kind in action
        if "id" in action[kind]
    }
    names = Names(existing | setup_ids)
    offers: dict[str, tuple[dict[str, Any], str]] = {}  # value -> (step, where in the answer)
    steps: list[dict[str, Any]] = [{"advance": recreated.advance}] if recreated.advance else []
    counters: dict[str, int] = {}
    for exchange in exchanges:
        clock = _clock_step(exchange)
        if clock is not None:
            steps.append(clock)
        if not _API.match(exchange["request"]["path"]):
            continue
        step = _step(exchange, keys, key, names, offers, counters)
        steps.append(step)
        _offer(exchange, step, offers, names)
    scenario: dict[str, Any] = {
        "name": name,
        "description": f"Imported from a recording of {len(api)} requests.",
        "key": key,
    }
    if recreated.setup:
        scenario["setup"] = recreated.setup
    if recreated.later:
        scenario["timeline"] = [{"after": recreated.advance, "do": recreated.later}]
    scenario["steps"] = steps
    return scenario


def _clock_step(exchange: dict[str, Any]) -> dict[str, Any] | None:
    """A recorded move of a mock upstream's clock, as the step that moves the replay's."""
    request, response = exchange["request"], exchange["response"]
    body = request.get("body")
    if request["method"] != "POST" or response["status"] != 200 or not isinstance(body, dict):
        return None
    if request["path"] == "/_mock/clock/advance" and isinstance(body.get("seconds"), int):
        return {"advance": body["seconds"]}
    if request["path"] == "/_mock/clock/set" and isinstance(body.get("at"), str):
        return {"set_clock": body["at"]}
    return None


def _keys(seed: SeedIds) -> dict[str, str]:
    """The redacted form of each seed key, to name it back."""
    return {redaction.credential(f"Bearer {k}"): k for k in seed.keys()}


def _region(path: str) -> str:
    return "eu" if path.startswith("/eu/") else "us"


def _observe(exchange: dict[str, Any], seen: Seen, created: set[str]) -> None:
    """Note what an exchange creates, and the resources it names and describes: only those
    of an answer that shows they exist (2xx, or a 409 about their state)."""
    request, response = exchange["request"], exchange["response"]
    region = _region(request["path"])
    body = response.get("body")
    if (
        request["method"] == "POST"
        and 200 <= response["status"] < 300
        and isinstance(body, dict)
        and isinstance(body.get("id"), str)
        and not request["path"].endswith("/advance")
    ):
        created.add(body["id"])
    if response["status"] >= 400 and response["status"] != 409:
        return  # what it names may not exist (404) or was not reached (401, 403, 422)
    for segment in request["path"].split("/"):
        if segment not in created:
            seen.resource(segment, None, region)
    sent = request.get("body")
    if isinstance(sent, dict):
        for field in ("vault_id", "document_id"):
            value = sent.get(field)
            if isinstance(value, str) and value not in created:
                seen.resource(value, None, region)
    if 200 <= response["status"] < 300:
        seen.describe(body, region)


def _step(
    exchange: dict[str, Any],
    keys: dict[str, str],
    default_key: str,
    names: Names,
    offers: dict[str, tuple[dict[str, Any], str]],
    counters: dict[str, int],
) -> dict[str, Any]:
    recorded, response = exchange["request"], exchange["response"]
    path = recorded["path"]
    query = {
        name: value[-1] if isinstance(value, list) else str(value)
        for name, value in (recorded.get("query") or {}).items()
    }
    if _DOWNLOAD.search(path) and path in offers:
        _use(path, offers, names, counters)  # the pre-signed URL, as the answer gave it
        query = {}
    request: dict[str, Any] = {"method": recorded["method"]}
    for value in [path, *query.values(), *_strings(recorded.get("body"))]:
        for token in re.findall(r"[a-z]+_[A-Za-z0-9_]+", value):
            if token in offers and token not in names.known:
                _use(token, offers, names, counters)
    request["path"] = names.substitute(path)
    headers = recorded.get("headers") or {}
    auth = headers.get("authorization")
    if auth is None:
        request["key"] = None
    elif keys.get(auth, default_key) != default_key:
        request["key"] = keys[auth]
    replayed = {n: headers[n] for n in _REPLAYED_HEADERS if n in headers}
    if query:
        request["query"] = names.substitute(query)
    body = recorded.get("body")
    media = headers.get("content-type", "").split(";")[0].strip().lower()
    if body is not None:
        if media == "application/x-www-form-urlencoded" and isinstance(body, dict):
            request["form"] = {k: str(v) for k, v in names.substitute(body).items()}
        elif media == "application/json" or media.endswith("+json"):
            request["body"] = names.substitute(body)
        else:
            request["content"] = names.substitute(str(body))
            replayed["content-type"] = headers.get("content-type", "text/plain")
    if replayed:
        request["headers"] = names.substitute(replayed)
    step: dict[str, Any] = {"request": request}
    expect: dict[str, Any] = {"status": response["status"]}
    expected = names.expected(response.get("body"))
    if expected is not None:
        expect["body"] = expected
    step["expect"] = expect
    return step


def _offer(
    exchange: dict[str, Any],
    step: dict[str, Any],
    offers: dict[str, tuple[dict[str, Any], str]],
    names: Names,
) -> None:
    """Note the values of this answer a later request may use, where in the answer."""
    body = exchange["response"].get("body")

    def walk(value: Any, where: str) -> None:
        if isinstance(value, dict):
            for name, item in value.items():
                walk(item, f"{where}.{name}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{where}.{index}")
        elif isinstance(value, str):
            if ID.match(value) and value not in names.known and value not in offers:
                offers[value] = (step, where)
            elif where == "body.download_url" and value.startswith("http"):
                offers.setdefault(urlsplit(value).path, (step, where))

    walk(body, "body")


def _use(
    value: str,
    offers: dict[str, tuple[dict[str, Any], str]],
    names: Names,
    counters: dict[str, int],
) -> None:
    """Capture `value` at the step that offered it (once) and name it from now on."""
    if value in names.variables:
        return
    step, where = offers[value]
    prefix = "download" if where == "body.download_url" else value.split("_")[0]
    counters[prefix] = counters.get(prefix, 0) + 1
    name = f"{prefix}_{counters[prefix]}"
    step.setdefault("capture", {})[name] = where
    names.variables[value] = name


def _ids(exchanges: list[dict[str, Any]]) -> set[str]:
    """Every string of the recording that looks like an id."""
    found: set[str] = set()
    for exchange in exchanges:
        request = exchange["request"]
        found.update(request["path"].split("/"))
        for value in (request.get("query"), request.get("body"), exchange["response"].get("body")):
            found.update(_strings(value))
    return {value for value in found if ID.match(value)}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []
