"""API latency while webhook receivers hang, against the same calls with no webhooks at all.

    .venv/bin/python benchmarks/webhook_hang_latency.py [--calls 500]

A real uvicorn server (with the app's lifespan, as `mockserver run` serves it) and a receiver
that never answers, on loopback ports. In the "hanging" run 16 endpoints (the most an account
may have) each have an attempt in flight, blocked for the whole 10 s delivery timeout, and every
document created queues one more event behind each. The same sequence of calls (list documents,
create a document, get it) is timed in both runs; the figures are per call, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import time

import httpx

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.testing.receiver import HANG, WebhookReceiver
from mockserver.web.app import create_app
from mockserver.webhooks.endpoints import ENDPOINTS_MAX

KEY = {"Authorization": "Bearer sk_test_mock_full"}


def timed_calls(client: httpx.Client, calls: int) -> list[float]:
    """Latency of each call of a fixed mix, in ms."""
    latencies = []
    for i in range(calls):
        started = time.perf_counter()
        if i % 3 == 0:
            response = client.get("/v1/documents", params={"limit": 20})
        elif i % 3 == 1:
            response = client.post(
                "/v1/documents", json={"title": f"doc {i}", "vault_id": "vault_mock_us"}
            )
        else:
            response = client.get("/v1/documents/doc_mock_draft")
        latencies.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    return latencies


def run(calls: int, hanging: bool) -> tuple[list[float], int]:
    """Latencies of `calls` calls, and how many attempts were in flight after the last one."""
    app = create_app(Settings(clock_mode="frozen", rate_limit=False))
    server = LiveServer(app, lifespan=True).start()
    try:
        with (
            WebhookReceiver() as receiver,
            httpx.Client(base_url=server.base_url, headers=KEY, timeout=30) as client,
        ):
            receiver.respond(then=HANG)
            if hanging:
                for _ in range(ENDPOINTS_MAX):
                    endpoint = {"url": receiver.url, "events": ["document.created"]}
                    client.post("/v1/webhook_endpoints", json=endpoint).raise_for_status()
                client.post(
                    "/v1/documents", json={"title": "first", "vault_id": "vault_mock_us"}
                ).raise_for_status()
                receiver.wait_for(ENDPOINTS_MAX)  # every endpoint has an attempt hanging
            for _ in range(20):  # warm up
                client.get("/v1/whoami")
            latencies = timed_calls(client, calls)
            journal = client.get("/_mock/webhooks/deliveries").json()["data"]
            in_flight = sum(1 for d in journal if d["in_flight"])
            client.post("/_mock/reset")  # cancels the hanging attempts
            return latencies, in_flight
    finally:
        server.stop()


def summary(name: str, latencies: list[float], in_flight: int) -> str:
    ordered = sorted(latencies)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    return (
        f"| {name} | {len(latencies)} | {in_flight} | {statistics.median(ordered):.2f} | "
        f"{p95:.2f} | {p99:.2f} | {ordered[-1]:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args()
    print("| run | calls | attempts in flight after | p50 ms | p95 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    print(summary("no webhooks", *run(args.calls, hanging=False)))
    print(summary(f"{ENDPOINTS_MAX} receivers hanging", *run(args.calls, hanging=True)))


if __name__ == "__main__":
    main()
