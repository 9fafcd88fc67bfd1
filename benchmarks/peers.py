"""The mock's peers (the budgets of docs/performance): Prism, json-server and WireMock, each
serving the mock's three benchmarked calls as far as it can, from files built at bench time out
of the mock's own answers, recorded once from a fresh server.

- Prism (`prism mock`, static mode) serves the mock's OpenAPI document (`GET /v1/openapi.json`)
  with its paths under the `/v1` server, the recorded answers as the three calls' examples and
  the mock's values as those of the headers the document requires.
- json-server serves a db.json whose `documents` are the seed's documents as `GET /v1/documents`
  lists them; its routes.json puts `/v1` in front and turns `limit` into its `_limit`.
- WireMock (the standalone jar that npm's `wiremock` package carries, run by java) serves one
  stub a call, answering the recorded body.

None of them is committed: `make peers` installs them from npm into build/peers. A peer whose
package or program (node, java) is missing raises `Missing`, and the run skips it with a note.
"""

from __future__ import annotations

import copy
import functools
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from . import figures, load
from .load import LoadResult, median_round
from .report import Row, Target
from .servers import HOST, KEY, Http, Server, repo_root, spawn

PEERS = ("prism", "json-server", "wiremock")
LABELS = {"prism": "Prism", "json-server": "json-server", "wiremock": "WireMock"}
PACKAGES = {"prism": "@stoplight/prism-cli", "json-server": "json-server", "wiremock": "wiremock"}
# Where each node peer's command-line entry point lies under node_modules.
SCRIPTS = {
    "prism": "@stoplight/prism-cli/dist/index.js",
    "json-server": "json-server/lib/cli/bin.js",
}
# The budget: at least 2x Prism's and json-server's throughput, within 15% of WireMock's or ahead.
RATIOS = {"prism": 2.0, "json-server": 2.0, "wiremock": 0.85}
P99_MS = 10.0
CALLS = (
    ("get", "GET /v1/documents/{id}"),
    ("list", "GET /v1/documents?limit=20"),
    ("create", "POST /v1/documents"),
)
# The body lua/create.lua sends, recorded once as the mock answers it.
CREATE_BODY = {
    "title": "Benchmark NDA",
    "vault_id": figures.VAULT,
    "metadata": {"kind": "nda", "amount": 12000},
}
# json-server writes its whole db.json after every POST: each POST figure starts it again on a
# fresh copy of the seed's documents, as the mock's start from the seed.
RESTARTED = ("json-server",)
OURS = "ours"
# The success answers whose bodies Prism is given as examples, by operationId.
OPERATIONS = {"getDocument": "document", "listDocuments": "page", "createDocument": "created"}


class Missing(Exception):
    """A peer that cannot run here: its package or the program that runs it is not installed."""


def default_folder() -> Path:
    """Where `make peers` installs the peers (`npm install --prefix`)."""
    return repo_root() / "build" / "peers"


@dataclass(frozen=True)
class Recorded:
    """The mock's answers the peers' files are built from."""

    openapi: dict[str, Any]  # GET /v1/openapi.json
    document: dict[str, Any]  # GET figures.DOCUMENT
    page: dict[str, Any]  # GET figures.PAGE
    created: dict[str, Any]  # POST /v1/documents with CREATE_BODY
    documents: list[dict[str, Any]]  # every document of the list, page after page
    headers: dict[str, str]  # of the GET of the document, names in lower case


def record(client: Http) -> Recorded:
    """The mock's answers to the three calls (and its OpenAPI document and every listed
    document); the POST creates a document, so the caller resets the mock afterwards."""
    documents: list[dict[str, Any]] = []
    path = "/v1/documents?limit=100"
    while True:
        listed = client.json("GET", path)
        documents += listed["data"]
        if listed["next_cursor"] is None:
            break
        path = f"/v1/documents?limit=100&cursor={listed['next_cursor']}"
    return Recorded(
        openapi=client.json("GET", "/v1/openapi.json"),
        document=client.json("GET", figures.DOCUMENT),
        page=client.json("GET", figures.PAGE),
        created=client.json("POST", "/v1/documents", CREATE_BODY, expect=201),
        documents=documents,
        headers=answer_headers(client, figures.DOCUMENT),
    )


