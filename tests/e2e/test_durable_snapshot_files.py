"""No snapshot file a server accepts can leave a `--state-dir` that fails to start.

A corpus of crafted files (every finding of the snapshot checks, and huge numbers, negative
counts, wrong types in nested places, duplicate ids, unknown tags), each uploaded and restored
on one durable server whose log is compacted after every request: a file is either refused
(422 on `file`, naming the place, and nothing changes) or accepted and then served without a
5xx; then `kill -9`, and the restart, from the checkpoint the compaction wrote and the log after
it, must succeed. A file of another sandbox (an account's into another account or into the
server, a server's into an account) is always refused; an account whose named snapshots fill
the server's limit refuses any upload of a new name (409) and keeps them all across the
restart. The findings' cases run in the fast tiers; the rest are marked `slow`.
"""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest

from tests.support.durable import DurableServer
from tests.support.snapshot_files import first_record

Edit = Callable[["Files"], tuple[str, dict[str, Any]]]  # -> (the sandbox's /_mock base, file)
LOG_MAX = "0.000001"  # MiB: one byte, so every request is followed by a compaction


@dataclass
class Files:
    """The downloaded files the edits start from (copies: an edit changes its own)."""

    server: dict[str, Any]
    mine: dict[str, Any]  # account B's
    theirs: dict[str, Any]  # account A's
    b: str  # B's /_mock base

    def of_server(self) -> dict[str, Any]:
        return copy.deepcopy(self.server)

    def of_account(self) -> dict[str, Any]:
        return copy.deepcopy(self.mine)


@dataclass
class Running:
    server: DurableServer
    client: httpx.Client
    files: Files


def _download(client: httpx.Client, base: str) -> dict[str, Any]:
    assert client.post(f"{base}/snapshots", json={"name": "base"}).status_code == 201
    parsed: dict[str, Any] = orjson.loads(client.get(f"{base}/snapshots/base/download").content)
    parsed.pop("sha256")
    return parsed


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """One durable server for the corpus, with a busy server sandbox and two accounts."""
    server = DurableServer(
        tmp_path_factory.mktemp("corpus") / "state",
        "--clock",
        "frozen",
        "--state-log-max",
        LOG_MAX,
    )
    client = server.start()
    a = client.post("/_mock/accounts", json={"name": "A"}).json()
    b = client.post("/_mock/accounts", json={"name": "B"}).json()
    client.post("/v1/webhook_endpoints", json={"url": "http://127.0.0.1:9/x", "events": ["*"]})
    vault = client.post("/v1/vaults", json={"name": "V", "region": "us"}).json()
    body = {"title": "Doc", "vault_id": vault["id"]}
    doc = client.post("/v1/documents", json=body, headers={"Idempotency-Key": "k"}).json()
    steps = [{"assignee": "ann@example.com"}, {"assignee": "bo@example.com"}]
    client.post("/v1/workflows", json={"document_id": doc["id"], "steps": steps})
    client.post("/v1/audit_logs/export", json={"period": "2026-01-01/2026-12-31"})
    client.post("/_mock/webhooks/wait")
    files = Files(
        _download(client, "/_mock"),
        _download(client, f"/_mock/accounts/{b['id']}"),
        _download(client, f"/_mock/accounts/{a['id']}"),
        f"/_mock/accounts/{b['id']}",
    )
    try:
        yield Running(server, client, files)
    finally:
        server.stop()


def added(data: dict[str, Any], kind: str) -> dict[str, Any]:
    for _, world in data["state"]["worlds"]:
        for region in world["regions"].values():
            for item in region[kind]:
                if "$" in item:
                    return item  # type: ignore[no-any-return]
    raise LookupError(kind)


def server_edit(change: Callable[[dict[str, Any]], Any]) -> Edit:
    def edit(files: Files) -> tuple[str, dict[str, Any]]:
        data = files.of_server()
        change(data)
        return "/_mock", data

    return edit


def record_edit(tag: str, **fields: Any) -> Edit:
    return server_edit(lambda data: first_record(data, tag).update(fields))


