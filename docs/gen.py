"""Write the generated parts of the documentation site.

`python -m docs.gen` rewrites them in place; `python -m docs.gen --check` exits 1 and names
each stale file instead (tests/e2e/test_docs_site.py runs the check). Three sources:

- the command line's argparse parser (mockserver/cli/main.py) -> docs/reference/cli.md, whole;
- the published JSON Schema of scenario files (`mockserver schema scenario`) -> the field table
  between the GENERATED markers of docs/reference/scenario-format.md;
- the latest benchmark run (benchmarks/latest.json) -> the table between the markers of
  docs/performance/index.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CLI_PAGE = DOCS / "reference" / "cli.md"
SCENARIO_PAGE = DOCS / "reference" / "scenario-format.md"
PERFORMANCE_PAGE = DOCS / "performance" / "index.md"


# --- the command line -------------------------------------------------------------------


def _cli_parser() -> argparse.ArgumentParser:
    """The `mockserver` parser, whatever the CLI module calls its factory."""
    cli_main = importlib.import_module("mockserver.cli.main")

    for name in ("build_parser", "make_parser", "parser", "_parser", "_build_parser"):
        factory = getattr(cli_main, name, None)
        if callable(factory):
            built = factory()
            if isinstance(built, argparse.ArgumentParser):
                return built
        if isinstance(factory, argparse.ArgumentParser):
            return factory
    raise SystemExit("docs.gen: no argparse parser factory found in mockserver.cli.main")


def _subcommands(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[argparse.ArgumentParser, str | None]]:
    """Every parser under `parser`, depth first, with the help line its parent gives it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield sub, helps.get(name)
                yield from _subcommands(sub)


# argparse's "(default: %(default)s[, more])" in a help text (the table says the default apart)
_DEFAULT = re.compile(r" ?\(default: %\(default\)s(?:, ([^)]*))?\)")
# Said for the arguments the parser gives no help text; the parser's own text wins.
_NOTES = {
    "files": "seed and scenario files; each problem is printed as `file:line: message`",
    "file": "the scenario file whose `steps` to run; exit 0 only if every step passed",
    "kind": "which schema to print",
    "strict_webhook_urls": "refuse plain-http webhook URLs, loopback ones included",
    "log_level": "uvicorn's log level",
}


# The variable an option's help names (mockserver/cli/environment.py): a column of its own.
_VARIABLE = re.compile(r" ?\[env: (\w+)\]")


def _option_row(action: argparse.Action, variables: bool = False) -> str | None:
    if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
        return None
    if action.option_strings:
        name = ", ".join(f"`{flag}`" for flag in action.option_strings)
        if action.nargs != 0:
            metavar = action.metavar or (
                "{" + ",".join(map(str, action.choices)) + "}"
                if action.choices
                else action.dest.upper()
            )
            name = name[:-1] + f" {metavar}`"
    else:
        name = f"`{action.metavar or action.dest}`"
        if action.choices:
            name += " (" + ", ".join(f"`{choice}`" for choice in action.choices) + ")"
    notes = []
    variable = ""
    if action.help and action.help != argparse.SUPPRESS:
        # argparse's own "%(default)s": the default is said once, by the note below.
        text = _DEFAULT.sub(lambda m: f" ({m[1]})" if m[1] else "", action.help)
        found = _VARIABLE.search(text)
        if found:
            variable, text = f"`{found[1]}`", _VARIABLE.sub("", text)
        notes.append(text)
    elif action.dest in _NOTES:
        notes.append(_NOTES[action.dest])
    if action.required and action.option_strings:
        notes.append("required")
    if isinstance(action, argparse._AppendAction) or getattr(action, "repeatable", False):
        notes.append("may be repeated")
    default = action.default
    if action.option_strings and action.nargs != 0 and default not in (None, [], argparse.SUPPRESS):
        notes.append(f"default `{default}`")
    text = "; ".join(notes).replace("|", "\\|") or ""
    if variables:
        return f"| {name} | {variable} | {text} |"
    return f"| {name} | {text} |"


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=100)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, "")
    return formatter.format_help().strip()


def cli_page() -> str:
    """docs/reference/cli.md: every command, its usage and its options, from the parser."""
    os.environ.setdefault("COLUMNS", "100")
    parser = _cli_parser()
    lines = [
        "<!-- Generated by `python -m docs.gen` from mockserver/cli/main.py: do not edit. -->",
        "",
        "# Command line",
        "",
        "The `mockserver` command is installed with the package (`python -m mockserver` is the",
        "same). Every command below answers `--help`; `mockserver --version` prints the version.",
        "Load-time errors (a bad seed or scenario) are printed as `file:line: message` and end",
        "the command with exit status 2. Every option of `mockserver run` can also be set by the",
        "environment variable of its row, and a flag beats its variable: see",
        "[environment variables](configuration.md#environment-variables) for their forms.",
        "",
    ]
    for sub, help_text in _subcommands(parser):
        command = sub.prog
        lines += [f"## `{command}`", ""]
        if help_text:
            lines += [help_text[0].upper() + help_text[1:] + ".", ""]
        lines += ["```text", _usage(sub), "```", ""]
        variables = any(_VARIABLE.search(action.help or "") for action in sub._actions)
        rows = [row for action in sub._actions if (row := _option_row(action, variables))]
        if rows and variables:
            lines += ["| argument | variable | meaning |", "|---|---|---|", *rows, ""]
        elif rows:
            lines += ["| argument | meaning |", "|---|---|", *rows, ""]
    return "\n".join(lines).rstrip() + "\n"


