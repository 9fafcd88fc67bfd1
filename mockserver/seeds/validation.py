"""The checks a seed is made of: one value, one mapping's keys, one workflow's story.

`mockserver.seeds.builder` walks a parsed seed (plain dicts, lists and scalars) and calls these;
each returns the checked value or raises `Invalid`, whose `at` names the offending node as a
path of keys and list indices. `mockserver.seeds.loader` looks its YAML line up only when
something is wrong. Checks take the parent path and the key separately and build the full path
only when they fail, since a big seed runs them for every node. Strings a seed repeats (emails,
choices, conditions, comments) come back as one shared object each: a parser makes a new
string per occurrence, and a large seed holds them for the server's life.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from datetime import UTC, date, datetime
from typing import NoReturn
from urllib.parse import urlsplit

from mockserver.core.clock import format_ts, parse_ts
from mockserver.domain.conditions import ConditionSyntaxError, parse
from mockserver.domain.models import READ_SCOPES, SCOPES, Document, Limits, WorkflowStep
from mockserver.domain.webhook_rules import (
    EVENT_TYPES,
    URL_MAX,
    WILDCARD,
    normal_url,
    url_problem,
)

PathT = tuple[str | int, ...]
PathPart = str | int

MAX_SAFE_INT = 2**53  # metadata ints must survive JavaScript clients
SIGNED_STATUSES = frozenset({"signed", "locked"})
STEP_DECISIONS = ("approve", "reject", "skipped")
PASSED = frozenset({"approve", "skipped"})  # the decisions that move a workflow on

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+\Z")
_ID_TAIL = re.compile(r"[A-Za-z0-9_]{1,100}\Z")
_KNOWN_EMAILS_MAX = 10_000
_known_emails: dict[str, str] = {}  # valid address -> its interned copy (see email)


class Invalid(Exception):
    """One problem in a parsed seed; `message` is rendered, `at` is the node to report.
    The builder raises the first problem it found with the rest in `others`."""

    def __init__(self, path: PathT, message: str, *, at: PathT | None = None) -> None:
        where = render_path(path)
        self.message = f"{where}: {message}" if where else message
        self.at = path if at is None else at
        self.others: list[Invalid] = []
        super().__init__(self.message)


def render_path(path: PathT) -> str:
    """`("accounts", 0, "keys", 2)` -> `accounts[0].keys[2]`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else part
    return out


def fail(path: PathT, key: PathPart, message: str) -> NoReturn:
    raise Invalid((*path, key), message)


@dataclasses.dataclass(frozen=True, slots=True)
class Fields:
    """The keys one kind of mapping may have; unknown keys are errors, so typos surface."""

    required: frozenset[str]
    allowed: frozenset[str]

    @classmethod
    def of(cls, required: str, optional: str = "") -> Fields:
        return cls(frozenset(required.split()), frozenset((required + " " + optional).split()))

    def check(self, raw: object, path: PathT) -> dict[str, object]:
        """`raw` as a mapping that has every required key and no unknown one."""
        if type(raw) is not dict:
            raise Invalid(path, "must be a mapping")
        if not raw.keys() <= self.allowed:
            unknown = next(key for key in raw if key not in self.allowed)
            raise Invalid(path, f"unknown field '{unknown}'", at=(*path, str(unknown)))
        if not self.required <= raw.keys():
            missing = min(self.required - raw.keys())
            raise Invalid(path, f"missing required field '{missing}'")
        return raw


def text(value: object, path: PathT, key: PathPart, max_len: int = 0) -> str:
    """A non-empty string of at most `max_len` characters (0: no limit)."""
    if type(value) is not str:
        fail(path, key, "must be a string")
    if not value:
        fail(path, key, "must not be empty")
    if max_len and len(value) > max_len:
        fail(path, key, f"must be at most {max_len} characters (got {len(value)})")
    return value


def integer(value: object, path: PathT, key: PathPart, minimum: int) -> int:
    """An int of at least `minimum`; a YAML bool is not an int here."""
    if type(value) is not int:
        fail(path, key, "must be an integer")
    if value < minimum:
        fail(path, key, "must be a positive integer" if minimum == 1 else f"must be >= {minimum}")
    return value


def boolean(value: object, path: PathT, key: PathPart) -> bool:
    if type(value) is not bool:
        fail(path, key, "must be true or false")
    return value


