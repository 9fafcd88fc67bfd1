"""The bare reference: Starlette + uvicorn with the same server options as `mockserver run`
(uvloop, httptools, no access log, no `Date` from uvicorn, no proxy headers), doing nothing but
the HTTP work.

It serves the benchmarked routes with pre-encoded bodies of the same shape and about the same
size as the mock's (a document, a page of 20 summaries, a create answer), and a POST parses its
JSON body and appends it to a list, so it is the ceiling of what this stack allows: whatever the
mock costs beyond it is the mock's own work. `/_mock/reset` empties the list, so the harness can
drive both servers the same way.

    python -m benchmarks.reference_app --port 8081
"""

from __future__ import annotations

import argparse
from typing import Any

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

JSON = "application/json"
SHA = "5dd57de7244d3bb03c09817abf456bae60e3d5f01fe350e0de581ccc0f6e9d1a"
CREATED_AT = "2025-06-02T10:00:00Z"


def _document(index: int) -> dict[str, Any]:
    return {
        "id": f"doc_{index:024d}",
        "object": "document",
        "title": "Master Services Agreement - Acme Corp",
        "vault_id": "vault_mock_us",
        "metadata": {"kind": "msa", "amount": 120000, "counterparty": "Acme Corp"},
        "status": "draft",
        "version": 1,
        "created_at": CREATED_AT,
        "region": "us",
    }


def _detail(index: int) -> dict[str, Any]:
    versions = [{"version": 1, "sha256": SHA, "created_at": CREATED_AT}]
    extra: dict[str, Any] = {"signers": [], "sha256": SHA, "signed_at": None, "legal_hold": False}
    return {**_document(index), **extra, "versions": versions}


def _summary(index: int) -> dict[str, Any]:
    doc = _document(index)
    keys = ("id", "object", "title", "status", "version", "vault_id", "created_at")
    return {key: doc[key] for key in keys}


DOCUMENT = orjson.dumps(_detail(1))
PAGE = orjson.dumps(
    {
        "object": "list",
        "data": [_summary(i) for i in range(20)],
        "has_more": True,
        "next_cursor": "cur_AAAAAAAAAAEAAAAAAAAAAAAAAAAA",
    }
)
CREATED = orjson.dumps(_document(2))
WORKFLOW = orjson.dumps(
    {"id": "wf_" + "0" * 24, "object": "workflow", "document_id": "doc_" + "0" * 24}
    | {"status": "in_progress", "current_step": 1, "created_at": CREATED_AT}
)
ADVANCED = orjson.dumps(
    {"id": "wf_" + "0" * 24, "object": "workflow", "status": "in_progress", "current_step": 2}
    | {"last_decision": {"by": "approver@bench.example", "decision": "approve"}}
)
RESET = orjson.dumps({"reset": True})
CLOCK = orjson.dumps({"now": CREATED_AT, "mode": "frozen", "timers_run": 0})


def create_app() -> Starlette:
    """The reference app; its only state is the list POST bodies are appended to."""
    stored: list[Any] = []

    async def get_document(request: Request) -> Response:
        return Response(DOCUMENT, media_type=JSON)

    async def list_documents(request: Request) -> Response:
        return Response(PAGE, media_type=JSON)

    def appender(body: bytes, status: int) -> Any:
        async def post(request: Request) -> Response:
            stored.append(await request.json())
            return Response(body, status_code=status, media_type=JSON)

        return post

    async def reset(request: Request) -> Response:
        stored.clear()
        return Response(RESET, media_type=JSON)

    async def advance_clock(request: Request) -> Response:
        return Response(CLOCK, media_type=JSON)

    return Starlette(
        routes=[
            Route("/v1/documents", list_documents, methods=["GET"]),
            Route("/v1/documents", appender(CREATED, 201), methods=["POST"]),
            Route("/v1/documents/{doc_id}", get_document, methods=["GET"]),
            Route("/v1/workflows", appender(WORKFLOW, 201), methods=["POST"]),
            Route("/v1/workflows/{workflow_id}/advance", appender(ADVANCED, 200), methods=["POST"]),
            Route("/_mock/reset", reset, methods=["POST"]),
            Route("/_mock/clock/advance", advance_clock, methods=["POST"]),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reference_app")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    args = parser.parse_args()
    uvicorn.run(
        create_app(),
        host=args.host,
        port=args.port,
        loop="uvloop",
        http="httptools",
        log_level="warning",
        access_log=False,
        date_header=False,  # as `mockserver run`, whose app sends `Date` itself
        proxy_headers=False,  # as `mockserver run`, which answers the peer it is connected to
    )


if __name__ == "__main__":
    main()
