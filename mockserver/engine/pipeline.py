"""The steps of a request below its journal entry, in the order the real service takes them.

The journal entry, the request id and `Date` are the middleware's (`web/middleware/`). Then,
for API requests, the rate limits and the credential (`traffic.py`), for `/_mock` ones the
guard against web pages when no admin token is set (`control_plane/origin_guard.py`), the
query's form, the routed region, an `Idempotency-Key`'s hold, replay or refusal
(`kept_responses.py`), loaded scenarios' rules (`faults.py`), and the handler the router
finds. Every answer gets `X-Request-Id` and the rate-limit headers, and any error the
envelope: an ApiError as itself, anything else as a logged 500 `api_error`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from mockserver.core.errors import ApiError, InternalError
from mockserver.engine.envelope import render_error
from mockserver.engine.explain import header_value, refusal, replayed, wants_header
from mockserver.engine.faults import apply_rules
from mockserver.engine.kept_responses import REPLAYED, Replay, Ticket, claim, unpack_response
from mockserver.engine.reading import check_query, credential_headers, routed_region
from mockserver.engine.request import Disconnected, HeaderLines, Request, Response
from mockserver.engine.request_state import RequestState
from mockserver.engine.traffic import Admission, Traffic

if TYPE_CHECKING:
    from mockserver.domain.store import Store
    from mockserver.scenarios.engine import ScenarioEngine

log = logging.getLogger("mockserver")

CONTROL_PLANE = "/_mock"


Dispatch = Callable[[RequestState], Awaitable[Response]]


class Pipeline:
    """The steps around a sandbox's handlers (`dispatch`: the router's)."""

    def __init__(
        self,
        store: Store,
        scenarios: ScenarioEngine,
        dispatch: Dispatch,
        *,
        control_guard: Callable[[Request], None] | None = None,
        outer_scenarios: ScenarioEngine | None = None,
    ) -> None:
        self.store = store
        self.scenarios = scenarios
        self.dispatch = dispatch
        self.control_guard = control_guard  # refuses a `/_mock` request before it is read
        self.traffic = Traffic(store, scenarios)
        # The server's scenarios, in an account's pipeline: they apply after the account's own.
        self.outer_scenarios = outer_scenarios

    async def serve(self, state: RequestState) -> Response:
        """The answer to the request of `state` (journal entry, request id and `Date` are the
        middleware's: `web/middleware/journal.py`). Raises Disconnected when the client left
        before its body arrived."""
        request, path, request_id = state.request, state.path, state.request_id
        store = self.store
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
                state.region = routed_region(
                    request.headers, request.method, path, state.path_region
                )
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
                        return self._replay(state, claimed, rate_headers)
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
            response.headers = headers
            return response
        finally:
            if ticket is not None:
                ticket.close()

    def _outer(self, state: RequestState) -> Callable[[], Awaitable[Response]]:
        """The answer once this pipeline's scenario rules let the request through: the
        server's rules next, in an account's pipeline, then the handler."""
        outer = self.outer_scenarios
        if outer is not None and outer.active:
            return lambda: apply_rules(outer, state, lambda: self.dispatch(state))
        return lambda: self.dispatch(state)

    @staticmethod
    def _replay(state: RequestState, kept: Replay, rate_headers: HeaderLines) -> Response:
        """A kept response answered again: as it was sent (X-Request-Id included), then this
        request's rate-limit headers and `Idempotent-Replayed` (its own `Date` follows)."""
        status, headers, body = unpack_response(kept.response)
        headers = [*headers, *rate_headers, REPLAYED]
        if status >= 400 and wants_header(state.request.headers):
            headers.append((b"x-mock-explain", header_value(replayed(status, body, state.path))))
        return Response(status, headers, body)
