"""The control-plane helpers the testing objects share: the clock, reset, snapshots, the
request journal, webhook deliveries and the request assertions, over HTTP.

`mock_server`'s handle, `mock_account` and `MockServerContainer` each call them on their own
control plane: the server's (`/_mock`) or one account's (`/_mock/accounts/{id}`), through
their own admin client (`_control_client`). httpx is imported by the subclasses' clients, not
here: the pytest plugin imports this module at every session's start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mockserver.testing.verification import Matcher, Verifying

if TYPE_CHECKING:
    import httpx


def unused_rules(loaded: list[dict[str, Any]]) -> list[str]:
    """`scenario/rule` of each rule that never fired, of `GET /_mock/scenarios`'s `data`."""
    return [
        f"{scenario['name']}/{rule['name']}"
        for scenario in loaded
        for rule in scenario["rules"]
        if not rule["fired"]
    ]


class Controls(Verifying):
    """Helpers on the control plane under `_base` (the server's `/_mock`, by default)."""

    _base = "/_mock"

    def _control_client(self) -> httpx.Client:  # pragma: no cover - abstract
        raise NotImplementedError

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        """`method` on `_base` + `path`; the answer's JSON, or RuntimeError for an error."""
        url = f"{self._base}{path}"
        response = self._control_client().request(method, url, **kwargs)
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {url} failed: {response.status_code} {response.text}")
        return response.json()

    def _verify_call(self, body: Matcher) -> dict[str, Any]:
        answer: dict[str, Any] = self._call("POST", "/requests/verify", json=body)
        return answer

    def _last_seq(self) -> int:
        data = self.requests(limit=1)
        return int(data[0]["seq"]) if data else 0

    def unused_rules(self) -> list[str]:
        """`scenario/rule` of every rule of the loaded scenarios that never fired (what
        `--mock-strict-scenarios` fails a test for)."""
        loaded: list[dict[str, Any]] = self._call("GET", "/scenarios")["data"]
        return unused_rules(loaded)

    def now(self) -> str:
        """The mock clock, RFC 3339."""
        now: str = self._call("GET", "/clock")["now"]
        return now

    def advance(self, seconds: float) -> str:
        """Move the clock forward, running every timer that falls due; the new time."""
        now: str = self._call("POST", "/clock/advance", json={"seconds": seconds})["now"]
        return now

    def set_time(self, at: str) -> str:
        """Set the clock (RFC 3339); forward runs due timers."""
        now: str = self._call("POST", "/clock/set", json={"at": at})["now"]
        return now

    def reset(self) -> None:
        """Back to how it started: data, clock, limits, journals."""
        self._call("POST", "/reset")

    def snapshot(self, name: str) -> dict[str, Any]:
        """Save the sandbox as `name` (replacing a snapshot of that name):
        `{"name", "created_at", "bytes"}`."""
        saved: dict[str, Any] = self._call("POST", "/snapshots", json={"name": name})
        return saved

    def restore(self, name: str) -> dict[str, Any]:
        """Put the sandbox back exactly as it was when `name` was saved."""
        restored: dict[str, Any] = self._call("POST", f"/snapshots/{name}/restore")
        return restored

    def snapshots(self) -> list[str]:
        """The names of the saved snapshots."""
        data = self._call("GET", "/snapshots")["data"]
        return [snapshot["name"] for snapshot in data]

    def requests(self, **filters: Any) -> list[dict[str, Any]]:
        """The request journal, newest first, filtered like `GET /_mock/requests`."""
        data: list[dict[str, Any]] = self._call("GET", "/requests", params=filters)["data"]
        return data

    def deliveries(self, **filters: Any) -> list[dict[str, Any]]:
        """Webhook deliveries with every attempt, filtered like the deliveries journal."""
        data: list[dict[str, Any]] = self._call("GET", "/webhooks/deliveries", params=filters)[
            "data"
        ]
        return data

    def wait_for_deliveries(self) -> None:
        """Return once no webhook attempt is in flight (attempts run in the background)."""
        self._call("POST", "/webhooks/wait")
