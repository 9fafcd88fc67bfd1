"""Seed loading: the shipped seed, every validation error with its `file:line:`, JSON lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mockserver.core.clock import parse_ts
from mockserver.core.config import DEFAULT_START_TIME
from mockserver.core.errors import SeedError
from mockserver.domain.models import (
    DOCUMENT_STATUSES,
    READ_SCOPES,
    SCOPES,
    WORKFLOW_STATUSES,
    Workflow,
    WorkflowStep,
)
from mockserver.seeds.generate import generate_seed
from mockserver.seeds.loader import load_seed, load_seed_text
from mockserver.seeds.parser import parse_yaml

DEFAULT_SEED = Path(__file__).resolve().parents[3] / "seeds" / "default.yaml"
SHA_A = "a" * 64
SHA_B = "b" * 64
SHA_C = "c" * 64

# Line numbers matter: the error cases below name lines of this text.
BASE = f"""\
version: 1
accounts:
  - id: acct_test
    name: Test Inc.
    default_region: us
    users:
      - email: alice@test.example
        name: Alice
        permissions: all
    keys:
      - key: sk_test_alice
        owner: alice@test.example
        scopes: all
    oauth_clients:
      - client_id: app
        client_secret: secret
        redirect_uris: [http://127.0.0.1:9/cb]
    environments:
      sandbox:
        vaults:
          - id: vault_a
            name: A
            region: us
            created_at: "2025-01-01T00:00:00Z"
            members:
              - {{email: alice@test.example, role: owner}}
        documents:
          - id: doc_a
            vault_id: vault_a
            title: Draft
            status: draft
            created_at: "2025-02-01T00:00:00Z"
            sha256: {SHA_A}
          - {{"id": "doc_b", "vault_id": "vault_a", "title": "Signed", "status": "signed", \
"created_at": "2025-03-01T00:00:00Z", "sha256": "{SHA_B}", "signers": ["alice@test.example"], \
"signed_at": "2025-03-02T00:00:00Z"}}
          - {{"id": "doc_c", "vault_id": "vault_a", "title": "Review", "status": "in_review", \
"created_at": "2025-03-01T06:00:00Z", "sha256": "{SHA_C}", "metadata": {{"amount": 5000}}}}
        workflows:
          - id: wf_c
            document_id: doc_c
            status: in_progress
            created_at: "2025-03-01T07:00:00Z"
            current_step: 2
            steps:
              - assignee: alice@test.example
                decision: approve
                decided_at: "2025-03-01T08:00:00Z"
                comment: Fine by me
              - assignee: bob@test.example
                condition: metadata.amount > 1000
              - {{assignee: carol@test.example}}
          - {{"id": "wf_b", "document_id": "doc_b", "status": "completed", \
"created_at": "2025-03-01T01:00:00Z", "current_step": 2, "steps": [\
{{"assignee": "dan@test.example", "condition": "metadata.kind == 'nda'", "decision": "skipped", \
"decided_at": "2025-03-01T01:00:00Z"}}, \
{{"assignee": "alice@test.example", "decision": "approve", "decided_at": "2025-03-02T00:00:00Z"}}]}}
          - {{"id": "wf_a", "document_id": "doc_a", "status": "rejected", \
"created_at": "2025-02-02T00:00:00Z", "current_step": 1, "steps": [\
{{"assignee": "alice@test.example", "decision": "reject", "decided_at": "2025-02-03T00:00:00Z", \
"comment": "No."}}, {{"assignee": "bob@test.example"}}]}}
      live:
        vaults:
          - {{"id": "vault_live", "name": "L", "region": "eu", \
"created_at": "2025-01-01T00:00:00Z"}}
reference_time: "2025-03-02T00:01:00Z"
"""
DOC_B = BASE.splitlines()[33]


def ts(text: str) -> int:
    return int(parse_ts(text))


def write(tmp_path: Path, text: str, name: str = "seed.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> SeedError:
    path = write(tmp_path, text)
    with pytest.raises(SeedError) as info:
        load_seed(path)
    assert info.value.file == str(path)
    return info.value


def mutate(old: str, new: str) -> str:
    assert BASE.count(old) >= 1, old
    return BASE.replace(old, new, 1)


# --- loading what is valid -----------------------------------------------------------------


def test_base_seed_loads_with_defaults() -> None:
    seed = load_seed_text(BASE, "base.yaml")
    assert seed.source == "base.yaml"
    assert DOC_B.startswith('          - {"id": "doc_b"')
    key = seed.keys["sk_test_alice"]
    assert (key.environment, key.rate_limit, key.burst, key.revoked) == ("sandbox", 120, 200, False)
    assert key.scopes == frozenset(SCOPES)
    assert seed.accounts["acct_test"].users[0].permissions == SCOPES
    assert seed.oauth_clients["app"].redirect_uris == ("http://127.0.0.1:9/cb",)
    assert seed.oauth_clients["app"].name == ""
    assert set(seed.environments) == {("acct_test", "sandbox"), ("acct_test", "live")}
    sandbox = seed.environments[("acct_test", "sandbox")]
    assert [v.lock_after for v in sandbox.vaults] == [300]
    assert [m.role for m in sandbox.vaults[0].members] == ["owner"]
    draft, signed, review = sandbox.documents
    assert (draft.id, draft.version, draft.signed_at, draft.legal_hold) == ("doc_a", 1, None, False)
    assert [(v.version, v.sha256) for v in draft.versions] == [(1, SHA_A)]
    assert signed.signed_at == ts("2025-03-02T00:00:00Z")
    assert signed.signers == ["alice@test.example"]
    assert (review.status, review.metadata) == ("in_review", {"amount": 5000})
    assert seed.environments[("acct_test", "live")].vaults[0].region == "eu"
    assert seed.reference_time == ts("2025-03-02T00:01:00Z")


def test_workflows_map_to_the_model_sorted_by_created_at() -> None:
    sandbox = load_seed_text(BASE, "s").environments[("acct_test", "sandbox")]
    rejected, completed, in_progress = sandbox.workflows
    assert (rejected.id, rejected.status, rejected.current_step) == ("wf_a", "rejected", 1)
    assert rejected.last_decision == ("alice@test.example", "reject")
    assert rejected.steps == [
        WorkflowStep("alice@test.example", None, "reject", ts("2025-02-03T00:00:00Z"), "No."),
        WorkflowStep("bob@test.example"),
    ]
    assert (completed.id, completed.document_id, completed.status) == ("wf_b", "doc_b", "completed")
    assert completed.last_decision == ("alice@test.example", "approve")  # not the skipped step
    assert completed.steps[0] == WorkflowStep(
        "dan@test.example", "metadata.kind == 'nda'", "skipped", completed.created_at
    )
    assert in_progress == Workflow(
        id="wf_c",
        document_id="doc_c",
        region="us",
        status="in_progress",
        current_step=2,
        created_at=ts("2025-03-01T07:00:00Z"),
        steps=[
            WorkflowStep(
                "alice@test.example", None, "approve", ts("2025-03-01T08:00:00Z"), "Fine by me"
            ),
            WorkflowStep("bob@test.example", "metadata.amount > 1000"),
            WorkflowStep("carol@test.example"),
        ],
        last_decision=("alice@test.example", "approve"),
    )
    assert load_seed_text(BASE, "s").environments[("acct_test", "live")].workflows == []


def test_workflows_live_in_their_documents_region() -> None:
    text = mutate("    region: us\n", "    region: eu\n")
    workflows = load_seed_text(text, "s").environments[("acct_test", "sandbox")].workflows
    assert {w.region for w in workflows} == {"eu"}


def test_reference_time_defaults_to_the_default_start_time() -> None:
    text = mutate('reference_time: "2025-03-02T00:01:00Z"\n', "")
    text = text.replace('"status": "signed"', '"status": "locked"', 1)  # its lock fell due
    assert load_seed_text(text, "s").reference_time == ts(DEFAULT_START_TIME)


def test_a_signed_document_may_lock_one_second_after_the_reference_time() -> None:
    # doc_b: signed 2025-03-02T00:00:00Z in a vault with the default lock_after of 300 s
    load_seed_text(mutate("T00:01:00Z", "T00:04:59Z"), "s")
    with pytest.raises(SeedError, match="would already be locked"):
        load_seed_text(mutate("T00:01:00Z", "T00:05:00Z"), "s")


def test_live_keys_default_to_the_live_plan() -> None:
    text = mutate(
        "    oauth_clients:",
        "      - {key: sk_live_x, owner: a@b.example, scopes: read}\n    oauth_clients:",
    )
    key = load_seed_text(text, "s").keys["sk_live_x"]
    assert (key.environment, key.rate_limit, key.burst) == ("live", 600, 1000)
    assert key.scopes == frozenset(READ_SCOPES)


def test_raised_rate_limit_lifts_the_default_burst() -> None:
    text = mutate("        scopes: all\n", "        scopes: all\n        rate_limit: 500\n")
    key = load_seed_text(text, "s").keys["sk_test_alice"]
    assert (key.rate_limit, key.burst) == (500, 500)


def test_versions_get_deterministic_earlier_digests() -> None:
    text = mutate(f"sha256: {SHA_A}\n", f"sha256: {SHA_A}\n            version: 3\n")
    doc = load_seed_text(text, "s").environments[("acct_test", "sandbox")].documents[0]
    assert [v.version for v in doc.versions] == [1, 2, 3]
    assert doc.versions[-1].sha256 == SHA_A == doc.sha256
    assert len({v.sha256 for v in doc.versions}) == 3


def test_null_optional_fields_mean_absent_and_unquoted_timestamps_work() -> None:
    text = mutate('created_at: "2025-02-01T00:00:00Z"', "created_at: 2025-02-01T00:00:00Z")
    text = text.replace("        scopes: all\n", "        scopes: all\n        revoked:\n", 1)
    seed = load_seed_text(text, "s")
    assert seed.keys["sk_test_alice"].revoked is False
    doc = seed.environments[("acct_test", "sandbox")].documents[0]
    assert doc.created_at == int(parse_ts("2025-02-01T00:00:00Z"))


def test_documents_are_sorted_by_created_at() -> None:
    text = mutate('"2025-03-01T00:00:00Z", "sha256"', '"2025-01-15T00:00:00Z", "sha256"')
    docs = load_seed_text(text, "s").environments[("acct_test", "sandbox")].documents
    assert [d.id for d in docs] == ["doc_b", "doc_a", "doc_c"]


def test_records_of_the_same_second_keep_the_files_order() -> None:
    """The order the API lists them in (newest first, so the last of the file first): ids do
    not reorder them."""
    text = mutate('created_at: "2025-02-01T00:00:00Z"', 'created_at: "2025-03-01T00:00:00Z"')
    text = text.replace("id: doc_a", "id: doc_z", 1).replace("doc_id: doc_a", "doc_id: doc_z")
    text = text.replace('"document_id": "doc_a"', '"document_id": "doc_z"')
    for field, old in (("created_at", "2025-02-02"), ("decided_at", "2025-02-03")):
        text = text.replace(f'"{field}": "{old}T00:00:00Z"', f'"{field}": "2025-03-02T00:00:00Z"')
    sandbox = load_seed_text(text, "s").environments[("acct_test", "sandbox")]
    assert [d.id for d in sandbox.documents] == ["doc_z", "doc_b", "doc_c"]


def test_crlf_line_endings_load_the_same() -> None:
    assert load_seed_text(BASE.replace("\n", "\r\n"), "s") == load_seed_text(BASE, "s")


def test_default_seed_has_what_design_section_3_requires() -> None:
    seed = load_seed(DEFAULT_SEED)
    keys = {
        k.key: (k.account_id, k.environment, k.scopes == frozenset(SCOPES), k.revoked)
        for k in seed.keys.values()
    }
    assert keys == {
        "sk_test_mock_full": ("acct_mock_us", "sandbox", True, False),
        "sk_test_mock_readonly": ("acct_mock_us", "sandbox", False, False),
        "sk_test_mock_revoked": ("acct_mock_us", "sandbox", True, True),
        "sk_test_mock_eu": ("acct_mock_eu", "sandbox", True, False),
        "sk_live_mock_full": ("acct_mock_us", "live", True, False),
    }
    assert seed.keys["sk_test_mock_readonly"].scopes == frozenset(READ_SCOPES)
    us, eu = seed.accounts["acct_mock_us"], seed.accounts["acct_mock_eu"]
    assert (us.default_region, eu.default_region) == ("us", "eu")
    assert len(us.users) >= 3
    assert len(eu.users) >= 3
    assert us.users[0].permissions == SCOPES
    assert us.users[1].permissions == READ_SCOPES
    assert 0 < len(us.users[2].permissions) < len(SCOPES)
    for key in seed.keys.values():
        assert key.owner in {u.email for u in seed.accounts[key.account_id].users}
    client = seed.oauth_clients["mock_client"]
    assert (client.client_secret, client.account_id) == ("mock_secret", "acct_mock_us")
    assert client.redirect_uris == ("http://127.0.0.1:8765/callback",)

    sandbox = seed.environments[("acct_mock_us", "sandbox")]
    vaults = {v.id: v for v in sandbox.vaults}
    assert (vaults["vault_mock_us"].region, vaults["vault_mock_eu"].region) == ("us", "eu")
    assert {v.region for v in vaults.values()} == {"us", "eu"}
    assert len(vaults) >= 4
    docs = {d.id: d for d in sandbox.documents}
    for status in DOCUMENT_STATUSES:
        assert docs[f"doc_mock_{status}"].status == status
        assert docs[f"doc_mock_{status}"].vault_id == "vault_mock_us"
        assert sum(d.status == status for d in sandbox.documents) >= 5
    hold = docs["doc_mock_legal_hold"]
    assert (hold.status, hold.legal_hold, hold.vault_id) == ("draft", True, "vault_mock_us")
    start = int(parse_ts(DEFAULT_START_TIME))
    assert docs["doc_mock_signed"].signed_at == start - 60
    assert vaults["vault_mock_us"].lock_after == 300
    assert all(d.region == vaults[d.vault_id].region for d in sandbox.documents)
    assert seed.environments[("acct_mock_us", "live")].documents == []
    assert seed.reference_time == start
    flows = {w.id: (w.document_id, w.status) for w in sandbox.workflows}
    assert flows["wf_mock_in_review"] == ("doc_mock_in_review", "in_progress")
    assert flows["wf_mock_completed"] == ("doc_mock_signed", "completed")
    assert {status for _, status in flows.values()} == set(WORKFLOW_STATUSES)
    eu_sandbox = seed.environments[("acct_mock_eu", "sandbox")]
    assert {v.region for v in eu_sandbox.vaults} == {"eu"}
    assert len(eu_sandbox.documents) >= 8


# --- every kind of error, with its line ------------------------------------------------------

# (old text, new text, line of the error, message fragment); each edits BASE once.
REPLACED = [
    ("version: 1", "version: 2", 1, "version: unsupported version 2 (expected 1)"),
    ("version: 1\n", "version: 1\ncolour: red\n", 2, "unknown field 'colour'"),
    ("accounts:\n  - id", "accounts: []\nx:\n  - id", 3, "unknown field 'x'"),
    ("id: acct_test", "id: account_test", 3, "accounts[0].id: invalid id 'account_test'"),
    ("    name: Test Inc.\n", "", 3, "accounts[0]: missing required field 'name'"),
    ("    name: Test Inc.\n", "    name: Test Inc.\n    name: Again\n", 5, "duplicate key 'name'"),
    ("    default_region: us\n", "   default_region: us\n", 5, "invalid YAML: "),
    ("default_region: us", "default_region: mars", 5, "default_region: unknown default_region"),
    ("- email: alice@test.example", "- email: alice", 7, "users[0].email: invalid email 'alice'"),
    ("        name: Alice\n", "        nmae: Alice\n", 8, "users[0]: unknown field 'nmae'"),
    ("permissions: all", "permissions: [documents:read, x:y]", 9, "permissions[1]: unknown scope"),
    ("key: sk_test_alice", "key: pk_test_alice", 11, "keys[0].key: invalid key 'pk_test_alice'"),
    ("scopes: all", "scopes: everything", 13, "scopes: must be 'all', 'read' or a list"),
    ("[http://127.0.0.1:9/cb]", "[ftp://x/cb]", 17, "redirect_uris[0]: invalid redirect URI"),
    ("[http://127.0.0.1:9/cb]", "[http://x/cb#top]", 17, "must not have a fragment"),
    ("[http://127.0.0.1:9/cb]", "[]", 17, "redirect_uris: must list at least one"),
    ("[http://127.0.0.1:9/cb]", "[http://127.0.0.1:9/cb", 18, "invalid YAML: "),
    ("      sandbox:", "      staging:", 19, "environments.staging: unknown environment"),
    ("- id: vault_a", "- id: vault-a", 21, "vaults[0].id: invalid id 'vault-a'"),
    ("    region: us\n", "    region: mars\n", 23, "vaults[0].region: unknown region 'mars'"),
    ('"2025-01-01T00:00:00Z"\n', '"yesterday"\n', 24, "created_at: invalid timestamp"),
    ('"2025-01-01T00:00:00Z"\n', "2025-02-30\n", 24, "invalid timestamp '2025-02-30'"),
    (
        "            members:",
        "            lock_after: -1\n            members:",
        25,
        "must be >= 0",
    ),
    ("role: owner", "role: ''", 26, "members[0].role: must not be empty"),
    ("vault_id: vault_a", "vault_id: vault_zz", 29, "vault_id: no such vault: 'vault_zz'"),
    ("vault_id: vault_a", "vault_id: vault_live", 29, "belongs to another account or env"),
    ("vault_id: vault_a", "vault_id: [vault_a]", 29, "vault_id: no such vault: a list"),
    ("status: draft", "status: drafted", 31, "documents[0].status: unknown status"),
    ('"2025-02-01T', '"2024-12-31T', 32, "created_at: is before the created_at of vault"),
    (f"sha256: {SHA_A}", f"sha256: {SHA_A.upper()}", 33, "sha256: must be 64 lowercase hex"),
    # Line 34 is a one-line JSON object, read by the JSON shortcut: errors keep their lines.
    ('"title": "Signed"', '"titel": "Signed"', 34, "documents[1]: unknown field 'titel'"),
    ('"title": "Signed"', '"title": "A", "title": "B"', 34, "duplicate key 'title'"),
    (
        '"signers": ["alice@test.example"], ',
        "",
        50,
        "workflows[1].steps: the approving assignees ['alice@test.example'] must be the signers []",
    ),
    ('"alice@test.example"]', '"alice@test.example", "b"]', 34, "signers[1]: invalid email 'b'"),
    (', "signed_at": "2025-03-02T00:00:00Z"', "", 34, "missing required field 'signed_at'"),
    ('"signed_at": "2025-03-02', '"signed_at": "2025-02-02', 34, "signed_at: is before the doc"),
    ('"id": "doc_b"', '"id": "doc_a"', 34, "duplicate document id 'doc_a' (first at accounts[0]"),
    ('"region": "eu"', '"region": "asia"', 54, "live.vaults[0].region: unknown region 'asia'"),
]
WF_A_STEPS = BASE.splitlines()[50][BASE.splitlines()[50].index('"steps": ') : -1]
# The reference time, and what it bounds; then workflows (lines 36-51), each rule with its line.
REFERENCE_AND_WORKFLOWS = [
    ('"2025-03-02T00:01:00Z"\n', '"soon"\n', 55, "reference_time: invalid timestamp 'soon'"),
    (
        'created_at: "2025-01-01T00:00:00Z"',
        'created_at: "2025-04-01T00:00:00Z"',
        24,
        "vaults[0].created_at: 2025-04-01T00:00:00Z is after the reference time "
        "2025-03-02T00:01:00Z",
    ),
    (
        '"2025-02-01T00:00:00Z"',
        '"2025-03-03T00:00:00Z"',
        32,
        "created_at: 2025-03-03T00:00:00Z is after",
    ),
    (
        '"signed_at": "2025-03-02T00:00:00Z"',
        '"signed_at": "2025-03-02T00:02:00Z"',
        34,
        "documents[1].signed_at: 2025-03-02T00:02:00Z is after the reference time",
    ),
    (
        'reference_time: "2025-03-02T00:01:00Z"',
        'reference_time: "2025-03-02T00:05:00Z"',
        34,
        "sandbox.documents[1]: signed at 2025-03-02T00:00:00Z with lock_after 300 would already be "
        "locked at the reference time 2025-03-02T00:05:00Z; make it locked or give its vault a "
        "longer lock_after",
    ),
    (
        'reference_time: "2025-03-02T00:01:00Z"\n',
        "",
        34,
        "already be locked at the reference time 2026-01-15T09:00:00Z (the default; set "
        "reference_time to move it)",
    ),
    (
        '"2025-03-01T07:00:00Z"',
        '"2025-03-02T07:00:00Z"',
        40,
        "workflows[0].created_at: 2025-03-02T07:00:00Z is after the reference time",
    ),
    (
        '"2025-03-01T08:00:00Z"',
        '"2025-03-03T08:00:00Z"',
        45,
        "decided_at: 2025-03-03T08:00:00Z is after the refer",
    ),
    ("      live:\n", "      live:\n        workflows: {}\n", 53, "live.workflows: must be a list"),
    ("- id: wf_c", "- id: wf-c", 37, "workflows[0].id: invalid id 'wf-c': expected 'wf_'"),
    ("- id: wf_c", "- id: wf_a", 51, "workflows[2].id: duplicate workflow id 'wf_a' (first at acc"),
    ("document_id: doc_c", "document_id: doc_z", 38, "document_id: no such document: 'doc_z'"),
    ("status: in_progress", "status: open", 39, "workflows[0].status: unknown status 'open'"),
    (
        '"2025-03-01T07:00:00Z"',
        '"2025-03-01T05:00:00Z"',
        40,
        "before the created_at of document 'doc_c'",
    ),
    ("current_step: 2\n", "current_step: 2\n            owner: x\n", 42, "unknown field 'owner'"),
    (
        "            current_step: 2\n",
        "",
        37,
        "workflows[0]: missing required field 'current_step'",
    ),
    ("current_step: 2", "current_step: 0", 41, "workflows[0].current_step: must be a positive"),
    ("current_step: 2", "current_step: 4", 41, "current_step: is 4 but the workflow has 3 step(s)"),
    (WF_A_STEPS, '"steps": []', 51, "workflows[2].steps: must list at least one step"),
    ("- assignee: alice@test.example", "- assignee: alice", 43, "steps[0].assignee: invalid email"),
    ("comment: Fine by me", "comments: Fine by me", 46, "steps[0]: unknown field 'comments'"),
    ("decision: approve", "decision: approved", 44, "unknown decision 'approved' (expected one of"),
    (
        '                decided_at: "2025-03-01T08:00:00Z"\n',
        "",
        43,
        "missing required field 'decided_at' (decision",
    ),
    ('"2025-03-01T08:00:00Z"', '"2025-03-01T06:30:00Z"', 45, "is before the workflow's created_at"),
    ("comment: Fine by me", "comment: 5", 46, "steps[0].comment: must be a string"),
    (
        "amount > 1000",
        "amount >",
        48,
        "steps[1].condition: expected an operand after '>' at position",
    ),
    ("amount > 1000", "amount = 1", 48, "unknown character '=' at position 16; use '=='"),
    (
        "condition: metadata.amount > 1000",
        "condition: 5",
        48,
        "steps[1].condition: must be a string",
    ),
    (
        "carol@test.example}",
        'carol@test.example, decided_at: "2025-03-01T09:00:00Z"}',
        49,
        "only all",
    ),
    (
        "carol@test.example}",
        "carol@test.example, comment: hi}",
        49,
        "steps[2].comment: only allowed",
    ),
    (
        '"decided_at": "2025-03-01T01:00:00Z"',
        '"decided_at": "2025-03-02T00:00:30Z"',
        50,
        "steps[1].decided_at: is before the decided_at of steps[0]",
    ),
    ('"condition": "metadata.kind == \'nda\'", ', "", 50, "'skipped' needs a condition: only a f"),
    # what the decisions say must fit the status and current step
    ("current_step: 2", "current_step: 3", 47, "steps[1].decision: is missing, but a step before"),
    ("decision: approve", "decision: reject", 44, "is 'reject', but a step before current_step 2"),
    (
        "current_step: 2",
        "current_step: 1",
        44,
        "is 'approve', but the current step of an in_progress workflow is undecided",
    ),
    (
        "carol@test.example}",
        'carol@test.example, decision: approve, decided_at: "2025-03-01T09:00:00Z"}',
        49,
        "steps[2].decision: is 'approve', but steps after current_step 2 are undecided",
    ),
    (
        "document_id: doc_c",
        "document_id: doc_a",
        39,
        "is in_progress but document 'doc_a' is draft",
    ),
    (
        '"current_step": 2',
        '"current_step": 1',
        50,
        "current_step: must be 2, the last step, once completed",
    ),
    ('"approve", "decided_at": "2025-03-02T', '"reject", "decided_at": "2025-03-02T', 50, "every"),
    ('"document_id": "doc_b"', '"document_id": "doc_a"', 50, "document 'doc_a' is draft (not sig"),
    (
        '{"assignee": "alice@test.example", "decision": "approve"',
        '{"assignee": "bob@test.example", "decision": "approve"',
        50,
        "workflows[1].steps: the approving assignees ['bob@test.example'] must be the signers "
        "['alice@test.example'] of document 'doc_b', in step order",
    ),
    (
        '"2025-03-02T00:00:00Z"}]}',
        '"2025-03-02T00:00:30Z"}]}',
        50,
        "steps[1].decided_at: is after the signed_at of document 'doc_b'",
    ),
    (
        '"decision": "reject"',
        '"decision": "approve"',
        51,
        "the current step of a rejected workflow",
    ),
    (
        '{"assignee": "bob@test.example"}',
        '{"assignee": "bob@test.example", "decision": "skipped", "condition": "x", '
        '"decided_at": "2025-02-03T00:00:00Z"}',
        51,
        "steps[1].decision: is 'skipped', but steps after current_step 1 are undecided",
    ),
]
# (line inserted after the key's `scopes: all` on line 13, message fragment): errors on line 14
KEY_FIELDS = [
    ('revoked: "no"', "keys[0].revoked: must be true or false"),
    ("rate_limit: true", "keys[0].rate_limit: must be an integer"),
    ("rate_limit: 0", "keys[0].rate_limit: must be a positive integer"),
    ("burst: 100", "keys[0].burst: must be >= rate_limit (120)"),
    ("owner: b@test.example", "duplicate key 'owner'"),
    ("scope: read", "keys[0]: unknown field 'scope'"),
]
# (line inserted after doc_a's sha256 on line 33, message fragment): errors on line 34
DOCUMENT_FIELDS = [
    ("signers: [a@b.example]", "documents[0].signers: must be empty for a draft document"),
    ('signed_at: "2025-03-02T00:00:00Z"', "signed_at: not allowed for a draft document"),
    ("metadata: {n: 1.5}", "metadata.n: must be a string, an integer or a boolean"),
    ("metadata: {n: [1]}", "metadata.n: must be a string, an integer or a boolean"),
    (f"metadata: {{n: {2**53}}}", "metadata.n: integer out of range"),
    ("metadata: [1]", "documents[0].metadata: must be a mapping"),
    ("legal_hold: 1", "documents[0].legal_hold: must be true or false"),
    ("version: true", "documents[0].version: must be an integer"),
    ("version: 1001", "documents[0].version: must be at most 1000"),
]


def test_every_bad_record_is_reported_and_what_refers_to_it_is_not(tmp_path: Path) -> None:
    text = mutate("      - key: sk_test_alice", "      - key: pk_alice")
    text = text.replace("redirect_uris: [http://127.0.0.1:9/cb]", "redirect_uris: []", 1)
    text = text.replace("            region: us", "            region: mars", 1)
    err = error_of(tmp_path, text)
    # the vault's documents, and the workflows on them, are skipped without a word
    assert [(p.line, p.message) for p in err.problems] == [
        (
            11,
            "accounts[0].keys[0].key: invalid key 'pk_alice': must start with 'sk_test_' or "
            "'sk_live_'",
        ),
        (17, "accounts[0].oauth_clients[0].redirect_uris: must list at least one redirect URI"),
        (
            23,
            "accounts[0].environments.sandbox.vaults[0].region: unknown region 'mars' "
            "(expected one of: us, eu)",
        ),
    ]
    assert (err.line, err.message) == (11, err.problems[0].message)


def assert_error(tmp_path: Path, text: str, line: int, message: str) -> None:
    err = error_of(tmp_path, text)
    assert str(err).startswith(f"{tmp_path / 'seed.yaml'}:{line}: "), str(err)
    assert err.line == line
    assert message in err.message, str(err)


@pytest.mark.parametrize(("old", "new", "line", "message"), REPLACED)
def test_errors_name_file_line_and_path(
    tmp_path: Path, old: str, new: str, line: int, message: str
) -> None:
    assert_error(tmp_path, mutate(old, new), line, message)


@pytest.mark.parametrize(("field", "message"), KEY_FIELDS)
def test_key_field_errors(tmp_path: Path, field: str, message: str) -> None:
    text = mutate("        scopes: all\n", f"        scopes: all\n        {field}\n")
    assert_error(tmp_path, text, 14, message)


@pytest.mark.parametrize(("field", "message"), DOCUMENT_FIELDS)
def test_document_field_errors(tmp_path: Path, field: str, message: str) -> None:
    text = mutate(f"sha256: {SHA_A}\n", f"sha256: {SHA_A}\n            {field}\n")
    assert_error(tmp_path, text, 34, message)


@pytest.mark.parametrize(("old", "new", "line", "message"), REFERENCE_AND_WORKFLOWS)
def test_reference_time_and_workflow_errors(
    tmp_path: Path, old: str, new: str, line: int, message: str
) -> None:
    assert_error(tmp_path, mutate(old, new), line, message)


WF_B_APPROVAL = (
    ', {"assignee": "alice@test.example", "decision": "approve", '
    '"decided_at": "2025-03-02T00:00:00Z"}'
)


def test_a_signed_document_without_signers_needs_a_workflow_that_skipped_every_step(
    tmp_path: Path,
) -> None:
    """What the API makes of a workflow whose conditions are all false: signed, by nobody."""
    text = mutate('"signers": ["alice@test.example"], ', "")
    text = text.replace(WF_B_APPROVAL, "").replace(
        '"current_step": 2, "steps": [{"assignee": "dan',
        '"current_step": 1, "steps": [{"assignee": "dan',
    )
    assert WF_B_APPROVAL not in text
    doc_b = next(
        doc
        for doc in load_seed_text(text, "s").environments[("acct_test", "sandbox")].documents
        if doc.id == "doc_b"
    )
    assert (doc_b.status, doc_b.signers) == ("signed", [])
    no_workflow = mutate('"signers": ["alice@test.example"], ', "").split(
        '          - {"id": "wf_b"'
    )
    text = no_workflow[0] + "          - " + no_workflow[1].split("          - ", 1)[1]
    assert_error(tmp_path, text, 34, "a signed document needs at least one signer")


def test_an_in_review_document_needs_an_in_progress_workflow(tmp_path: Path) -> None:
    lines = BASE.splitlines(keepends=True)
    text = "".join(lines[:36] + lines[49:])  # without wf_c (lines 37-49)
    message = "sandbox.documents[2]: is in_review, so it needs an in_progress workflow"
    assert_error(tmp_path, text, 35, message)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            '{"id": "wf_d", "document_id": "doc_c", "status": "in_progress", '
            '"created_at": "2025-03-01T07:00:00Z", "current_step": 1, '
            '"steps": [{"assignee": "x@test.example"}]}',
            "workflows[3].document_id: document 'doc_c' already has a workflow that is "
            "in_progress (accounts[0].environments.sandbox.workflows[0])",
        ),
        (
            BASE.splitlines()[49].replace('"wf_b"', '"wf_d"').strip()[2:],
            "document 'doc_b' already has a workflow that is completed (accounts[0].environm",
        ),
    ],
)
def test_a_document_has_at_most_one_open_and_one_completed_workflow(
    tmp_path: Path, extra: str, message: str
) -> None:
    text = mutate("      live:\n", f"          - {extra}\n      live:\n")
    assert_error(tmp_path, text, 52, message)


def test_a_workflow_of_another_environment_is_named_so(tmp_path: Path) -> None:
    text = mutate(
        '"created_at": "2025-01-01T00:00:00Z"}\n',
        '"created_at": "2025-01-01T00:00:00Z"}\n'
        "        workflows:\n"
        '          - {"id": "wf_live", "document_id": "doc_a", "status": "rejected", '
        '"created_at": "2025-02-02T00:00:00Z", "current_step": 1, "steps": []}\n',
    )
    message = "live.workflows[0].document_id: belongs to another account or environment: 'doc_a'"
    assert_error(tmp_path, text, 56, message)


def test_duplicate_key_names_its_first_use(tmp_path: Path) -> None:
    line = "      - {key: sk_test_alice, owner: a@b.example, scopes: all}\n"
    text = mutate("    oauth_clients:", line + "    oauth_clients:")
    message = "keys[1].key: duplicate key 'sk_test_alice' (first at accounts[0].keys[0].key)"
    assert_error(tmp_path, text, 14, message)


LIMITS = [
    ("title_max: 3", 33, "documents[0].title: must be at most 3 characters (got 5)"),
    ("metadata_keys: 1", 37, "documents[0].metadata: at most 1 keys allowed (got 2)"),
    ("metadata_key_len: 1", 37, "documents[0].metadata: key 'ab' must be 1..1 characters long"),
    ("metadata_value_len: 1", 37, "documents[0].metadata.ab: must be at most 1 characters"),
    ("steps_max: 2", 46, "workflows[0].steps: at most 2 steps allowed (got 3)"),
    ("title_max: 0", 3, "limits.title_max: must be a positive integer"),
    ("titel_max: 3", 3, "limits: unknown field 'titel_max'"),
]


def test_a_decision_may_have_an_empty_comment() -> None:
    """As the API takes it."""
    sandbox = load_seed_text(mutate("comment: Fine by me", "comment: ''"), "s")
    in_progress = sandbox.environments[("acct_test", "sandbox")].workflows[-1]
    assert in_progress.steps[0].comment == ""


def test_members_max_counts_the_members_besides_the_owner(tmp_path: Path) -> None:
    """The API takes `members_max` addresses and adds the vault's creator as its owner."""
    owner = "              - {email: alice@test.example, role: owner}\n"
    two = owner + "              - {email: bob@test.example, role: viewer}\n"
    limited = mutate("version: 1\n", "version: 1\nlimits:\n  members_max: 1\n")
    load_seed_text(limited.replace(owner, two), "s")
    three = two + "              - {email: carol@test.example, role: viewer}\n"
    message = "vaults[0].members: at most 2 members allowed (the owner and 1)"
    assert_error(tmp_path, limited.replace(owner, three), 27, message)


@pytest.mark.parametrize(("limit", "line", "message"), LIMITS)
def test_limits_from_the_seed_apply(tmp_path: Path, limit: str, line: int, message: str) -> None:
    text = mutate("version: 1\n", f"version: 1\nlimits:\n  {limit}\n")
    text = text.replace(
        f"sha256: {SHA_A}\n", f"sha256: {SHA_A}\n            metadata: {{x: 1, ab: xyz}}\n", 1
    )
    text = text.replace(
        "              - {email: alice@test.example, role: owner}\n",
        "              - {email: alice@test.example, role: owner}\n"
        "              - {email: bob@test.example, role: viewer}\n",
    )
    err = error_of(tmp_path, text)
    assert (err.line, message in err.message) == (line, True), str(err)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "seed file is empty"),
        ("# only a comment\n", 1, "seed file is empty"),
        ("- 1\n- 2\n", 1, "the top level must be a mapping"),
        ("version: 1\n", 1, "missing required field 'accounts'"),
        ("version: 1\n\naccounts: []\n", 3, "accounts: must list at least one account"),
    ],
)
def test_whole_file_problems(tmp_path: Path, text: str, line: int, message: str) -> None:
    err = error_of(tmp_path, text)
    assert err.line == line
    assert message in err.message