def answer_headers(client: Http, path: str) -> dict[str, str]:
    """The headers of the mock's answer to a GET of `path`, names in lower case."""
    client.conn.request("GET", path, headers={"Authorization": f"Bearer {client.key}"})
    response = client.conn.getresponse()
    response.read()
    return {name.lower(): value for name, value in response.getheaders()}


def prism_document(recorded: Recorded) -> dict[str, Any]:
    """The mock's OpenAPI document as Prism serves it at the mock's URLs: the paths under the
    base path of its first server (Prism matches no relative server URL), and the recorded
    answers as the examples of the three calls' success responses (static mode answers them),
    and the mock's values as the examples of the headers the document requires (without them
    Prism's answers break its own response validation, which logs every violation)."""
    document = copy.deepcopy(recorded.openapi)
    for name, header in document["components"]["headers"].items():
        value = recorded.headers.get(name.lower())
        if header.get("required") and value is not None:
            integer = header["schema"].get("type") == "integer"
            header["example"] = int(value) if integer else value
    base = document.pop("servers")[0]["url"].rstrip("/")
    document["paths"] = {base + path: item for path, item in document["paths"].items()}
    found = set()
    for item in document["paths"].values():
        for operation in item.values():
            name = operation.get("operationId") if isinstance(operation, dict) else None
            if name not in OPERATIONS:
                continue
            status = "201" if name == "createDocument" else "200"
            content = operation["responses"][status]["content"]["application/json"]
            content["examples"] = {"recorded": {"value": getattr(recorded, OPERATIONS[name])}}
            found.add(name)
    if found != set(OPERATIONS):
        raise RuntimeError(f"the OpenAPI document lacks {sorted(set(OPERATIONS) - found)}")
    return document


def json_server_files(recorded: Recorded) -> tuple[dict[str, Any], dict[str, str]]:
    """json-server's db.json (the seed's documents, as listed) and routes.json: `/v1` in front
    of its own routes, and the mock's `limit` as its `_limit` (the first rule that matches
    rewrites; json-server answers a bare array, not the mock's page object)."""
    db = {"documents": recorded.documents}
    routes = {"/v1/documents?limit=:limit": "/documents?_limit=:limit", "/v1/*": "/$1"}
    return db, routes


