"""The one pure-ASGI layer every HTTP request goes through, before the routes.

It fuses what were four middleware layers, in their order (each step sees what the one before
it saw): compression (`compression.py`: gzip for clients that accept it, else the identity path
that adds `Vary: Accept-Encoding` to large bodies), the request journal (`journal_layer.py`: the
path as sent and every header added below it, bodies before gzip; not `/_mock`), then the
pipeline proper. For every request that one: picks the region from a `/us/v1` or `/eu/v1`
prefix (and strips it, so one route table serves all three base URLs) or from a regional host
(`hosts.py`), assigns the `req_` request id, adds `X-Request-Id` to the response, refuses a
malformed query string (`limits.py`), applies the engine's rate limits and idempotency keys
(`engine/traffic.py`, with `traffic.py` reading a keyed body; not to `/_mock`, which gets no
rate-limit headers), and turns any error escaping the app into
the service's envelope: an ApiError as itself, anything else as a logged 500 `api_error`.
"""

from __future__ import annotations

import logging
from time import perf_counter

from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from mockserver.core.clock import http_date
from mockserver.core.errors import ApiError, InternalError
from mockserver.domain.store import Store
from mockserver.engine.envelope import error_bytes
from mockserver.engine.explain import Refusal, header_value, refusal, replayed, wants_header
from mockserver.engine.journal import Entry, Journal
from mockserver.engine.traffic import Admission, ForcedLimitHook, Traffic
from mockserver.web.compression import accepts_gzip
from mockserver.web.context import CONTEXT, RequestContext
from mockserver.web.exchange import Exchange
from mockserver.web.faults import FaultLayer
from mockserver.web.headers import credential_headers
from mockserver.web.hosts import routed_region
from mockserver.web.journal_layer import CONTROL_PLANE, open_entry, recording
from mockserver.web.limits import check_query
from mockserver.web.render import JSON
from mockserver.web.traffic import Replay, claim

log = logging.getLogger("mockserver")

_REGION_PREFIXES = {"/us/v1": "us", "/eu/v1": "eu"}


def split_region(path: str) -> tuple[str | None, str]:
    """(`us`|`eu`|None, path without the regional prefix)."""
    head = path[:6]
    region = _REGION_PREFIXES.get(head)
    if region is not None and (len(path) == 6 or path[6] == "/"):
        return region, path[3:]
    return None, path


class Pipeline:
    """Compression, the journal, region routing, request ids, request limits, rate limits,
    idempotency and the error envelope, fused into one layer around `app`."""

    def __init__(
        self,
        app: ASGIApp,
        store: Store,
        *,
        faults: FaultLayer,
        journal: Journal | None,
        forced_limit: ForcedLimitHook | None = None,
        minimum_size: int,
        compresslevel: int,
    ) -> None:
        self.app = app
        self.faults = faults  # run only while a scenario has armed something
        self.store = store
        self.journal = journal
        self.traffic = Traffic(store, forced_limit)
        self.minimum_size = minimum_size
        self.gzip = GZipMiddleware(self._behind_gzip, minimum_size, compresslevel)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An HTTP request (other scopes never come here)."""
        if accepts_gzip(scope):
            await self.gzip(scope, receive, send)
        else:
            await self._serve(scope, receive, send, self.minimum_size)

    async def _behind_gzip(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._serve(scope, receive, send, None)

    async def _serve(self, scope: Scope, receive: Receive, send: Send, vary: int | None) -> None:
        entry: Entry | None = None
        if self.journal is not None and not scope["path"].startswith(CONTROL_PLANE):
            entry = open_entry(self.journal, self.store, scope)
            entry_started = perf_counter()
            receive = recording(entry, receive)
        path_region, path = split_region(scope["path"])
        if path_region is not None:
            scope["path"] = path
            scope["raw_path"] = path.encode()
        store = self.store
        store.scheduler.run_due()  # real clock: timers that fell due since the last request
        request_id = store.request_ids.new("req_")
        context = scope[CONTEXT] = RequestContext(request_id, store)
        exchange = Exchange(
            send,
            entry,
            vary,
            (b"x-request-id", request_id.encode()),
            (b"date", http_date(store.clock.now())),
        )
        context.exchange = exchange
        try:
            admission: Admission | None = None
            if not path.startswith(CONTROL_PLANE):
                authorization, keys = credential_headers(scope)
                client = scope.get("client")
                admission = self.traffic.admit(
                    authorization, keys, scope["method"], path, client[0] if client else ""
                )
                context.principal = admission.principal
                if admission.refusal is not None:
                    context.rule = admission.rule
                    raise admission.refusal
                exchange.rate_headers = admission.headers
            check_query(scope)
            context.region = routed_region(scope, path_region)
            if admission is not None and admission.idempotency_keys and admission.principal:
                claimed = await claim(
                    self.traffic,
                    scope,
                    receive,
                    context,
                    admission.principal,
                    admission.idempotency_keys,
                )
                if isinstance(claimed, Replay):
                    exchange.replaying = True
                    start, body = claimed.messages(exchange.rate_headers)
                    if start["status"] >= 400 and wants_header(scope["headers"]):
                        refused = replayed(start["status"], body["body"], path)
                        start["headers"].append((b"x-mock-explain", header_value(refused)))
                    await exchange(start)
                    await exchange(body)
                    return
                if claimed is not None:
                    exchange.ticket, receive = claimed, claimed.receive
            app = self.faults if self.faults.engine.active else self.app
            await app(scope, receive, exchange)
        except ApiError as error:
            if exchange.started:
                raise
            context.explain = refusal(error, path)
            await self._send_error(exchange, scope, error, request_id, context.explain)
        except ClientDisconnect:
            return  # the client went away mid-body: there is no one to answer
        except Exception as error:
            log.exception("unhandled error in %s %s (%s)", scope["method"], path, request_id)
            del store.errors[:-99]  # keep the latest 100
            store.errors.append(error)
            if exchange.started:
                raise
            internal = InternalError("An unexpected error occurred on the service side.")
            context.explain = refusal(internal, path)
            await self._send_error(exchange, scope, internal, request_id, context.explain)
        finally:
            context.exchange = None  # the ticket refers to the context: no cycle outlives us
            if exchange.ticket is not None:
                exchange.ticket.close()
            if entry is not None:
                entry.duration = perf_counter() - entry_started
                entry.rule = context.rule
                entry.explain = context.explain

    @staticmethod
    async def _send_error(
        exchange: Exchange, scope: Scope, error: ApiError, request_id: str, refused: Refusal
    ) -> None:
        if wants_header(scope["headers"]):  # after what a key keeps: a replay never has it
            header = (b"x-mock-explain", header_value(refused))
            exchange.rate_headers = [*exchange.rate_headers, header]
        body = error_bytes(error, request_id)
        headers = [
            (b"content-type", JSON.encode()),
            (b"content-length", str(len(body)).encode()),
            *((k.lower().encode(), v.encode()) for k, v in error.headers.items()),
        ]
        await exchange({"type": "http.response.start", "status": error.status, "headers": headers})
        await exchange({"type": "http.response.body", "body": body})
