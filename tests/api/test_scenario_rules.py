"""Rules through HTTP: every matcher, every kind of answer, bursts and deprecations."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from mockserver.engine import faults
from tests.support.api import assert_envelope, clock_advance
from tests.support.keys import EU, READONLY, auth
from tests.support.scenarios import create_doc, load

RULE = """
name: t
rules:
  - name: r
    match: {MATCH}
    respond: {status: 503}
"""


def rule(match: str, respond: str = "{status: 503}") -> str:
    return RULE.replace("{MATCH}", match).replace("{status: 503}", respond)


@pytest.mark.parametrize(
    ("match", "hits", "misses"),
    [
        ("{method: POST}", [("POST", "/v1/documents")], [("GET", "/v1/documents")]),
        (
            "{method: [GET, DELETE], path: /v1/documents/doc_mock_draft}",
            [("GET", "/v1/documents/doc_mock_draft"), ("DELETE", "/v1/documents/doc_mock_draft")],
            [("GET", "/v1/documents/doc_mock_signed")],
        ),
        (
            '{path: "/v1/documents/{id}"}',
            [("GET", "/v1/documents/doc_mock_draft"), ("GET", "/us/v1/documents/doc_mock_draft")],
            [("GET", "/v1/documents"), ("GET", "/v1/vaults/vault_mock_us")],
        ),
        (
            '{path: "/v1/documents/doc_mock_*"}',
            [("GET", "/v1/documents/doc_mock_locked")],
            [("GET", "/v1/documents"), ("GET", "/v1/vaults")],
        ),
        (
            '{path: "/v1/**/advance"}',
            [("POST", "/v1/workflows/wf_mock_in_review/advance")],
            [("GET", "/v1/workflows/wf_mock_in_review")],
        ),
        (
            "{key: sk_test_mock_full}",
            [("GET", "/v1/whoami")],
            [("GET", "/v1/whoami", READONLY)],
        ),
        (
            "{key: [sk_test_mock_readonly, sk_test_mock_eu]}",
            [("GET", "/v1/whoami", READONLY), ("GET", "/v1/whoami", EU)],
            [("GET", "/v1/whoami")],
        ),
        (
            '{query: {status: "signed"}}',
            [("GET", "/v1/documents?status=signed")],
            [("GET", "/v1/documents?status=draft"), ("GET", "/v1/documents")],
        ),
        ('{query: {cursor: "*"}}', [("GET", "/v1/documents?cursor=x")], [("GET", "/v1/documents")]),
    ],
)
def test_matchers(
    both: httpx.Client,
    match: str,
    hits: list[tuple[str, ...]],
    misses: list[tuple[str, ...]],
) -> None:
    load(both, rule(match))
    for method, path, *key in misses:
        headers = auth(key[0]) if key else {}
        assert both.request(method, path, headers=headers).status_code != 503, (method, path)
    for method, path, *key in hits:
        headers = auth(key[0]) if key else {}
        assert both.request(method, path, headers=headers).status_code == 503, (method, path)


def test_header_matcher_exact_and_present(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        rules:
          - name: exact
            match: {headers: {X-Test-Case: fail-me}}
            respond: {status: 500}
          - name: present
            match: {headers: {X-Present: "*"}}
            respond: {status: 502}
        """,
    )
    assert both.get("/v1/whoami").status_code == 200
    assert both.get("/v1/whoami", headers={"X-Test-Case": "other"}).status_code == 200
    assert both.get("/v1/whoami", headers={"x-test-case": "fail-me"}).status_code == 500
    assert both.get("/v1/whoami", headers={"X-Present": ""}).status_code == 502


def test_body_subset_matcher(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        rules:
          - name: nested
            match: {method: POST, body: {extra: {kind: nda, flags: [1, true]}}}
            respond: {status: 418}
        """,
    )

    def post(body: object) -> int:
        return both.post("/v1/documents", json=body).status_code

    base = {"title": "t", "vault_id": "vault_mock_us"}
    # unknown body fields are ignored by the API, so `extra` is free to match on
    assert post({**base, "extra": {"kind": "nda", "flags": [1, True], "x": 1}}) == 418
    assert post({**base, "extra": {"kind": "nda", "flags": [True, 1]}}) == 201
    assert post({**base, "extra": {"kind": "nda", "flags": [1]}}) == 201
    assert post({**base, "extra": {"kind": "msa", "flags": [1, True]}}) == 201
    assert post({**base, "extra": {"kind": "nda", "flags": [1.0, True]}}) == 418
    # a body that is not JSON never matches, and reaches the app intact
    response = both.post("/v1/documents", content=b"{not json")
    assert_envelope(response, 400, "bad_request")
    # bodies are replayed to the app: the created document has the posted title
    created = both.post("/v1/documents", json={**base, "title": "kept"}).json()
    assert created["title"] == "kept"


@pytest.mark.parametrize(
    ("counts", "pattern"),
    [
        ("nth: 2", [201, 503, 201, 201]),
        ("times: 2", [503, 503, 201, 201]),
        ("nth: 2, times: 2", [201, 503, 503, 201]),
        ("nth: 1", [503, 201, 201, 201]),
    ],
)
def test_nth_and_times(both: httpx.Client, counts: str, pattern: list[int]) -> None:
    load(both, rule(f"{{method: POST, path: /v1/documents, {counts}}}"))
    assert [create_doc(both).status_code for _ in pattern] == pattern


def test_rules_count_independently_and_the_first_firing_answers(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        rules:
          - name: first
            match: {method: POST, nth: 2}
            respond: {status: 500}
          - name: second
            match: {method: POST, nth: 1, times: 2}
            respond: {status: 502}
        """,
    )
    # request 1: only `second` fires; 2: both fire, `first` answers; 3: neither
    assert [create_doc(both).status_code for _ in range(3)] == [502, 500, 201]
    rules = both.get("/_mock/scenarios").json()["data"][0]["rules"]
    assert rules == [
        {"name": "first", "enabled": True, "matched": 3, "fired": 1},
        {"name": "second", "enabled": True, "matched": 3, "fired": 2},
    ]


