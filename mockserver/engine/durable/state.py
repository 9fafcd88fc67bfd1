"""Opening a `--state-dir` for a sandbox: lock it, read its checkpoint and log, check that they
belong to this sandbox, and hand back what a restart must replay.

Everything that can make a start refuse happens here, before anything is served, as a
`StateDirError` (exit status 2): another process holds DIR, a checkpoint or a log record is
damaged (other than a torn last record, which is cut off: it was never answered), or DIR was
written by a sandbox built from other settings (another seed, random seed, clock...), on which
its log would replay into something else.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mockserver.core.clock import Clock, RealClock
from mockserver.core.config import Settings
from mockserver.core.errors import StateDirError
from mockserver.core.shipped import default_seed_path
from mockserver.engine.clocks import make_clock
from mockserver.engine.durable.records import Begin, Record, RecordError, decode, encode
from mockserver.engine.durable.state_dir import StateDir
from mockserver.engine.durable.wal import LogDamaged, LogWriter, read_log, truncate_torn
from mockserver.engine.live.folder import directory_files

FORMAT = 1  # of the log's records and of what a checkpoint holds with them


@dataclass
class Opened:
    """A locked state directory, ready to append to; `records` (after the log's `Begin`) and
    `checkpoint` are what the start must load and replay."""

    state: StateDir
    clock: Clock  # the sandbox's, made here: pinned where the first process built its state
    generation: int
    checkpoint: bytes | None
    begin: Begin
    records: list[Record]
    writer: LogWriter
    torn: int  # bytes of a torn last record that were cut off


def facts(settings: Settings) -> dict[str, Any]:
    """What a sandbox's state is built from: a log replays only onto a sandbox of the same."""
    seed = settings.seed_path or default_seed_path()
    found: dict[str, Any] = {
        "format": FORMAT,
        "seed_sha256": _digest(seed),
        "scenarios": [[str(p), _digest(p)] for p in settings.scenario_paths],
        "random_seed": settings.random_seed,
        "clock": settings.clock_mode,
        "start_time": settings.start_time,
        "rate_limit": settings.rate_limit,
        "admin": settings.admin,
        "idempotency_records": settings.idempotency_records,
        "journal_size": settings.journal_size,
        "webhook_queue_size": settings.webhook_queue_size,
        "webhook_journal_size": settings.webhook_journal_size,
        "strict_webhook_urls": settings.strict_webhook_urls,
    }
    if settings.scenario_dir is not None and not settings.watch:
        found["scenarios"] += [[str(p), _digest(p)] for p in directory_files(settings.scenario_dir)]
    if settings.watch:
        # Watched scenario files are loaded through the log (`engine/live`), every version
        # in its place: which files, not what they held at the start, is what counts.
        found["scenarios"] = [str(p) for p in settings.scenario_paths]
        found["watch"] = {"scenario_dir": str(settings.scenario_dir or "")}
    return found


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""  # a shipped scenario named without a file: its name is what counts


def open_state(path: Path, settings: Settings) -> Opened:
    """Lock `path` and read it (a new directory gets its first log), and make the sandbox's
    clock: a real one resumes the first process's offset, and its wall reading is pinned where
    that process built its state (a real clock's seed is laid out back from "now")."""
    state = StateDir(path)
    try:
        return _read(state, settings, make_clock(settings))
    except BaseException:
        state.close()
        raise


def _read(state: StateDir, settings: Settings, clock: Clock) -> Opened:
    generation, checkpoint = state.checkpoint()
    state.remove_other_logs(generation)
    log_path = state.log_path(generation)
    wanted = facts(settings)
    records: list[Record] = []
    torn = 0
    if log_path.exists():
        try:
            contents = read_log(log_path)
            records = [decode(payload) for payload in contents.records]
        except (LogDamaged, RecordError) as error:
            raise StateDirError(
                str(log_path), f"the command log is damaged and cannot be replayed: {error}"
            ) from None
        truncate_torn(log_path, contents)
        torn = contents.torn
    if records and not isinstance(records[0], Begin):
        raise StateDirError(str(log_path), "the command log does not start with its header")
    if checkpoint is not None and not records:
        raise StateDirError(str(log_path), "the log that follows the checkpoint is missing")
    writer = LogWriter(log_path)
    if not records:  # a new directory (or a log torn before its header was synced)
        begin = Begin({**wanted, "origin": _origin(clock), "built": clock.pin()})
        writer.append(encode(begin))
        writer.sync_now()
        state.sync_directory()
        return Opened(state, clock, generation, None, begin, [], writer, torn)
    first = records[0]
    assert isinstance(first, Begin)
    begin = first
    differing = sorted(k for k in wanted if begin.facts.get(k) != wanted[k])
    if differing:
        writer.close()
        raise StateDirError(
            str(state.path),
            "this state directory holds a sandbox built from other settings ("
            + ", ".join(f"{k}: {begin.facts.get(k)!r}, now {wanted[k]!r}" for k in differing)
            + "); start with the settings it was made with, or use another --state-dir",
        )
    if isinstance(clock, RealClock):
        clock.resume(float(begin.facts.get("origin", 0.0)))
    clock.pin_at(float(begin.facts.get("built", 0.0)))
    return Opened(state, clock, generation, checkpoint, begin, records[1:], writer, torn)


def _origin(clock: Clock) -> float:
    return clock.origin if isinstance(clock, RealClock) else 0.0


def start_generation(opened: Opened, checkpoint: bytes, settings: Settings, wall: float) -> None:
    """Compaction: make `checkpoint` (the whole state now) the new base and start an empty log
    after it. The new log and its header are durable before the checkpoint names them; the old
    log is removed after. A crash at any step leaves DIR with one complete pair. `wall` is the
    clock's wall reading when the checkpoint was taken: a restart loads it there (`at`)."""
    generation = opened.generation + 1
    path = opened.state.log_path(generation)
    path.unlink(missing_ok=True)  # a leftover of a compaction that a crash cut short
    writer = LogWriter(path)
    clock = opened.clock
    built = opened.begin.facts.get("built", 0.0)  # where the seed was laid out, for good
    begin = Begin({**facts(settings), "origin": _origin(clock), "built": built, "at": wall})
    writer.append(encode(begin))
    writer.sync_now()
    opened.state.write_checkpoint(generation, checkpoint)
    opened.writer.close()
    opened.state.remove_other_logs(generation)
    opened.generation, opened.writer, opened.begin = generation, writer, begin
