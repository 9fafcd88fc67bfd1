"""Every shell and Python example of README.md and docs/ runs, against a real `mockserver run`.

The collector takes each fenced block whose language is bash, sh, console or python. A
`<!-- doc-test: ... -->` comment on the line before a block says how to treat it:

- `no-run (reason)`: not run (a server that never ends, an install); the reason is required and
  `test_no_run_blocks_are_listed` prints every such block, so nothing is skipped silently;
- `http-errors (reason)`: curl may get a 4xx or 5xx (the example shows one); otherwise curl runs
  with `--fail-with-body`, so an example the API refuses fails;
- `file NAME`: the block (in any language, YAML too) is written to NAME in the page's folder,
  for later blocks to use;
- `serve (reason)`: each command of the block starts a server that runs until stopped. Each is
  started in the background on a free loopback port (the page's 8080 or 9000 rewritten, or
  `--port`/`PORT=` added when the command names none; `0.0.0.0` rewritten to 127.0.0.1), must
  answer HTTP, and is then stopped by its PID with SIGINT, as Ctrl-C stops it, and must exit 0;
- `output (reason)`: the block (usually `text`) is what the block before it prints, and must
  be what it printed, line for line (trailing spaces and blank lines aside).

One server runs for the whole module (`mockserver run --clock frozen`) on a free loopback port,
and is reset before each page. The blocks of a page run in order in one folder (with `seeds/`
and `scenarios/` linked in); shell variables set by a block are seen by the next ones, and
processes a block leaves in the background are stopped when the page is done. `:8080` is
rewritten to the server's port, and the ports of the examples' own servers (`8090` a webhook
receiver, `8443` an HTTPS server, `8081` another server) to free ones.
A Python block that defines `test_` functions is run by pytest, with the plugin's own server.

The getting-started pages run every block, none `no-run`, as a new user runs them: in a folder
laid out as a fresh clone after `make run` (`.venv/bin/mockserver`), with `mockserver` on PATH
as a pip install puts it, and nothing else of the test's venv: `python3` there has the standard
library only, as the pages promise. `make run` and `pip install` are stand-ins
(tests/support/fresh_clone.py says why and what they check).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support import fresh_clone

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
GETTING_STARTED = ROOT / "docs" / "getting-started"
LANGUAGES = {"bash": "shell", "sh": "shell", "console": "console", "python": "python"}
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+)(?P<lang>[\w-]*)[^\n]*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*doc-test:\s*(?P<kind>[\w-]+)\s*(?P<arg>.*?)\s*-->\s*$")
BLOCK_TIMEOUT = 60
# How long a `serve` block's server may take to answer, and to stop once told.
SERVE_TIMEOUT = 30
# Ports the examples use for servers of their own: a webhook receiver, an HTTPS server, another.
EXAMPLE_PORTS = ("8090", "8443", "8081")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    kind: str  # shell, console, python, file or output
    code: str
    directive: str = ""  # no-run, http-errors, file, serve, output
    argument: str = ""

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> Iterator[Block]:
    """The runnable fenced blocks of one page, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opened = FENCE.match(lines[index])
        if not opened:
            index += 1
            continue
        start, fence, indent = index, opened["fence"], len(opened["indent"])
        index += 1
        body = []
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index][indent:])
            index += 1
        index += 1
        previous = lines[start - 1] if start else ""
        directive = DIRECTIVE.match(previous)
        kind = LANGUAGES.get(opened["lang"])
        if directive and directive["kind"] == "file":
            kind = kind or "file"  # a YAML or JSON file the next blocks use
        if directive and directive["kind"] == "output":
            kind = "output"  # what the block before prints
        if kind is None:
            continue
        yield Block(
            page=page,
            line=start + 1,
            kind=kind,
            code="\n".join(body) + "\n",
            directive=directive["kind"] if directive else "",
            argument=directive["arg"] if directive else "",
        )