def test_injected_error_is_the_service_envelope(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        rules:
          - name: r
            match: {path: /v1/vaults}
            respond:
              status: 409
              error: {type: conflict, message: Injected conflict., param: name}
              headers: {X-Extra: "1"}
        """,
    )
    response = both.get("/v1/vaults")
    error = assert_envelope(response, 409, "conflict")
    assert error == {
        "type": "conflict",
        "message": "Injected conflict.",
        "param": "name",
        "request_id": response.headers["x-request-id"],
    }
    assert response.headers["x-extra"] == "1"


def test_status_alone_gets_the_statuss_default_envelope(both: httpx.Client) -> None:
    load(both, rule("{path: /v1/vaults}", "{status: 404}"))
    error = assert_envelope(both.get("/v1/vaults"), 404, "not_found")
    assert error["message"] == "Injected by scenario rule 'r'."
    load(both, rule("{path: /v1/vaults}", "{status: 503}"))
    assert_envelope(both.get("/v1/vaults"), 503, "api_error")


def test_injected_429_always_has_retry_after(both: httpx.Client) -> None:
    load(both, rule("{path: /v1/vaults}", "{status: 429}"))
    response = both.get("/v1/vaults")
    assert_envelope(response, 429, "rate_limit_error")
    assert response.headers["retry-after"] == "1"


def test_injected_body_and_headers(both: httpx.Client) -> None:
    load(
        both,
        rule(
            "{path: /v1/whoami}",
            '{status: 200, body: {account_id: acct_fake, list: [1, 2]}, headers: {X-A: "b"}}',
        ),
    )
    response = both.get("/v1/whoami")
    assert response.status_code == 200
    assert response.json() == {"account_id": "acct_fake", "list": [1, 2]}
    assert response.headers["content-type"] == "application/json"
    assert response.headers["x-a"] == "b"
    assert response.headers["x-request-id"].startswith("req_")


def test_delay_only_slows_the_real_answer(both: httpx.Client) -> None:
    load(both, rule("{path: /v1/whoami}", "{delay_ms: 50}"))
    response = both.get("/v1/whoami")
    assert response.status_code == 200
    assert response.json()["account_id"] == "acct_mock_us"
    entry = both.get("/_mock/requests", params={"path": "/v1/whoami"}).json()["data"][0]
    assert entry["rule"] == "r"
    assert entry["duration_ms"] >= 50  # a lower bound that sleeping guarantees


def test_a_delay_sleeps_again_when_the_loop_wakes_early(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [0.0]  # a wall clock that moves only when the loop sleeps
    naps: list[float] = []

    async def early(seconds: float) -> None:  # a timer that fires 10% early, then late ones
        naps.append(seconds)
        now[0] += seconds * (0.9 if len(naps) == 1 else 1.01)

    monkeypatch.setattr(faults.asyncio, "sleep", early)
    monkeypatch.setattr(faults, "perf_counter", lambda: now[0])
    asyncio.run(faults.hold(0.05))
    assert now[0] >= 0.05
    assert len(naps) > 1  # the shortfall was slept again
    assert naps[0] == pytest.approx(0.05)


def test_a_delay_longer_than_the_client_timeout_times_it_out(live: httpx.Client) -> None:
    load(live, rule("{path: /v1/whoami, times: 1}", "{status: 200, body: {}, delay_ms: 3000}"))
    with pytest.raises(httpx.ReadTimeout):
        live.get("/v1/whoami", timeout=0.2)
    assert live.get("/v1/whoami").json()["account_id"] == "acct_mock_us"


def test_rules_leave_the_control_plane_alone(both: httpx.Client) -> None:
    load(both, rule('{path: "/**"}'))
    assert both.get("/v1/whoami").status_code == 503
    assert both.get("/_mock/clock").status_code == 200


def test_disabled_rules_wait_for_the_timeline(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        rules:
          - name: later
            enabled: false
            match: {path: /v1/whoami}
            respond: {status: 503}
        timeline:
          - after: 60
            do: [{enable: later}]
          - at: "2026-01-15T09:02:00Z"
            do: [{disable: later}]
        """,
    )
    assert both.get("/v1/whoami").status_code == 200
    clock_advance(both, 60)
    assert both.get("/v1/whoami").status_code == 503
    clock_advance(both, 60)
    assert both.get("/v1/whoami").status_code == 200
    timeline = both.get("/_mock/scenarios").json()["data"][0]["timeline"]
    assert timeline == [
        {"due": "2026-01-15T09:01:00Z", "done": True},
        {"due": "2026-01-15T09:02:00Z", "done": True},
    ]