def email(value: object, path: PathT, key: PathPart) -> str:
    """A valid address, interned. Seeds repeat a few addresses hundreds of thousands of times,
    so the ones already checked are remembered (up to _KNOWN_EMAILS_MAX)."""
    if type(value) is str:
        known = _known_emails.get(value)
        if known is not None:
            return known
        if _EMAIL.match(value):
            value = sys.intern(value)
            if len(_known_emails) < _KNOWN_EMAILS_MAX:
                _known_emails[value] = value
            return value
    fail(path, key, f"invalid email {show(value)}")


def choice(value: object, path: PathT, key: PathPart, options: tuple[str, ...]) -> str:
    if type(value) is not str or value not in options:
        fail(path, key, f"unknown {key} {show(value)} (expected one of: {', '.join(options)})")
    return options[options.index(value)]


def prefixed_id(value: object, path: PathT, key: PathPart, prefix: str) -> str:
    """An id such as `vault_mock_us`: the prefix, then 1..100 letters, digits or underscores."""
    if type(value) is str and value.startswith(prefix) and _ID_TAIL.match(value, len(prefix)):
        return value
    fail(path, key, f"invalid id {show(value)}: expected '{prefix}' then letters, digits or '_'")


def timestamp(value: object, path: PathT, key: PathPart) -> int:
    """RFC 3339 as int Unix seconds; unquoted YAML timestamps (datetime, date) count too."""
    if type(value) is str:
        try:  # the common case, without parse_ts's normalising (same result when this parses)
            moment = datetime.fromisoformat(value)
            if moment.tzinfo is not None:
                return int(moment.timestamp())
        except ValueError:
            pass
        try:
            return int(parse_ts(value))
        except (ValueError, OverflowError):
            pass
    elif isinstance(value, datetime):
        return int((value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp())
    elif isinstance(value, date):
        return int(datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp())
    fail(path, key, f"invalid timestamp {show(value)} (expected RFC 3339: 2025-06-01T10:00:00Z)")


@dataclasses.dataclass(frozen=True, slots=True)
class Reference:
    """The seed's reference time (`label` is how messages name it): seeded times are history
    up to it, and the server shifts them so that it maps to the clock's start."""

    time: int
    label: str

    def moment(self, value: object, path: PathT, key: PathPart) -> int:
        """A timestamp at or before the reference time."""
        at = timestamp(value, path, key)
        if at > self.time:
            fail(path, key, f"{format_ts(at)} is after the reference time {self.label}")
        return at


def items(value: object, path: PathT, key: PathPart) -> list[object]:
    """An optional list: absent or null is empty."""
    if value is None:
        return []
    if type(value) is not list:
        fail(path, key, "must be a list")
    return value


def scopes(value: object, path: PathT, key: PathPart) -> tuple[str, ...]:
    """`all`, `read` or a list of known scopes, normalised to the order of models.SCOPES."""
    if value == "all":
        return SCOPES
    if value == "read":
        return READ_SCOPES
    if type(value) is not list:
        fail(path, key, "must be 'all', 'read' or a list of scopes")
    for index, scope in enumerate(value):
        if scope not in SCOPES:
            fail((*path, key), index, f"unknown scope {show(scope)}")
    return tuple(scope for scope in SCOPES if scope in value)


def redirect_uri(value: object, path: PathT, key: PathPart) -> str:
    """An absolute http(s) URL without a fragment (RFC 6749 section 3.1.2)."""
    try:
        parts = urlsplit(value) if type(value) is str else None
    except ValueError:
        parts = None
    if not parts or parts.scheme not in ("http", "https") or not parts.netloc:
        fail(path, key, f"invalid redirect URI {show(value)} (expected an http(s) URL)")
    if parts.fragment:
        fail(path, key, "a redirect URI must not have a fragment")
    return str(value)


def webhook_url(value: object, path: PathT, key: PathPart) -> str:
    """A URL the API would take for an endpoint (https, or http to a loopback host), normalised
    as the API stores it."""
    url = normal_url(text(value, path, key, URL_MAX))
    problem = url_problem(url, strict=False)
    if problem is not None:
        why = f": {problem}" if problem else ""
        fail(path, key, f"invalid webhook URL {show(url)}{why} (expected an https:// URL)")
    return url


def event_types(value: object, path: PathT, key: PathPart) -> tuple[str, ...]:
    """A non-empty list of known event types without repeats, or `["*"]` for all of them."""
    if type(value) is not list or not value:
        fail(path, key, "must be a non-empty list of event types, or ['*']")
    for index, item in enumerate(value):
        if item == WILDCARD and len(value) > 1:
            fail((*path, key), index, "'*' subscribes to every event type: list it alone")
        if item != WILDCARD and item not in EVENT_TYPES:
            fail((*path, key), index, f"unknown event type {show(item)}")
        if item in value[:index]:
            fail((*path, key), index, f"duplicate event type {show(item)}")
    return tuple(value)


def metadata(value: object, path: PathT, limits: Limits) -> dict[str, str | int | bool]:
    """Flat metadata: string keys, and str, safe-int or bool values (no floats, no nesting)."""
    if value is None:
        return {}
    if type(value) is not dict:
        fail(path, "metadata", "must be a mapping")
    path = (*path, "metadata")
    if len(value) > limits.metadata_keys:
        raise Invalid(path, f"at most {limits.metadata_keys} keys allowed (got {len(value)})")
    for key, item in value.items():
        if type(key) is not str or not 0 < len(key) <= limits.metadata_key_len:
            message = f"key {show(key)} must be 1..{limits.metadata_key_len} characters long"
            raise Invalid(path, message, at=(*path, str(key)))
        kind = type(item)
        if kind is str:
            if len(item) > limits.metadata_value_len:
                fail(path, key, f"must be at most {limits.metadata_value_len} characters")
        elif kind is int:
            if not -MAX_SAFE_INT < item < MAX_SAFE_INT:
                fail(path, key, "integer out of range (|n| must be < 2**53)")
        elif kind is not bool:
            fail(path, key, "must be a string, an integer or a boolean")
    return value


# The parsed file's dicts, lists and strings are thrown away once the seed is built. A string
# kept from them would pin their memory: the allocator could not give back its pools, which were
# filled during parsing, and a large seed would keep most of the parse resident. So what is
# kept is copied (the copies are made while building, beside the other objects kept).


def fresh(value: str) -> str:
    """An equal string that is not `value`."""
    return value.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


def kept_metadata(
    meta: dict[str, str | int | bool], known: dict[str, str]
) -> dict[str, str | int | bool]:
    """Checked metadata to keep: keys interned, strings copied and shared by equal ones (seeds
    repeat them), ints copied (bools and small ints are shared, never copied). `known` holds
    the strings kept so far, each the interned copy, so a repeated value costs one lookup."""
    out: dict[str, str | int | bool] = {}
    for key, value in meta.items():
        if type(value) is str:
            copy = known.get(value)
            if copy is None:
                copy = sys.intern(fresh(value))
                known[copy] = copy
            out[sys.intern(key)] = copy
        elif type(value) is int:
            out[sys.intern(key)] = value + 0
        else:
            out[sys.intern(key)] = value
    return out


def limits(value: object, path: PathT) -> Limits:
    """Any subset of the fields of models.Limits, each a positive int."""
    if value is None:
        return Limits()
    names = " ".join(field.name for field in dataclasses.fields(Limits))
    raw = Fields.of("", names).check(value, path)
    return Limits(**{name: integer(raw[name], path, name, 1) for name in raw})


def show(value: object) -> str:
    """A value as messages quote it: strings in single quotes, others as YAML spells them."""
    if isinstance(value, str):
        return f"'{value}'" if len(value) <= 80 else f"'{value[:77]}...'"
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, dict | list):
        return "a mapping" if isinstance(value, dict) else "a list"
    return str(value)


