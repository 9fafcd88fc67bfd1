"""The public Python API: `import mockserver` names exactly its sorted `__all__`, and a stream
of requests answered by `await sandbox.handle(...)` in-process is answered the same by a
server process with the same settings: status, body bytes and the headers the app sends,
errors of every kind included."""

from __future__ import annotations

import asyncio
import subprocess
import threading
from collections.abc import Iterator

import httpx
import orjson
import pytest

import mockserver
from mockserver import MockError, Request, Response, Sandbox, Settings, create_app
from tests.support.cli import MOCKSERVER, free_port

PUBLIC = [
    "MockError",
    "Request",
    "Response",
    "Sandbox",
    "Settings",
    "TransportFault",
    "TransportFaultError",
    "__version__",
    "create_app",
]
COMPARED = (
    "content-type",
    "content-length",
    "x-request-id",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
    "idempotent-replayed",
    "deprecation",
    "sunset",
    "location",
    "x-mock-explain",
)
FULL = "Bearer sk_test_mock_full"
READONLY = "Bearer sk_test_mock_readonly"
JSON = "application/json"
LEGAL_HOLD = (
    "name: held\nrules:\n  - name: nope\n    match: {method: DELETE}\n"
    "    respond: {status: 409, error: {type: conflict, message: Held.}}\n"
)


def test_the_public_names_are_a_sorted_list() -> None:
    assert mockserver.__all__ == PUBLIC
    assert sorted(mockserver.__all__) == mockserver.__all__
    for name in PUBLIC:
        assert getattr(mockserver, name) is not None
    with pytest.raises(AttributeError):
        _ = mockserver.Store  # type: ignore[attr-defined]
    assert issubclass(MockError, Exception)
    assert callable(create_app)


def _stream() -> Iterator[tuple[str, str, list[tuple[str, str]], str, bytes]]:
    """(method, path, headers, query, body): every kind of answer the API gives."""
    doc = orjson.dumps({"title": "NDA", "vault_id": "vault_mock_us"})
    yield "GET", "/v1/whoami", [("authorization", FULL)], "", b""
    yield "GET", "/v1/documents", [("authorization", FULL)], "limit=2", b""
    yield "GET", "/eu/v1/documents", [("authorization", FULL)], "", b""
    yield "GET", "/v1/documents", [("authorization", FULL)], "limit=0", b""  # 422
    yield "GET", "/v1/documents", [("authorization", FULL)], "limit=1&limit=2", b""
    yield "GET", "/v1/documents", [("authorization", FULL)], "x=%zz", b""  # 400
    yield "GET", "/v1/documents/doc_mock_draft", [], "", b""  # 401
    yield "GET", "/v1/documents/doc_nope", [("authorization", FULL)], "", b""  # 404
    yield "POST", "/v1/documents", [("authorization", READONLY)], "", doc  # 403
    keyed = [("authorization", FULL), ("idempotency-key", "k1"), ("content-type", JSON)]
    yield "POST", "/v1/documents", keyed, "", doc  # 201
    yield "POST", "/v1/documents", keyed, "", doc  # replayed
    yield "POST", "/v1/documents", keyed, "", doc.replace(b"NDA", b"MSA")  # 409
    yield (
        "POST",
        "/v1/documents",
        [("authorization", FULL), ("content-type", "text/plain")],
        "",
        doc,
    )
    yield "POST", "/v1/documents", [("authorization", FULL), ("x-mock-explain", "1")], "", b"{"
    yield "GET", "/v1/documents/doc_mock_draft/", [("authorization", FULL)], "", b""  # 307
    yield "PUT", "/v1/documents/doc_mock_draft", [("authorization", FULL)], "", b""  # 404
    yield "GET", "/v1/openapi.json", [], "", b""
    yield "GET", "/_mock/clock", [], "", b""
    yield "POST", "/_mock/reset", [("origin", "https://evil.example")], "", b""  # 403, a web page
    scenario = orjson.dumps({"yaml": LEGAL_HOLD})
    yield "POST", "/_mock/scenarios", [("content-type", JSON)], "", scenario
    yield "DELETE", "/v1/documents/doc_mock_draft", [("authorization", FULL)], "", b""  # rule
    yield "DELETE", "/_mock/scenarios", [], "", b""
    yield "POST", "/_mock/clock/advance", [], "", b'{"seconds": 90}'
    yield (
        "POST",
        "/v1/oauth/token",
        [("content-type", "application/x-www-form-urlencoded")],
        "",
        (b"grant_type=client_credentials"),
    )
    for _ in range(205):  # a burst of 200 runs out: 429 with Retry-After
        yield "GET", "/v1/vaults", [("authorization", "Bearer sk_test_mock_eu")], "", b""


