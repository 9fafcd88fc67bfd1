"""Options from environment variables: `MOCKSERVER_<OPTION>` for every option of
`mockserver run` (`--admin-token` is `MOCKSERVER_ADMIN_TOKEN`), for containers and services
that configure a process by its environment.

A flag beats its variable, and a variable beats the option's default. It is argparse's own
mechanism: the values of the variables are put on the namespace before the command line is
parsed, and argparse gives an option its default only when the namespace has no value for it
yet. Each value is read as the option reads its argument (its type, its choices) and a bad
one is a usage error (exit status 2) that names the variable. The forms:

- a switch (`--no-admin`): `1`, `true`, `yes` or `on` sets it; `0`, `false`, `no` or `off`
  leaves it off (any case);
- a repeatable option (`--scenario`): its values separated by `os.pathsep` (`:`, as in
  `PATH`); one flag on the command line replaces the variable's whole list;
- any other: the value as the option takes it.

A variable set to the empty string counts as not set. `--help` names each option's variable.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import Any

PREFIX = "MOCKSERVER_"
TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})


def variable_of(action: argparse.Action) -> str:
    """The variable of an option: `MOCKSERVER_` and its long name, upper case, `_` for `-`."""
    flag = max(action.option_strings, key=len)
    return PREFIX + flag.lstrip("-").upper().replace("-", "_")


class EnvironmentValues(list[Any]):
    """A repeatable option's values as its variable gave them: the first flag replaces them."""


class Repeated(argparse.Action):
    """`action="append"`, except that the values of the option's variable are replaced, not
    added to, by the flags on the command line."""

    repeatable = True  # for the generated CLI reference

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        current = getattr(namespace, self.dest, None)
        kept = [] if current is None or isinstance(current, EnvironmentValues) else current
        setattr(namespace, self.dest, [*kept, values])


class EnvironmentParser(argparse.ArgumentParser):
    """A parser whose options registered with `read_environment` may come from variables."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.variables: dict[str, argparse.Action] = {}
        self.environ: Mapping[str, str] = os.environ

    def read_environment(self, actions: Sequence[argparse.Action]) -> None:
        """Let each of `actions` (options of this parser) come from its variable, and name the
        variable in its help."""
        for action in actions:
            name = variable_of(action)
            self.variables[name] = action
            action.help = f"{action.help or ''} [env: {name}]".strip()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self.variables and not _asks_for_help(args):
            namespace = namespace if namespace is not None else argparse.Namespace()
            for name, action in self.variables.items():
                raw = self.environ.get(name, "")
                if raw.strip() and not hasattr(namespace, action.dest):
                    setattr(namespace, action.dest, self._value(name, action, raw.strip()))
        return super().parse_known_args(args, namespace)

    def _value(self, name: str, action: argparse.Action, raw: str) -> Any:
        """The value of `action` that variable `name` gives, or a usage error naming it."""
        if action.nargs == 0:  # a switch
            if raw.lower() in TRUE:
                return action.const
            if raw.lower() in FALSE:
                return action.default
            self.error(f"{name}={raw!r}: expected 1, true, yes or on, or 0, false, no or off")
        if isinstance(action, Repeated):
            items = [item.strip() for item in raw.split(os.pathsep) if item.strip()]
            return EnvironmentValues(self._one(name, action, item) for item in items)
        return self._one(name, action, raw)

    def _one(self, name: str, action: argparse.Action, raw: str) -> Any:
        convert = action.type if callable(action.type) else None
        try:
            value = convert(raw) if convert is not None else raw
        except argparse.ArgumentTypeError as error:
            self.error(f"{name}={raw!r}: {error}")
        except (TypeError, ValueError):
            expected = "a whole number" if convert is int else "a valid value"
            self.error(f"{name}={raw!r}: expected {expected}")
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            self.error(f"{name}={raw!r}: expected one of {choices}")
        return value


def _asks_for_help(args: Sequence[str] | None) -> bool:
    """Whether the command line asks for help: the variables are not read then, so a bad one
    does not hide the help that explains it."""
    return any(arg in ("-h", "--help") for arg in args or ())