# The keys each kind of mapping in a seed may have: required ones, then optional ones.
SEED = Fields.of("version accounts", "limits reference_time")
ACCOUNT = Fields.of("id name default_region", "users keys oauth_clients environments")
USER = Fields.of("email name permissions")
KEY = Fields.of("key owner scopes", "revoked rate_limit burst")
CLIENT = Fields.of("client_id client_secret redirect_uris", "name token_lifetime")
ENVIRONMENT = Fields.of("", "vaults documents workflows webhook_endpoints")
VAULT = Fields.of("id name region created_at", "lock_after members")
MEMBER = Fields.of("email role")
DOCUMENT = Fields.of(
    "id vault_id title status created_at sha256",
    "version metadata signers signed_at legal_hold",
)
WORKFLOW = Fields.of("id document_id status created_at current_step steps")
STEP = Fields.of("assignee", "condition decision decided_at comment")
ENDPOINT = Fields.of("id url events created_at", "secret")


def read_step(
    value: object, path: PathT, reference: Reference, conditions: dict[str, str | None]
) -> WorkflowStep:
    """One workflow step; `conditions` caches the parser's verdict on each condition text
    (None: it parses), since big seeds repeat a handful of texts many times."""
    raw = STEP.check(value, path)
    assignee = email(raw["assignee"], path, "assignee")
    condition = raw.get("condition")
    if condition is not None:
        condition = sys.intern(text(condition, path, "condition"))
        if condition not in conditions:
            try:
                parse(condition)
                conditions[condition] = None
            except ConditionSyntaxError as exc:
                conditions[condition] = exc.message
        problem = conditions[condition]
        if problem is not None:
            fail(path, "condition", problem)
    decision, decided_at, comment = raw.get("decision"), raw.get("decided_at"), raw.get("comment")
    if decision is None:
        if decided_at is not None or comment is not None:
            key = "decided_at" if decided_at is not None else "comment"
            fail(path, key, "only allowed with a decision")
        return WorkflowStep(assignee, condition)
    decision = choice(decision, path, "decision", STEP_DECISIONS)
    if decision == "skipped" and condition is None:
        fail(path, "decision", "'skipped' needs a condition: only a false one skips a step")
    if decided_at is None:
        raise Invalid(path, f"missing required field 'decided_at' (decision is {decision})")
    decided_at = reference.moment(decided_at, path, "decided_at")
    if comment is not None:  # may be empty, as the API takes it
        if type(comment) is not str:
            fail(path, "comment", "must be a string")
        comment = sys.intern(comment)
    return WorkflowStep(assignee, condition, decision, decided_at, comment)