# Nine levels of nine aliases: a few hundred bytes that, written out, are 9**9 strings.
BOMB = "lols:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"  {name}: &{name} [{', '.join([f'*{before}'] * 9)}]\n"
    for before, name in zip("abcdefgh", "bcdefghi", strict=True)
)
OWNER = "- {email: alice@test.example, role: owner}"
# BASE with two anchors, which alone are harmless
ANCHORED = mutate("    name: Test Inc.\n", "    name: &n Test Inc.\n").replace(
    OWNER, OWNER[:2] + "&m " + OWNER[2:]
)


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("        name: Alice", "        name: *n", 8),
        ("        name: Alice", "        <<: {name: *n}", 8),
        ("role: owner}\n", "role: owner}\n              - {<<: *m, email: b@test.example}\n", 27),
        ("reference_time", BOMB + "reference_time", 57),
    ],
    ids=["alias", "alias in a merge", "merge key", "nested aliases"],
)
def test_yaml_aliases_are_refused_at_their_line(
    tmp_path: Path, old: str, new: str, line: int
) -> None:
    """Aliases are refused, at the first one, before anything is built from them."""
    load_seed_text(ANCHORED, "seed.yaml")
    assert old in ANCHORED
    err = error_of(tmp_path, ANCHORED.replace(old, new, 1))
    assert err.line == line, str(err)
    assert err.message.startswith("YAML aliases are not allowed (found '*"), str(err)


