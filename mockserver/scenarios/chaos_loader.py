"""The checks of a scenario's `chaos:` block past the schema, building its `Chaos`.

The loader's builder lends its own checks (names, matches, responds, webhook faults), so a chaos
rule's `match` and `respond` mean what a rule's do. Each chaos rule, the latency and each
webhook chaos rule is checked on its own: a bad one is a problem at its line and is skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from mockserver.core.errors import ScenarioError
from mockserver.scenarios.chaos import Chaos, ChaosRule, Latency, WebhookChaos
from mockserver.scenarios.rule_parts import Match, Respond
from mockserver.seeds.yaml_lines import PathT

T = TypeVar("T")
_PARAMS = ("bytes_per_second", "stall_ms")  # a transport fault's parameters


class Parts(Protocol):
    """What the chaos checks take from the loader's builder."""

    problems: list[ScenarioError]
    refused: set[PathT]  # the parts the schema refused (`schema_errors.part_of`)
    chaos_names: set[str]

    def fail(self, path: PathT, message: str) -> ScenarioError: ...
    def name(self, name: str, path: PathT) -> str: ...
    def match(self, raw: dict[str, Any], path: PathT) -> Match: ...
    def respond(self, raw: dict[str, Any], path: PathT) -> Respond: ...
    def webhook_fault_kind(self, raw: dict[str, Any], path: PathT) -> str: ...


class ChaosBuilder:
    """Builds one scenario's chaos block from its (schema-checked) mapping."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    def build(self, raw: dict[str, Any]) -> Chaos:
        """The chaos block of the parts the schema did not refuse; a problem of each part is
        added to the builder's."""
        refused = self.parts.refused
        chaos = Chaos(seed=0 if ("chaos", "seed") in refused else raw["seed"])
        chaos.rules = self._each(raw, "rules", self._rule)
        if "latency" in raw and ("chaos", "latency") not in refused:
            try:
                chaos.latency = self._latency(raw["latency"], ("chaos", "latency"))
            except ScenarioError as error:
                self.parts.problems.append(error)
        chaos.webhooks = self._each(raw, "webhooks", self._webhook)
        return chaos

    def _each(
        self, raw: dict[str, Any], field: str, build: Callable[[dict[str, Any], PathT], T]
    ) -> list[T]:
        built: list[T] = []
        if ("chaos", field) in self.parts.refused:
            return built
        for index, item in enumerate(raw.get(field, [])):
            path: PathT = ("chaos", field, index)
            if path in self.parts.refused:
                continue
            try:
                built.append(build(item, path))
            except ScenarioError as error:
                self.parts.problems.append(error)
        return built

    def _label(self, raw: dict[str, Any], path: PathT) -> tuple[str, bool]:
        """A chaos rule's name (unique in the scenario), else its index as text."""
        if "name" not in raw:
            return str(path[-1]), False
        name = self.parts.name(raw["name"], (*path, "name"))
        self.parts.chaos_names.add(name)
        return name, True

    def _rule(self, raw: dict[str, Any], path: PathT) -> ChaosRule:
        parts = self.parts
        label, named = self._label(raw, path)
        match = parts.match(raw.get("match", {}), (*path, "match"))
        if ("respond" in raw) == ("fault" in raw):
            raise parts.fail(path, "a chaos rule needs exactly one of respond or fault")
        if "respond" in raw:
            for param in _PARAMS:
                if param in raw:
                    raise parts.fail(
                        (*path, param), f"{param} goes beside fault, or inside respond"
                    )
            respond = parts.respond(raw["respond"], (*path, "respond"))
        else:  # `fault: reset` is short for `respond: {fault: reset}`, its parameter beside it
            shorthand = {field: raw[field] for field in ("fault", *_PARAMS) if field in raw}
            respond = parts.respond(shorthand, path)
        return ChaosRule(
            label=label,
            match=match,
            probability=float(raw["probability"]),
            respond=respond,
            at=path,
            named=named,
        )

    def _latency(self, raw: dict[str, Any], path: PathT) -> Latency:
        parts = self.parts
        distribution: str = raw["distribution"]
        median = float(raw["median_ms"])
        if distribution == "fixed":
            if "p99_ms" in raw:
                raise parts.fail(
                    (*path, "p99_ms"), "a fixed latency is median_ms every time: it has no p99_ms"
                )
            p99 = median
        elif "p99_ms" not in raw:
            raise parts.fail(path, f"a {distribution} latency needs p99_ms")
        else:
            p99 = float(raw["p99_ms"])
            if p99 < median:
                raise parts.fail((*path, "p99_ms"), "p99_ms must be at least median_ms")
        return Latency(
            match=parts.match(raw.get("match", {}), (*path, "match")),
            distribution=distribution,
            median_ms=median,
            p99_ms=p99,
            at=path,
        )

    def _webhook(self, raw: dict[str, Any], path: PathT) -> WebhookChaos:
        label, named = self._label(raw, path)
        kind = self.parts.webhook_fault_kind(raw, path)
        event = raw.get("event")
        return WebhookChaos(
            label=label,
            kind=kind,
            probability=float(raw["probability"]),
            endpoint=raw.get("endpoint"),
            event=None if event in (None, "*") else event,
            status=raw.get("status", 500),
            delay_seconds=raw.get("delay_seconds", 0),
            at=path,
            named=named,
        )
