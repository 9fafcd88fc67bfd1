"""Why a request was refused: the journal's `explain` of an error answer.

The check that refuses a request knows why; it says so on the error it raises
(`ApiError.because`). A refusing step keeps a `refusal` (a tuple of what the error already holds)
on the journal entry, and `explanation` turns it into the journal's `explain` object when the
journal is read: `{"check": C, "message": ..., <the check's fields>}`. An error raised without a
reason gets the check its status stands for, so every error answer is explained.
`header_value` is the one-line `X-Mock-Explain` response header a request may ask for. Only
errors come here: a 2xx answer costs nothing.
"""

from __future__ import annotations

from typing import Any

import orjson

from mockserver.core.errors import ApiError, Reason

Explain = dict[str, Any]
# (the check's reason, message, param, status, path): an error as the journal keeps it
Refusal = tuple[Reason | None, str, str | None, int, str]

# The check an error stands for when the code that raised it gave no reason.
_BY_STATUS = {
    400: "request",
    401: "authentication",
    403: "scope",
    404: "not_found",
    409: "state",
    413: "request",
    422: "validation",
    429: "rate_limit",
}
INTERNAL = "internal"  # a 5xx the mock answered on its own: a fault of the mock itself
_HEADER_MAX = 512  # characters of the X-Mock-Explain header value at most


def check_for(status: int) -> str:
    """The check an error answer of `status` stands for, without a better reason."""
    return _BY_STATUS.get(status, INTERNAL if status >= 500 else "request")


def refusal(error: ApiError, path: str) -> Refusal:
    """What the journal keeps of a request refused by `error` (`path`: the request's path,
    the resource of a not-found without one): a tuple, made at once, rendered when read."""
    return (error.explain, error.message, error.param, error.status, path)


def explanation(refused: Refusal) -> Explain:
    """The `explain` object of a refusal."""
    reason, message, param, status, path = refused
    check: str = reason["check"] if reason else check_for(status)
    out: Explain = {"check": check, "message": message}
    if param is not None and check in ("validation", "request"):
        out["param"] = param
    if reason:
        for name, value in reason.items():
            if name != "check":
                out[name] = value
    if check == "not_found" and "resource" not in out:
        out["resource"] = path
    return out


def replayed(status: int, body: bytes, path: str) -> Refusal:
    """The refusal of an error answer that no check described as it was sent (a kept answer
    replayed for an `Idempotency-Key`): the check its status stands for, and the message of
    its error envelope."""
    message = ""
    try:
        error = orjson.loads(body).get("error") if body else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
    except (orjson.JSONDecodeError, AttributeError):
        pass
    return (None, message, None, status, path)


def header_value(refused: Refusal) -> bytes:
    """`<check>: <message>` as one line of printable ASCII (anything else becomes `?`, line
    breaks and tabs a space), at most `_HEADER_MAX` characters."""
    reason, message, _, status, _ = refused
    check = reason["check"] if reason else check_for(status)
    text = f"{check}: {message}"
    clean = "".join(
        " " if ch in "\r\n\t" else ch if " " <= ch <= "~" else "?" for ch in text[:_HEADER_MAX]
    )
    return clean.strip().encode("ascii")
