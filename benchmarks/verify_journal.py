"""How long `POST /_mock/requests/verify` takes over a full journal (10,000 entries).

The journal is filled through the API in-process with a mix of real requests (document
creates with bodies, reads, lists with queries, whoami, 404s, a few writes refused for scope),
then each matcher below is timed twice: `verify` of the engine alone (what the endpoint
computes) and the whole HTTP call in-process (parsing, rendering, the pipeline). The matchers
cover a match found at once, counts that fail with near misses on the cheap fields only, and
ones that must compare bodies, queries and headers. The median of `--repeat` runs, in ms.
A benchmark, not a test: nothing asserts a time (the target is under 5 ms).

    python -m benchmarks.verify_journal [--entries 10000] [--repeat 50]
"""

from __future__ import annotations

import argparse
import statistics
from time import perf_counter
from typing import Any

from mockserver.core.config import Settings
from mockserver.engine.journal import Journal
from mockserver.engine.verify import parse_matcher, verify
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app

ENTRIES = 10_000  # the journal's default size
REPEAT = 50
MATCHERS: dict[str, dict[str, Any]] = {
    "method+path, matches": {"method": "POST", "path": "/v1/documents"},
    "method+path, count fails": {"method": "POST", "path": "/v1/documents", "count": 1},
    "path pattern, none": {"method": "DELETE", "path": "/v1/documents/{id}"},
    "no miss within one field": {"method": "DELETE", "path": "/v1/vaults/{id}", "status": 204},
    "body subset, none": {"method": "POST", "path": "/v1/documents", "body": {"title": "nope"}},
    "body only, none": {"body": {"title": "nope"}},
    "key+query+headers": {
        "key": "sk_test_mock_full",
        "query": {"vault_id": "vault_mock_us", "limit": "*"},
        "headers": {"x-trace": "*"},
        "count": 3,
    },
}


def fill(client: Any, entries: int) -> None:
    for i in range(entries):
        kind = i % 5
        if kind == 0:
            client.post("/v1/documents", json={"title": f"Doc {i}", "vault_id": "vault_mock_us"})
        elif kind == 1:
            client.get("/v1/documents/doc_mock_draft")
        elif kind == 2:
            client.get(f"/us/v1/documents?vault_id=vault_mock_us&limit={1 + i % 50}")
        elif kind == 3:
            client.get(f"/v1/documents/doc_missing_{i}")
        else:
            client.get("/v1/whoami", headers={"X-Trace": str(i)})


def timed(run: Any, repeat: int) -> tuple[float, float]:
    """(median, max) of `repeat` runs, in ms."""
    runs = []
    for _ in range(repeat):
        started = perf_counter()
        run()
        runs.append((perf_counter() - started) * 1000)
    return statistics.median(runs), max(runs)


def measure(entries: int, repeat: int) -> list[tuple[str, float, float, int, bool]]:
    """(matcher, engine median ms, HTTP median ms, matched, ok) of each matcher over a journal
    of `entries` requests."""
    app = create_app(Settings(clock_mode="frozen", rate_limit=False))
    journal: Journal = app.state.journal
    rows = []
    with inprocess_client(app, headers={"Authorization": "Bearer sk_test_mock_full"}) as client:
        fill(client, entries)
        for name, body in MATCHERS.items():
            matcher = parse_matcher(body)
            answer = verify(matcher, journal.entries())
            engine = timed(lambda m=matcher: verify(m, journal.entries()), repeat)
            http = timed(lambda b=body: client.post("/_mock/requests/verify", json=b), repeat)
            rows.append((name, engine[0], http[0], answer["matched"], answer["ok"]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=ENTRIES)
    parser.add_argument("--repeat", type=int, default=REPEAT)
    options = parser.parse_args()
    print(f"journal: {options.entries} entries; median of {options.repeat} runs, ms")
    print(f"{'matcher':28} {'engine':>8} {'HTTP in-process':>16}  matched  ok")
    for name, engine, http, matched, ok in measure(options.entries, options.repeat):
        print(f"{name:28} {engine:8.2f} {http:16.2f}  {matched:7}  {ok}")


if __name__ == "__main__":
    main()
