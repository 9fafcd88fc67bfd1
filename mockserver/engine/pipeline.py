"""Every step of a request, in the order the real service takes them: the one path from a
`Request` to its `Response`.

For every request: a journal entry (API requests only: reading the journal through `/_mock`
must not change it; the path as sent, bodies before any compression), timers that fell due,
the region from a `/us/v1` or `/eu/v1` prefix (stripped, so one route table serves all three
base URLs) or a regional host, the `req_` request id, then for API requests the rate limits
and the credential (`traffic.py`), for `/_mock` ones the guard against web pages when no admin
token is set (`control_plane/origin_guard.py`), the query's form, an `Idempotency-Key`'s hold,
replay or refusal (`kept_responses.py`), loaded scenarios' rules (`faults.py`), and the
handler the router finds. Every answer gets `X-Request-Id`, the rate-limit headers and `Date`
(the mock clock's second when the request came in), and any error the envelope: an ApiError
as itself, anything else as a logged 500 `api_error`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from time import perf_counter
from typing import TYPE_CHECKING, NamedTuple

from mockserver.core.clock import http_date
from mockserver.core.errors import ApiError, InternalError
from mockserver.core.ids import IdFactory
from mockserver.engine.envelope import render_error
from mockserver.engine.explain import header_value, refusal, replayed, wants_header
from mockserver.engine.faults import apply_rules
from mockserver.engine.journal import Entry, Journal
from mockserver.engine.kept_responses import REPLAYED, Replay, Ticket, claim, unpack_response
from mockserver.engine.reading import check_query, credential_headers, routed_region, split_region
from mockserver.engine.request import BodyReader, Disconnected, HeaderLines, Request, Response
from mockserver.engine.request_state import RequestState
from mockserver.engine.routing import Router
from mockserver.engine.traffic import Admission, Traffic

if TYPE_CHECKING:
    from mockserver.domain.store import Store
    from mockserver.scenarios.engine import ScenarioEngine

log = logging.getLogger("mockserver")

CONTROL_PLANE = "/_mock"


Dispatch = Callable[[RequestState], Awaitable[Response]]


class Answered(NamedTuple):
    """An API request once answered, as the callbacks of `SandboxState.observe` get it: `account`
    is the account of its key (or of the account sandbox that answered it), None without one;
    `explain` the `check: message` line of an error answer (as `X-Mock-Explain` has it), None
    for a success; `seconds` the time the sandbox took; `at` the mock clock's time when it came
    in (its `Date`), on the clock of the sandbox that answered."""

    request: Request
    response: Response
    request_id: str
    account: str | None
    explain: str | None
    seconds: float
    at: float


Observer = Callable[[Answered], None]


class Pipeline:
    """The steps around a sandbox's handlers (`dispatch`: the router's)."""

    def __init__(
        self,
        store: Store,
        scenarios: ScenarioEngine,
        router: Router,
        dispatch: Dispatch,
        journal: Journal | None,
        *,
        control_guard: Callable[[Request], None] | None = None,
        owner: Callable[[Request], Pipeline | None] | None = None,
        outer_scenarios: ScenarioEngine | None = None,
        observers: list[Observer],
        account: str | None = None,
    ) -> None:
        self.store = store
        self.scenarios = scenarios
        self.router = router
        self.dispatch = dispatch
        self.journal = journal
        self.control_guard = control_guard  # refuses a `/_mock` request before it is read
        self.traffic = Traffic(store, scenarios)
        # The control plane's request ids: a stream of their own, so that steering the sandbox
        # (saving a snapshot, listing requests) changes nothing the sandbox holds. A reset
        # starts it again, as it does every stream.
        self.control_ids = IdFactory(store.random_seed, f"{store.streams}control-requests")
        store.reset_hooks.append(self._restart_control_ids)
        # The pipeline of the account sandbox that answers a request instead, if any (the
        # server's pipeline only; see engine/accounts).
        self.owner = owner
        # The server's scenarios, in an account's pipeline: they apply after the account's own.
        self.outer_scenarios = outer_scenarios
        # Told of every API request once answered (a request log); an account's pipeline
        # shares the server's list.
        self.observers = observers
        self.account = account  # the account of an account sandbox's pipeline

    def _restart_control_ids(self) -> None:
        store = self.store
        self.control_ids = IdFactory(store.random_seed, f"{store.streams}control-requests")

    async def serve(self, request: Request, reader: BodyReader | None = None) -> Response:
        """The answer to `request` (its body from `reader` when given, else `request.body`).
        Raises Disconnected when the client left before its body arrived."""
        store = self.store
        entry: Entry | None = None
        control = request.path.startswith(CONTROL_PLANE)
        if self.owner is not None and not control:
            owner = self.owner(request)
            if owner is not None:
                return await owner.serve(request, reader)
        observed = bool(self.observers) and not control
        if self.journal is not None and not control:
            query = request.query.decode("latin-1")
            seen = tuple(request.headers)
            entry = self.journal.open(store.clock.now(), request.method, request.path, query, seen)
            started = perf_counter()
        elif observed:
            started = perf_counter()
        path_region, path = split_region(request.path)
        store.scheduler.run_due()  # real clock: timers that fell due since the last request
        request_id = (self.control_ids if control else store.request_ids).new("req_")
        state = RequestState(request, path, request_id, reader, entry)
        arrived = store.clock.now()
        date = (b"date", http_date(arrived))
        ticket: Ticket | None = None
        rate_headers: HeaderLines = []
        try:
            try:
                admission: Admission | None = None
                if not path.startswith(CONTROL_PLANE):
                    authorization, keys = credential_headers(request.headers)  # 401 for two
                    state.authorization = authorization
                    client = request.client[0] if request.client else ""
                    admission = self.traffic.admit(
                        authorization, keys, request.method, path, client
                    )
                    state.principal = admission.principal
                    if admission.refusal is not None:
                        state.rule = admission.rule
                        raise admission.refusal
                    rate_headers = admission.headers
                elif self.control_guard is not None:
                    self.control_guard(request)
                check_query(request.query)
                state.region = routed_region(request.headers, request.method, path, path_region)
                if admission is not None and admission.idempotency_keys and admission.principal:
                    claimed, parsed = await claim(
                        self.traffic,
                        admission.principal,
                        admission.idempotency_keys,
                        request.method,
                        state.region,
                        path,
                        request.headers,
                        state.body,
                    )
                    if isinstance(parsed, dict):
                        state.parsed_body = (state.body_read or b"", parsed)
                    if isinstance(claimed, Replay):
                        replay = self._replay(state, claimed, rate_headers, date)
                        if observed:
                            self._observed(state, replay, started, arrived)
                        return replay
                    ticket = claimed
                scenarios = self.scenarios
                if (
                    scenarios.active
                    and path.startswith("/v1")
                    and scenarios.applies(request.method, path)
                ):
                    response = await apply_rules(scenarios, state, self._outer(state))
                elif self.outer_scenarios is not None and path.startswith("/v1"):
                    response = await self._outer(state)()
                else:
                    response = await self.dispatch(state)
            except ApiError as error:
                state.explain = refusal(error, path)
                if wants_header(request.headers):  # after what a key keeps: a replay never has it
                    rate_headers = [*rate_headers, (b"x-mock-explain", header_value(state.explain))]
                response = render_error(error, request_id)
            except Disconnected:
                raise  # no one to answer
            except Exception as error:
                log.exception("unhandled error in %s %s (%s)", request.method, path, request_id)
                del store.errors[:-99]  # keep the latest 100
                store.errors.append(error)
                internal = InternalError("An unexpected error occurred on the service side.")
                state.explain = refusal(internal, path)
                if wants_header(request.headers):
                    rate_headers = [*rate_headers, (b"x-mock-explain", header_value(state.explain))]
                response = render_error(internal, request_id)
            headers = [*response.headers, (b"x-request-id", request_id.encode())]
            fault = response.fault
            if ticket is not None and (fault is None or fault.committed):
                ticket.answered(state.operation, response.status, headers, response.body)
            headers += rate_headers
            headers.append(date)
            response.headers = headers
            if entry is not None:
                if fault is None:
                    entry.status = response.status
                else:  # a request that did not run (reset, stall) had no answer
                    entry.fault = fault.kind
                    entry.committed = fault.committed
                    entry.status = response.status if fault.committed else None
                entry.response_headers = tuple(headers)
                entry.add_response_body(response.body, response.kept)
            if observed:
                self._observed(state, response, started, arrived)
            return response
        finally:
            if ticket is not None:
                ticket.close()
            if entry is not None:
                entry.duration = perf_counter() - started
                entry.rule = state.rule
                entry.explain = state.explain
                entry.chaos = state.chaos

    def _observed(self, state: RequestState, response: Response, started: float, at: float) -> None:
        """Tell the observers of an answered API request."""
        explain = None
        if response.status >= 400 or response.fault is not None:
            refused = state.explain or replayed(response.status, response.body, state.path)
            explain = header_value(refused).decode("ascii")
        principal = state.principal
        account = principal.account_id if principal is not None else self.account
        seconds = perf_counter() - started
        answered = Answered(
            state.request, response, state.request_id, account, explain, seconds, at
        )
        for observer in self.observers:
            observer(answered)

    def _outer(self, state: RequestState) -> Callable[[], Awaitable[Response]]:
        """The answer once this pipeline's scenario rules let the request through: the
        server's rules next, in an account's pipeline, then the handler."""
        outer = self.outer_scenarios
        if outer is not None and outer.active:
            return lambda: apply_rules(outer, state, lambda: self.dispatch(state))
        return lambda: self.dispatch(state)

    @staticmethod
    def _replay(
        state: RequestState, kept: Replay, rate_headers: HeaderLines, date: tuple[bytes, bytes]
    ) -> Response:
        """A kept response answered again: as it was sent (X-Request-Id included), then this
        request's rate-limit headers, `Idempotent-Replayed` and its own `Date`."""
        status, headers, body = unpack_response(kept.response)
        headers = [*headers, *rate_headers, REPLAYED]
        if status >= 400 and wants_header(state.request.headers):
            headers.append((b"x-mock-explain", header_value(replayed(status, body, state.path))))
        headers.append(date)
        entry = state.entry
        if entry is not None:
            entry.status = status
            entry.response_headers = tuple(headers)
            entry.add_response_body(body)
        return Response(status, headers, body)
