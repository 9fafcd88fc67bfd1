"""`mockserver replay`: run a scenario's steps and say, one line each, what happened.

The runner talks HTTP through any httpx client (the CLI gives it one wired in-process to a
fresh app with a frozen clock, which is what makes replays identical run after run). Steps run
in order and a failed step does not stop the run, so one replay shows every problem; a step
that uses a variable a failed step should have captured fails too. The last line is exactly
`N passed, N failed`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx

from mockserver.scenarios.matching import ANY, first_difference
from mockserver.scenarios.model import Scenario, Step

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_WHOLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}\Z")
DELIVERY_STEP = 60  # seconds of mock time between looks at the deliveries journal


class UndefinedVariable(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"variable '${{{name}}}' was not captured (an earlier step failed)")


class Runner:
    """Runs the steps of one scenario against `client` (rooted at the server, not `/v1`)."""

    def __init__(self, client: httpx.Client, scenario: Scenario, key: str | None = None) -> None:
        self.client = client
        self.scenario = scenario
        self.key = scenario.key if key is None else key  # for steps that name no key
        self.variables: dict[str, Any] = {}

    def run(self, out: Callable[[str], None]) -> bool:
        """Print a line per step and the totals; True when every step passed."""
        passed = failed = 0
        for number, step in enumerate(self.scenario.steps, 1):
            label, problem = self.step(step)
            if step.name:
                label = f"{step.name}: {label}"
            if problem is None:
                passed += 1
                out(f"ok   {number:>3}  {label}")
            else:
                failed += 1
                out(f"FAIL {number:>3}  {label}: {problem}")
        out(f"{passed} passed, {failed} failed")
        return failed == 0

    def step(self, step: Step) -> tuple[str, str | None]:
        """Run one step: what it did (its label), and what went wrong, or None."""
        try:
            done: tuple[str, str | None] = getattr(self, f"_{step.kind}")(step)
        except UndefinedVariable as error:
            return step.kind, str(error)
        return done

    # -- variables -------------------------------------------------------------------------

    def _fill(self, value: Any) -> Any:
        """Substitute `${name}`: a string that is only a variable takes the captured value
        as it is (a number stays a number); inside text it is written as text."""
        if isinstance(value, str):
            whole = _WHOLE.match(value)
            if whole:
                return self._get(whole[1])
            return _VARIABLE.sub(lambda m: str(self._get(m[1])), value)
        if isinstance(value, dict):
            return {key: self._fill(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._fill(item) for item in value]
        return value

    def _get(self, name: str) -> Any:
        if name not in self.variables:
            raise UndefinedVariable(name)
        return self.variables[name]

    # -- steps -----------------------------------------------------------------------------

    def _request(self, step: Step) -> tuple[str, str | None]:
        label = f"{step.data['request']['method']} {self._fill(step.data['request']['path'])}"
        broken_expected = step.data.get("expect", {}).get("transport_error")
        try:
            response, sent = self.send(step)
        except httpx.TransportError as error:  # a transport fault broke the connection
            label += " -> connection broken"
            if broken_expected:
                return label, None
            return label, f"the connection broke ({type(error).__name__}: {error})"
        label += f" -> {response.status_code}"
        if "repeat" in step.data:
            label += f" after {sent} requests"
        if broken_expected:
            return label, "expected the connection to break, but it answered"
        problem = self._check(step.data.get("expect", {}), response)
        if problem is None:
            problem = self.capture(step, response)
        return label, problem

    def send(self, step: Step) -> tuple[httpx.Response, int]:
        """Send a request step (again and again for `repeat`); the last answer and how many
        requests were sent. UndefinedVariable for a variable no earlier step captured."""
        spec = step.data["request"]
        method, path = spec["method"], str(self._fill(spec["path"]))
        headers = {k: str(v) for k, v in self._fill(spec.get("headers", {})).items()}
        key = self._fill(spec.get("key", self.key))
        if key is not None:
            headers.setdefault("Authorization", f"Bearer {key}")
        options: dict[str, Any] = {"headers": headers}
        if "query" in spec:
            options["params"] = self._fill(spec["query"])
        if "body" in spec:
            options["json"] = self._fill(spec["body"])
        elif "form" in spec:
            options["data"] = self._fill(spec["form"])
        elif "content" in spec:
            options["content"] = str(self._fill(spec["content"])).encode()
        repeat = step.data.get("repeat", {"until_status": None, "at_most": 1})
        sent = 0
        while True:
            response = self.client.request(method, path, **options)
            sent += 1
            if response.status_code == repeat["until_status"] or sent >= repeat["at_most"]:
                return response, sent

    def capture(self, step: Step, response: httpx.Response) -> str | None:
        """Keep the values the step captures from `response`; a problem if one is missing."""
        return self._capture(step.data.get("capture", {}), response)

    def _check(self, expect: dict[str, Any], response: httpx.Response) -> str | None:
        expect = self._fill(expect)
        status = expect.get("status")
        if status is not None and response.status_code != status:
            return f"expected status {status}{_error_hint(response)}"
        for name, value in expect.get("headers", {}).items():
            got = response.headers.get(name)
            if value is None:
                if got is not None:
                    return f"header {name} is '{got}', expected none"
                continue
            if got is None:
                return f"header {name} is missing"
            if value != ANY and got != value:
                return f"header {name} is '{got}', expected '{value}'"
        if "body" in expect:
            body = _json(response)
            return first_difference(body, expect["body"])
        return None

    def _capture(self, capture: dict[str, str], response: httpx.Response) -> str | None:
        for name, source in capture.items():
            if source == "status":
                self.variables[name] = response.status_code
            elif source.startswith("headers."):
                value = response.headers.get(source.removeprefix("headers."))
                if value is None:
                    return f"cannot capture {name}: no header {source.removeprefix('headers.')}"
                self.variables[name] = value
            else:
                value = _json(response)
                for part in source.split(".")[1:]:
                    if isinstance(value, list) and part.isdigit() and int(part) < len(value):
                        value = value[int(part)]
                    elif isinstance(value, dict) and part in value:
                        value = value[part]
                    else:
                        return f"cannot capture {name}: the response has no {source}"
                self.variables[name] = value
        return None

    def _advance(self, step: Step) -> tuple[str, str | None]:
        seconds = step.data["advance"]
        response = self.client.post("/_mock/clock/advance", json={"seconds": seconds})
        label = f"advance {seconds} s"
        if response.status_code != 200:
            return label, f"the clock did not move ({response.status_code})"
        return f"{label} -> {response.json()['now']}", None

    def _set_clock(self, step: Step) -> tuple[str, str | None]:
        at = step.data["set_clock"]
        response = self.client.post("/_mock/clock/set", json={"at": at})
        if response.status_code != 200:
            return f"set clock {at}", f"the clock was not set ({response.status_code})"
        return f"set clock -> {response.json()['now']}", None

    def _wait_for_deliveries(self, step: Step) -> tuple[str, str | None]:
        """Move the clock in DELIVERY_STEP strides, up to `within` seconds, until the
        deliveries journal holds `count` matching attempts."""
        spec = self._fill(step.data["wait_for_deliveries"])
        count, within = spec["count"], spec.get("within", 0)
        names = {"endpoint": "endpoint_id", "event": "event_type", "status": "status"}
        params = {names[name]: spec[name] for name in names if name in spec}
        label = f"wait for {count} deliveries" + "".join(f" {k}={v}" for k, v in params.items())
        waited = 0
        while True:
            self.client.post("/_mock/webhooks/wait")  # attempts in flight finish first
            response = self.client.get("/_mock/webhooks/deliveries", params=params)
            if response.status_code != 200:
                return label, f"no deliveries journal on this server ({response.status_code})"
            seen = len(response.json().get("data", []))
            if seen >= count:
                return f"{label} -> {seen} after {waited} s", None
            if waited >= within:
                return label, f"{seen} after {waited} s"
            stride = min(DELIVERY_STEP, within - waited)
            self.client.post("/_mock/clock/advance", json={"seconds": stride})
            waited += stride


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return response.text


def _error_hint(response: httpx.Response) -> str:
    """The error type and message of an error answer, to make a wrong status explainable."""
    body = _json(response)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        return f" ({error.get('type')}: {error.get('message')})"
    return ""
