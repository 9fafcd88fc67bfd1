"""How long `POST /_mock/snapshots/{name}/restore` takes, in-process.

Two sandboxes: the default seed's, with every seeded world built and a few dozen writes on
top (vaults, documents, workflows, a webhook endpoint, an audit export), and one of a
generated 100,000-document seed (`benchmarks.seed`), its world built, its audit history read
and a thousand writes on top. Each is saved once, then restored `--repeat` times through the
whole HTTP path in-process; the median counts, with the engine's restore alone beside it. A
benchmark, not a test: nothing asserts a time (the targets are 5 ms and 300 ms).

    python -m benchmarks.snapshot_restore [--documents 100000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import Any

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app

REPEAT = 20
AUTH = {"Authorization": "Bearer sk_test_mock_full"}


@dataclass
class Restore:
    http_ms: float  # the median restore through the HTTP path, in-process
    engine_ms: float  # the median of the engine's restore alone
    save_ms: float  # one save
    size: int  # bytes of the snapshot file


def _writes(client: Any, count: int) -> None:
    vault = client.post("/v1/vaults", json={"name": "Bench", "region": "us"}).json()
    client.post(
        "/v1/webhook_endpoints", json={"url": "http://127.0.0.1:9/hook", "events": ["vault.*"]}
    )
    for n in range(count):
        doc = client.post(
            "/v1/documents",
            json={"title": f"Doc {n}", "vault_id": vault["id"], "metadata": {"n": n}},
            headers={"Idempotency-Key": f"bench-{n}"},
        ).json()
        if n % 4 == 0:
            steps = [{"assignee": "ann@example.com"}]
            client.post("/v1/workflows", json={"document_id": doc["id"], "steps": steps})
    client.post("/v1/audit_logs/export", json={"period": "2026-01-01/2026-12-31"})


def measure(seed: Path | None, writes: int, repeat: int) -> Restore:
    """Build a sandbox of `seed` (None: the default seed), save it, time its restores."""
    app = create_app(Settings(clock_mode="frozen", seed_path=seed, rate_limit=False))
    control = app.state.control
    with inprocess_client(app, headers=AUTH) as client:
        app.state.store.seeded_worlds()
        client.get("/v1/audit_logs", params={"limit": 1})
        _writes(client, writes)
        client.post("/_mock/webhooks/wait")
        started = perf_counter()
        saved = client.post("/_mock/snapshots", json={"name": "bench"}).json()
        save_ms = (perf_counter() - started) * 1000
        http, engine = [], []
        for _ in range(repeat):
            started = perf_counter()
            response = client.post("/_mock/snapshots/bench/restore")
            http.append((perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text
            started = perf_counter()
            control.restore_snapshot("bench")
            engine.append((perf_counter() - started) * 1000)
    return Restore(statistics.median(http), statistics.median(engine), save_ms, saved["bytes"])


def main() -> None:
    from benchmarks.seed import large_seed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=REPEAT)
    args = parser.parse_args()
    for label, seed, writes in (
        ("default seed", None, 40),
        (f"{args.documents:,}-document seed", large_seed(args.documents), 1_000),
    ):
        result = measure(seed, writes, args.repeat)
        print(
            f"{label}: restore {result.http_ms:.2f} ms (engine {result.engine_ms:.2f} ms), "
            f"save {result.save_ms:.1f} ms, {result.size:,} bytes"
        )


if __name__ == "__main__":
    main()
