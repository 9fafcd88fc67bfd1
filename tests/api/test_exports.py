"""Audit exports: processing, completed on the clock, pre-signed download, tamper and expiry."""

from __future__ import annotations

import csv
import io
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from tests.support.api import assert_envelope, clock_advance
from tests.support.audit import all_events
from tests.support.exports import completed, create


def test_whole_export_life(both: httpx.Client) -> None:
    job = create(both)
    assert job["id"].startswith("exp_")
    assert job["status"] == "processing"
    assert job["format"] == "csv"
    assert job["period"] == "2020-01-01/2030-12-31"
    polled = both.get(f"/v1/audit_logs/export/{job['id']}").json()
    assert polled["status"] == "processing"
    assert polled["download_url"] is None

    clock_advance(both, 1)
    assert both.get(f"/v1/audit_logs/export/{job['id']}").json()["status"] == "processing"
    clock_advance(both, 1)
    done = both.get(f"/v1/audit_logs/export/{job['id']}").json()
    assert done["status"] == "completed"
    assert done["expires_at"] > done["completed_at"]

    url = done["download_url"]
    assert url.startswith("http")
    response = download(both, url)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == ["seq", "id", "type", "actor", "at", "resource_id", "prev_hash", "hash"]
    events = all_events(both)
    exported = rows[1:]
    # everything up to the export's own creation event, oldest first
    expected = [e for e in events if e["seq"] <= int(exported[-1][0])]
    assert [r[1] for r in exported] == [e["id"] for e in expected]
    assert exported[-1][2] == "audit_export.created"
    assert [int(r[0]) for r in exported] == sorted(int(r[0]) for r in exported)
    first = expected[0]
    assert exported[0] == [
        str(first["seq"]),
        first["id"],
        first["type"],
        first["actor"],
        first["at"],
        first["resource_id"],
        first["prev_hash"],
        first["hash"],
    ]


def download(client: httpx.Client, url: str) -> httpx.Response:
    parts = urlsplit(url)
    return client.get(f"{parts.path}?{parts.query}", headers={"Authorization": ""})


def test_download_needs_no_credential(api: httpx.Client) -> None:
    assert download(api, completed(api)["download_url"]).status_code == 200


def test_period_is_inclusive_utc_days(api: httpx.Client) -> None:
    events = all_events(api)
    day = events[5]["at"][:10]
    rows = list(
        csv.reader(io.StringIO(download(api, completed(api, f"{day}/{day}")["download_url"]).text))
    )
    expected = [e["id"] for e in events if e["at"][:10] == day]
    assert [r[1] for r in rows[1:]] == expected


def test_tampered_url_is_403(api: httpx.Client) -> None:
    job = completed(api)
    parts = urlsplit(job["download_url"])
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    forged = [
        {**query, "expires": str(int(query["expires"]) + 3600)},
        {**query, "signature": "0" * 64},
        {"expires": query["expires"]},
        {},
    ]
    for q in forged:
        response = api.get(f"{parts.path}?{urlencode(q)}")
        assert_envelope(response, 403, "permission_error")
    other = completed(api)
    swapped = parts.path.replace(job["id"], other["id"])
    assert_envelope(api.get(f"{swapped}?{parts.query}"), 403, "permission_error")


def test_expired_url_is_403(api: httpx.Client) -> None:
    url = completed(api)["download_url"]
    clock_advance(api, 899)
    assert download(api, url).status_code == 200
    clock_advance(api, 1)
    error = assert_envelope(download(api, url), 403, "permission_error")
    assert "expired" in error["message"]


@pytest.mark.parametrize("expires", ["\u00b2", "\u0661\u0662", "9" * 5000, "-1", " 1"])
def test_malformed_expiry_is_403(api: httpx.Client, expires: str) -> None:
    # '²' once passed str.isdigit() and then broke int() (a 500).
    job = completed(api)
    response = api.get(
        f"/v1/audit_logs/export/{job['id']}/download", params={"expires": expires, "signature": "x"}
    )
    assert_envelope(response, 403, "permission_error")


def test_download_before_completion_is_403(api: httpx.Client) -> None:
    job = create(api)
    response = api.get(f"/v1/audit_logs/export/{job['id']}/download?expires=9999999999&signature=x")
    assert_envelope(response, 403, "permission_error")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({}, "period"),
        ({"period": "2026-01-01"}, "period"),
        ({"period": "2026-02-30/2026-03-01"}, "period"),
        ({"period": "2026-03-01/2026-02-01"}, "period"),
        ({"period": 20260101}, "period"),
        ({"period": "2026-01-01/2026-01-31", "format": "json"}, "format"),
    ],
)
def test_validation(api: httpx.Client, body: dict[str, Any], param: str) -> None:
    error = assert_envelope(api.post("/v1/audit_logs/export", json=body), 422, "validation_error")
    assert error["param"] == param


def test_export_jobs_belong_to_the_account(api: httpx.Client) -> None:
    job = create(api)
    assert api.get(f"/eu/v1/audit_logs/export/{job['id']}").status_code == 200
    other = api.get(
        f"/v1/audit_logs/export/{job['id']}", headers={"Authorization": "Bearer sk_test_mock_eu"}
    )
    assert_envelope(other, 404, "not_found")
    assert_envelope(api.get("/v1/audit_logs/export/exp_nope"), 404, "not_found")


def test_export_needs_audit_read_only(api: httpx.Client) -> None:
    response = api.post(
        "/v1/audit_logs/export",
        json={"period": "2026-01-01/2026-01-31"},
        headers={"Authorization": "Bearer sk_test_mock_readonly"},
    )
    assert response.status_code == 202