def workflow_state(
    path: PathT, status: str, current: int, steps: list[WorkflowStep], doc: Document
) -> None:
    """Check that the steps' decisions tell the story `status` and `current_step` claim, and
    that the document is where that story leaves it (docs/reference/api.md, lifecycle): the
    server resumes seeded workflows, so a seed must hold only states the API itself could
    have reached."""
    if current > len(steps):
        fail(path, "current_step", f"is {current} but the workflow has {len(steps)} step(s)")
    if status == "completed" and current != len(steps):
        fail(path, "current_step", f"must be {len(steps)}, the last step, once completed")
    for number, step in enumerate(steps, 1):
        decision, rule = step.decision, ""
        if number < current:
            if decision not in PASSED:
                rule = f"a step before current_step {current} is approve or skipped"
        elif number > current:
            if decision is not None:
                rule = f"steps after current_step {current} are undecided"
        elif status == "completed":
            if decision not in PASSED:
                rule = "every step of a completed workflow is approve or skipped"
        elif status == "rejected":
            if decision != "reject":
                rule = "the current step of a rejected workflow is reject"
        elif decision is not None:
            rule = "the current step of an in_progress workflow is undecided"
        if rule:
            got = show(decision) if decision else "missing"
            fail((*path, "steps", number - 1), "decision", f"is {got}, but {rule}")
    expected = {"in_progress": ("in_review",), "completed": ("signed", "locked")}.get(status)
    if expected and doc.status not in expected:
        wanted = " or ".join(expected)
        fail(path, "status", f"is {status} but document '{doc.id}' is {doc.status} (not {wanted})")
    if status != "completed":
        return
    approvers = list(dict.fromkeys(s.assignee for s in steps if s.decision == "approve"))
    if approvers != doc.signers:
        problem = f"the approving assignees {approvers} must be the signers {doc.signers}"
        fail(path, "steps", f"{problem} of document '{doc.id}', in step order")
    decided_at, signed_at = steps[-1].decided_at, doc.signed_at
    if decided_at is not None and signed_at is not None and decided_at > signed_at:
        fail(
            (*path, "steps", len(steps) - 1),
            "decided_at",
            f"is after the signed_at of document '{doc.id}'",
        )
