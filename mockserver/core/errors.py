"""Every error the mock raises, and how each maps to a status or an exit code.

    Exception
     +-- MockError                         the root: every error of the mock (public)
          +-- ApiError                     status, type: one error envelope (docs/reference)
          |    +-- BadRequest              400 bad_request
          |    |    +-- RequestTimeout     408 bad_request
          |    |    +-- PayloadTooLarge    413 bad_request
          |    +-- AuthenticationError     401 authentication_error
          |    +-- PermissionDenied        403 permission_error
          |    +-- NotFound                404 not_found
          |    +-- Conflict                409 conflict
          |    +-- ValidationError         422 validation_error
          |    +-- RateLimited             429 rate_limit_error
          |    +-- InternalError           500 api_error
          |         +-- ServiceUnavailable 503 api_error
          +-- LoadError                    a seed or scenario file is bad: `file:line: message`,
          |    |                           exit 2
          |    +-- SeedError
          |    +-- ScenarioError
          |    +-- StateDirError           a --state-dir that cannot be used: `dir: message`
          |    +-- RecordingError          a recording `mockserver import` cannot read
          +-- MissingExtra                 a command's optional dependency is not installed:
                                           the message names the extra, exit 2

Only `mockserver.engine.envelope` turns an ApiError into a response body. An error may carry
`explain`: the check that refused the request and its fields (`Reason`), for the journal's
`explain` (`mockserver.engine.explain`); the response body never shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Self

Reason = dict[str, Any]  # {"check": C, field: value, ...}: why a check refused a request


class MockError(Exception):
    """The root of every error the mock raises: an answer's error (`ApiError`), a file that
    does not load (`LoadError`) or a command whose optional dependency is missing
    (`MissingExtra`)."""


class ApiError(MockError):
    """An error answered in the service's envelope."""

    status: ClassVar[int] = 500
    type: ClassVar[str] = "api_error"

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        headers: dict[str, str] | None = None,
        code: str | None = None,
        explain: Reason | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.headers = headers or {}
        self.code = code
        self.explain = explain

    def because(self, check: str, **fields: Any) -> Self:
        """This error, with the check that refused the request and that check's fields."""
        self.explain = {"check": check, **fields}
        return self


class BadRequest(ApiError):
    status = 400
    type = "bad_request"


class RequestTimeout(BadRequest):
    """The request body stopped arriving (`web/middleware/body_timeout.py`)."""

    status = 408


class PayloadTooLarge(BadRequest):
    status = 413


class AuthenticationError(ApiError):
    status = 401
    type = "authentication_error"


class PermissionDenied(ApiError):
    status = 403
    type = "permission_error"


class NotFound(ApiError):
    status = 404
    type = "not_found"

    @classmethod
    def resource(cls, kind: str, ident: str, *, param: str | None = None) -> NotFound:
        """The one not-found error for every resource kind."""
        return cls(
            f"No such {kind}: '{ident}'",
            param=param,
            explain={"check": "not_found", "resource": ident},
        )


class Conflict(ApiError):
    status = 409
    type = "conflict"


class ValidationError(ApiError):
    status = 422
    type = "validation_error"

    def __init__(self, message: str, *, param: str, **kwargs: object) -> None:
        super().__init__(message, param=param, **kwargs)  # type: ignore[arg-type]


class SnapshotError(ValidationError):
    """A snapshot file that cannot be loaded here: not one, damaged, or from another version,
    seed or start (param `file`)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, param="file")


class RateLimited(ApiError):
    status = 429
    type = "rate_limit_error"


class InternalError(ApiError):
    status = 500
    type = "api_error"


class ServiceUnavailable(InternalError):
    """A request still running when the server's shutdown grace ended (`serving/stopping.py`)."""

    status = 503


class LoadError(MockError):
    """A bad seed or scenario file; the CLI prints it and exits with `exit_code`.

    One error may stand for several problems of the file (`every`): it is the first of them
    (`file`, `line`, `message`), `problems` holds them all in order, and `str` is one
    `file:line: message` line per problem.
    """

    exit_code: ClassVar[int] = 2

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message
        self.problems: tuple[LoadError, ...] = (self,)

    @classmethod
    def every(cls, problems: Sequence[LoadError]) -> Self:
        """One error for all of `problems` (at least one), in the order given. Each of its
        `problems` is a single one, so they can be sorted and joined with others again."""
        flat = [p for problem in problems for p in problem.problems]
        error = cls(flat[0].file, flat[0].line, flat[0].message)
        error.problems = tuple(flat)
        return error

    def __str__(self) -> str:
        return "\n".join(f"{p.file}:{p.line}: {p.message}" for p in self.problems)


class SeedError(LoadError):
    pass


class ScenarioError(LoadError):
    pass


class StateDirError(LoadError):
    """A `--state-dir` that cannot be used: taken by another process, damaged, or written by
    another sandbox. `file` is the directory (or the file in it); there is no line."""

    def __init__(self, file: str, message: str) -> None:
        super().__init__(file, 0, message)

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


class MissingExtra(MockError):
    """A command needs an optional dependency that is not installed; the message says which
    extra brings it. The CLI prints it and exits with `exit_code`."""

    exit_code: ClassVar[int] = 2
