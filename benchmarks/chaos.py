"""What chaos costs the requests it does not touch: GET /v1/documents/{id} under wrk on a
server with a chaos scenario loaded whose rules, faults and latency all match other requests,
beside the same server with no scenario (alternating rounds, the median round of each side).

A loaded scenario puts every API request through its rules; this measures that the requests
no rule picks pay nothing a user feels (p99).
"""

from __future__ import annotations

from . import figures, load
from .load import LoadResult
from .servers import KEY, Server

# Every rule and the latency match requests the load never sends.
SCENARIO = """
name: bench-chaos
rules:
  - name: reset-exports
    match: {method: POST, path: /v1/exports}
    respond: {fault: reset}
chaos:
  seed: 7
  rules:
    - name: flaky-creates
      match: {method: POST, path: /v1/documents}
      probability: 0.3
      respond: {status: 503}
    - name: lost-workflows
      match: {method: POST, path: /v1/workflows}
      probability: 0.1
      fault: drop_after_commit
  latency:
    match: {method: GET, path: /v1/audit_logs}
    distribution: lognormal
    median_ms: 20
    p99_ms: 200
"""


def loaded(server: Server, with_chaos: bool, seconds: float, warmup: float) -> LoadResult:
    """One round: back to the seed, the scenario loaded or not, then wrk on one document."""
    figures.reset(server)
    if with_chaos:
        client = server.client()
        try:
            client.json("POST", "/_mock/scenarios", {"yaml": SCENARIO}, expect=201)
        finally:
            client.close()
    url = server.url(figures.DOCUMENT)
    if warmup:
        load.run(url, "static.lua", [KEY], warmup)
    return load.run(url, "static.lua", [KEY], seconds)
