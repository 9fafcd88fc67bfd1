"""What one request carries on its way through the sandbox, and what its steps learn about it.

Every step reads and writes this one typed object rather than passing values along: the
credential step records the caller, the idempotency step the body it parsed, the handler the
permission it required, the scenario step the rule that answered; the journal entry is
written from it once the answer is known.
"""

from __future__ import annotations

from typing import Any

from mockserver.domain.auth import Principal
from mockserver.engine.explain import Refusal
from mockserver.engine.journal import Entry
from mockserver.engine.request import BodyReader, Request


class RequestState:
    """One request and what the steps learn about it.

    `path`: without the regional prefix; `path_region`: the region that prefix named;
    `region`: routed (`us`, `eu`, or None for the account's default); `authorization`: the
    request's one `Authorization` value, as the credential step read it; `principal`: the
    caller the rate limits resolved; `parsed_body`: the body's bytes and object when the
    idempotency fingerprint parsed it; `operation`: the permission the operation required
    (None until one ran); `rule`: the scenario rule that answered; `explain`: why the request
    was refused (see engine.explain); `chaos`: the journal's mark of a scenario's chaos (see
    engine.faults); `idempotency_keys`: the values of its `Idempotency-Key` headers, when the
    operation takes one; `replayed`: the status and body of a kept answer it replayed."""

    __slots__ = (
        "_body",
        "_reader",
        "authorization",
        "chaos",
        "entry",
        "explain",
        "idempotency_keys",
        "operation",
        "parsed_body",
        "path",
        "path_region",
        "principal",
        "region",
        "replayed",
        "request",
        "request_id",
        "rule",
    )

    def __init__(
        self,
        request: Request,
        path: str,
        path_region: str | None,
        request_id: str,
        reader: BodyReader | None,
        entry: Entry | None,
    ) -> None:
        self.request = request
        self.path = path
        self.path_region = path_region
        self.request_id = request_id
        self.entry = entry
        self.region: str | None = None
        self.authorization: bytes | None = None
        self.principal: Principal | None = None
        self.parsed_body: tuple[bytes, dict[str, Any]] | None = None
        self.operation: str | None = None
        self.rule: str | None = None
        self.explain: Refusal | None = None
        self.chaos: dict[str, Any] | None = None
        self.idempotency_keys: list[str] = []
        self.replayed: tuple[int, bytes] | None = None
        self._reader = reader
        self._body: bytes | None = None

    @property
    def body_read(self) -> bytes | None:
        """The body, if a step has read it already (None: not yet)."""
        return self._body

    async def body(self, cap: int) -> bytes:
        """The request body: at most `cap` + 1 bytes of it when it arrives now (more than
        `cap` means it is too large); read once, and written to the journal as read."""
        if self._body is None:
            reader = self._reader
            body = self.request.body if reader is None else await reader(cap)
            self._body = body
            if self.entry is not None:
                self.entry.add_request_body(body)
        return self._body
