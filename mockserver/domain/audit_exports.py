"""Audit export jobs: created `processing`, completed on the mock clock, downloaded as CSV
through a pre-signed URL that expires.

The URL carries `expires` and an HMAC `signature` over the job id and that time, so it needs
no credential, cannot be altered, and answers 403 once the clock passes `expires`. The export
covers the audit chain of the region the job was created through, as it stood at completion.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import orjson

from mockserver.core.errors import NotFound, PermissionDenied, ValidationError
from mockserver.core.secrets import same_secret
from mockserver.domain import validation as v
from mockserver.domain import views
from mockserver.domain.models import ExportJob
from mockserver.domain.store import World

EXPORT_DELAY = 2  # seconds of mock time from creation to completion
URL_LIFETIME = 900  # seconds a download URL stays valid
CSV_COLUMNS = ("seq", "id", "type", "actor", "at", "resource_id", "prev_hash", "hash")
_EXPIRES = re.compile(r"[0-9]{1,18}")  # ASCII digits: str.isdigit() also takes superscripts
PERIOD_PATTERN = r"([0-9]{4}-[0-9]{2}-[0-9]{2})/([0-9]{4}-[0-9]{2}-[0-9]{2})"
_PERIOD = re.compile(PERIOD_PATTERN)


def _day(text: str) -> int:
    return int(datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC).timestamp())


def _period(raw: Any) -> tuple[str, int, int]:
    period = v.string(raw, "period", max_len=21)
    match = _PERIOD.fullmatch(period)
    bad = "'period' must be 'YYYY-MM-DD/YYYY-MM-DD' with the start not after the end"
    if match is None:
        raise ValidationError(f"{bad} (got '{period}').", param="period")
    try:
        start, last = _day(match.group(1)), _day(match.group(2))
    except ValueError:
        raise ValidationError(
            f"{bad}: '{period}' is not a real date range.", param="period"
        ) from None
    if start > last:
        raise ValidationError(f"{bad} (got '{period}').", param="period")
    return period, start, last + 86400


def signature(secret: bytes, job_id: str, expires: int) -> str:
    return hmac.new(secret, f"{job_id}:{expires}".encode(), hashlib.sha256).hexdigest()


def create(
    world: World,
    region: str,
    body: Mapping[str, Any],
    actor: str,
    now: int,
    secret: bytes,
    delay: float = EXPORT_DELAY,
) -> ExportJob:
    """A `processing` job that completes `delay` seconds later on the mock clock."""
    period, start, end = _period(v.required(body, "period"))
    fmt = body.get("format")
    fmt = "csv" if fmt is None else v.choice(fmt, "format", ("csv",))
    job = ExportJob(
        id=world.ids.new("exp_"),
        region=region,
        period=period,
        start=start,
        end=end,
        format=fmt,
        status="processing",
        created_at=now,
    )
    world.exports[job.id] = job
    world.record(
        world.account.default_region,
        "audit_export.created",
        actor,
        now,
        job.id,
        (),
        views.export_job(job),
    )

    world.scheduler.at(now + delay, Completion(world, job, secret))
    return job


@dataclass(frozen=True, slots=True)
class Completion:
    """The timer that completes an export job: an object rather than a closure, so that a
    snapshot can save it with the job."""

    world: World
    job: ExportJob
    secret: bytes

    def __call__(self, at: int) -> None:
        job = self.job
        job.status = "completed"
        job.completed_at = at
        job.expires_at = at + URL_LIFETIME
        job.signature = signature(self.secret, job.id, job.expires_at)
        job.snapshot_seq = len(self.world.regions[job.region].audit)


def get(world: World, job_id: str) -> ExportJob:
    job = world.exports.get(job_id)
    if job is None:
        raise NotFound.resource("audit export", job_id)
    return job


def download_query(job: ExportJob) -> str:
    """The query string of the job's pre-signed download URL."""
    return f"expires={job.expires_at}&signature={job.signature}"


def check_download(job: ExportJob, query: Mapping[str, str], secret: bytes, now: int) -> None:
    """403 unless the URL's signature is the job's and it has not expired."""
    expires = query.get("expires", "")
    given = query.get("signature", "")
    if job.status != "completed" or _EXPIRES.fullmatch(expires) is None:
        raise PermissionDenied("This download URL is not valid.").because(
            "authentication", reason="malformed"
        )
    if not same_secret(given, signature(secret, job.id, int(expires))):
        raise PermissionDenied(
            "This download URL is not valid: its signature does not match."
        ).because("authentication", reason="unknown")
    if now >= int(expires):
        raise PermissionDenied("This download URL has expired. Poll the export job again.").because(
            "authentication", reason="expired"
        )


def csv_bytes(world: World, job: ExportJob) -> bytes:
    """The CSV of the job: a header row, then one row per event of the period, oldest first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    chain = world.regions[job.region].audit
    for position in range(job.snapshot_seq):
        if job.start <= chain.fields(position)[0] < job.end:
            served = orjson.loads(chain.raw(position))
            writer.writerow([served[column] for column in CSV_COLUMNS])
    return out.getvalue().encode()