def other_accounts_file(files: Files) -> tuple[str, dict[str, Any]]:
    """A's file with B's header fields pasted in, uploaded into B."""
    data = copy.deepcopy(files.theirs)
    for name in ("seed", "random_seed", "start"):
        data[name] = files.mine[name]
    return files.b, data


def servers_file_into_account(files: Files) -> tuple[str, dict[str, Any]]:
    data = files.of_server()
    for name in ("seed", "random_seed", "start"):
        data[name] = files.mine[name]
    data["state"]["account_sandboxes"] = []
    return files.b, data


def accounts_own_file(files: Files) -> tuple[str, dict[str, Any]]:
    return files.b, files.of_account()


def other_accounts_file_as_it_is(files: Files) -> tuple[str, dict[str, Any]]:
    return files.b, copy.deepcopy(files.theirs)


def servers_file_as_it_is_into_account(files: Files) -> tuple[str, dict[str, Any]]:
    return files.b, files.of_server()


def accounts_file_into_server(files: Files) -> tuple[str, dict[str, Any]]:
    """B's file with the server's header fields pasted in, uploaded into the server."""
    data = files.of_account()
    for name in ("seed", "random_seed", "start"):
        data[name] = files.server[name]
    return "/_mock", data


def accounts_file_as_it_is_into_server(files: Files) -> tuple[str, dict[str, Any]]:
    return "/_mock", files.of_account()


def clock_at(seconds: float) -> Edit:
    return server_edit(
        lambda data: data["state"]["clock"].update({"now": seconds, "frozen_at": seconds})
    )


def set_cookie(data: dict[str, Any]) -> None:
    record = first_record(data, "Record")
    line = "\r\nset-cookie: mock_admin_token=attacker; Path=/_mock\r\n\r\n"
    record["response"] = record["response"].replace("\r\n\r\n", line, 1)


def duplicate_vault(data: dict[str, Any]) -> None:
    for _, world in data["state"]["worlds"]:
        vaults = world["regions"]["us"]["vaults"]
        for item in vaults:
            if "$" in item:
                vaults.append(copy.deepcopy(item))
                return


def duplicate_account_sandbox(data: dict[str, Any]) -> None:
    sandboxes = data["state"]["account_sandboxes"]
    sandboxes.append(copy.deepcopy(sandboxes[0]))


