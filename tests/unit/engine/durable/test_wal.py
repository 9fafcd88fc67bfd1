"""The command log's file format: records round-trip, a torn tail is cut, damage in the middle
refuses, syncs are shared by the records queued while one runs, a failed write or sync fails
the log for good, the sync helper process answers and ends with its writer, and one process
per DIR."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from mockserver.core.errors import StateDirError
from mockserver.engine.durable import wal
from mockserver.engine.durable.fsync_process import FsyncProcess
from mockserver.engine.durable.records import (
    Begin,
    Outcome,
    Record,
    RecordError,
    Request,
    Tick,
    decode,
    encode,
)
from mockserver.engine.durable.state_dir import StateDir
from mockserver.engine.durable.wal import (
    MAGIC,
    LogDamaged,
    LogFailed,
    LogWriter,
    read_log,
    truncate_torn,
)

RECORDS: list[Record] = [
    Begin({"format": 1, "random_seed": 7, "origin": -12.5}),
    Request(
        1_768_467_600.25,
        "POST",
        "http",
        "/us/v1/documents",
        b"/us/v1/documents",
        b"a=1&b=%20",
        ((b"host", b"127.0.0.1:8080"), (b"idempotency-key", b"k\xff")),
        ("127.0.0.1", 50123),
        ("127.0.0.1", 8080),
        b'{"title": "\xc3\xa9"}',
    ),
    Request(0.0, "GET", "https", "/v1/whoami", b"/v1/whoami", b"", (), None, None, b""),
    Tick(1_768_467_700.5),
    Outcome(0, 5.5, "whd_abc", 2, 1_768_467_600, 500, "answered 500, not 2xx", 13),
    Outcome(9, 0.0, "whd_é", 1, 0, None, None, 0),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_every_record_decodes_to_itself(record: Record) -> None:
    assert decode(encode(record)) == record


@pytest.mark.parametrize("payload", [b"Z", b"T\x00", encode(Tick(1.0)) + b"\x00", b"B"])
def test_a_payload_of_another_shape_is_refused(payload: bytes) -> None:
    with pytest.raises(RecordError):
        decode(payload)


def _log(path: Path, count: int) -> list[bytes]:
    writer = LogWriter(path)
    payloads = [encode(Tick(float(i))) + b"x" * i for i in range(count)]
    for payload in payloads:
        writer.append(payload)
    writer.sync_now()
    writer.close()
    return payloads


def test_records_come_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "log.0"
    payloads = _log(path, 5)
    contents = read_log(path)
    assert contents.records == payloads
    assert (contents.end, contents.torn) == (path.stat().st_size, 0)


def test_appending_to_an_existing_log_continues_it(tmp_path: Path) -> None:
    path = tmp_path / "log.0"
    first = _log(path, 2)
    second = _log(path, 3)
    assert read_log(path).records == first + second
    assert path.read_bytes().count(MAGIC) == 1


@pytest.mark.parametrize("cut", [1, 4, 8, 12])
def test_a_torn_last_record_is_cut_off(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "log.0"
    payloads = _log(path, 4)
    whole = path.stat().st_size
    with path.open("r+b") as file:
        file.truncate(whole - cut)
    contents = read_log(path)
    assert contents.records == payloads[:3]
    assert contents.torn == whole - cut - contents.end > 0
    truncate_torn(path, contents)
    assert path.stat().st_size == contents.end
    assert read_log(path).records == payloads[:3]


def test_zeros_after_the_last_record_are_a_torn_tail(tmp_path: Path) -> None:
    """A file system may extend a file with zeros for a write that never landed."""
    path = tmp_path / "log.0"
    payloads = _log(path, 3)
    with path.open("ab") as file:
        file.write(b"\0" * 300)
    contents = read_log(path)
    assert contents.records == payloads
    assert contents.torn == 300


def test_a_damaged_last_record_of_full_length_is_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "log.0"
    payloads = _log(path, 3)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert read_log(path).records == payloads[:2]


@pytest.mark.parametrize("where", ["payload", "length"])
def test_damage_in_the_middle_refuses(tmp_path: Path, where: str) -> None:
    path = tmp_path / "log.0"
    _log(path, 5)
    data = bytearray(path.read_bytes())
    second = len(MAGIC) + wal.FRAME.size + len(encode(Tick(0.0)))  # the second record's frame
    if where == "payload":
        data[second + wal.FRAME.size + 2] ^= 0x01
    else:
        data[second] = 0x7F  # a length that claims more than the rest of the file
    path.write_bytes(bytes(data))
    with pytest.raises(LogDamaged, match=r"record 2 .* is damaged"):
        read_log(path)


def test_a_foreign_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.0"
    path.write_bytes(b"mockserver-log/9\n")
    with pytest.raises(LogDamaged, match="not a mockserver command log"):
        read_log(path)


def test_a_log_torn_inside_its_header_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "log.0"
    path.write_bytes(MAGIC[:5])
    assert read_log(path).records == []


def test_a_short_write_is_cut_and_fails_the_log_for_good(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk takes half a flush: it is cut, its waiter is told, and nothing more is
    queued (what ran after the lost records must not be answered)."""
    path = tmp_path / "log.0"
    writer = LogWriter(path)
    real = os.write

    async def run() -> None:
        await writer.sync(writer.append(encode(Tick(1.0))))
        monkeypatch.setattr(os, "write", lambda fd, data: real(fd, data[: len(data) // 2]))
        end = writer.append(encode(Tick(2.0)))
        with pytest.raises(LogFailed, match="short write"):
            await writer.sync(end)
        monkeypatch.setattr(os, "write", real)
        with pytest.raises(LogFailed):
            writer.append(encode(Tick(3.0)))
        with pytest.raises(LogFailed):
            await writer.sync(end)

    asyncio.run(run())
    writer.close()
    assert read_log(path).records == [encode(Tick(1.0))]
    assert read_log(path).torn == 0


def test_appends_made_while_a_sync_runs_share_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests: list[int] = []
    real = FsyncProcess.request

    def counting(self: FsyncProcess) -> None:
        requests.append(1)
        real(self)

    monkeypatch.setattr(FsyncProcess, "request", counting)
    writer = LogWriter(tmp_path / "log.0")

    async def one(i: int) -> None:
        end = writer.append(encode(Tick(float(i))))
        await writer.sync(end)
        assert writer.synced >= end

    async def many() -> None:
        await asyncio.gather(*(one(i) for i in range(200)))
        await asyncio.sleep(0)  # a round later: one more record, one more sync
        await one(200)

    asyncio.run(many())
    writer.close()
    assert len(requests) == 2  # the 200 queued in one round share one; the last its own
    assert len(read_log(tmp_path / "log.0").records) == 201


def test_the_sync_helper_reports_a_failed_sync(tmp_path: Path) -> None:
    """fdatasync of a pipe fails (EINVAL): the helper says so, and goes on answering."""
    read_end, write_end = os.pipe()
    answers: list[str | None] = []

    async def run() -> None:
        done = asyncio.Event()

        def answered(error: str | None) -> None:
            answers.append(error)
            if len(answers) == 2:
                done.set()

        helper = FsyncProcess(write_end, answered)
        helper.request()
        helper.request()
        await asyncio.wait_for(done.wait(), 10)
        helper.close()

    asyncio.run(run())
    os.close(read_end)
    os.close(write_end)
    assert answers == ["fdatasync failed: Invalid argument"] * 2


def test_a_log_whose_sync_helper_died_fails(tmp_path: Path) -> None:
    writer = LogWriter(tmp_path / "log.0")

    async def run() -> None:
        await writer.sync(writer.append(encode(Tick(1.0))))
        assert writer._helper is not None
        writer._helper._process.kill()
        writer._helper._process.wait()
        with pytest.raises(LogFailed, match=r"stopped|Broken pipe"):
            await writer.sync(writer.append(encode(Tick(2.0))))

    asyncio.run(run())
    writer.close()


def test_the_sync_helper_ends_with_its_writer(tmp_path: Path) -> None:
    writer = LogWriter(tmp_path / "log.0")

    async def run() -> FsyncProcess:
        await writer.sync(writer.append(encode(Tick(1.0))))
        assert writer._helper is not None
        return writer._helper

    helper = asyncio.run(run())
    assert helper._process.poll() is None
    writer.close()
    assert helper._process.returncode == 0


def test_a_second_process_on_one_directory_is_refused(tmp_path: Path) -> None:
    first = StateDir(tmp_path / "state")
    with pytest.raises(StateDirError, match=r"another mockserver process \(pid \d+\)"):
        StateDir(tmp_path / "state")
    first.close()
    StateDir(tmp_path / "state").close()  # released: the next one gets it


def test_a_checkpoint_names_its_log_and_refuses_damage(tmp_path: Path) -> None:
    state = StateDir(tmp_path)
    assert state.checkpoint() == (0, None)
    state.write_checkpoint(3, b"the whole state")
    assert state.checkpoint() == (3, b"the whole state")
    path = tmp_path / "checkpoint"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(StateDirError, match="damaged"):
        state.checkpoint()
    state.close()


def test_logs_of_other_generations_are_removed(tmp_path: Path) -> None:
    state = StateDir(tmp_path)
    for name in ("log.1", "log.2", "checkpoint.tmp"):
        (tmp_path / name).write_bytes(b"")
    state.remove_other_logs(2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lock", "log.2"]
    state.close()
