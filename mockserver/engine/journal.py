"""The request journal: a ring of the latest API requests, for `GET /_mock/requests`, and the
state of a request on its way through the steps (`RequestState`), which its entry is written
from once it is answered.

Recording must cost next to nothing on the hot path, so an entry is one small slotted object
holding what the ASGI layer already has (header lists, body bytes cut at `BODY_LIMIT`); it is
rendered to JSON only when someone reads the journal. The ring keeps memory bounded under any
load (`Settings.journal_size`, 10,000 by default).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import orjson

from mockserver.core.clock import format_ts
from mockserver.domain.auth import Principal, mask
from mockserver.domain.views import compacted
from mockserver.engine.explain import Explain, Refusal, explanation, replayed
from mockserver.engine.request import BodyReader, HeaderLines, Request, Response

BODY_LIMIT = 16 * 1024

# Tuples of bytes, not lists: the garbage collector stops tracking them, so a full ring of
# 10,000 entries costs collections next to nothing.
Headers = tuple[tuple[bytes, bytes], ...]


def bearer_credential(headers: Headers) -> str | None:
    """The token of the last `Authorization: Bearer <token>` header, or None."""
    credential = None
    for name, value in headers:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                credential = token.strip()
    return credential


class Entry:
    """One request and, once answered, its response."""

    __slots__ = (
        "_credential",
        "_credential_read",
        "account",
        "at",
        "chaos",
        "committed",
        "duration",
        "explain",
        "fault",
        "method",
        "path",
        "query",
        "request_body",
        "request_headers",
        "request_size",
        "response_body",
        "response_headers",
        "response_size",
        "rule",
        "scenario",
        "seq",
        "status",
    )

    def __init__(
        self, seq: int, at: float, method: str, path: str, query: str, headers: Headers
    ) -> None:
        self.seq = seq
        self.at = at
        self.method = method
        self.path = path
        self.query = query
        self.request_headers = headers
        self._credential: str | None = None
        self._credential_read = False
        self.request_body = b""
        self.request_size = 0
        self.status: int | None = None
        self.response_headers: Headers = ()
        self.response_body = b""
        self.response_size = 0
        self.duration = 0.0
        self.account: str | None = None  # the account whose own sandbox answered it
        self.rule: str | None = None
        # The scenario of the rule that touched it: {name, version, rule}.
        self.scenario: dict[str, str] | None = None
        self.explain: Refusal | None = None  # why an error answer was refused (engine.explain)
        self.fault: str | None = None  # the transport fault that broke its answer's delivery
        self.committed: bool | None = None  # with a fault: whether the request ran
        self.chaos: dict[str, Any] | None = None  # the chaos hit or latency that touched it

    @property
    def credential(self) -> str | None:
        """The bearer token of the request's (last) `Authorization` header, found on first
        read rather than on the hot path."""
        if not self._credential_read:
            self._credential = bearer_credential(self.request_headers)
            self._credential_read = True
        return self._credential

    @credential.setter
    def credential(self, value: str | None) -> None:
        self._credential = value
        self._credential_read = True

    @property
    def request_id(self) -> str | None:
        """The `X-Request-Id` its answer carried: the id its client got (a replayed answer
        carries its first request's); None while in flight or when no answer was sent."""
        for name, value in self.response_headers:
            if name == b"x-request-id":
                return value.decode("latin-1")
        return None

    def add_request_body(self, chunk: bytes) -> None:
        if len(self.request_body) < BODY_LIMIT:  # bytes off the socket: already at their size
            self.request_body += chunk[: BODY_LIMIT - len(self.request_body)]
        self.request_size += len(chunk)

    def add_response_body(self, chunk: bytes) -> None:
        """Keep (the first BODY_LIMIT bytes of) the body, compacted to its size."""
        if len(self.response_body) < BODY_LIMIT:
            room = BODY_LIMIT - len(self.response_body)
            self.response_body = compacted(self.response_body + chunk[:room])
        self.response_size += len(chunk)

    def explained(self) -> Explain | None:
        """`explain` as the journal shows it: None for an answer below 400 (or none yet)
        whose delivery no transport fault broke."""
        if self.fault is not None and self.explain is not None:
            return explanation(self.explain)
        if self.status is None or self.status < 400:
            return None
        if self.explain is None:  # a kept answer replayed: its envelope tells what it was
            return explanation(replayed(self.status, self.response_body, self.path))
        return explanation(self.explain)

    def render(self) -> dict[str, Any]:
        """The entry as `GET /_mock/requests` shows it; `scenario` (which version of which
        scenario's rule touched it) only on an entry a rule touched."""
        rendered = {
            "seq": self.seq,
            "time": format_ts(self.at),
            "account": self.account,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "key": None if self.credential is None else mask(self.credential),
            "status": self.status,
            "request_id": self.request_id,
            "rule": self.rule,
            "explain": self.explained(),
            "fault": self.fault,
            "committed": self.committed,
            "chaos": self.chaos,
            "duration_ms": round(self.duration * 1000, 3),
            "request": {
                "headers": _headers(self.request_headers),
                **_body(self.request_body, self.request_size),
            },
            "response": {
                "headers": _headers(self.response_headers),
                **_body(self.response_body, self.response_size),
            },
        }
        if self.scenario is not None:
            rendered = {**rendered, "scenario": self.scenario}
        return rendered


def _headers(pairs: Headers) -> dict[str, str]:
    """Header names lower-case, repeated ones joined with ', ', credentials masked."""
    out: dict[str, str] = {}
    for raw_name, raw_value in pairs:
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        if name == "authorization":
            scheme, _, token = value.partition(" ")
            value = f"{scheme} {mask(token.strip())}" if token else mask(value)
        elif name == "x-mock-admin-token":
            value = mask(value)
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


def _body(data: bytes, size: int) -> dict[str, Any]:
    """The body as JSON when it is whole JSON, else as text; `truncated` past BODY_LIMIT."""
    body: Any = None
    if data:
        try:
            body = orjson.loads(data) if size == len(data) else None
        except orjson.JSONDecodeError:
            body = None
        if body is None:
            body = data.decode("utf-8", "replace")
    return {"body": body, "size": size, "truncated": size > len(data)}


def key_matches(credential: str | None, wanted: str, prefix: bool = False) -> bool:
    """Whether a request's credential is `wanted`: the whole of it, its masked form (what
    the journal shows, so a key can be filtered by what is read), or with `prefix` its
    start."""
    if credential is None:
        return False
    if credential == wanted or mask(credential) == wanted:
        return True
    return prefix and credential.startswith(wanted)


class Journal:
    """A ring buffer of entries, newest last."""

    def __init__(self, size: int) -> None:
        self._entries: deque[Entry] = deque(maxlen=max(1, size))
        self._seq = 0

    def open(self, at: float, method: str, path: str, query: str, headers: Headers) -> Entry:
        """Start recording a request; the caller fills in the rest as it happens."""
        self._seq += 1
        entry = Entry(self._seq, at, method, path, query, headers)
        self._entries.append(entry)
        return entry

    def clear(self) -> None:
        self._entries.clear()
        self._seq = 0

    def saved(self) -> tuple[int, list[Entry]]:
        """(the last number given, every entry oldest first): what a snapshot keeps."""
        return self._seq, list(self._entries)

    def restore(self, seq: int, entries: list[Entry]) -> None:
        """Put back what `saved` gave."""
        self._entries = deque(entries, maxlen=self._entries.maxlen)
        self._seq = seq

    def forget(self, account: str) -> None:
        """Drop the entries of one account's sandbox (its reset, its removal)."""
        kept = [entry for entry in self._entries if entry.account != account]
        if len(kept) != len(self._entries):
            self._entries = deque(kept, maxlen=self._entries.maxlen)

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> Sequence[Entry]:
        """Every entry, oldest first (a live view: read it without awaiting in between)."""
        return self._entries

    def find(
        self,
        *,
        method: str | None = None,
        path: str | None = None,
        status: int | None = None,
        key: str | None = None,
        account: str | None = None,
        request_id: str | None = None,
        seq: int | None = None,
        limit: int = 100,
        key_prefix: bool = False,
    ) -> list[Entry]:
        """Entries newest first that pass every given filter (`path` is a prefix; `key` the
        whole credential or its masked form as entries show it, or with `key_prefix` its
        start too; `account`: the requests of that account, whichever sandbox answered
        them; `request_id`: those answered with that `X-Request-Id`; `seq`: the one of that
        number)."""
        found: list[Entry] = []
        for entry in reversed(self._entries):
            if account is not None and entry.account != account:
                continue
            if seq is not None and entry.seq != seq:
                continue
            if request_id is not None and entry.request_id != request_id:
                continue
            if method is not None and entry.method != method:
                continue
            if path is not None and not entry.path.startswith(path):
                continue
            if status is not None and entry.status != status:
                continue
            if key is not None and not key_matches(entry.credential, key, key_prefix):
                continue
            found.append(entry)
            if len(found) >= limit:
                break
        return found


class AccountJournal(Journal):
    """An account sandbox's share of the server's journal: its entries are the server's,
    marked with the account, numbered in the server's order."""

    def __init__(self, server: Journal, account: str) -> None:
        self.server = server
        self.account = account

    def open(self, at: float, method: str, path: str, query: str, headers: Headers) -> Entry:
        entry = self.server.open(at, method, path, query, headers)
        entry.account = self.account
        return entry

    def clear(self) -> None:
        self.server.forget(self.account)

    def __len__(self) -> int:
        return sum(1 for entry in self.server.entries() if entry.account == self.account)

    def entries(self) -> Sequence[Entry]:
        return [entry for entry in self.server.entries() if entry.account == self.account]

    def find(
        self,
        *,
        method: str | None = None,
        path: str | None = None,
        status: int | None = None,
        key: str | None = None,
        account: str | None = None,
        request_id: str | None = None,
        seq: int | None = None,
        limit: int = 100,
        key_prefix: bool = False,
    ) -> list[Entry]:
        return self.server.find(
            method=method,
            path=path,
            status=status,
            key=key,
            account=self.account,
            request_id=request_id,
            seq=seq,
            limit=limit,
            key_prefix=key_prefix,
        )

    def saved(self) -> tuple[int, list[Entry]]:
        return 0, list(self.entries())

    def restore(self, seq: int, entries: list[Entry]) -> None:
        """The account's entries as they were, each in its place in the server's order."""
        server = self.server
        others = [entry for entry in server.entries() if entry.account != self.account]
        for entry in entries:
            entry.account = self.account
        merged = sorted([*others, *entries], key=lambda entry: entry.seq)
        server.restore(server._seq, merged)


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


class RequestState:
    """One request and what the steps learn about it.

    `arrived`: the mock clock's time when it came in (its `Date`, its rate window's count,
    its idempotency key's lookup); `path`: without the regional prefix; `path_region`: the
    region that prefix named;
    `region`: routed (`us`, `eu`, or None for the account's default); `authorization`: the
    request's one `Authorization` value, as the credential step read it; `principal`: the
    caller the rate limits resolved; `parsed_body`: the body's bytes and object when the
    idempotency fingerprint parsed it; `operation`: the permission the operation required
    (None until one ran); `rule`: the scenario rule that answered; `explain`: why the request
    was refused (see engine.explain); `chaos`: the journal's mark of a scenario's chaos (see
    engine.faults); `idempotency_keys`: the values of its `Idempotency-Key` headers, when the
    operation takes one; `replayed`: the status and body of a kept answer it replayed;
    `rate_headers`: its rate-limit window's headers, which every answer carries right after its
    `X-Request-Id` once the window counted it."""

    __slots__ = (
        "_body",
        "_reader",
        "arrived",
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
        "rate_headers",
        "region",
        "replayed",
        "request",
        "request_id",
        "rule",
        "scenario",
    )

    def __init__(
        self,
        request: Request,
        path: str,
        path_region: str | None,
        request_id: str,
        reader: BodyReader | None,
        entry: Entry | None,
        arrived: float,
    ) -> None:
        self.request = request
        self.arrived = arrived
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
        self.scenario: dict[str, str] | None = None
        self.explain: Refusal | None = None
        self.chaos: dict[str, Any] | None = None
        self.idempotency_keys: list[str] = []
        self.replayed: tuple[int, bytes] | None = None
        self.rate_headers: HeaderLines = []
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
