"""The command line's HTTP client for a running mock (`trigger`, `listen`, `events resend`).

The only module of `cli/` that imports httpx (`.importlinter` allows just this one): the other
commands build servers in-process, these talk to one that runs elsewhere. The service's error
envelope becomes a `Refused` carrying its message; an unreachable server a `Unreachable`.
"""

from __future__ import annotations

from typing import Any

import httpx

TIMEOUT = 60.0  # seconds: a trigger may advance the clock and wait for the attempts it runs


class RemoteError(Exception):
    """A call to the mock that did not succeed; `exit_code` is the command's exit status."""

    exit_code = 1


class Refused(RemoteError):
    """The mock answered 4xx: the request was wrong (an unknown id, a bad value)."""

    exit_code = 2


class Unreachable(RemoteError):
    """No answer, or a 5xx: the mock is not running there, or failed."""

    exit_code = 1


class Remote:
    """Calls to the mock at `base_url`: the API with `key`, `/_mock` with the admin token."""

    def __init__(self, base_url: str, key: str, admin_token: str | None = None) -> None:
        headers = {"Authorization": f"Bearer {key}", "User-Agent": "mockserver-cli/1"}
        if admin_token is not None:
            headers["X-Mock-Admin-Token"] = admin_token
        self.base_url = base_url.rstrip("/")
        self.key = key
        self._client = httpx.Client(
            base_url=self.base_url, headers=headers, timeout=TIMEOUT, trust_env=False
        )

    def __enter__(self) -> Remote:
        return self

    def __exit__(self, *exc: object) -> None:
        self._client.close()

    def call(
        self, method: str, path: str, body: Any = None, params: dict[str, str] | None = None
    ) -> Any:
        """The parsed JSON answer of a 2xx; Refused or Unreachable otherwise."""
        try:
            response = self._client.request(method, path, json=body, params=params)
        except httpx.HTTPError as error:
            raise Unreachable(
                f"cannot reach the mock at {self.base_url} ({error or type(error).__name__}); "
                "is `mockserver run` serving there? (--url)"
            ) from None
        if response.status_code < 300:
            return response.json() if response.content else None
        message = _message(response)
        kind = Refused if response.status_code < 500 else Unreachable
        raise kind(f"{method} {path} answered {response.status_code}: {message}")


def _message(response: httpx.Response) -> str:
    """The error envelope's message (and param), or the start of whatever came instead."""
    try:
        envelope = response.json()["error"]
        param = envelope.get("param")
        return str(envelope["message"]) + (f" (param: {param})" if param else "")
    except (ValueError, KeyError, TypeError, AttributeError):
        return response.text[:300] or "no explanation"
