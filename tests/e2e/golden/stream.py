"""A long, mixed, seeded request stream and its recording: the golden master of behaviour.

`play()` drives a fresh in-process app (frozen clock, fixed random seed) through about 1,500
requests chosen by a seeded `random.Random`: every `/v1` endpoint on all three base URLs, every
error status, idempotent replays and conflicts, gzip, OAuth, scenarios, clock moves, the control
plane and the inspector's pages. Ids the mock assigns are captured and used by later requests,
so the stream walks real state. Each exchange is kept as (method, target, status, headers in
the order sent, body).

    python -m tests.e2e.golden.stream record   # write stream.jsonl.gz from the code as it is
    python -m tests.e2e.golden.stream check    # compare the code as it is with the recording

A restructuring must leave the recording unchanged, byte for byte; `tests/e2e/test_golden.py`
runs the comparison in the suite.
"""

from __future__ import annotations

import base64
import gzip
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

RECORDING = Path(__file__).with_name("stream.jsonl.gz")
STREAM_SEED = 1931
REQUESTS = 1500
KEYS = {
    "full": "sk_test_mock_full",
    "readonly": "sk_test_mock_readonly",
    "revoked": "sk_test_mock_revoked",
    "eu": "sk_test_mock_eu",
    "live": "sk_live_mock_full",
}
PREFIXES = ("/v1", "/us/v1", "/eu/v1")
SEEDED_DOCS = (
    "doc_mock_draft",
    "doc_mock_in_review",
    "doc_mock_signed",
    "doc_mock_locked",
    "doc_mock_legal_hold",
)


def _app() -> Any:
    from mockserver.core.config import Settings
    from mockserver.web.app import create_app

    return create_app(Settings(clock_mode="frozen", random_seed=424242))


# The client's own User-Agent: journal bodies echo it, and httpx's default names its version.
USER_AGENT = "golden-stream-agent"


def _client(app: Any) -> httpx.Client:
    from mockserver.testing.inprocess import inprocess_client

    return inprocess_client(app, base_url="http://mock", headers={"user-agent": USER_AGENT})


_DURATIONS = (
    (re.compile(rb'"duration_ms":[0-9.e-]+'), b'"duration_ms":0'),
    (re.compile(rb'<td class="num">[0-9]+\.[0-9]+</td>'), b'<td class="num">0</td>'),
    (re.compile(rb"[0-9.]+ ms\b"), b"0 ms"),
)


def _without_wall_time(body: bytes) -> bytes:
    """The control plane's journals time each request by the wall clock, by design: those
    durations are the one thing a replay cannot reproduce, so they are blanked."""
    for pattern, blank in _DURATIONS:
        body = pattern.sub(blank, body)
    return body


def _without_install_path(body: bytes) -> bytes:
    """A loaded scenario's `source` is the absolute path of its file, which depends on where
    the shipped scenarios are (a checkout, or an installed wheel): that folder is written as
    `<scenarios>`, so that any checkout and any install replay the same recording."""
    from mockserver.core.shipped import data_dir

    return body.replace(str(data_dir("scenarios")).encode(), b"<scenarios>")


