"""The benchmark harness: its reference app, peers, wrk scripts, result parsing and verdicts.

These check that the harness measures what it says (a run with error answers or an exhausted
supply is invalid, verdicts say by how much a target is missed); they never assert a speed.
"""

from __future__ import annotations

import shutil
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import orjson
import pytest

from benchmarks import (
    figures,
    hostile,
    idempotency_soak,
    load,
    peers,
    plugin_overhead,
    snapshot_restore,
    test_loop,
    verify_journal,
    webhook_backlog,
)
from benchmarks.figures import SoakSlice
from benchmarks.reference_app import create_app
from benchmarks.report import Report, Row, Target, markdown_table, text_table
from benchmarks.run import (
    BASE,
    REF,
    REFERENCE,
    Options,
    Run,
    growth_per_request,
    median_round,
    ours_command,
    rows,
)
from benchmarks.servers import Http, server_environment, spawn
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.live import LiveServer

needs_wrk = pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed")


@pytest.fixture
def reference() -> Iterator[httpx.Client]:
    with inprocess_client(create_app()) as client:
        yield client


@pytest.fixture(scope="module")
def live_reference() -> Iterator[LiveServer]:
    server = LiveServer(create_app()).start()
    yield server
    server.stop()


def test_reference_app_answers_the_benchmarked_routes(reference: httpx.Client) -> None:
    doc = reference.get("/v1/documents/doc_x")
    assert doc.status_code == 200
    assert doc.json()["object"] == "document"
    page = reference.get("/v1/documents?limit=20").json()
    assert len(page["data"]) == 20
    assert page["next_cursor"].startswith("cur_")
    created = reference.post("/v1/documents", json={"title": "t", "vault_id": "v"})
    assert created.status_code == 201
    assert created.json()["id"].startswith("doc_")
    workflow = reference.post("/v1/workflows", json={"document_id": created.json()["id"]})
    assert workflow.status_code == 201
    advanced = reference.post(f"/v1/workflows/{workflow.json()['id']}/advance", json={})
    assert advanced.json()["last_decision"]["decision"] == "approve"
    assert reference.post("/_mock/reset").json() == {"reset": True}
    assert reference.get("/v1/vaults").status_code == 404


def wrk_line(**fields: int) -> str:
    values = {
        "requests": 1000,
        "duration_us": 2_000_000,
        "bytes": 1,
        "p50_us": 1500,
        "p90_us": 2000,
        "p99_us": 4000,
        "max_us": 9000,
        "mean_us": 1600,
        "connect_errors": 0,
        "read_errors": 0,
        "write_errors": 0,
        "status_errors": 0,
        "timeouts": 0,
        "exhausted": 0,
    }
    values.update(fields)
    body = ",".join(f'"{key}":{value}' for key, value in values.items())
    return f"Running 2s test\nWRK_JSON {{{body}}}\n"


def test_wrk_result_is_parsed_from_the_json_line() -> None:
    result = load.parse(wrk_line())
    assert result.rps == 500
    assert (result.p50_ms, result.p99_ms, result.max_ms) == (1.5, 4.0, 9.0)
    assert result.valid


@pytest.mark.parametrize(
    "fields",
    [{"status_errors": 3}, {"timeouts": 1}, {"connect_errors": 2}, {"exhausted": 1}],
)
def test_a_run_with_errors_or_an_exhausted_supply_is_invalid(fields: dict[str, int]) -> None:
    assert not load.parse(wrk_line(**fields)).valid


def test_wrk_output_without_a_result_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="no result"):
        load.parse("unable to connect to 127.0.0.1:1 Connection refused\n")