def test_missing_file_is_a_seed_error(tmp_path: Path) -> None:
    with pytest.raises(SeedError, match=r"nope\.yaml:1: cannot read seed file"):
        load_seed(tmp_path / "nope.yaml")


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"version: 1\naccounts:\n  - name: \xff\n")
    with pytest.raises(SeedError, match=r"bad\.yaml:3: not valid UTF-8"):
        load_seed(path)


def test_control_character_names_its_line(tmp_path: Path) -> None:
    err = error_of(tmp_path, mutate("name: Test Inc.", "name: Test\x07Inc."))
    assert (err.line, "unacceptable character #x0007" in err.message) == (4, True)


def test_error_deep_in_a_big_generated_seed_has_the_right_line(tmp_path: Path) -> None:
    lines = generate_seed(documents=2000).splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"status": "draft"' in line and i > 1500)
    lines[index] = lines[index].replace('"status": "draft"', '"status": "drafty"')
    err = error_of(tmp_path, "".join(lines))
    assert err.line == index + 1
    assert "status: unknown status 'drafty'" in err.message


# --- the JSON shortcut reads exactly what YAML reads ------------------------------------------

_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def reference(text: str) -> tuple[bool, Any]:
    try:
        return True, yaml.load(text, Loader=_YAML_LOADER)
    except yaml.YAMLError:
        return False, None


