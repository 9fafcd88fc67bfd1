"""The watched files of one server and what a save of each does.

A scenario file saved valid is loaded again as the control plane's `POST /_mock/scenarios`
would load it, and by that very request: it goes into the app like a client's (through a
durable sandbox's log, so a restart replays it in its place) with `replace`: the scenario of
that name has its rules, timeline and chaos swapped (its counters start again), and the data,
the clock, the journal and the other scenarios stay (the new version's clock and setup are
not applied; a file's first load applies them). A file removed from `--scenario-dir` is unloaded
by `DELETE /_mock/scenarios?name=`. A seed file saved valid resets the sandbox to it, as
`POST /_mock/reset` does, and loads the scenarios again.

A file saved invalid changes nothing: every problem is reported (`report`, one
`file:line: message` line each), and kept where `GET /_mock/scenarios` (`reload_error` on the
scenario the file holds, `errors` for a file that never loaded) and `GET /_mock/health`
(`seed_error`) show it, until the next valid save.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote, unquote

import orjson

from mockserver.core.clock import format_ts
from mockserver.core.errors import LoadError, ScenarioError, SeedError
from mockserver.core.problems import Problem, parse_block, problems_of
from mockserver.engine.live.folder import directory_files
from mockserver.engine.request import Request
from mockserver.seeds.loader import load_seed_text

if TYPE_CHECKING:
    from mockserver.core.config import Settings
    from mockserver.domain.models import SeedData
    from mockserver.domain.store import Store
    from mockserver.engine.control import Control
    from mockserver.engine.request import BodyReader, Response, Serve
    from mockserver.scenarios.engine import ScenarioEngine


class Logged(Protocol):
    """A durable sandbox's log: where an input goes in, run by `run`."""

    async def serve(self, request: Request, reader: BodyReader | None, run: Serve) -> Response: ...


class Watched(Protocol):
    """The server's sandbox (`engine/sandbox.py`), as far as its watched files use it."""

    @property
    def settings(self) -> Settings: ...
    @property
    def store(self) -> Store: ...
    @property
    def scenarios(self) -> ScenarioEngine: ...
    @property
    def control(self) -> Control: ...
    @property
    def durability(self) -> Logged | None: ...
    @property
    def own_requests(self) -> Serve | None: ...

    def use_seed(self, seed: SeedData) -> list[ScenarioError]: ...


log = logging.getLogger("mockserver")

USER_AGENT = b"mockserver-watch/1"
GONE_GRACE = 0.2  # seconds a removed file may take to come back before its scenario goes
# One line for a person, and the same as fields (`--log-format json`).
Report = Callable[[str, dict[str, Any]], None]


def _logged(text: str, fields: dict[str, Any]) -> None:
    log.warning("%s", text)