FINDINGS: list[tuple[str, Edit]] = [
    ("another account's file into B", other_accounts_file),
    ("another account's file as it is into B", other_accounts_file_as_it_is),
    ("a server's file into an account", servers_file_into_account),
    ("a server's file as it is into an account", servers_file_as_it_is_into_account),
    ("an account's file into the server", accounts_file_into_server),
    ("an account's file as it is into the server", accounts_file_as_it_is_into_server),
    ("B's own file into B", accounts_own_file),
    ("the unchanged server file", server_edit(lambda data: None)),
    ("the clock at -1e12", clock_at(-1e12)),
    ("the clock at +1e12", clock_at(1e12)),
    ("the clock at the last second of 9999", clock_at(253_402_300_799)),
    ("created_at of 1e18", server_edit(lambda data: data.update(created_at=10**18))),
    ("a workflow of no steps", server_edit(lambda d: added(d, "workflows").update(steps=[]))),
    ("a stored answer that sets a cookie", server_edit(set_cookie)),
]
MORE: list[tuple[str, Edit]] = [
    ("a huge lock_after", record_edit("Vault", lock_after=2**62)),
    ("a lock_after of 2**53", record_edit("Vault", lock_after=2**53)),
    ("a negative count", record_edit("Vault", seq=-1)),
    ("a burst of 0", record_edit("ApiKey", burst=0)),
    ("a huge rate limit", record_edit("ApiKey", rate_limit=2**62, burst=2**62)),
    ("a token lifetime of 2**63", record_edit("OAuthClient", token_lifetime=2**63 - 1)),
    ("a string where a list goes", record_edit("Vault", members="everyone")),
    ("a number in a nested list", record_edit("Workflow", steps=[1])),
    ("a dict of the wrong record", record_edit("Workflow", steps=[{"$": "Vault"}])),
    ("an unknown tag", record_edit("Vault", **{"$": "Pickle"})),
    ("a duplicate vault", server_edit(duplicate_vault)),
    ("a duplicate account sandbox", server_edit(duplicate_account_sandbox)),
    ("a workflow past its last step", record_edit("Workflow", current_step=99)),
    ("a timer due in 1e15", record_edit("Timer", due=1e15)),
    ("a journal entry of a huge size", record_edit("Entry", request_size=2**63)),
    ("an export completed without a signature", record_edit("ExportJob", status="completed")),
    ("a delivery of no endpoint", record_edit("Delivery", endpoint_id="we_nowhere")),
    ("a stored answer with no head", record_edit("Record", response="garbage")),
    ("a stored answer of status 500", record_edit("Record", response="500\r\n\r\n{}")),
    ("a sequence of 2**62", server_edit(lambda d: d["state"]["journal"].update(seq=2**62))),
    ("scheduler order 2**62", server_edit(lambda d: d["state"]["scheduler"].update(order=2**62))),
]
# A file of another sandbox restores only into its own (docs/reference/snapshot-format.md):
# these are refused, whatever header fields were pasted in.
OF_ANOTHER_SANDBOX = {
    "another account's file into B",
    "another account's file as it is into B",
    "a server's file into an account",
    "a server's file as it is into an account",
    "an account's file into the server",
    "an account's file as it is into the server",
}
CORPUS = [pytest.param(*case, id=case[0]) for case in FINDINGS] + [
    pytest.param(*case, id=case[0], marks=pytest.mark.slow) for case in MORE
]
READS = (
    "/v1/vaults",
    "/v1/documents?limit=100",
    "/v1/audit_logs?limit=100",
    "/v1/webhook_endpoints",
    "/_mock/webhooks/deliveries",
    "/_mock/requests",
    "/_mock/snapshots",
    "/_mock/clock",
    "/_mock/seed",
)


def _unchanged(client: httpx.Client, base: str) -> tuple[bytes, ...]:
    return tuple(client.get(path).content for path in (f"{base}/snapshots", f"{base}/clock"))


def _serves(client: httpx.Client, base: str) -> None:
    """What a restored sandbox does next answers without a 5xx."""
    for path in READS:
        assert client.get(path).status_code < 500, path
    key = {"Idempotency-Key": "k"}
    replay = client.post("/v1/documents", json={"title": "Doc", "vault_id": "x"}, headers=key)
    assert replay.status_code < 500
    assert "set-cookie" not in replay.headers
    for listed in client.get("/v1/documents?limit=100").json().get("data", []):
        assert client.get(f"/v1/documents/{listed['id']}").status_code < 500
    assert client.post(f"{base}/clock/advance", json={"seconds": 3 * 86400}).status_code < 500
    assert client.post(f"{base}/snapshots", json={"name": "after"}).status_code < 500
    for path in READS:
        assert client.get(path).status_code < 500, path


@pytest.mark.parametrize(("what", "edit"), CORPUS)
def test_a_crafted_file_is_refused_or_served_and_the_state_dir_starts(
    running: Running, what: str, edit: Edit
) -> None:
    client, server = running.client, running.server
    base, data = edit(running.files)
    before = _unchanged(client, base)
    uploaded = client.post(
        f"{base}/snapshots/upload", params={"name": "crafted"}, content=orjson.dumps(data)
    )
    if what in OF_ANOTHER_SANDBOX:
        assert uploaded.status_code == 422, uploaded.text
    if uploaded.status_code == 422:
        error = uploaded.json()["error"]
        assert (error["type"], error["param"]) == ("validation_error", "file")
        assert " at " in error["message"] or "'" in error["message"], error["message"]
        assert _unchanged(client, base) == before
    else:
        assert uploaded.status_code == 201, uploaded.text
        restored = client.post(f"{base}/snapshots/crafted/restore")
        assert restored.status_code == 200, restored.text
        _serves(client, base)
    server.kill()
    client = running.client = server.start()  # from the checkpoint of the last compaction
    for path in READS:
        assert client.get(path).status_code < 500, path
    # The server's snapshot holds the account sandboxes too: the next case starts from here.
    assert client.post("/_mock/snapshots/base/restore").status_code == 200


