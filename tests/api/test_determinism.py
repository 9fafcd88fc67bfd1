"""Same random seed, start time and requests: byte-identical responses."""

from __future__ import annotations

from mockserver.core.config import Settings
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.keys import EU, auth

SCRIPT: list[tuple[str, str, dict[str, object] | None, str | None]] = [
    ("GET", "/v1/whoami", None, None),
    ("POST", "/v1/vaults", {"name": "A", "region": "us", "members": ["a@b.co"]}, None),
    ("POST", "/v1/documents", {"title": "t1", "vault_id": "vault_mock_us"}, None),
    ("POST", "/v1/documents", {"title": "t2", "vault_id": "vault_mock_us"}, EU),
    ("POST", "/eu/v1/documents", {"title": "t3", "vault_id": "vault_mock_eu"}, None),
    ("GET", "/v1/documents?limit=3", None, None),
    ("GET", "/v1/documents/doc_mock_signed", None, None),
    ("DELETE", "/v1/documents/doc_mock_draft", None, None),
    ("GET", "/v1/nope", None, None),
    (
        "POST",
        "/v1/workflows",
        {"document_id": "doc_mock_legal_hold", "steps": [{"assignee": "a@b.co"}]},
        None,
    ),
    ("POST", "/v1/workflows/wf_mock_in_review/advance", {"decision": "approve"}, None),
    ("POST", "/v1/workflows/wf_mock_in_review/advance", {"decision": "approve"}, None),
    ("POST", "/_mock/clock/advance", {"seconds": 400}, None),
    ("POST", "/v1/audit_logs/export", {"period": "2025-01-01/2026-12-31"}, None),
    ("POST", "/_mock/clock/advance", {"seconds": 5}, None),
    ("GET", "/v1/audit_logs?limit=30", None, None),
    ("GET", "/v1/documents/doc_mock_in_review", None, None),
]


def run(random_seed: int) -> list[tuple[int, list[tuple[str, str]], bytes]]:
    app = create_app(Settings(clock_mode="frozen", random_seed=random_seed))
    out = []
    with inprocess_client(app) as client:
        for method, path, body, key in SCRIPT:
            response = client.request(
                method, path, json=body, headers=auth(key or "sk_test_mock_full")
            )
            out.append((response.status_code, sorted(response.headers.items()), response.content))
    return out


def test_two_runs_are_byte_identical() -> None:
    assert run(7) == run(7)


def test_another_random_seed_gives_other_ids() -> None:
    assert run(7) != run(8)


def test_reset_replays_identically(app) -> None:  # type: ignore[no-untyped-def]
    def once() -> list[bytes]:
        app.state.store.reset()
        with inprocess_client(app) as client:
            return [
                client.request(m, p, json=b, headers=auth(k or "sk_test_mock_full")).content
                for m, p, b, k in SCRIPT
            ]

    assert once() == once()