BURST = """
name: t
rules:
  - name: burst
    match: {MATCH}
    respond: {rate_limit_burst: {seconds: 30}}
"""


def test_burst_headers_follow_the_keys_plan_and_count_down(both: httpx.Client) -> None:
    load(both, BURST.replace("{MATCH}", "{method: GET, path: /v1/whoami, nth: 2}"))
    assert both.get("/v1/whoami").status_code == 200
    refused = both.get("/v1/whoami")
    assert_envelope(refused, 429, "rate_limit_error")
    start = 1768467600  # 2026-01-15T09:00:00Z
    assert refused.headers["retry-after"] == "30"
    assert refused.headers["x-ratelimit-limit"] == "120"
    assert refused.headers["x-ratelimit-remaining"] == "0"
    assert refused.headers["x-ratelimit-reset"] == str(start + 30)
    assert "120/min" in refused.json()["error"]["message"]
    for name in ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"):
        assert len(refused.headers.get_list(name)) == 1  # the limiter's headers, once
    clock_advance(both, 29)
    assert both.get("/v1/whoami").headers["retry-after"] == "1"
    clock_advance(both, 1)
    assert both.get("/v1/whoami").status_code == 200  # spent: it does not start again
    assert both.get("/v1/whoami").status_code == 200


def test_burst_times_caps_the_refusals(both: httpx.Client) -> None:
    load(both, BURST.replace("{MATCH}", "{key: sk_test_mock_full, times: 2}"))
    assert [both.get("/v1/vaults").status_code for _ in range(3)] == [429, 429, 200]
    assert both.get("/v1/vaults", headers=auth(READONLY)).status_code == 200


def test_burst_leaves_bad_credentials_to_the_401(both: httpx.Client) -> None:
    load(both, BURST.replace("{MATCH}", "{}"))
    assert_envelope(
        both.get("/v1/whoami", headers=auth("sk_test_nobody")), 401, "authentication_error"
    )
    assert_envelope(
        both.get("/v1/whoami", headers={"Authorization": ""}), 401, "authentication_error"
    )
    assert both.get("/v1/whoami").status_code == 429


def test_deprecation_headers(both: httpx.Client) -> None:
    load(
        both,
        """
        name: t
        deprecations:
          - path: "/v1/documents/{id}"
            deprecation: 2026-01-01T00:00:00Z
            sunset: 2027-07-01T12:30:00+02:00
        rules:
          - name: held
            match: {method: DELETE}
            respond: {status: 409}
        """,
    )
    for response in (
        both.get("/v1/documents/doc_mock_draft"),
        both.get("/eu/v1/documents/doc_mock_draft"),  # 404 in eu, still deprecated
        both.delete("/v1/documents/doc_mock_draft"),  # injected answers carry them too
    ):
        assert response.headers["deprecation"] == "@1767225600"
        assert response.headers["sunset"] == "Thu, 01 Jul 2027 10:30:00 GMT"
        assert "link" not in response.headers
    assert "deprecation" not in both.get("/v1/documents").headers


def test_rule_answers_are_journaled_with_the_rule(both: httpx.Client) -> None:
    load(both, rule("{path: /v1/vaults}", "{status: 500}"))
    both.get("/v1/vaults")
    both.get("/v1/whoami")
    entries = both.get("/_mock/requests").json()["data"]
    assert [(e["path"], e["status"], e["rule"]) for e in entries] == [
        ("/v1/whoami", 200, None),
        ("/v1/vaults", 500, "r"),
    ]


def test_an_oversized_body_never_matches_and_gets_its_413(both: httpx.Client) -> None:
    load(both, rule("{method: POST, body: {title: big}}"))
    big = b'{"title": "big", "pad": "' + b"x" * (1024 * 1024) + b'"}'
    response = both.post("/v1/documents", content=big)
    assert_envelope(response, 413, "bad_request")
    assert both.post("/v1/documents", json={"title": "big"}).status_code == 503
