"""A snapshot upload's cost to a real server (`benchmarks.upload_bounds`): a 64 KiB gzip of
64 MiB of tiny objects is refused without taking the server's memory or its event loop, and
the server's own largest download loads back. Slow: each starts a server and sends hundreds
of MiB. The bounds are DESIGN 29's, several times what the benchmark measures."""

from __future__ import annotations

import pytest

from benchmarks import upload_bounds

pytestmark = pytest.mark.slow


def test_tiny_objects_are_refused_within_the_memory_and_time_bounds() -> None:
    for upload in upload_bounds.measure():
        assert upload.sent_bytes < 100_000
        assert upload.status == 422, upload
        assert upload.peak_growth_mib < 300, upload
        assert upload.longest_wait_s < 2, upload


def test_the_servers_own_largest_download_loads_back() -> None:
    served = upload_bounds.Served()
    try:
        data = upload_bounds.full_journal(served)
        assert len(data) > 256 << 20  # past the cap of the earlier versions
        status, _ = served.call("POST", "/_mock/snapshots/upload?name=again", data)
        assert status == 201
        assert served.call("POST", "/_mock/snapshots/again/restore")[0] == 200
    finally:
        served.stop()
