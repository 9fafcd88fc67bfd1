"""Settings: everything a server instance is built from. Frozen, and free of I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_RANDOM_SEED = 20261122
DEFAULT_START_TIME = "2026-01-15T09:00:00Z"
IDEMPOTENCY_RECORDS = 10_000  # kept idempotent results per (account, environment), by default
STATE_LOG_MAX = 64 * 1024 * 1024  # bytes of a --state-dir's log before it is compacted


@dataclass(frozen=True, slots=True)
class Settings:
    """How one mock instance behaves; `create_app(settings)` builds a server from it."""

    seed_path: Path | None = None  # None: the packaged seeds/default.yaml
    scenario_paths: tuple[Path, ...] = ()
    scenario_dir: Path | None = None  # every *.yaml in it is loaded too (`run --scenario-dir`)
    watch: bool = False  # follow saves of the seed and scenario files (`run --watch`)
    clock_mode: str = "real"  # "real" or "frozen"
    start_time: str | None = None  # RFC 3339; frozen clocks start here
    random_seed: int = DEFAULT_RANDOM_SEED
    rate_limit: bool = True
    admin: bool = True
    admin_token: str | None = None
    metrics: bool = True  # GET /_mock/metrics and the counting behind it (with the control plane)
    strict_webhook_urls: bool = False
    webhook_timeout: float = 10.0  # seconds a receiver has to answer one delivery attempt
    webhook_queue_size: int = 1_000  # deliveries queued per endpoint; the oldest waiting dropped
    webhook_journal_size: int = 10_000  # finished deliveries kept (pending ones always are)
    journal_size: int = 10_000
    idempotency_records: int = IDEMPOTENCY_RECORDS  # the oldest is dropped beyond it
    state_dir: Path | None = None  # durable: the state lives in (and comes back from) here
    state_log_max: int = STATE_LOG_MAX
    body_timeout: float = 10.0  # seconds a request body may go without a part arriving: 408
    extra: dict[str, str] = field(default_factory=dict)