def version_of(text: str) -> str:
    """A scenario's version: as `Scenario.version` computes it."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


class LiveFiles:
    """What the watcher follows for one server's sandbox, and what a save of each does."""

    def __init__(self, sandbox: Watched, report: Report = _logged) -> None:
        settings = sandbox.settings
        self.sandbox = sandbox
        self.report = report
        self.seed = None if settings.seed_path is None else _placed(settings.seed_path)
        engine = sandbox.scenarios
        self.explicit = [_placed(engine.file_of(path)) for path in settings.scenario_paths]
        self.directory = None if settings.scenario_dir is None else settings.scenario_dir.resolve()
        self.names: dict[Path, str] = {}  # a file -> the name of the scenario it loaded
        self.seen: dict[Path, str] = {}  # a file -> the version of it last applied or refused
        self.seed_error: dict[str, Any] | None = None
        self.pending: list[tuple[str, dict[str, Any]]] = []  # lines of the start, until told
        engine.watching = True

    def report_to(self, report: Report) -> None:
        """Report from now on to `report` (the console), starting with the lines of the
        loads made as the server was built."""
        self.report = report
        for text, fields in self.pending:
            report(text, fields)
        self.pending.clear()

    # -- what is watched -----------------------------------------------------------------

    def scenario_files(self) -> list[Path]:
        """The scenario files now: those named, then those of the folder."""
        found = list(self.explicit)
        if self.directory is not None:
            found += [p for p in directory_files(self.directory) if p not in found]
        return found

    def folders(self) -> list[Path]:
        """The folders to watch: a file is watched through its folder, so that a save that
        writes another file and renames it over this one is seen."""
        wanted = [p.parent for p in self.explicit]
        if self.seed is not None:
            wanted.append(self.seed.parent)
        if self.directory is not None:
            wanted.append(self.directory)
        return sorted(set(wanted))

    def concerns(self, path: Path) -> bool:
        """Whether a change of `path` is one of the watched files'."""
        if path == self.seed or path in self.explicit:
            return True
        return (
            self.directory is not None
            and path.parent == self.directory
            and path.suffix == ".yaml"
            and not path.name.startswith(".")
        )

    # -- at start ------------------------------------------------------------------------

    def load_at_start(self) -> None:
        """Load every scenario file as the server is built; one that does not load is
        reported and shown, and the server starts without it. A durable sandbox loads
        nothing here: its files are loaded through its log (`sync`), after its replay."""
        if self.sandbox.durability is not None:
            return
        engine = self.sandbox.scenarios
        told, self.report = self.report, self._keep
        for path in self.scenario_files():
            text, problems = _read(path)
            self.seen[path] = version_of(text)
            if not problems:
                try:
                    scenario = engine.load(self.sandbox.control.read_scenario(text, str(path)))
                except ScenarioError as error:
                    problems = problems_of(error)
                else:
                    self.names[path] = scenario.scenario.name
                    self._loaded(path, scenario.scenario.name, version_of(text))
                    continue
            self._failed(path, problems)
        self.report = told

    def _keep(self, text: str, fields: dict[str, Any]) -> None:
        self.pending.append((text, fields))

    async def sync(self) -> None:
        """Once the watch is set up: the files as they are now. A file whose content is not
        the version serving is loaded (a durable sandbox's files at its start, or saved while
        it was stopped), a folder's file no longer there is unloaded."""
        files = self.scenario_files()
        for loaded in self.sandbox.scenarios.loaded:
            path = Path(loaded.scenario.source)
            if path.is_absolute() and self.concerns(path):
                self.names.setdefault(path, loaded.scenario.name)
        for path in files:
            await self.changed(path)
        for path in [p for p in self.names if p not in files and not p.is_file()]:
            await self.changed(path)

    # -- a save ----------------------------------------------------------------------------

    async def changed(self, path: Path) -> None:
        """Apply what a change of `path` means: its current content (or its absence: an
        editor that removes the file before writing it anew gets `GONE_GRACE` seconds)."""
        if not path.is_file():
            await asyncio.sleep(GONE_GRACE)
        if path == self.seed:
            self.seed_changed()
        elif path.is_file():
            await self.scenario_saved(path)
        elif path in self.names and path not in self.explicit:
            await self.scenario_removed(path)
        elif path not in self.explicit:  # a file that never loaded: its error goes with it
            self.sandbox.scenarios.file_errors.pop(str(path), None)
            self.seen.pop(path, None)
        elif path in self.explicit:
            self.report(
                f"{path}: removed; its scenario keeps serving until the file is back",
                {"event": "reload", "file": str(path), "removed": True},
            )

    async def scenario_saved(self, path: Path) -> None:
        engine = self.sandbox.scenarios
        text, problems = _read(path)
        old = self.names.get(path)
        version = version_of(text)
        if not problems and self.seen.get(path) == version:
            return  # these bytes were applied, or refused and reported, already
        self.seen[path] = version
        if not problems and old is not None and engine.version_of(old) == version:
            self._cleared(path, old)  # the same bytes again (a touch, a save without change)
            return
        scenario = None
        if not problems:
            try:
                scenario = self.sandbox.control.read_scenario(text, str(path))
            except ScenarioError as error:
                problems = problems_of(error)
        if problems or scenario is None:
            self._failed(path, problems)
            return
        if old is not None and old != scenario.name:
            await self._request("DELETE", f"/_mock/scenarios?name={quote(old)}", None)
        status, body = await self._request(
            "POST", "/_mock/scenarios", {"yaml": text, "source": str(path), "replace": True}
        )
        if status != 201:  # the sandbox changed since the check (or the log failed)
            message = str((body or {}).get("error", {}).get("message", f"status {status}"))
            self._failed(path, parse_block(message, str(path)))
            return
        self.names[path] = scenario.name
        if old is not None and old != scenario.name:
            engine.reload_errors.pop(old, None)
        self._loaded(path, scenario.name, version)

    async def scenario_removed(self, path: Path) -> None:
        name = self.names.pop(path)
        self.seen.pop(path, None)
        await self._request("DELETE", f"/_mock/scenarios?name={quote(name)}", None)
        self.sandbox.scenarios.reload_errors.pop(name, None)
        self.sandbox.scenarios.file_errors.pop(str(path), None)
        self.report(
            f"{path}: removed; scenario {name} unloaded",
            {"event": "reload", "file": str(path), "scenario": name, "unloaded": True},
        )

    def seed_changed(self) -> None:
        """A seed saved valid resets the sandbox to it and loads its scenarios again."""
        path = self.seed
        assert path is not None
        text, problems = _read(path)
        seed = None
        if not problems:
            try:
                seed = load_seed_text(text, str(path))
            except SeedError as error:
                problems = problems_of(error)
        if not problems and self.sandbox.durability is not None:
            problems = [
                _problem(
                    path,
                    "a sandbox kept in --state-dir keeps the seed it started with; restart the "
                    "server (with a new --state-dir) to use the new seed",
                )
            ]
        if problems or seed is None:
            self.seed_error = self._error(problems)
            self._print(problems)
            return
        failed = self.sandbox.use_seed(seed)
        self.seed_error = None
        self.report(
            f"{path}: seed reloaded (version {version_of(text)}); the sandbox is reset to it",
            {"event": "reload", "file": str(path), "seed": True, "version": version_of(text)},
        )
        for failure in failed:  # a scenario that does not load on the new seed: shown
            where = Path(failure.file)
            self.seen.pop(where, None)  # saved again, even unchanged, it is tried again
            self._failed(where, problems_of(failure))

    # -- the control plane's requests --------------------------------------------------------

    async def _request(self, method: str, target: str, body: Any) -> tuple[int, Any]:
        """`method target` as the sandbox's own request into the app, logged first by a durable
        sandbox's log; or, without a control plane (`--no-admin`), the same change made
        directly."""
        sandbox = self.sandbox
        if not sandbox.settings.admin:
            return self._direct(method, target, body)
        path, _, query = target.partition("?")
        raw = b"" if body is None else orjson.dumps(body)
        headers = [
            (b"host", b"127.0.0.1"),
            (b"user-agent", USER_AGENT),
            (b"content-length", str(len(raw)).encode()),
        ]
        if body is not None:
            headers.append((b"content-type", b"application/json"))
        token = sandbox.settings.admin_token
        if token is not None:
            headers.append((b"x-mock-admin-token", token.encode("latin-1")))
        request = Request.of(
            method, path, headers, query.encode(), raw, ("127.0.0.1", 0), "http", None
        )
        enter = sandbox.own_requests
        assert enter is not None  # set by the app that serves the sandbox, before it runs
        if sandbox.durability is not None:  # an input of the log: a restart replays it
            response = await sandbox.durability.serve(request, None, enter)
        else:
            response = await enter(request)
        return response.status, orjson.loads(response.body) if response.body else None

    def _direct(self, method: str, target: str, body: Any) -> tuple[int, Any]:
        control = self.sandbox.control
        if method == "DELETE":
            control.unload_scenario(unquote(target.partition("=")[2]))
            return 200, None
        try:
            control.load_scenario_text(body["yaml"], body["source"], replace=True)
        except LoadError as error:
            return 422, {"error": {"message": str(error)}}
        return 201, None

    # -- reporting -----------------------------------------------------------------------

    def _loaded(self, path: Path, name: str, version: str) -> None:
        self._cleared(path, name)
        loaded = next(item for item in self.sandbox.scenarios.loaded if item.scenario.name == name)
        scenario = loaded.scenario
        counts = {
            "rules": len(scenario.rules),
            "webhooks": len(scenario.webhooks),
            "deprecations": len(scenario.deprecations),
            "timeline": len(scenario.timeline),
        }
        shown = ", ".join(_counted(n, what) for what, n in counts.items() if n)
        self.report(
            f"{path}: loaded scenario {name} version {version} ({shown or 'nothing armed'})",
            {"event": "reload", "file": str(path), "scenario": name, "version": version, **counts},
        )

    def _cleared(self, path: Path, name: str) -> None:
        self.sandbox.scenarios.reload_errors.pop(name, None)
        self.sandbox.scenarios.file_errors.pop(str(path), None)

    def _failed(self, path: Path, problems: list[Problem]) -> None:
        """Keep the problems of a save where the control plane and the inspector show them."""
        engine = self.sandbox.scenarios
        error = self._error(problems)
        name = self.names.get(path)
        if name is not None and engine.version_of(name):
            engine.reload_errors[name] = error
        else:
            engine.file_errors[str(path)] = {"source": str(path), **error}
        self._print(problems)

    def _error(self, problems: list[Problem]) -> dict[str, Any]:
        first = problems[0]
        return {
            "message": first.message,
            "line": first.line,
            "at": format_ts(self.sandbox.store.now()),
            "problems": [problem.as_json() for problem in problems],
        }

    def _print(self, problems: list[Problem]) -> None:
        for problem in problems:
            self.report(
                str(problem),
                {
                    "event": "reload_error",
                    "file": problem.file,
                    "line": problem.line,
                    "message": problem.message,
                },
            )


def _placed(path: Path) -> Path:
    """`path` as a change of it is reported: its folder resolved (no symbolic links, as a
    watcher names it), its own name kept (a link to a file is watched as the link)."""
    return path.absolute().parent.resolve() / path.name


def _read(path: Path) -> tuple[str, list[Problem]]:
    """The file's text, or the problem of reading it."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        return "", [_problem(path, f"cannot read the file: {error.strerror or error}")]
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError:
        return "", [_problem(path, "the file is not UTF-8 text")]


def _counted(n: int, what: str) -> str:
    """`1 rule`, `2 rules`, `1 timeline entry`."""
    one = {"rules": "rule", "webhooks": "webhook fault", "deprecations": "deprecation"}
    if what == "timeline":
        return f"{n} timeline {'entry' if n == 1 else 'entries'}"
    return f"{n} {one[what]}" if n == 1 else f"{n} {one[what]}s"


def _problem(path: Path, message: str) -> Problem:
    return Problem(str(path), 0, message)
