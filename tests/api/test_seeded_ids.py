"""A seed may hold ids the server's own id streams draw (a sandbox exported as a seed has the
ids its requests drew): a new vault, document, workflow or webhook endpoint never takes one."""

from __future__ import annotations

from pathlib import Path

from mockserver.core.config import DEFAULT_RANDOM_SEED, Settings
from mockserver.core.ids import IdFactory
from mockserver.testing.inprocess import inprocess_client
from mockserver.web.app import create_app
from tests.support.keys import auth


def _first_ids(prefix: str, count: int) -> list[str]:
    """The first ids the sandbox world of acct_tiny draws with `prefix`, one per draw."""
    ids = IdFactory(DEFAULT_RANDOM_SEED, "acct_tiny/sandbox")
    return [ids.new(prefix) for _ in range(count)]


def test_new_objects_skip_the_ids_the_seed_holds(tmp_path: Path) -> None:
    # What the stream draws first, whatever the prefix: the first request's id takes draw 0.
    vault_id, doc_id, wf_id, hook_id = (
        _first_ids(prefix, 1)[0] for prefix in ("vault_", "doc_", "wf_", "whk_")
    )
    seed = tmp_path / "seed.yaml"
    seed.write_text(
        f"""\
version: 1
reference_time: "2026-01-15T09:00:00Z"
accounts:
  - id: acct_tiny
    name: Tiny Ltd
    default_region: us
    users: [{{email: owner@tiny.example, name: Owner, permissions: all}}]
    keys: [{{key: sk_test_tiny, owner: owner@tiny.example, scopes: all}}]
    environments:
      sandbox:
        vaults:
          - {{id: {vault_id}, name: Seeded, region: us, created_at: "2025-01-01T00:00:00Z"}}
        documents:
          - {{id: {doc_id}, vault_id: {vault_id}, title: Seeded, status: draft,
              created_at: "2025-01-02T00:00:00Z", sha256: "{"0" * 64}"}}
        workflows:
          - {{id: {wf_id}, document_id: {doc_id}, status: rejected,
              created_at: "2025-01-03T00:00:00Z", current_step: 1,
              steps: [{{assignee: a@tiny.example, decision: reject,
                        decided_at: "2025-01-03T00:00:00Z"}}]}}
        webhook_endpoints:
          - {{id: {hook_id}, url: "https://hooks.example/in", events: ["*"],
              created_at: "2025-01-04T00:00:00Z"}}
"""
    )
    app = create_app(Settings(clock_mode="frozen", seed_path=seed))
    with inprocess_client(app, headers=auth("sk_test_tiny")) as api:
        for path, body, seeded in (
            ("/v1/vaults", {"name": "New", "region": "us"}, vault_id),
            ("/v1/documents", {"title": "New", "vault_id": vault_id}, doc_id),
            ("/v1/workflows", {"document_id": doc_id, "steps": [{"assignee": "a@b.co"}]}, wf_id),
            ("/v1/webhook_endpoints", {"url": "https://hooks.example/2", "events": ["*"]}, hook_id),
        ):
            made = api.post(path, json=body)
            assert made.status_code == 201, made.text
            assert made.json()["id"] != seeded
            api.post("/_mock/reset")  # each create is the stream's first draw
        assert api.get(f"/v1/documents/{doc_id}").json()["title"] == "Seeded"
        assert api.get(f"/v1/vaults/{vault_id}").json()["name"] == "Seeded"


def test_a_new_account_never_takes_a_seeded_key(tmp_path: Path) -> None:
    """The accounts a sandbox made, saved as a seed: the next one the stream makes gets other
    keys, and the saved keys still reach their own account."""
    ids = IdFactory(DEFAULT_RANDOM_SEED, "accounts")
    account, full, readonly = ids.new("acct_"), ids.new("sk_test_"), ids.new("sk_test_")
    seed = tmp_path / "seed.yaml"
    seed.write_text(
        f"""\
version: 1
accounts:
  - id: {account}
    name: Made by the stream
    default_region: us
    keys:
      - {{key: {full}, owner: admin@made.example, scopes: all}}
      - {{key: {readonly}, owner: viewer@made.example, scopes: read}}
"""
    )
    app = create_app(Settings(clock_mode="frozen", seed_path=seed))
    with inprocess_client(app) as api:
        made = api.post("/_mock/accounts").json()
        assert made["id"] != account
        assert not set(made["keys"].values()) & {full, readonly}
        for key in (full, readonly):
            assert api.get("/v1/whoami", headers=auth(key)).json()["account_id"] == account
