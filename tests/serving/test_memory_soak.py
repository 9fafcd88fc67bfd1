"""A served sandbox's memory comes back after each round of work that leaves cyclic garbage: the
short version of the memory soak (benchmarks/memory_soak.py, `make bench-memory`).

`mockserver run --tls --state-dir DIR`, in a process of its own with the collector settings it
ships with, is driven over HTTPS in rounds: scenarios loaded and disarmed, webhooks to receivers
that fail (reset connections, a refused port, redirects) and one that drips its answer,
documents, replays and refusals, a workflow, clock moves that run the failed attempts' retries,
a snapshot restored, and a reset. A reset and a restore drop the webhook journal, whose
deliveries hold reference cycles, and a scenario's load builds classes: garbage that only the
cyclic collector reclaims. After each round's closing reset the server's RSS must not climb
round after round: a collector setting that strands such garbage (freezing what every
collection leaves alive, as `mockserver run` once did) grows it by over 5 MiB a round here.
"""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path

from benchmarks import memory_soak

ROUNDS = memory_soak.WARM_ROUNDS + 10
DOCUMENTS = 100
# RSS growth per round once warm, as the median of the rounds' steps: a server that keeps each
# round's garbage climbs by over 5 MiB every round (5.4 with the collector that freezes every
# collection's survivors). A flat one's heap, measured on sources
# before and after a change that touched no memory, creeps by 0.5 to 0.8 MiB a round until
# glibc takes one step of about 5.5 MiB, at round 9 in most runs and as late as round 15 in
# some, and is flat from then on: the median of the steps leaves that single step out, and
# the bound sits between the creep and the leak.
STEP_MIB = 1.0
# And the whole growth once warm: the creep and the one step fit under it, ten rounds of the
# leak (38 MiB) do not.
GROWTH_MIB = 10.0
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
    warm = [sample.rss_mib for sample in soak.samples[memory_soak.WARM_ROUNDS - 1 :]]
    steps = [after - before for before, after in itertools.pairwise(warm)]
    assert statistics.median(steps) <= STEP_MIB, f"RSS after each round, MiB: {rss}"
    assert soak.growth_mib <= GROWTH_MIB, f"RSS after each round, MiB: {rss}"