@pytest.mark.parametrize(
    ("target", "ours", "reference", "verdict"),
    [
        (Target("ratio>=", 0.75), 800.0, 1000.0, "met"),
        (Target("ratio>=", 0.75), 600.0, 1000.0, "missed by 20%"),
        (Target("ratio<=", 2), 300.0, 100.0, "missed by 50%"),
        (Target("ratio<=", 2), 500.0, 100.0, "missed: 2.5x the limit"),
        (Target("value<=", 5), 4.0, None, "met"),
        (Target("value<=", 5), 12.5, 1.0, "missed: 2.5x the limit"),
        (Target("value<=", 5), None, 1.0, "no data"),
        (Target("over<=", 1), 3.5, 2.75, "met"),
        (Target("over<=", 1), 4.0, 2.5, "missed by 0.50"),
        (Target("over<=", 2), 4.0, None, "no data"),
    ],
)
def test_verdicts_say_by_how_much_a_target_is_missed(
    target: Target, ours: float | None, reference: float | None, verdict: str
) -> None:
    row = Row("k", "label", "ms", target, ours=ours, reference=reference)
    assert row.verdict == verdict


def test_report_round_trips_through_json_and_renders(tmp_path: Path) -> None:
    rows = [
        Row("get.rps", "GET by id", "req/s", Target("ratio>=", 0.75), 9000.0, 12000.0),
        Row("slot", "pending figure", "ms", note="pending: issue 5"),
    ]
    path = tmp_path / "r.json"
    Report(rows=rows, details={"soak": {}}, failures=["x"]).write(path)
    again = Report.read(path)
    assert [r.as_json() for r in again.rows] == [r.as_json() for r in rows]
    assert again.failures == ["x"]
    table = markdown_table(again.rows)
    assert "| GET by id | req/s | 9,000 | 12,000 | 0.75 | >= 0.75x ref | met |  |" in table
    assert "pending: issue 5" in text_table(again.rows)


def slice_at(rss_mib: float, requests: int) -> SoakSlice:
    return SoakSlice(0.0, requests, 0.0, 0.0, 0.0, 0.0, 0, rss_mib)


def round_of(requests: int, errors: int = 0) -> load.LoadResult:
    return load.LoadResult(requests, 1.0, 1.0, 2.0, 3.0, 4.0, errors, exhausted=False)


def test_the_median_round_counts_and_an_invalid_one_spoils_the_figure() -> None:
    rounds = [round_of(n) for n in (900, 100, 500, 700, 300)]
    assert median_round(rounds).requests == 500
    assert median_round(rounds[:4]).requests == 500  # the lower middle of an even count
    spoiled = median_round([*rounds, round_of(800, errors=1)])
    assert not spoiled.valid
    assert spoiled.requests == 800


def test_soak_growth_counts_from_the_end_of_the_first_slice() -> None:
    slices = [slice_at(100, 5000), slice_at(101, 1024), slice_at(103, 1024)]
    assert growth_per_request(slices) == 1.5  # 3 MiB over 2048 requests
    assert growth_per_request(slices[1:]) == 2.0


@needs_wrk
@pytest.mark.parametrize("script", ["static.lua", "create.lua"])
def test_wrk_scripts_drive_a_server(live_reference: LiveServer, script: str) -> None:
    args = ["sk_test_x"] if script == "static.lua" else ["sk_test_x", "vault_x", "k-"]
    result = load.run(f"{live_reference.base_url}/v1/documents", script, args, seconds=1)
    assert result.requests > 0
    assert result.valid


@needs_wrk
def test_advance_script_stops_and_says_so_when_its_supply_runs_out(
    live_reference: LiveServer, tmp_path: Path
) -> None:
    ids = tmp_path / "ids"
    ids.write_text("wf_a\nwf_b\n")
    url = f"{live_reference.base_url}/v1/workflows"
    result = load.run(url, "advance.lua", ["sk_test_x", str(ids), "2"], seconds=1)
    assert result.exhausted
    assert not result.valid


def test_baseline_rows_come_only_with_a_baseline_build() -> None:
    assert not [row for row in rows(Options()) if row.key.startswith("baseline.")]
    baseline = [
        row
        for row in rows(Options(baseline_python=Path(sys.executable)))
        if row.key.startswith("baseline.")
    ]
    assert [row.key for row in baseline] == [
        "baseline.get.rps",
        "baseline.list.rps",
        "baseline.create.rps",
        "baseline.cpu.get",
        "baseline.cpu.list",
        "baseline.cpu.create",
    ]
    assert all(row.target is None for row in baseline)  # read against ours, not a bound