def ours(text: str) -> tuple[bool, Any]:
    try:
        return True, parse_yaml(text)
    except SeedError:
        return False, None


@pytest.mark.parametrize(
    "item",
    [
        r'{"a": "x\/y", "b": "tab\there"}',
        r'{"a": "\ud83d\ude00 \u00e9"}',
        '{"a": 1e5, "b": 1.5, "c": -0}',
        '{"a": NaN, "b": Infinity}',
        '{"a" : 1,"b":2}',
        '{"a": [1, {"b": null}], "c": {}}',
        '{"a": "# not a comment"} # a comment',
        '{"a": "caf\u00e9 \u2028 line"}',
        '{"a": "\x85"}',
        '{"' + "k" * 1100 + '": 1}',
        "{}",
        '{"a": 1}, {"b": 2}',
        '{"a": "}, {"}',
    ],
)
def test_json_items_read_as_yaml_reads_them(item: str) -> None:
    text = f"items:\n  - {item}\n  - {item}\nafter: 1\n"
    assert ours(text) == reference(text)


def test_json_lines_inside_a_block_scalar_stay_text() -> None:
    text = 'note: |\n  - {"a": 1}\n  - {"b": 2}\nitems:\n  - {"c": 3}\n'
    assert parse_yaml(text) == reference(text)[1]
    assert parse_yaml(text)["note"] == '- {"a": 1}\n- {"b": 2}\n'