# --- the scenario format ----------------------------------------------------------------


def scenario_schema() -> dict[str, Any]:
    """The schema as `mockserver schema scenario` publishes it."""
    out = subprocess.run(
        [sys.executable, "-m", "mockserver", "schema", "scenario"],
        capture_output=True,
        check=True,
        text=True,
        cwd=ROOT,
    )
    schema: dict[str, Any] = json.loads(out.stdout)
    return schema


def _type_of(node: dict[str, Any]) -> str:
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " \\| ".join(f"`{value}`" for value in node["enum"])
    if "oneOf" in node or "anyOf" in node:
        return " or ".join(_type_of(option) for option in node.get("oneOf") or node["anyOf"])
    if node.get("not") == {}:  # a field this place refuses (its rules say why)
        return "not allowed"
    kind = node.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"list of {_type_of(node['items'])}"
    if node.get("format") == "date-time":
        return "RFC 3339 time"
    return str(kind)


def _constraints(node: dict[str, Any]) -> str:
    parts = []
    for key, text in (
        ("minimum", "≥ {}"),
        ("exclusiveMinimum", "> {}"),
        ("maximum", "≤ {}"),
        ("minLength", "at least {} characters"),
        ("maxLength", "at most {} characters"),
        ("minItems", "at least {} items"),
        ("maxItems", "at most {} items"),
        ("minProperties", "at least {} fields"),
        ("maxProperties", "at most {} fields"),
    ):
        if key in node:
            parts.append(text.format(node[key]))
    if "x-error" in node:
        parts.append(node["x-error"])
    elif "pattern" in node:
        parts.append(f"matches `{node['pattern']}`")
    if "description" in node:
        parts.insert(0, node["description"])
    return "; ".join(parts).replace("|", "\\|").replace("\n", " ")


def _walk(node: dict[str, Any], path: str, required: bool) -> Iterator[str]:
    if path:
        mark = "yes" if required else ""
        yield f"| `{path}` | {_type_of(node)} | {mark} | {_constraints(node)} |"
    options = node.get("oneOf") or node.get("anyOf") or []
    for option in options:
        if option.get("type") == "object" or "properties" in option:
            yield from _walk_properties(option, path)
    if "properties" in node:
        yield from _walk_properties(node, path)
    items = node.get("items")
    if isinstance(items, dict):
        for option in [items, *(items.get("oneOf") or items.get("anyOf") or [])]:
            if "properties" in option:
                yield from _walk_properties(option, path + "[]")


def _walk_properties(node: dict[str, Any], path: str) -> Iterator[str]:
    required = set(node.get("required", ()))
    for name, child in node.get("properties", {}).items():
        yield from _walk(child, f"{path}.{name}" if path else name, name in required)


def scenario_table() -> str:
    """Every field of a scenario file, by its dotted path (`[]` is any item of a list)."""
    rows = list(dict.fromkeys(_walk(scenario_schema(), "", False)))
    return "\n".join(["| field | type | required | rules |", "|---|---|---|---|", *rows])


# --- the benchmark table ----------------------------------------------------------------


def performance_table() -> str:
    """The Markdown table of benchmarks/latest.json, with the machine it ran on."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.report import Report, markdown_table

    report = Report.read(ROOT / "benchmarks" / "latest.json")
    machine = report.machine if isinstance(report.machine, dict) else {}
    parts = [
        machine.get("cpu", ""),
        f"{machine['cores']} cores" if "cores" in machine else "",
        machine.get("memory", ""),
        f"Python {machine['python']}" if "python" in machine else "",
        machine.get("wrk", ""),
    ]
    described = ", ".join(part for part in parts if part)
    head = f"Measured on: {described}." if described else ""
    table = markdown_table(report.rows)
    return f"{head}\n\n{table}" if head else table


# --- writing ----------------------------------------------------------------------------

_MARKERS = "<!-- BEGIN GENERATED {name} -->\n{body}\n<!-- END GENERATED {name} -->"


def _splice(text: str, name: str, body: str) -> str:
    pattern = re.compile(
        rf"<!-- BEGIN GENERATED {name} -->\n.*?<!-- END GENERATED {name} -->", re.DOTALL
    )
    if not pattern.search(text):
        raise SystemExit(f"docs.gen: no GENERATED {name} markers")
    return pattern.sub(lambda _: _MARKERS.format(name=name, body=body), text, count=1)


def outputs() -> dict[Path, Callable[[str], str]]:
    """Each generated file and how to make its new text from its current one."""
    return {
        CLI_PAGE: lambda _old: cli_page(),
        SCENARIO_PAGE: lambda old: _splice(old, "scenario-fields", scenario_table()),
        PERFORMANCE_PAGE: lambda old: _splice(old, "benchmark-table", performance_table()),
    }


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--check", action="store_true", help="name stale files, change nothing")
    check = args.parse_args(argv).check
    stale = []
    for path, make in outputs().items():
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        new = make(old)
        if new != old:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.write_text(new, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if check else 'wrote'}: {path}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