@needs_wrk
def test_a_baseline_build_joins_the_load_rounds_beside_the_reference(tmp_path: Path) -> None:
    options = Options(seconds=1, rounds=1, warmup=0, baseline_python=Path(sys.executable))
    options.log = lambda line: None
    run = Run(options)
    shutil.rmtree(run.workdir)
    run.workdir = tmp_path
    reference = spawn("reference", REFERENCE, "/v1/documents?limit=1", tmp_path)
    baseline = spawn("baseline", REFERENCE, "/v1/documents?limit=1", tmp_path)
    try:
        run.loads({REF: reference, BASE: baseline})
    finally:
        reference.stop()
        baseline.stop()
    assert run.report.failures == []
    for key in ("get", "list", "create"):
        row = run.report.row(f"baseline.{key}.rps")
        assert row.ours is not None  # the baseline's rounds
        assert row.ours > 0
        assert row.reference == run.report.row(f"{key}.rps").reference  # the same rounds
        assert row.ratio is not None
    assert run.report.row("advance.rps").reference is not None  # the reference's, alone


def test_spawned_server_is_timed_to_its_first_200_and_stopped(tmp_path: Path) -> None:
    server = spawn("reference", REFERENCE, "/v1/documents?limit=1", tmp_path)
    try:
        assert server.startup > 0
        assert server.rss_kib() > 0
        client = server.client()
        status, _ = client.request("GET", "/v1/documents/doc_x")
        client.close()
        assert status == 200
    finally:
        server.stop()
    assert server.process.returncode is not None


