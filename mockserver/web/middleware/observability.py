"""Health checks, metrics and traces: the monitoring of the server, right after compression
and outside a durable sandbox's log.

`Observe` answers `GET /_mock/health` before anything else looks at the request
(`engine/control_plane/health.py`: no admin token, no guard, no request id, no journal entry, no
line in a durable sandbox's log) and `GET /_mock/metrics` (`engine/metrics.py`), guarded as the
control plane is (the guard against web pages; with an admin token, `X-Mock-Admin-Token` or
`Authorization: Bearer`). It counts every other request once answered: method, route template,
status, account, duration, a transport fault. With tracing on (`engine/tracing.py`) the request
is a server span, current while it runs. The request's `Observed` is current while it runs
(`core/observed.py`): the journal (`journal.py`), closing the request, notes on it what the
steps below decided (its account, request id, the scenario rule that answered it, whether a
rate limit refused it), and this middleware the route that served it. The sandbox's own
requests (a durable log's replay, a trigger recipe's calls: `web/adapter.py` `own_requests`)
pass through uncounted and untraced: a replay is no client's, and a trigger's calls are part
of the trigger's request (their rules' hits count as its hits).

Health checks and metrics scrapes are not counted. Control-plane and inspector requests are,
under their route templates (`/_mock/clock`, `/_mock/ui/requests`), with account `none`.
"""

from __future__ import annotations

import functools
import os
import re
from time import perf_counter

from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core.errors import ApiError
from mockserver.core.observed import CURRENT, NotCounted, Observed
from mockserver.domain.auth import bearer_of
from mockserver.engine.control_plane.call import check_admin_token, given_admin_token
from mockserver.engine.control_plane.health import HEALTH, health
from mockserver.engine.envelope import render_error
from mockserver.engine.metrics import CONTENT_TYPE, Metrics
from mockserver.engine.request import Request, Response, is_own, request_of
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.tracing import start
from mockserver.engine.transport_error import TransportFaultError
from mockserver.web.adapter import send_response

METRICS = "/_mock/metrics"
NOT_COUNTED = NotCounted()


class Observe:
    """Answers a health check and a metrics scrape; counts and traces every other request."""

    def __init__(self, app: ASGIApp, sandbox: SandboxState) -> None:
        self.app = app
        self.sandbox = sandbox
        self.live = sandbox.live  # the watched seed, if any
        settings = sandbox.settings
        self.metrics = Metrics(sandbox) if settings.metrics and settings.admin else None
        self.tracing = start(os.environ)
        if self.tracing is not None:
            sandbox.webhooks.watches.append(self.tracing)
        self.on = self.metrics is not None or self.tracing is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method: str = scope["method"]
        if scope["path"] == HEALTH and method in ("GET", "HEAD"):
            live = self.live
            await send_response(health(None if live is None else live.seed_error), send)
            return
        if not self.on or is_own(scope):
            await self.app(scope, receive, send)
            return
        metrics = self.metrics
        if metrics is not None and scope["path"] == METRICS and method in ("GET", "HEAD"):
            await send_response(self.scrape(metrics, request_of(scope)), send)
            return
        observed = Observed(NOT_COUNTED if metrics is None else metrics)
        tracing = self.tracing
        span = None if tracing is None else tracing.request(method, scope["headers"], observed)
        token = CURRENT.set(observed)
        status: int | None = None
        started = perf_counter()

        async def sent(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sent)
        except TransportFaultError as faulted:
            fault = faulted.response.fault
            assert fault is not None
            observed.fault = fault.kind
            status = faulted.response.status if fault.committed else None
            raise
        finally:
            CURRENT.reset(token)
            observed.route = _documented(_route(scope, method))
            if span is not None:
                span.end(method, status, observed)
            if metrics is not None and (status is not None or observed.fault is not None):
                metrics.count(method, status, perf_counter() - started, observed)

    def scrape(self, metrics: Metrics, request: Request) -> Response:
        """The exposition, or the control plane's refusal."""
        sandbox = self.sandbox
        try:
            if sandbox.control_guard is not None:
                sandbox.control_guard(request)
            token = sandbox.settings.admin_token
            if token is not None:
                check_admin_token(token, bearer_of(request.headers) or given_admin_token(request))
        except ApiError as error:
            request_id = sandbox.control_ids.new("req_")
            response = render_error(error, request_id)
            response.headers = [*response.headers, (b"x-request-id", request_id.encode())]
            return response
        body = metrics.exposition() if request.method == "GET" else b""
        headers = [(b"content-type", CONTENT_TYPE.encode())]
        return Response(200, [*headers, (b"content-length", str(len(body)).encode())], body)


_REGIONS = ("/us/v1", "/eu/v1")
_PARAMETER = re.compile(r"\{[^}]*\}")


def _documented(template: str | None) -> str | None:
    """A route's template as the API reference writes it: each path parameter `{id}`
    (`/v1/documents/{id}`, `/v1/workflows/{id}/advance`)."""
    return None if template is None else _written(template)


@functools.cache  # one entry per route template: as many as the app has routes
def _written(template: str) -> str:
    return _PARAMETER.sub("{id}", template)


def _route(scope: Scope, method: str) -> str | None:
    """The template of the route that served the request, or (for an answer given before any
    route ran: a refusal, a scenario's; or a durable sandbox's, which ran on a scope of its own)
    of the route that serves its path, or None."""
    route = scope.get("route")
    if route is not None and not isinstance(route, Mount):  # a mount's: none of its routes
        root: str = scope.get("root_path", "")
        template: str = route.path
        return root[len(scope.get("app_root_path", root)) :] + template
    app = scope.get("app")
    if app is None:
        return None
    path: str = scope["path"]
    if path.startswith(_REGIONS):
        path = path[3:]
    probe = {"type": "http", "path": path, "method": method, "root_path": ""}
    return _matching(app.router.routes, probe, "")


def _matching(routes: list[BaseRoute], probe: Scope, prefix: str) -> str | None:
    partial = None
    for route in routes:
        match, child = route.matches(probe)
        if match is Match.NONE:
            continue
        if isinstance(route, Mount):
            inner = _matching(route.routes, {**probe, **child}, prefix + route.path)
            if inner is not None:
                return inner
            continue
        template = prefix + str(getattr(route, "path", ""))
        if match is Match.FULL:
            return template
        partial = partial or template
    return partial