def _settings() -> Settings:
    return Settings(clock_mode="frozen", random_seed=7)


def _in_process() -> list[Response]:
    async def run() -> list[Response]:
        sandbox = Sandbox.build(_settings())
        answers = []
        for method, path, headers, query, body in _stream():
            request = Request(
                method,
                path,
                headers=[("host", "localhost"), *headers],
                query=query,
                body=body,
                client="127.0.0.1",
            )
            answers.append(await sandbox.handle(request))
        return answers

    return asyncio.run(run())


def _over_http() -> list[httpx.Response]:
    port = free_port()
    process = subprocess.Popen(
        [*MOCKSERVER, "run", "--port", str(port), "--clock", "frozen", "--random-seed", "7"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for _ in range(1500):
                try:
                    client.get("/_mock/health-check-never-served")
                    break
                except httpx.TransportError:
                    assert process.poll() is None, "the server exited"
                    threading.Event().wait(0.02)
            client.post("/_mock/reset")  # the probe above drew a request id
            answers = []
            for method, path, headers, query, body in _stream():
                answers.append(
                    client.request(
                        method,
                        path + (f"?{query}" if query else ""),
                        headers=[("host", "localhost"), ("accept-encoding", "identity"), *headers],
                        content=body,
                    )
                )
            return answers
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_in_process_and_over_http_answer_alike() -> None:
    inside = _in_process()
    served = _over_http()
    assert len(inside) == len(served)
    statuses = set()
    for number, (mine, theirs) in enumerate(zip(inside, served, strict=True)):
        assert mine.status == theirs.status_code, number
        assert mine.body == theirs.content, number
        for name in COMPARED:
            assert mine.header(name) == theirs.headers.get(name), (number, name)
        statuses.add(mine.status)
    assert {200, 201, 307, 400, 401, 403, 404, 409, 422, 429} <= statuses


LOSSY = (
    "name: lossy\nrules:\n  - name: lost\n    match: {method: POST, path: /v1/vaults}\n"
    "    respond: {fault: drop_after_commit}\n  - name: reset\n    match: {path: /v1/whoami}\n"
    "    respond: {fault: reset}\n"
)


def test_a_transport_fault_rides_on_the_response_of_handle() -> None:
    from mockserver import TransportFault

    async def run() -> tuple[Response, Response, Response]:
        sandbox = Sandbox.build(Settings(clock_mode="frozen"))
        body = orjson.dumps({"yaml": LOSSY})
        loaded = await sandbox.handle(Request("POST", "/_mock/scenarios", body=body))
        assert loaded.status == 201, loaded.body
        key = [("authorization", "Bearer sk_test_mock_full")]
        reset = await sandbox.handle(Request("GET", "/v1/whoami", headers=key))
        vault = orjson.dumps({"name": "Lost", "region": "us"})
        lost = await sandbox.handle(Request("POST", "/v1/vaults", headers=key, body=vault))
        listed = await sandbox.handle(Request("GET", "/v1/vaults", headers=key))
        return reset, lost, listed

    reset, lost, listed = asyncio.run(run())
    assert isinstance(reset.fault, TransportFault)
    assert (reset.status, reset.fault.kind, reset.fault.committed) == (0, "reset", False)
    assert lost.fault is not None
    assert (lost.status, lost.fault.kind, lost.fault.committed) == (201, "drop_after_commit", True)
    assert "Lost" in [vault["name"] for vault in listed.json()["data"]]  # it ran
    assert listed.fault is None


def test_another_asgi_transport_gets_the_transport_fault_error() -> None:
    from mockserver import TransportFaultError

    async def run() -> None:
        app = create_app(Settings(clock_mode="frozen"))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://mock"
        ) as client:
            loaded = await client.post("/_mock/scenarios", json={"yaml": LOSSY})
            assert loaded.status_code == 201
            key = {"authorization": "Bearer sk_test_mock_full"}
            with pytest.raises(TransportFaultError) as raised:
                await client.get("/v1/whoami", headers=key)
            assert isinstance(raised.value, MockError)
            assert raised.value.response.fault is not None
            assert raised.value.response.fault.kind == "reset"
            assert (await client.get("/v1/vaults", headers=key)).status_code == 200

    asyncio.run(run())