def test_aliases_are_refused_on_both_paths() -> None:
    """An alias is refused whether the anchored list is JSON lines or YAML, at the alias."""
    for items in ('  - {"c": 3}\n  - {"d": 4}\n', "  - c: 3\n  - d: 4\n"):
        text = f"a: &x\n{items}b: *x\n"
        assert reference(text)[0]
        with pytest.raises(SeedError, match=r"^<text>:4: YAML aliases are not allowed"):
            parse_yaml(text)


def test_a_file_naming_the_private_tag_is_read_by_yaml_alone() -> None:
    text = '# !mockserver/json-run 0\nitems:\n  - {"a": 1}\n'
    assert parse_yaml(text) == {"items": [{"a": 1}]}


def test_duplicate_keys_are_rejected_on_both_paths() -> None:
    for text in ('items:\n  - {"a": 1, "a": 2}\n', "items:\n  - a: 1\n    a: 2\n"):
        assert ours(text) == (False, None)
        assert reference(text) == (True, {"items": [{"a": 2}]})


json_leaf = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(st.dictionaries(st.text(max_size=8), json_value, max_size=4), max_size=4),
    ensure_ascii=st.booleans(),
    separators=st.sampled_from([(", ", ": "), (",", ":")]),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_any_json_items_read_as_yaml_reads_them(
    items: list[dict[str, Any]], ensure_ascii: bool, separators: tuple[str, str], newline: str
) -> None:
    lines = ["items:"]
    lines += [
        f"  - {json.dumps(i, ensure_ascii=ensure_ascii, separators=separators)}" for i in items
    ]
    text = newline.join([*lines, "after: 1", ""])
    assert ours(text) == reference(text)
