"""What the mock holds for a long time is compacted to its size: orjson's output sits in a block of
about 4 KiB whatever its length, so bytes that are stored (an idempotent replay, a document's
rendering, the journal, a webhook envelope) are copied out of it (`compacted`, domain/views.py),
and a stored response is one bytes object (domain/idempotency.py `pack_response`)."""

from __future__ import annotations

import gc
import tracemalloc
from collections import defaultdict

import httpx
import orjson
import pytest
from starlette.applications import Starlette

from mockserver.core.config import Settings
from mockserver.domain.idempotency import pack_response, unpack_response
from mockserver.domain.views import compacted, dumps_compacted
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.keys import auth

DOC = {"title": "NDA", "vault_id": "vault_mock_us", "metadata": {"kind": "nda"}}
PER_REQUEST = 1536  # bytes one allocation site may keep per request: an answer is ~250


@pytest.fixture(scope="module")
def unlimited() -> Starlette:
    """An app without rate limits: a few hundred requests in a row are the point here."""
    return create_app(Settings(clock_mode="frozen", rate_limit=False))


def kept_per_site(snapshot: tracemalloc.Snapshot, before: tracemalloc.Snapshot) -> dict[str, int]:
    sites: defaultdict[str, int] = defaultdict(int)
    for stat in snapshot.compare_to(before, "lineno"):
        frame = stat.traceback[0]
        if "/mockserver/" in frame.filename:
            sites[f"{frame.filename.rsplit('/mockserver/', 1)[1]}:{frame.lineno}"] += stat.size_diff
    return sites


def retained_by_site(
    client: httpx.Client, requests: list[tuple[str, str, dict]], status: int
) -> dict[str, int]:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for method, path, kwargs in requests:
            assert client.request(method, path, **kwargs).status_code == status
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    return kept_per_site(after, before)


def test_compacted_is_an_equal_copy() -> None:
    raw = orjson.dumps({"a": [1, 2, 3]})
    assert compacted(raw) == raw
    assert dumps_compacted({"a": [1, 2, 3]}, orjson.OPT_SORT_KEYS) == raw


@pytest.mark.parametrize(
    "body", [b"", b"{}", b'{"a":"x\r\n\r\ny: z"}', b"\r\n\r\n", b"\x00\xff" * 300]
)
def test_a_stored_response_reads_back_as_it_was(body: bytes) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"link", b'<https://x/y>; rel="next"'),
        (b"x-empty", b""),
        (b"x-colon", b"a: b: c"),
    ]
    stored = pack_response(201, headers, body)
    assert unpack_response(stored) == (201, headers, body)
    assert unpack_response(pack_response(204, [], b"")) == (204, [], b"")


def test_idempotent_posts_keep_no_oversized_buffers(unlimited: Starlette) -> None:
    with inprocess_client(unlimited, headers=auth()) as client:
        for n in range(20):  # warm-up: caches, lazy imports, the first world copy
            client.post("/v1/documents", json=DOC, headers={"Idempotency-Key": f"w{n}"})
        count = 200
        posts = [
            ("POST", "/v1/documents", {"json": DOC, "headers": {"Idempotency-Key": f"k{n}"}})
            for n in range(count)
        ]
        sites = retained_by_site(client, posts, 201)
    heavy = {site: size // count for site, size in sites.items() if size > PER_REQUEST * count}
    assert heavy == {}


def test_rendered_documents_keep_no_oversized_buffers(unlimited: Starlette) -> None:
    with inprocess_client(unlimited, headers=auth()) as client:
        ids = [d["id"] for d in client.get("/v1/documents", params={"limit": 100}).json()["data"]]
        gets = [("GET", f"/v1/documents/{ident}", {}) for ident in ids]
        sites = retained_by_site(client, gets, 200)
    count = len(ids)
    heavy = {site: size // count for site, size in sites.items() if size > PER_REQUEST * count}
    assert heavy == {}


def test_the_journal_keeps_bodies_at_their_size() -> None:
    from mockserver.engine.journal import BODY_LIMIT, Entry

    made = orjson.dumps({"a": "b" * 100})
    copied = Entry(2, 0.0, "GET", "/v1/x", "", ())
    copied.add_response_body(made)
    assert copied.response_body == made
    assert copied.response_body is not made
    big = Entry(3, 0.0, "GET", "/v1/x", "", ())
    big.add_response_body(b"x" * (BODY_LIMIT + 5))
    assert len(big.response_body) == BODY_LIMIT
    assert big.response_size == BODY_LIMIT + 5