@pytest.mark.slow
def test_a_gzipped_file_of_much_white_space_restores_and_the_state_dir_starts(
    running: Running,
) -> None:
    """A gzipped upload is kept as its compact JSON, which has the same values in far fewer
    bytes: bounding what a file builds by its size must not refuse, at its restore or at the
    next start, what the server already accepted. Two million numbers in a document's metadata
    pass as indented text (the bound is 6 times the size) and would not as compact JSON."""
    client, server = running.client, running.server
    data = running.files.of_server()
    first_record(data, "Document")["metadata"] = {"many": [1] * 2_000_000}
    text = json.dumps(data, indent=40).encode()
    uploaded = client.post(
        "/_mock/snapshots/upload", params={"name": "spacious"}, content=gzip.compress(text, 1)
    )
    assert uploaded.status_code == 201, uploaded.text
    assert client.post("/_mock/snapshots/spacious/restore").status_code == 200
    server.kill()
    client = running.client = server.start()  # from the checkpoint of the last compaction
    assert client.post("/_mock/snapshots/spacious/restore").status_code == 200
    for path in READS:
        assert client.get(path).status_code < 500, path
    assert client.delete("/_mock/snapshots/spacious").status_code == 200
    assert client.post("/_mock/snapshots/base/restore").status_code == 200


def _listings(client: httpx.Client, bases: list[str]) -> dict[str, list[str]]:
    return {
        base: [s["name"] for s in client.get(f"{base}/snapshots").json()["data"]] for base in bases
    }


def test_an_accounts_files_at_the_servers_limit_and_the_state_dir_starts(
    running: Running,
) -> None:
    """B's named snapshots fill the server's 64 (its own and its accounts' together): an upload
    of B's file, into B, A or the server, is 409 saying so and changes nothing; one over a name
    B keeps replaces it and restores. After `kill -9` the restart keeps every one, and the
    limit still holds."""
    client, server, files = running.client, running.server, running.files
    accounts = client.get("/_mock/accounts").json()["data"]
    bases = ["/_mock", *(f"/_mock/accounts/{account['id']}" for account in accounts)]
    assert files.b in bases
    kept = sum(len(names) for names in _listings(client, bases).values())
    for index in range(64 - kept):
        saved = client.post(f"{files.b}/snapshots", json={"name": f"fill-{index}"})
        assert saved.status_code == 201, saved.text
    before = _listings(client, bases)
    assert sum(len(names) for names in before.values()) == 64
    data = orjson.dumps(files.of_account())
    for base in bases:
        refused = client.post(f"{base}/snapshots/upload", params={"name": "over"}, content=data)
        assert refused.status_code == 409, refused.text
        error = refused.json()["error"]
        assert (error["type"], error["param"]) == ("conflict", "name")
        assert "64 named snapshots" in error["message"]
    assert _listings(client, bases) == before
    replaced = client.post(f"{files.b}/snapshots/upload", params={"name": "fill-0"}, content=data)
    assert replaced.status_code == 201, replaced.text
    assert client.post(f"{files.b}/snapshots/fill-0/restore").status_code == 200
    _serves(client, files.b)  # its save of "after" is refused: no room
    assert _listings(client, bases) == before
    server.kill()
    client = running.client = server.start()  # from the checkpoint of the last compaction
    assert _listings(client, bases) == before
    refused = client.post(f"{files.b}/snapshots", json={"name": "over"})
    assert refused.status_code == 409, refused.text
    for path in READS:
        assert client.get(path).status_code < 500, path
    # The server's snapshot holds the account sandboxes, without their named snapshots.
    assert client.post("/_mock/snapshots/base/restore").status_code == 200