class Player:
    """Chooses the next request from what the stream has seen so far."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.rng = random.Random(STREAM_SEED)
        self.docs: list[str] = list(SEEDED_DOCS)
        self.vaults: list[str] = ["vault_mock_us"]
        self.workflows: list[str] = ["wf_mock_in_review"]
        self.exports: list[str] = []
        self.downloads: list[str] = []
        self.endpoints: list[str] = []
        self.cursors: list[str] = []
        self.tokens: list[str] = []
        self.keys_used: list[tuple[str, dict[str, Any]]] = []
        self.extra_keys: list[str] = []
        self.days = 0

    def pick(self, items: list[str], fallback: str) -> str:
        return self.rng.choice(items) if items and self.rng.random() < 0.9 else fallback

    def key(self) -> str:
        r = self.rng.random()
        if r < 0.8:
            return KEYS["full"]
        if r < 0.86:
            return KEYS["readonly"]
        if r < 0.89:
            return KEYS["revoked"]
        if r < 0.92 and self.tokens:
            return self.rng.choice(self.tokens)
        if r < 0.95 and self.extra_keys:
            return self.rng.choice(self.extra_keys)
        if r < 0.97:
            return KEYS["live"]
        return "sk_test_nobody"

    def send(
        self,
        method: str,
        target: str,
        *,
        key: str | None = "",
        body: Any = None,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        sent: dict[str, str] = {}
        if key == "":
            key = self.key()
        if key is not None:
            sent["authorization"] = f"Bearer {key}"
        if self.rng.random() < 0.25:
            sent["accept-encoding"] = "gzip"
        else:
            sent["accept-encoding"] = "identity"
        sent.update(headers or {})
        if body is not None:
            response = self.client.request(method, target, json=body, headers=sent)
        elif form is not None:
            response = self.client.request(method, target, data=form, headers=sent)
        elif raw is not None:
            sent.setdefault("content-type", "application/json")
            response = self.client.request(method, target, content=raw, headers=sent)
        else:
            response = self.client.request(method, target, headers=sent)
        content = response.content  # decoded (gzip undone) by the client
        headers = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in response.headers.raw]
        shown = content
        if target.startswith("/_mock"):
            shown = _without_install_path(_without_wall_time(content))
        if shown != content:  # its length moved with the durations or the path
            headers = [[k, "*" if k == "content-length" else v] for k, v in headers]
        record = {
            "method": method,
            "target": target,
            "status": response.status_code,
            "headers": headers,
            "body": base64.b64encode(shown).decode(),
        }
        try:
            self.learn(json.loads(content))
        except ValueError:
            pass
        return record

    def learn(self, data: Any) -> None:
        """Remember ids the mock assigned, for later requests to use."""
        if not isinstance(data, dict):
            return
        if isinstance(data.get("next_cursor"), str):
            self.cursors.append(data["next_cursor"])
        ident = data.get("id")
        if isinstance(ident, str):
            for prefix, bucket in (
                ("doc_", self.docs),
                ("vault_", self.vaults),
                ("wf_", self.workflows),
                ("exp_", self.exports),
                ("whk_", self.endpoints),
            ):
                if ident.startswith(prefix) and ident not in bucket:
                    bucket.append(ident)
        if isinstance(data.get("download_url"), str):
            self.downloads.append(data["download_url"])
        if isinstance(data.get("access_token"), str):
            self.tokens.append(data["access_token"])
        for key in data.get("keys", []) if isinstance(data.get("keys"), list) else []:
            if isinstance(key, dict) and isinstance(key.get("key"), str):
                self.extra_keys.append(key["key"])

    # One method per kind of request; `play` picks among them with weights.

    def whoami(self) -> dict[str, Any]:
        return self.send("GET", f"{self.rng.choice(PREFIXES)}/whoami")

    def list_documents(self) -> dict[str, Any]:
        query: list[str] = []
        if self.rng.random() < 0.5:
            query.append(f"limit={self.rng.choice([1, 3, 20, 100, 0, 101, 'x'])}")
        if self.rng.random() < 0.3:
            query.append(f"status={self.rng.choice(['draft', 'signed', 'locked', 'nope'])}")
        if self.rng.random() < 0.3:
            query.append(f"vault_id={self.pick(self.vaults, 'vault_nowhere')}")
        if self.rng.random() < 0.3 and self.cursors:
            query.append(f"cursor={self.rng.choice([*self.cursors, 'cur_bogus'])}")
        target = f"{self.rng.choice(PREFIXES)}/documents" + ("?" + "&".join(query) if query else "")
        return self.send("GET", target)

    def create_document(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "title": self.rng.choice(["Contract", "NDA", "", "x" * 501, "Lease ü"]),
            "vault_id": self.pick(self.vaults, "vault_nowhere"),
        }
        if self.rng.random() < 0.4:
            body["metadata"] = {"amount": self.rng.randint(1, 50000), "kind": "nda"}
        if self.rng.random() < 0.1:
            del body["title"]
        headers: dict[str, str] = {}
        if self.rng.random() < 0.3:
            if self.keys_used and self.rng.random() < 0.5:
                idem, previous = self.rng.choice(self.keys_used)
                if self.rng.random() < 0.6:
                    body = previous
            else:
                idem = f"idem-{self.rng.randint(0, 10**9)}"
                self.keys_used.append((idem, body))
            headers["idempotency-key"] = idem
        return self.send(
            "POST", f"{self.rng.choice(PREFIXES)}/documents", body=body, headers=headers
        )

    def get_document(self) -> dict[str, Any]:
        return self.send(
            "GET", f"{self.rng.choice(PREFIXES)}/documents/{self.pick(self.docs, 'doc_x')}"
        )

    def delete_document(self) -> dict[str, Any]:
        return self.send("DELETE", f"/v1/documents/{self.pick(self.docs, 'doc_x')}")

    def vaults_call(self) -> dict[str, Any]:
        r = self.rng.random()
        prefix = self.rng.choice(PREFIXES)
        if r < 0.4:
            return self.send("GET", f"{prefix}/vaults")
        if r < 0.7:
            return self.send("GET", f"{prefix}/vaults/{self.pick(self.vaults, 'vault_mock_eu')}")
        body: dict[str, Any] = {
            "name": self.rng.choice(["Legal", "HR", ""]),
            "region": self.rng.choice(["us", "eu", "mars"]),
        }
        if self.rng.random() < 0.5:
            body["members"] = self.rng.choice([["a@b.co"], ["not-an-email"], []])
        return self.send("POST", f"{prefix}/vaults", body=body)

    def create_workflow(self) -> dict[str, Any]:
        steps: list[dict[str, Any]] = [{"assignee": "ana@example.com"}]
        if self.rng.random() < 0.5:
            steps.append(
                {
                    "assignee": "bo@example.com",
                    "condition": self.rng.choice(
                        ["metadata.amount > 10000", 'metadata.kind == "nda"', "bad ((", "true"]
                    ),
                }
            )
        body = {"document_id": self.pick(self.docs, "doc_x"), "steps": steps}
        return self.send("POST", "/v1/workflows", body=body)

    def advance(self) -> dict[str, Any]:
        body = {"decision": self.rng.choice(["approve", "approve", "reject", "maybe"])}
        if self.rng.random() < 0.3:
            body["comment"] = "looks fine"
        wf = self.pick(self.workflows, "wf_x")
        return self.send("POST", f"/v1/workflows/{wf}/advance", body=body)

    def get_workflow(self) -> dict[str, Any]:
        return self.send("GET", f"/v1/workflows/{self.pick(self.workflows, 'wf_x')}")

    def audit(self) -> dict[str, Any]:
        query = [f"limit={self.rng.choice([5, 50])}"]
        if self.rng.random() < 0.3:
            query.append(f"resource_id={self.pick(self.docs, 'doc_x')}")
        if self.rng.random() < 0.2:
            query.append("since=2026-01-15T09:00:00Z")
        if self.rng.random() < 0.2:
            query.append(f"type={self.rng.choice(['document.created', 'workflow.advanced'])}")
        if self.rng.random() < 0.1:
            query.append("actor=system")
        return self.send("GET", f"{self.rng.choice(PREFIXES)}/audit_logs?" + "&".join(query))

    def export(self) -> dict[str, Any]:
        r = self.rng.random()
        if r < 0.4 or not self.exports:
            period = self.rng.choice(
                ["2025-01-01/2026-12-31", "2026-01-01/2026-02-01", "2026-02-30/2026-03-01", "x"]
            )
            return self.send("POST", "/v1/audit_logs/export", body={"period": period})
        if r < 0.8:
            return self.send("GET", f"/v1/audit_logs/export/{self.rng.choice(self.exports)}")
        url = (
            self.rng.choice(self.downloads)
            if self.downloads
            else "/v1/audit_logs/export/exp_x/download"
        )
        url = url.split("://", 1)[-1]
        url = url[url.index("/") :] if "/" in url else url
        if self.rng.random() < 0.3:
            url = url.replace("signature=", "signature=0")
        return self.send("GET", url, key=None)

    def webhooks(self) -> dict[str, Any]:
        r = self.rng.random()
        if r < 0.4:
            return self.send("GET", "/v1/webhook_endpoints")
        if r < 0.8:
            body = {
                "url": self.rng.choice(
                    ["http://127.0.0.1:9/hooks", "https://127.0.0.1:9/x", "ftp://nope"]
                ),
                "events": self.rng.choice([["*"], ["document.locked"], [], ["bogus.event"]]),
            }
            return self.send("POST", "/v1/webhook_endpoints", body=body)
        return self.send("DELETE", f"/v1/webhook_endpoints/{self.pick(self.endpoints, 'whk_x')}")

    def malformed(self) -> dict[str, Any]:
        kind = self.rng.randrange(5)
        if kind == 0:
            return self.send("POST", "/v1/documents", raw=b"{not json")
        if kind == 1:
            return self.send("GET", "/v1/nowhere")
        if kind == 2:
            return self.send("PATCH", "/v1/documents")
        if kind == 3:
            return self.send("POST", "/v1/vaults", raw=b"[]")
        return self.send("GET", "/v1/documents?limit=1&limit=2")

    def oauth(self) -> dict[str, Any]:
        query = (
            "response_type=code&client_id=mock_client"
            "&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback&state=s1&scope=documents%3Aread"
        )
        answer = self.send("GET", f"/v1/oauth/authorize?{query}", key=None)
        location = dict(answer["headers"]).get("location", "")
        code = location.split("code=", 1)[1].split("&", 1)[0] if "code=" in location else "nope"
        form = {
            "grant_type": "authorization_code",
            "code": code if self.rng.random() < 0.8 else "bogus",
            "redirect_uri": "http://127.0.0.1:8765/callback",
            "client_id": "mock_client",
            "client_secret": "mock_secret",
        }
        return self.send("POST", "/v1/oauth/token", key=None, form=form)

    def control(self) -> dict[str, Any]:
        kind = self.rng.randrange(10)
        if kind == 0:
            return self.send(
                "POST",
                "/_mock/clock/advance",
                key=None,
                body={"seconds": self.rng.choice([1, 30, 400, 3600, -1])},
            )
        if kind == 1:
            return self.send("GET", "/_mock/clock", key=None)
        if kind == 2:
            body = {"on": self.rng.choice([True, False, "yes"])}
            return self.send(
                "POST",
                f"/_mock/documents/{self.pick(self.docs, 'doc_x')}/legal_hold",
                key=None,
                body=body,
            )
        if kind == 3:
            name = self.rng.choice(["legal_hold", "flaky_documents", "deprecated_endpoint", "nope"])
            return self.send("POST", "/_mock/scenarios", key=None, body={"name": name})
        if kind == 4:
            return self.send("GET", "/_mock/scenarios", key=None)
        if kind == 5:
            return self.send("DELETE", "/_mock/scenarios", key=None)
        if kind == 6:
            return self.send("GET", "/_mock/requests?limit=5", key=None)
        if kind == 7:
            return self.send(
                "POST", "/_mock/accounts", key=None, body={"region": self.rng.choice(["us", "eu"])}
            )
        if kind == 8:
            self.days += 1  # always ahead of where advances got to: rate windows drain
            at = f"2026-02-{self.days:02d}T09:00:00Z"
            return self.send("POST", "/_mock/clock/set", key=None, body={"at": at})
        return self.send("GET", "/_mock/webhooks/deliveries", key=None)

    def inspector(self) -> dict[str, Any]:
        page = self.rng.choice(["", "/requests", "/webhooks", "/resources", "/audit", "/state"])
        return self.send("GET", f"/_mock/inspector{page}", key=None)

    def openapi(self) -> dict[str, Any]:
        return self.send("GET", "/v1/openapi.json", key=None)


WEIGHTS = {
    "whoami": 4,
    "list_documents": 10,
    "create_document": 14,
    "get_document": 10,
    "delete_document": 3,
    "vaults_call": 6,
    "create_workflow": 8,
    "advance": 8,
    "get_workflow": 4,
    "audit": 6,
    "export": 5,
    "webhooks": 4,
    "malformed": 3,
    "oauth": 3,
    "control": 6,
    "inspector": 2,
}


def play() -> Iterator[dict[str, Any]]:
    """Run the stream against a fresh app; yields one record per exchange."""
    app = _app()
    with _client(app) as client:
        player = Player(client)
        yield player.openapi()
        names = list(WEIGHTS)
        weights = [WEIGHTS[n] for n in names]
        for index in range(REQUESTS):
            if index % 100 == 99:  # a minute passes now and then: rate windows drain
                yield player.send("POST", "/_mock/clock/advance", key=None, body={"seconds": 61})
            name = player.rng.choices(names, weights)[0]
            yield getattr(player, name)()
        yield player.send("POST", "/_mock/reset", key=None)
        yield player.whoami()


def record() -> int:
    with gzip.open(RECORDING, "wt", encoding="utf-8", compresslevel=9) as out:
        count = 0
        for item in play():
            out.write(json.dumps(item, sort_keys=True) + "\n")
            count += 1
    return count


def recorded() -> list[dict[str, Any]]:
    with gzip.open(RECORDING, "rt", encoding="utf-8") as source:
        return [json.loads(line) for line in source]


def first_difference() -> str | None:
    """None when the code as it is replays the recording exactly; else the first exchange
    that differs, described."""
    expected = recorded()
    actual = list(play())
    for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            fields = [k for k in want if want[k] != got.get(k)]
            return (
                f"exchange {index} ({want['method']} {want['target']}) differs in {fields}:\n"
                f"  recorded: {json.dumps({k: want[k] for k in fields})[:2000]}\n"
                f"  now:      {json.dumps({k: got.get(k) for k in fields})[:2000]}"
            )
    if len(expected) != len(actual):
        return f"{len(expected)} exchanges recorded, {len(actual)} now"
    return None


if __name__ == "__main__":
    command = sys.argv[1:] or ["check"]
    if command == ["record"]:
        print(f"recorded {record()} exchanges in {RECORDING}")
    else:
        difference = first_difference()
        print(difference or "identical")
        sys.exit(1 if difference else 0)