def test_harness_client_reconnects_when_the_server_closed_an_idle_connection() -> None:
    # A server that answers one request per connection and then hangs up without saying so,
    # as uvicorn does with a keep-alive connection idle for 5 s.
    listener = socket.create_server(("127.0.0.1", 0))
    served: list[int] = []

    def serve() -> None:
        for _ in range(2):
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                served.append(1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    client = Http(listener.getsockname()[1], timeout=5)
    try:
        assert client.request("GET", "/a") == (200, b"ok")
        assert client.request("POST", "/b", {"x": 1}) == (200, b"ok")
    finally:
        client.close()
        thread.join(timeout=5)
        listener.close()
    assert len(served) == 2


@pytest.mark.parametrize(
    ("layout", "heads", "largest"),
    [("endpoints16", 16, 63), ("endpoint1", 1, 1000), ("heads1000", 1000, 1)],
)
def test_backlog_layouts_hold_1000_deliveries(layout: str, heads: int, largest: int) -> None:
    counts = webhook_backlog.plan(layout)
    assert sum(counts) == 1000
    assert (len(counts), max(counts)) == (heads, largest)


def test_the_failing_receiver_reads_each_request_and_answers_500() -> None:
    receiver = webhook_backlog.FailingReceiver().start()
    try:
        url = f"http://127.0.0.1:{receiver.port}/hooks"
        for size in (0, 10, 200_000):  # a body in several reads too
            response = httpx.post(url, content=b"x" * size)
            assert response.status_code == 500
        assert receiver.received == 3
    finally:
        receiver.stop()


@pytest.mark.parametrize("kind", ["500", "refused"])
def test_backlog_figure_counts_the_attempts_of_the_advance(tmp_path: Path, kind: str) -> None:
    server = spawn("ours", ours_command(None), "/v1/documents?limit=1", tmp_path)
    try:
        result = webhook_backlog.measure(server, "endpoint1", kind, deliveries=3)
        client = server.client()
        assert client.json("GET", "/_mock/webhooks/deliveries")["data"] == []  # reset after
        client.close()
    finally:
        server.stop()
    # 29 retries of the head, then the first attempt of the next, at the 24 h mark
    assert (result.deliveries, result.heads, result.attempts) == (3, 1, 30)
    assert (result.failed, result.pending) == (1, 2)
    assert result.received == (30 if kind == "500" else None)
    assert result.advance_ms > 0


@pytest.mark.parametrize(("party", "baseline"), [("redirect", "none"), ("gigabyte", "ok")])
def test_a_hostile_party_is_timed_between_runs_of_its_baseline(
    tmp_path: Path, party: str, baseline: str
) -> None:
    server = spawn("ours", ours_command(None), "/v1/documents?limit=1", tmp_path)
    try:
        figure = hostile.measure(server, party, calls=30, seconds=0.3)
        client = server.client()
        assert client.json("GET", "/_mock/webhooks/deliveries")["data"] == []  # reset after
        client.close()
    finally:
        server.stop()
    assert [run.party for run in figure.runs] == [party]
    assert [run.party for run in figure.bases] == [baseline, baseline]
    # Its 16 endpoints were attempted while the calls ran (a redirect fails and waits for a
    # retry the frozen clock never reaches; a 200 lets each endpoint's queue flow).
    if party == "redirect":
        assert figure.runs[0].attempts == hostile.ENDPOINTS_MAX
    else:
        assert figure.runs[0].attempts > hostile.ENDPOINTS_MAX
    assert figure.bases[0].attempts == (0 if baseline == "none" else figure.bases[0].attempts)
    assert figure.during.p99_ms > 0
    assert figure.runs[0].seconds >= 0.3 * 29 / 30  # the calls were spread over the run


def test_plugin_suites_are_timed_test_by_test(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(plugin_overhead.CONFTEST)
    times = plugin_overhead.run_suite(tmp_path, "mock_client_get", 4)
    assert times.wall_ms > 0
    assert times.cpu_ms > 0
    assert times.first_wall_ms > times.wall_ms  # the session's app is made in the first test


@pytest.mark.parametrize(
    ("suite", "library"), [("respx_get", "respx"), ("httpserver_get", "pytest_httpserver")]
)
def test_the_suites_of_the_other_mocks_run(tmp_path: Path, suite: str, library: str) -> None:
    pytest.importorskip(library, reason="the bench extra is not installed")
    (tmp_path / "conftest.py").write_text(plugin_overhead.CONFTEST)
    assert plugin_overhead.run_suite(tmp_path, suite, 3).wall_ms > 0


def test_one_test_runs_are_timed_in_fresh_processes() -> None:
    loops = test_loop.measure(rounds=1, variants=((), ("--assert=plain",)))
    assert len(loops) == 2  # one per variant
    for loop in loops:
        assert set(loop.by_suite()) == set(test_loop.SUITES)
        for run in loop.by_suite().values():
            assert run.wall_ms > 0
            assert run.cpu_ms > 0


def test_a_variant_s_arguments_reach_pytest() -> None:
    with pytest.raises(RuntimeError, match="unrecognized arguments: --no-such-option"):
        test_loop.measure(rounds=1, variants=((), ("--no-such-option",)))


def test_the_plugin_import_is_timed_in_fresh_processes() -> None:
    assert plugin_overhead.import_ms(samples=1) > 0


def test_servers_start_without_the_sandbox_s_bytecode_switch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("SOME_SETTING", "kept")
    env = server_environment({"MOCKSERVER_SEED_CACHE": "0"})
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["SOME_SETTING"] == "kept"
    assert env["MOCKSERVER_SEED_CACHE"] == "0"


def test_the_unexpected_answers_of_a_script_are_parsed() -> None:
    result = load.parse(wrk_line(status_errors=10, unexpected=2))
    assert (result.status_errors, result.unexpected) == (10, 2)
    assert load.parse(wrk_line()).unexpected == 0


@needs_wrk
def test_kept_conflict_script_stops_at_its_count_and_counts_other_answers(
    live_reference: LiveServer,
) -> None:
    url = f"{live_reference.base_url}/v1/workflows"
    args = ["sk_test_x", "doc_x", "k-", "40"]
    result = load.run(url, "kept_conflict.lua", args, seconds=1)
    assert 0 < result.requests <= 40
    assert result.unexpected == result.requests  # the reference answers 201, not the 409


def test_idempotency_soak_halves_count_requests_not_slices() -> None:
    soak = idempotency_soak.Soak(100.0)
    for requests, rss in ((60_000, 120.0), (20_000, 121.0), (20_000, 121.5), (100_000, 122.0)):
        soak.samples.append(idempotency_soak.Sample(requests, 1.0, 1.0, 0, rss))
    assert soak.growth_mib == 22.0
    assert soak.second_half_mib == 0.5  # from the sample taken once 100,000 were answered
    assert soak.requests == 200_000


def test_the_snapshot_benchmark_restores_what_it_saved() -> None:
    result = snapshot_restore.measure(None, 4, 2)
    assert result.size > 0
    assert result.http_ms > 0
    assert result.engine_ms > 0


def test_the_verify_benchmark_walks_a_journal_it_filled() -> None:
    rows = {name: (matched, ok) for name, _, _, matched, ok in verify_journal.measure(50, 1)}
    assert set(rows) == set(verify_journal.MATCHERS)
    assert rows["method+path, matches"] == (10, True)  # every fifth request is a create
    assert rows["method+path, count fails"] == (10, False)
    assert rows["body subset, none"] == (0, False)


# -- the peers (benchmarks/peers.py) ----------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> peers.Recorded:
    """The answers of a fresh server of ours, as the peers group records them."""
    folder = tmp_path_factory.mktemp("ours")
    server = spawn("ours", ours_command(None), figures.PROBE, folder)
    try:
        client = server.client()
        try:
            return peers.record(client)
        finally:
            client.close()
    finally:
        server.stop()


def test_prism_serves_the_mock_s_document_at_its_urls_with_the_answers_as_examples(
    recorded: peers.Recorded,
) -> None:
    document = peers.prism_document(recorded)
    assert "servers" not in document
    assert "servers" in recorded.openapi  # a copy is changed, not the recording
    assert all(path.startswith("/v1/") for path in document["paths"])
    examples = {}
    for item in document["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") in peers.OPERATIONS:
                for response in operation["responses"].values():
                    content = response.get("content", {}).get("application/json", {})
                    if "examples" in content:
                        examples[operation["operationId"]] = content["examples"]
    assert examples == {
        "getDocument": {"recorded": {"value": recorded.document}},
        "listDocuments": {"recorded": {"value": recorded.page}},
        "createDocument": {"recorded": {"value": recorded.created}},
    }
    assert recorded.created["title"] == peers.CREATE_BODY["title"]
    # The headers the document requires, given the mock's values (as their schemas type them).
    headers = document["components"]["headers"]
    assert headers["X-Request-Id"]["example"] == recorded.headers["x-request-id"]
    assert headers["X-RateLimit-Limit"]["example"] == int(recorded.headers["x-ratelimit-limit"])
    assert "example" not in headers["Sunset"]  # not required


def test_json_server_holds_the_listed_documents_under_the_mock_s_routes(
    recorded: peers.Recorded, tmp_path: Path
) -> None:
    peers.write_files(recorded, tmp_path)
    db = orjson.loads((tmp_path / "db.json").read_bytes())
    ids = [document["id"] for document in db["documents"]]
    assert len(ids) == len(set(ids)) > len(recorded.page["data"])  # every page, no repeats
    assert db["documents"][: len(recorded.page["data"])] == recorded.page["data"]
    assert figures.DOCUMENT.rsplit("/", 1)[1] in ids
    routes = orjson.loads((tmp_path / "routes.json").read_bytes())
    # The first rule that matches rewrites: the list's query before the catch-all prefix.
    assert list(routes.items()) == [
        ("/v1/documents?limit=:limit", "/documents?_limit=:limit"),
        ("/v1/*", "/$1"),
    ]
    assert figures.PAGE == "/v1/documents?limit=20"  # what the first rule is written for


def stub_for(mappings: list[dict[str, Any]], method: str, url: str) -> list[dict[str, Any]]:
    """The stubs a request matches under WireMock's rules for the matchers the stubs use."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    matched = []
    for mapping in mappings:
        request = mapping["request"]
        assert set(request) <= {"method", "urlPath", "queryParameters"}  # no other matcher
        wanted = request.get("queryParameters", {})
        if (
            request["method"] == method
            and request["urlPath"] == parts.path
            and all(query.get(name) == rule["equalTo"] for name, rule in wanted.items())
        ):
            matched.append(mapping)
    return matched


def test_wiremock_stubs_match_the_three_calls_and_answer_the_recorded_bodies(
    recorded: peers.Recorded, tmp_path: Path
) -> None:
    peers.write_files(recorded, tmp_path)
    mappings = orjson.loads((tmp_path / "wiremock" / "mappings" / "stubs.json").read_bytes())
    calls = [
        ("GET", figures.DOCUMENT, 200, recorded.document),
        ("GET", figures.PAGE, 200, recorded.page),
        ("POST", "/v1/documents", 201, recorded.created),
    ]
    for method, url, status, body in calls:
        (stub,) = stub_for(mappings["mappings"], method, url)
        assert stub["response"]["status"] == status
        assert orjson.loads(stub["response"]["body"]) == body
        assert stub["response"]["headers"] == {"Content-Type": "application/json"}
    assert stub_for(mappings["mappings"], "GET", "/v1/documents?limit=5") == []


def test_the_budget_rows_compare_ours_with_each_peer() -> None:
    table = {row.key: row for row in peers.rows()}
    for kind, _ in peers.CALLS:
        assert table[f"peers.{kind}.prism"].target == Target("ratio>=", 2)
        assert table[f"peers.{kind}.json-server"].target == Target("ratio>=", 2)
        assert table[f"peers.{kind}.wiremock"].target == Target("ratio>=", 0.85)
        assert table[f"peers.{kind}.p99"].target == Target("value<=", 10)
    assert set(table) <= {row.key for row in rows(Options())}


@pytest.mark.parametrize("peer", peers.PEERS)
def test_a_peer_not_installed_is_missing_with_the_reason(peer: str, tmp_path: Path) -> None:
    with pytest.raises(peers.Missing, match=r"not installed"):
        peers.command(peer, tmp_path, tmp_path)


@needs_wrk
def test_a_run_without_the_peers_skips_them_with_a_note_and_does_not_fail(
    tmp_path: Path,
) -> None:
    options = Options(seconds=1, rounds=1, warmup=0, groups=("peers",), peers_folder=tmp_path)
    options.log = lambda line: None
    run = Run(options)
    shutil.rmtree(run.workdir)
    run.workdir = tmp_path
    run.beside_peers()
    assert run.report.failures == []
    for kind, _ in peers.CALLS:
        assert run.report.row(f"peers.{kind}.p99").ours is not None  # ours was measured
        for peer in peers.PEERS:
            row = run.report.row(f"peers.{kind}.{peer}")
            assert row.note.startswith("skipped: ")
            assert row.reference is None


@needs_wrk
@pytest.mark.parametrize("peer", peers.PEERS)
def test_an_installed_peer_serves_the_three_calls_under_load(
    peer: str, recorded: peers.Recorded, tmp_path: Path
) -> None:
    files = peers.write_files(recorded, tmp_path / "files")
    try:
        argv = peers.command(peer, peers.default_folder(), files)
    except peers.Missing as missing:
        pytest.skip(f"{peer}: {missing}")
    server = peers.start(peer, argv, tmp_path, warmup=0)
    try:
        client = server.client()
        status, body = client.request("GET", figures.DOCUMENT)
        client.close()
        assert status == 200
        served = orjson.loads(body)
        if peer == "json-server":  # the document as the list has it
            assert served == next(d for d in recorded.documents if d["id"] == served["id"])
        else:
            assert served == recorded.document
        for kind, _ in peers.CALLS:
            result = peers.loaded(kind, server, seconds=1, warmup=0, tag=f"t-{kind}")
            assert result.requests > 0, kind
            assert result.valid, kind
    finally:
        server.stop()
    assert "Violation" not in server.log.read_text()  # Prism's answers pass its own checks
