"""A served sandbox's memory comes back after each round of work that leaves cyclic garbage: the
short version of the memory soak (benchmarks/memory_soak.py, `make bench-memory`).

`mockserver run --tls --state-dir DIR`, in a process of its own with the collector settings it
ships with, is driven over HTTPS in rounds: scenarios loaded and disarmed, webhooks to receivers
that fail (reset connections, a refused port, redirects) and one that drips its answer,
documents, replays and refusals, a workflow, clock moves that run the failed attempts' retries,
a snapshot restored, and a reset. A reset and a restore drop the webhook journal, whose
deliveries hold reference cycles, and a scenario's load builds classes: garbage that only the
cyclic collector reclaims. After each round's closing reset the server's RSS must not climb:
a collector setting that strands such garbage (freezing what every collection leaves alive, as
`mockserver run` once did) grows it by 1.5 to 2 MiB a round here.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import memory_soak

ROUNDS = memory_soak.WARM_ROUNDS + 10
DOCUMENTS = 100
# RSS growth from the rounds after `memory_soak.WARM_ROUNDS` to the last ones (medians of three
# samples): a flat server moves by a MiB or two (allocator noise); one that keeps each round's
# garbage grows by over twice this.
GROWTH_MIB = 5.0
DRIP_INTERVAL = 0.002  # the dripping receiver answers in about half a second


def test_rss_stays_flat_over_rounds_of_real_work(tmp_path: Path) -> None:
    with memory_soak.receivers(drip_interval=DRIP_INTERVAL, hang=False) as endpoints:
        server = memory_soak.start("shipped", tmp_path)
        try:
            soak = memory_soak.soak(
                server, endpoints, rounds=ROUNDS, seconds=float("inf"), documents=DOCUMENTS
            )
        finally:
            server.stop()
    rss = [round(sample.rss_mib, 1) for sample in soak.samples]
    assert len(rss) == ROUNDS
    assert soak.growth_mib <= GROWTH_MIB, f"RSS after each round, MiB: {rss}"
