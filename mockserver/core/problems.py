"""One problem of a file a user wrote (a scenario, a seed): where it is, what is wrong, and
whether it stops the file from loading.

Every place that shows problems to a user (`mockserver validate`, the console of a watched
server, `GET /_mock/scenarios`, the inspector, the pytest plugin) shows them from this one
type, each as `file:line: message` (a warning as `file:line: warning: message`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from mockserver.core.errors import LoadError

Severity = Literal["error", "warning"]
_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?:(?P<warning>warning): )?(?P<message>.*)$")


@dataclass(frozen=True, slots=True)
class Problem:
    """A problem at `line` (1-based; 0: the file as a whole) of `file`."""

    file: str
    line: int
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        label = "warning: " if self.severity == "warning" else ""
        return f"{self.file}:{self.line}: {label}{self.message}"

    def as_json(self) -> dict[str, Any]:
        """As the control plane shows it (the file is the scenario's `source`)."""
        return {"line": self.line, "message": self.message, "severity": self.severity}


def problems_of(error: LoadError) -> list[Problem]:
    """Every problem a load error stands for, in its order."""
    return [Problem(p.file, p.line, p.message) for p in error.problems]


def block(problems: Iterable[Problem]) -> str:
    """The problems as lines, one `file:line: message` each."""
    return "\n".join(str(problem) for problem in problems)


def parse_block(text: str, file: str) -> list[Problem]:
    """The problems of a block of lines as `block` writes them (a control plane's 422
    message); a line of another form is a problem of `file` as a whole."""
    found = []
    for line in text.splitlines() or [text]:
        parts = _LINE.match(line)
        if parts is None:
            found.append(Problem(file, 0, line))
        else:
            severity: Severity = "warning" if parts["warning"] else "error"
            found.append(Problem(parts["file"], int(parts["line"]), parts["message"], severity))
    return found