ALL = [block for page in PAGES for block in blocks(page)]
KNOWN_DIRECTIVES = {"", "no-run", "http-errors", "file", "serve", "output"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    port: int
    bin_dir: Path  # the shims first, then the interpreter's scripts

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    scripts = Path(sys.executable).parent
    shims = tmp_path_factory.mktemp("shims")
    real_curl = shutil.which("curl")
    if real_curl is None:
        pytest.fail("the documentation's examples need curl on PATH")
    # curl fails on an HTTP error unless the block says the error is the point.
    (shims / "curl").write_text(
        "#!/bin/sh\n"
        f'if [ -n "$DOC_TEST_HTTP_ERRORS" ]; then exec {real_curl} "$@"; fi\n'
        f'exec {real_curl} --fail-with-body "$@"\n'
    )
    (shims / "curl").chmod(0o755)
    port = _free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("wb")
    process = subprocess.Popen(
        [scripts / "mockserver", "run", "--port", str(port), "--clock", "frozen"],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/_mock/clock", timeout=1)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"mockserver run did not start: {log.name}")
                time.sleep(0.1)
        yield Server(port=port, bin_dir=shims)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _rewrite(code: str, port: int, others: dict[str, int]) -> str:
    code = re.sub(r"(?<=localhost):8080\b|(?<=127\.0\.0\.1):8080\b", f":{port}", code)
    for example, free in others.items():
        code = re.sub(rf"\b{example}\b", str(free), code)
    return code


def _commands(code: str) -> list[str]:
    """The commands of a shell block, one a line (continued lines joined), comments dropped."""
    commands = []
    for line in code.replace("\\\n", " ").splitlines():
        command = re.sub(r"(^|\s)#[^'\"]*$", "", line).strip()
        if command:
            commands.append(command)
    return commands


def _lines(text: str) -> list[str]:
    """Text as lines to compare: trailing spaces and leading or trailing blank lines aside."""
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n").splitlines()


class Page:
    """The folder, environment and background processes one page's blocks share."""

    def __init__(self, server: Server, folder: Path) -> None:
        self.server = server
        self.folder = folder
        self.ports = {example: _free_port() for example in EXAMPLE_PORTS}
        for shipped in ("seeds", "scenarios"):
            (folder / shipped).symlink_to(ROOT / shipped)
        scripts = Path(sys.executable).parent
        self.env = {
            **os.environ,
            "PATH": f"{server.bin_dir}{os.pathsep}{scripts}{os.pathsep}{os.environ['PATH']}",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self.env.pop("DOC_TEST_HTTP_ERRORS", None)
        self.python = [sys.executable]  # what runs the page's Python blocks
        self.groups: list[int] = []
        self.printed = ""  # what the last block run printed

    def run(self, block: Block) -> None:
        if block.directive == "serve":
            self._serve(block)
            return
        if block.directive == "output":
            self._compare(block)
            return
        code = _rewrite(block.code, self.server.port, self.ports)
        if block.directive == "file":
            (self.folder / block.argument).write_text(code)
        elif block.kind == "python" and re.search(r"^def test_", code, re.MULTILINE):
            self._pytest(block, code)
        elif block.kind == "python":
            self._process(block, [*self.python, "-c", code], self.env)
        else:
            if block.kind == "console":
                code = "\n".join(line[2:] for line in code.splitlines() if line.startswith("$ "))
            self._shell(block, code)

    def _shell(self, block: Block, code: str) -> None:
        state = self.folder / ".doc-test-env"
        script = f"set -eo pipefail\nset -a\n{code}\nenv -0 > {state}\n"
        env = dict(self.env)
        if block.directive == "http-errors":
            env["DOC_TEST_HTTP_ERRORS"] = "1"
        self._process(block, ["bash", "-c", script], env)
        # Variables the block set are seen by the page's next blocks.
        for item in state.read_bytes().split(b"\0"):
            name, _, value = item.decode().partition("=")
            if name and not name.startswith("BASH_FUNC_") and name not in ("_", "SHLVL"):
                if name != "DOC_TEST_HTTP_ERRORS":
                    self.env[name] = value

    def _pytest(self, block: Block, code: str) -> None:
        test_file = self.folder / f"test_example_{block.line}.py"
        test_file.write_text(code)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file.name]
        self._process(block, command, self.env)

    def _process(self, block: Block, command: list[str], env: dict[str, str]) -> None:
        out = self.folder / f".doc-test-out-{block.line}"
        with out.open("wb") as sink:
            # A session of its own: what the block leaves running is stopped with the page.
            process = subprocess.Popen(
                command,
                cwd=self.folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            self.groups.append(process.pid)
            try:
                status = process.wait(timeout=BLOCK_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                status = None
        output = out.read_text(errors="replace")
        if status != 0:
            pytest.fail(
                f"{block.where}: the example "
                f"{'timed out' if status is None else f'exited {status}'}\n"
                f"--- code\n{block.code}--- output\n{output}",
                pytrace=False,
            )
        self.printed = output

    def _serve(self, block: Block) -> None:
        """Start every command of the block at once, each on a free port; each must answer
        HTTP, then stop when told as Ctrl-C tells it, with exit status 0."""
        started = []
        for index, command in enumerate(_commands(block.code)):
            port = _free_port()
            command = re.sub(r"\b(8080|9000)\b", str(port), command)
            # Never every interface of a shared machine: the options are what is tried here.
            command = command.replace("0.0.0.0", "127.0.0.1")
            if not re.search(r"--port\b|\bPORT=", command):
                command += f" PORT={port}" if command.startswith("make ") else f" --port {port}"
            log = self.folder / f".doc-test-serve-{block.line}-{index}"
            with log.open("wb") as sink:
                process = subprocess.Popen(
                    ["bash", "-c", command],
                    cwd=self.folder,
                    env=self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            self.groups.append(process.pid)
            started.append((command, port, process, log))
        for command, port, process, log in started:
            problem = self._answers(port, process) or self._stops(process)
            if problem:
                pytest.fail(
                    f"{block.where}: `{command}` {problem}\n--- output\n"
                    f"{log.read_text(errors='replace')}",
                    pytrace=False,
                )

    @staticmethod
    def _answers(port: int, process: subprocess.Popen[bytes]) -> str:
        deadline = time.monotonic() + SERVE_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return f"exited {process.returncode} instead of serving"
            try:
                httpx.get(f"http://127.0.0.1:{port}/v1/whoami", timeout=1)
                return ""
            except httpx.TransportError:
                time.sleep(0.1)
        return f"did not answer on port {port} within {SERVE_TIMEOUT} s"

    @staticmethod
    def _stops(process: subprocess.Popen[bytes]) -> str:
        os.killpg(process.pid, signal.SIGINT)
        try:
            status = process.wait(timeout=SERVE_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return "did not stop on SIGINT"
        return f"exited {status} on SIGINT" if status != 0 else ""

    def _compare(self, block: Block) -> None:
        printed = self.printed.replace(f":{self.server.port}", ":8080")
        for example, free in self.ports.items():
            printed = re.sub(rf"\b{free}\b", example, printed)
        if _lines(printed) != _lines(block.code):
            pytest.fail(
                f"{block.where}: the page shows\n{block.code}--- but the block before printed\n"
                f"{printed}",
                pytrace=False,
            )

    def close(self) -> None:
        for group in self.groups:
            try:
                os.killpg(group, signal.SIGTERM)
            except ProcessLookupError:
                pass


class FreshClone(Page):
    """A getting-started page's folder and environment: a clone after `make run`, with the
    package pip-installed, as a new user has it; nothing else of the test's venv on PATH."""

    def __init__(self, server: Server, folder: Path) -> None:
        super().__init__(server, folder)
        scripts = Path(sys.executable).parent
        # What `make run` leaves: .venv/bin/mockserver.
        (folder / ".venv" / "bin").mkdir(parents=True)
        (folder / ".venv" / "bin" / "mockserver").symlink_to(scripts / "mockserver")
        for checked_in in ("Makefile", "pyproject.toml"):
            (folder / checked_in).symlink_to(ROOT / checked_in)
        # What a pip install puts on PATH: `mockserver`, the test venv's.
        installed = folder / ".doc-test-installed"
        installed.mkdir()
        (installed / "mockserver").symlink_to(scripts / "mockserver")
        # `make run` stands for the command its recipe ends in, with the test venv's mockserver
        # as .venv/bin/mockserver: the real one first makes a venv and installs into it, which
        # tests/e2e/test_packaging.py checks. `pip install` checks its targets and
        # installs nothing. python3 has the standard library only (-S: no site-packages), as
        # on a machine where nothing but mockserver's venv was installed.
        tools = folder / ".doc-test-tools"
        tools.mkdir()
        stand_ins = {
            name: f'exec "{sys.executable}" "{fresh_clone.__file__}" {name} "$@"'
            for name in ("make", "pip")
        }
        stdlib_python = f'exec "{sys.executable}" -S "$@"'
        for name, line in {**stand_ins, "python3": stdlib_python, "python": stdlib_python}.items():
            (tools / name).write_text(f"#!/bin/sh\n{line}\n")
            (tools / name).chmod(0o755)
        elsewhere = [
            entry
            for entry in os.environ["PATH"].split(os.pathsep)
            if entry and Path(entry).resolve() != scripts.resolve()
        ]
        self.env["PATH"] = os.pathsep.join(
            [str(tools), str(server.bin_dir), str(installed), *elsewhere]
        )
        self.env.pop("VIRTUAL_ENV", None)
        self.python = [str(tools / "python3")]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_page_examples_run(page: Path, server: Server, tmp_path: Path) -> None:
    runnable = [block for block in ALL if block.page == page and block.directive != "no-run"]
    if not runnable:
        return
    httpx.post(f"{server.url}/_mock/reset").raise_for_status()
    httpx.delete(f"{server.url}/_mock/scenarios").raise_for_status()
    shared = (FreshClone if page.parent == GETTING_STARTED else Page)(server, tmp_path)
    try:
        for block in runnable:
            shared.run(block)
    finally:
        shared.close()


def test_getting_started_runs_every_block() -> None:
    """Nothing on the getting-started pages is left out: servers are `serve` blocks."""
    pages = sorted(GETTING_STARTED.glob("*.md"))
    assert pages
    for block in ALL:
        if block.page in pages:
            assert block.directive != "no-run", f"{block.where}: run it (a `serve` block?)"
    outputs = [block for block in ALL if block.directive == "output"]
    for block in outputs:
        before = [other for other in ALL if other.page == block.page and other.line < block.line]
        assert before, f"{block.where}: output of what?"
        assert before[-1].kind in ("shell", "python"), (
            f"{block.where}: output of a {before[-1].kind}"
        )


def test_install_page_names_the_command_make_run_ends_in() -> None:
    command = fresh_clone.make_run_command(ROOT / "Makefile", [], {})
    page = (GETTING_STARTED / "index.md").read_text(encoding="utf-8")
    assert f"`make run` ends in `{shlex.join(command)}`" in page


def test_every_directive_is_known_and_explained() -> None:
    for block in ALL:
        assert block.directive in KNOWN_DIRECTIVES, f"{block.where}: {block.directive}"
        if block.directive:
            assert block.argument, f"{block.where}: doc-test {block.directive} needs a reason"


def test_no_run_blocks_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    """The blocks the suite does not run, each with its reason (shown with `pytest -s`)."""
    skipped = [block for block in ALL if block.directive == "no-run"]
    with capsys.disabled():
        print(f"\n{len(skipped)} documentation examples are not run:")
        for block in skipped:
            print(f"  {block.where}: {block.argument}")
    # Most examples run: a page that marks everything no-run has stopped being tested.
    assert len(skipped) * 3 < len(ALL)


def test_examples_were_found() -> None:
    assert len(ALL) > 20
    assert {block.kind for block in ALL} >= {"shell", "python"}