def wiremock_mappings(recorded: Recorded) -> dict[str, Any]:
    """One WireMock stub a call, matching its method, path and query and answering the
    recorded body, serialised once as the mock sends it."""
    page = urlsplit(figures.PAGE)
    query = {name: {"equalTo": value} for name, value in parse_qsl(page.query)}

    def stub(request: dict[str, Any], status: int, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        answer = {"status": status, "body": orjson.dumps(body).decode(), "headers": headers}
        return {"request": request, "response": answer}

    return {
        "mappings": [
            stub({"method": "GET", "urlPath": figures.DOCUMENT}, 200, recorded.document),
            stub(
                {"method": "GET", "urlPath": page.path, "queryParameters": query},
                200,
                recorded.page,
            ),
            stub({"method": "POST", "urlPath": "/v1/documents"}, 201, recorded.created),
        ]
    }


def write_files(recorded: Recorded, folder: Path) -> Path:
    """Every peer's files, in `folder` (made if missing), which is returned."""
    (folder / "wiremock" / "mappings").mkdir(parents=True, exist_ok=True)
    dump = orjson.OPT_INDENT_2
    (folder / "prism.json").write_bytes(orjson.dumps(prism_document(recorded), option=dump))
    db, routes = json_server_files(recorded)
    (folder / "db.json").write_bytes(orjson.dumps(db, option=dump))
    (folder / "routes.json").write_bytes(orjson.dumps(routes, option=dump))
    stubs = orjson.dumps(wiremock_mappings(recorded), option=dump)
    (folder / "wiremock" / "mappings" / "stubs.json").write_bytes(stubs)
    return folder


def fresh_db(recorded: Recorded, folder: Path) -> None:
    """json-server's db.json back to the seed's documents (its POSTs append to the file)."""
    db, _ = json_server_files(recorded)
    (folder / "db.json").write_bytes(orjson.dumps(db, option=orjson.OPT_INDENT_2))


def command(peer: str, installed: Path, files: Path) -> list[str]:
    """The command serving `peer` on loopback port `{port}`, from the packages in `installed`
    and the files of `write_files` in `files`; each with its per-request logging off, as the
    mock runs without an access log. Raises `Missing` when it cannot run here."""
    modules = installed / "node_modules"
    if peer == "wiremock":
        java = shutil.which("java")
        if java is None:
            raise Missing("java is not installed")
        jars = sorted((modules / "wiremock" / "build").glob("wiremock-standalone-*.jar"))
        if not jars:
            raise Missing(f"npm's wiremock is not installed in {installed} (make peers)")
        return [
            java,
            "-jar",
            str(jars[-1]),
            *("--port", "{port}", "--bind-address", HOST, "--root-dir", str(files / "wiremock")),
            "--no-request-journal",  # else it keeps every request, as WireMock's docs warn
            "--disable-request-logging",
            "--disable-banner",
        ]
    node = shutil.which("node")
    if node is None:
        raise Missing("node is not installed")
    script = modules / SCRIPTS[peer]
    if not script.is_file():
        raise Missing(f"npm's {PACKAGES[peer]} is not installed in {installed} (make peers)")
    if peer == "prism":
        served = str(files / "prism.json")
        return [node, str(script), "mock", served, "--host", HOST, "--port", "{port}", "-v", "warn"]
    routes = str(files / "routes.json")
    db = str(files / "db.json")
    return [
        node,
        str(script),
        db,
        "--routes",
        routes,
        "--host",
        HOST,
        "--port",
        "{port}",
        "--quiet",
    ]


def start(peer: str, argv: list[str], workdir: Path, warmup: float) -> Server:
    """`peer` started and timed to its first 200 (at the list's URL, which each serves), then
    `warmup` seconds of each GET: V8's and the JVM's compilers warm up over seconds, and a
    peer's figures are meant to be its steady state, as the mock's are."""
    server = spawn(peer, argv, figures.PAGE, workdir)
    try:
        for path in (figures.DOCUMENT, figures.PAGE):
            if warmup:
                load.run(server.url(path), "static.lua", [KEY], warmup)
    except BaseException:
        server.stop()
        raise
    return server


def loaded(kind: str, server: Server, seconds: float, warmup: float, tag: str) -> LoadResult:
    """wrk on a peer with the script and URL the mock's figure of `kind` uses (no reset: a
    peer has none), after `warmup` seconds of the same."""
    if kind == "create":
        url, script = server.url("/v1/documents"), "create.lua"
        args = [[KEY, figures.VAULT, f"w{tag}-"], [KEY, figures.VAULT, f"m{tag}-"]]
    else:
        url, script = server.url(figures.DOCUMENT if kind == "get" else figures.PAGE), "static.lua"
        args = [[KEY], [KEY]]
    if warmup:
        load.run(url, script, args[0], warmup)
    return load.run(url, script, args[1], seconds)


@dataclass(frozen=True)
class Timing:
    """How long the peers' rounds run: the run's options, and the peers' warm-up."""

    seconds: float  # each round
    rounds: int  # alternating rounds per call, the median of each side counting
    warmup: float  # before each round, of the same call
    peer_warmup: float  # of each GET after a peer starts


@dataclass
class Measured:
    """What the peers' rounds gave: per call, each side's median round; per peer, ours' RSS
    and its own after the rounds; the peers skipped and why; what failed."""

    rounds: dict[str, dict[str, LoadResult]] = field(default_factory=dict)
    rss_mib: dict[str, tuple[float, float]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def invalid(result: LoadResult) -> str:
    """The note of a round with error answers, else ''."""
    return "" if result.valid else f"INVALID: {result.errors} error answers"


def measure(
    ours: Server,
    installed: Path,
    workdir: Path,
    timing: Timing,
    run_id: str,
    log: Callable[[str], None],
) -> Measured:
    """Record ours' answers, build the peers' files from them, start each peer that can run
    here, and load ours and them in alternating rounds, call after call (ours is reset before
    each figure, json-server started again on a fresh db.json before each POST round)."""
    measured = Measured()
    client = ours.client()
    try:
        recorded = record(client)
    finally:
        client.close()
    files = write_files(recorded, workdir / "peers")
    starts: dict[str, Callable[[], Server]] = {}
    for peer in PEERS:
        try:
            argv = command(peer, installed, files)
        except Missing as missing:
            log(f"  skipped {peer}: {missing}")
            measured.skipped[peer] = str(missing)
            continue
        starts[peer] = functools.partial(start, peer, argv, workdir, timing.peer_warmup)
    servers = {OURS: ours}
    try:
        for peer, begin in starts.items():
            try:
                servers[peer] = begin()
            except Exception as error:
                measured.failures.append(f"{peer} start-up: {error}")
                log(f"  FAILED {peer} start-up: {error}")

        def restart(side: str) -> None:
            servers[side].stop()
            fresh_db(recorded, files)
            servers[side] = starts[side]()

        for kind, _ in CALLS:
            measured.rounds[kind] = call_rounds(
                kind, servers, restart, timing, run_id, measured, log
            )
        for peer, server in servers.items():
            if peer != OURS and server.process.poll() is None:
                measured.rss_mib[peer] = (ours.rss_kib() / 1024, server.rss_kib() / 1024)
    finally:
        for peer, server in servers.items():
            if peer != OURS:
                server.stop()
    return measured


def call_rounds(
    kind: str,
    servers: dict[str, Server],
    restart: Callable[[str], None],
    timing: Timing,
    run_id: str,
    measured: Measured,
    log: Callable[[str], None],
) -> dict[str, LoadResult]:
    """One call on ours and each peer in alternating rounds (in order, then the other way
    round, ...): the median round of each side, so neither a neighbour's burst nor a fast
    stretch of the box decides a ratio. A side in RESTARTED is `restart`ed before a POST round."""
    rounds: dict[str, list[LoadResult]] = {}
    for number in range(timing.rounds):
        order = list(servers)
        for side in order if number % 2 == 0 else order[::-1]:
            try:
                if kind == "create" and side in RESTARTED:
                    restart(side)
                result = one_round(kind, side, servers[side], timing, f"{run_id}p{number}{side}")
            except Exception as error:
                measured.failures.append(f"{side} {kind}: {error}")
                log(f"  FAILED {side} {kind}: {error}")
                continue
            rounds.setdefault(side, []).append(result)
            if not result.valid:
                measured.failures.append(f"{side} {kind}: {invalid(result)}")
    return {side: median_round(results) for side, results in rounds.items()}


def one_round(kind: str, side: str, server: Server, timing: Timing, tag: str) -> LoadResult:
    """One figure of `kind` on ours (as the load group takes it: reset, warm-up, reset) or on
    a peer (which has no reset)."""
    seconds, warmup = timing.seconds, timing.warmup
    if side != OURS:
        return loaded(kind, server, seconds, warmup, tag)
    if kind == "create":
        return figures.create(server, seconds, warmup, tag)
    return figures.static(
        server, figures.DOCUMENT if kind == "get" else figures.PAGE, seconds, warmup
    )


def rows() -> list[Row]:
    """The budget rows: per call, ours over each peer (the reference column) and our p99; then
    each peer's RSS beside ours."""
    table = []
    for kind, label in CALLS:
        for peer in PEERS:
            text = f"{label}, in the peers' rounds (reference column: {LABELS[peer]})"
            table.append(
                Row(f"peers.{kind}.{peer}", text, "req/s", Target("ratio>=", RATIOS[peer]))
            )
        text = f"{label}, in the peers' rounds, p99"
        table.append(Row(f"peers.{kind}.p99", text, "ms", Target("value<=", P99_MS)))
    for peer in PEERS:
        text = f"RSS after the peers' rounds (reference column: {LABELS[peer]})"
        table.append(Row(f"peers.rss.{peer}", text, "MiB"))
    return table
