"""The request's journal entry, request id and `Date`, from the streams of the sandbox that
answers it (the server's, or the account sandbox `AccountSandbox` picked).

On the way in: the `/us/v1` or `/eu/v1` prefix taken off the path, the mock clock read once,
the timers that fell due, the `req_` id (the control plane's from a stream of its own, so
steering the sandbox changes nothing it holds), the journal entry (API requests only: reading
the journal through `/_mock` must not change it; the path as sent) and the request's
`RequestState`, in `scope["state"]["request"]` for everything below. On the way out: `Date`
(the mock clock's second when the request came in) after every other header, the entry's
answer (bodies before any compression; a transport fault's kind, and whether the request ran),
the sandbox's observers (`SandboxState.observe`), and what the metrics and traces learn of a
client's request (its `Observed`, which `observability.py` made current: the account, request
id, the rule that answered it, whether a rate limit refused it).
"""

from __future__ import annotations

from time import perf_counter

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mockserver.core.clock import http_date
from mockserver.core.observed import CURRENT, Observed
from mockserver.engine.explain import header_value, replayed
from mockserver.engine.journal import Answered, Entry, RequestState
from mockserver.engine.request import (
    CONTROL_PLANE,
    Disconnected,
    HeaderLines,
    Response,
    body_reader,
    is_own,
    request_of,
)
from mockserver.engine.sandbox import SandboxState
from mockserver.engine.transport_error import TransportFaultError


class RequestJournal:
    """Opens a request's entry and state, and closes them with its answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sandbox: SandboxState = scope["state"]["sandbox"]
        store = sandbox.store
        path_region, path = _split_region(scope["path"])
        observed = None if is_own(scope) else CURRENT.get()  # a client's request's
        request = request_of(scope)
        reader = body_reader(receive)
        control = path.startswith(CONTROL_PLANE)
        arrived = store.clock.now()  # the request's one reading of the clock on its way in
        date = (b"date", http_date(arrived))
        store.scheduler.run_due(arrived)  # real clock: timers that fell due since the last request
        request_id = (sandbox.control_ids if control else store.request_ids).new("req_")
        entry: Entry | None = None
        if sandbox.settings.admin and not control:
            query = request.query.decode("latin-1")
            seen = tuple(request.headers)
            entry = sandbox.journal.open(arrived, request.method, request.path, query, seen)
        started = perf_counter()
        state = RequestState(request, path, path_region, request_id, reader, entry, arrived)
        scope["state"]["request"] = state
        scope["path"] = path  # what the routes match: one table serves all three base URLs
        status = 0
        headers: HeaderLines = []
        chunks: list[bytes] = []

        async def send_dated(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message["headers"], date]  # the app below is ours: a list of pairs
                # A copy goes on: the middleware above (gzip) edits the list it is sent.
                message = {**message, "headers": list(headers)}
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, send_dated)
        except Disconnected:
            return  # the client left before its body arrived: no one to answer
        except TransportFaultError as faulted:
            response = faulted.response
            response.headers = [*response.headers, date]
            self._answered(sandbox, state, response, control, started)
            raise
        else:
            if status:  # nothing at all when the client left before its body came
                answer = (status, headers, b"".join(chunks))
                self._answered(sandbox, state, answer, control, started)
        finally:
            # The state holds the body's reader, which holds the server's connection, which
            # holds this scope: letting go of it leaves no cycle for the collector.
            del scope["state"]["request"]
            if entry is not None:
                entry.duration = perf_counter() - started
                entry.rule = state.rule
                entry.scenario = state.scenario
                entry.explain = state.explain
                entry.chaos = state.chaos
            if observed is not None:
                note_observed(observed, state, sandbox)

    @staticmethod
    def _answered(
        sandbox: SandboxState,
        state: RequestState,
        answer: Response | tuple[int, HeaderLines, bytes],
        control: bool,
        started: float,
    ) -> None:
        """Write the answer (sent: its status, headers and body; or the response a transport
        fault broke) into the entry, and tell the observers of an API request."""
        if isinstance(answer, Response):
            response: Response | None = answer
            status, headers, body, fault = answer.status, answer.headers, answer.body, answer.fault
        else:
            response, fault = None, None
            status, headers, body = answer
        entry = state.entry
        if entry is not None:
            if fault is None:
                entry.status = status
            else:  # a request that did not run (reset, stall) had no answer
                entry.fault = fault.kind
                entry.committed = fault.committed
                entry.status = status if fault.committed else None
            entry.response_headers = tuple(headers)
            entry.add_response_body(body)
        if control or not sandbox.observers:
            return
        if response is None:
            response = Response(status, headers, body)
        explain = None
        if response.status >= 400 or response.fault is not None:
            refused = state.explain or replayed(response.status, response.body, state.path)
            explain = header_value(refused).decode("ascii")
        principal = state.principal
        account = principal.account_id if principal is not None else sandbox.account
        seconds = perf_counter() - started
        answered = Answered(
            state.request, response, state.request_id, account, explain, seconds, state.arrived
        )
        for observer in sandbox.observers:
            observer(answered)


def note_observed(observed: Observed, state: RequestState, sandbox: SandboxState) -> None:
    """What the metrics and traces learn of a client's request from its state."""
    principal = state.principal
    observed.account = principal.account_id if principal is not None else sandbox.account
    observed.request_id = state.request_id
    observed.rule = state.rule
    refusal = state.explain
    if refusal is not None and refusal[3] == 429:
        reason = refusal[0]
        observed.rate_limited = reason is None or reason.get("check") == "rate_limit"


_REGION_PREFIXES = {"/us/v1": "us", "/eu/v1": "eu"}


def _split_region(path: str) -> tuple[str | None, str]:
    """(`us`|`eu`|None, the path without its regional prefix)."""
    if path.startswith("/v1"):  # the usual path: no prefix to look up
        return None, path
    region = _REGION_PREFIXES.get(path[:6])
    if region is not None and (len(path) == 6 or path[6] == "/"):
        return region, path[3:]
    return None, path
