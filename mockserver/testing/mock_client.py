"""The `mock_client` fixture's client: an in-process httpx client with the request assertions
of `verification.Verifying`, which it asks of the control plane of the same app."""

from __future__ import annotations

from typing import Any

import httpx

from mockserver.testing.verification import Matcher, Verifying


class MockClient(Verifying, httpx.Client):
    """An httpx.Client on the mock's in-process transport, with `assert_requested`,
    `assert_not_requested` and `assert_requested_in_order`."""

    def _control(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path} failed: {response.status_code} {response.text}")
        return response.json()

    def _verify_call(self, body: Matcher) -> dict[str, Any]:
        answer: dict[str, Any] = self._control("POST", "/_mock/requests/verify", json=body)
        return answer

    def _last_seq(self) -> int:
        data = self._control("GET", "/_mock/requests", params={"limit": 1})["data"]
        return int(data[0]["seq"]) if data else 0
