"""Every shell and Python example of README.md and docs/ runs, against a real `mockserver run`.

The collector takes each fenced block whose language is bash, sh, console or python. A
`<!-- doc-test: ... -->` comment on the line before a block says how to treat it:

- `no-run (reason)`: not run (a server that never ends, an install); the reason is required and
  `test_no_run_blocks_are_listed` prints every such block, so nothing is skipped silently;
- `http-errors (reason)`: curl may get a 4xx or 5xx (the example shows one); otherwise curl runs
  with `--fail-with-body`, so an example the API refuses fails;
- `file NAME`: the block (in any language, YAML too) is written to NAME in the page's folder,
  for later blocks to use.

One server runs for the whole module (`mockserver run --clock frozen`) on a free loopback port,
and is reset before each page. The blocks of a page run in order in one folder (with `seeds/`
and `scenarios/` linked in); shell variables set by a block are seen by the next ones, and
processes a block leaves in the background are stopped when the page is done. `:8080` is
rewritten to the server's port, and the ports of the examples' own servers (`8090` a webhook
receiver, `8443` an HTTPS server, `8081` another server) to free ones.
A Python block that defines `test_` functions is run by pytest, with the plugin's own server.
"""

from __future__ import annotations

import os
import re
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

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
LANGUAGES = {"bash": "shell", "sh": "shell", "console": "console", "python": "python"}
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+)(?P<lang>[\w-]*)[^\n]*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*doc-test:\s*(?P<kind>[\w-]+)\s*(?P<arg>.*?)\s*-->\s*$")
BLOCK_TIMEOUT = 60
# Ports the examples use for servers of their own: a webhook receiver, an HTTPS server, another.
EXAMPLE_PORTS = ("8090", "8443", "8081")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    kind: str  # shell, console, python, or file
    code: str
    directive: str = ""  # no-run, http-errors, file
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
KNOWN_DIRECTIVES = {"", "no-run", "http-errors", "file"}


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
        self.groups: list[int] = []

    def run(self, block: Block) -> None:
        code = _rewrite(block.code, self.server.port, self.ports)
        if block.directive == "file":
            (self.folder / block.argument).write_text(code)
        elif block.kind == "python" and re.search(r"^def test_", code, re.MULTILINE):
            self._pytest(block, code)
        elif block.kind == "python":
            self._process(block, [sys.executable, "-c", code], self.env)
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

    def close(self) -> None:
        for group in self.groups:
            try:
                os.killpg(group, signal.SIGTERM)
            except ProcessLookupError:
                pass


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_page_examples_run(page: Path, server: Server, tmp_path: Path) -> None:
    runnable = [block for block in ALL if block.page == page and block.directive != "no-run"]
    if not runnable:
        return
    httpx.post(f"{server.url}/_mock/reset").raise_for_status()
    httpx.delete(f"{server.url}/_mock/scenarios").raise_for_status()
    shared = Page(server, tmp_path)
    try:
        for block in runnable:
            shared.run(block)
    finally:
        shared.close()


def test_every_directive_is_known_and_explained() -> None:
    for block in ALL:
        assert block.directive in KNOWN_DIRECTIVES, f"{block.where}: {block.directive}"
        if block.directive in ("no-run", "http-errors", "file"):
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
