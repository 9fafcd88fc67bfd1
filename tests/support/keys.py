"""The default seed's API keys, and the header that presents one."""

from __future__ import annotations

FULL = "sk_test_mock_full"
READONLY = "sk_test_mock_readonly"
REVOKED = "sk_test_mock_revoked"
EU = "sk_test_mock_eu"
LIVE = "sk_live_mock_full"


def auth(key: str = FULL) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
