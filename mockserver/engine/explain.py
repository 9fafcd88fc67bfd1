"""Why a request was refused: the journal's `explain` of an error answer.

The check that refuses a request knows why; it says so on the error it raises
(`ApiError.because`). `explanation` turns that into the journal's `explain` object:
`{"check": C, "message": ..., <the check's fields>}`. An error raised without a reason gets
the check its status stands for, so every error answer is explained. `header_value` is the
one-line `X-Mock-Explain` response header a request may ask for. Built only for errors: a 2xx
answer costs nothing here.
"""

from __future__ import annotations

from typing import Any

import orjson

from mockserver.core.errors import ApiError

Explain = dict[str, Any]

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


def explanation(error: ApiError, path: str) -> Explain:
    """The `explain` of a request refused by `error` (`path`: the request's path, the resource
    of a not-found without one)."""
    reason = error.explain
    check: str = reason["check"] if reason else check_for(error.status)
    out: Explain = {"check": check, "message": error.message}
    if error.param is not None and check in ("validation", "request"):
        out["param"] = error.param
    if reason:
        for name, value in reason.items():
            if name != "check":
                out[name] = value
    if check == "not_found" and "resource" not in out:
        out["resource"] = path
    return out


def from_answer(status: int, body: bytes) -> Explain:
    """The `explain` of an error answer that no check described as it was raised (a kept
    answer replayed for an `Idempotency-Key`): the check its status stands for and the
    message of its error envelope."""
    message = ""
    try:
        error = orjson.loads(body).get("error") if body else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
    except (orjson.JSONDecodeError, AttributeError):
        pass
    return {"check": check_for(status), "message": message}


def wants_header(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether the request asked for `X-Mock-Explain: 1`."""
    return any(name == b"x-mock-explain" and value.strip() == b"1" for name, value in headers)


def header_value(explain: Explain) -> bytes:
    """`<check>: <message>` as one line of printable ASCII (anything else becomes `?`, line
    breaks and tabs a space), at most `_HEADER_MAX` characters."""
    text = f"{explain['check']}: {explain.get('message', '')}"
    clean = "".join(
        " " if ch in "\r\n\t" else ch if " " <= ch <= "~" else "?" for ch in text[:_HEADER_MAX]
    )
    return clean.strip().encode("ascii")
