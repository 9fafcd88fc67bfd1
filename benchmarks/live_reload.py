"""Saves of a watched scenario file against a server under steady load (`run --watch`).

A fresh `mockserver run --watch --scenario FILE` serves a steady, bounded load over loopback
(once 10,500 requests have filled its journal's ring: `--clients` threads, each with a
keep-alive connection, one request every `--pause` seconds:
`GET /v1/vaults`, which the scenario's rule answers, and `GET /v1/documents`, which no rule
touches). Meanwhile FILE is saved `--saves` times in a row: three valid saves (each a new
status for the rule) for every invalid one (bad YAML, a schema error, an unknown reference, in
turn), every third save by writing a temporary file and renaming it over FILE, as editors do.
After each save the next is made once it shows: a valid one when the rule answers its status
(the time from the save to that answer is the figure), an invalid one when
`GET /_mock/scenarios` carries its `reload_error` while the previous version still answers.

Checked: no request of the load fails but as the rules say (the rule's vault list answers a
status some valid save gave it, the document list 200), every valid save is applied, the last
valid version is the one serving at the end, and the server's memory (RSS) is flat: its
growth over the saves is set beside that of the same load alone, for 5 seconds
before them.

    python -m benchmarks.live_reload [--saves 100] [--clients 2] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

AUTH = {"Authorization": "Bearer sk_test_mock_full"}
JOURNAL = 10_500  # requests that fill the journal's ring (10,000) before the saves start
LOAD_ONLY = 5.0  # seconds of the load with no save, before the saves
DEADLINE = 10.0  # seconds a save may take to show before it counts as not applied
RULE = """\
name: live
description: save {n}
rules:
  - name: vaults
    match: {{method: GET, path: /v1/vaults}}
    respond: {{status: {status}}}
"""
INVALID = (
    "name: live\nrules: [\n",  # not YAML
    RULE.replace("status: {status}", "status: loud"),  # the schema refuses it
    RULE + "setup:\n  - legal_hold: {{document: doc_nowhere_{n}}}\n",  # an unknown reference
)


@dataclass
class Load:
    """The steady load: every answer's status, by path, and what failed."""

    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)


def _client(base: str, load: Load, pause: float) -> None:
    paths = ("/v1/vaults", "/v1/documents?limit=5")
    wait = threading.Event()
    with httpx.Client(base_url=base, headers=AUTH, timeout=30) as client:
        n = 0
        while not load.stop.is_set():
            path = paths[n % 2]
            n += 1
            try:
                load.statuses[(path, client.get(path).status_code)] += 1
            except httpx.HTTPError as error:
                load.errors.append(f"{path}: {error!r}")
            wait.wait(pause)


def _fill(base: str, count: int) -> None:
    """`count` quick requests, from two threads."""

    def send(share: int) -> None:
        with httpx.Client(base_url=base, headers=AUTH, timeout=30) as client:
            for _ in range(share):
                client.get("/v1/whoami")

    threads = [threading.Thread(target=send, args=(count // 2 + 1,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _save(path: Path, text: str, rename: bool) -> None:
    if rename:
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(text)
        os.replace(temporary, path)
    else:
        path.write_text(text)


def _until(check: Any) -> bool:
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.002)
    return False


def run(saves: int, clients: int, pause: float) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="mockserver-live-"))
    scenario = folder / "live.yaml"
    scenario.write_text(RULE.format(n=0, status=410))
    out = (folder / "stdout.txt").open("wb")
    command = [sys.executable, "-m", "mockserver", "run", "--port", "0", "--watch"]
    command += ["--no-rate-limit", "--scenario", str(scenario)]
    server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        port = _port(folder / "stdout.txt", server)
        base = f"http://127.0.0.1:{port}"
        load = Load()
        threads = [
            threading.Thread(target=_client, args=(base, load, pause), daemon=True)
            for _ in range(clients)
        ]
        for thread in threads:
            thread.start()
        _fill(base, JOURNAL)  # the journal at its bound: what grows later is not the ring
        before = _rss_kib(server.pid)
        time.sleep(LOAD_ONLY)  # the same load, no save: what the load alone grows
        load_only = _rss_kib(server.pid) - before
        result = _saves(base, scenario, server.pid, load, saves)
        result["rss_kib"]["growth_of_the_load_alone_over_its_seconds"] = load_only
        return result | {"clients": clients, "load_only_seconds": LOAD_ONLY}
    finally:
        server.terminate()
        server.wait(timeout=10)
        out.close()


def _port(stdout: Path, server: subprocess.Popen[bytes]) -> int:
    end = time.monotonic() + 60
    while time.monotonic() < end:
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+) ", stdout.read_text())
        if found:
            return int(found[1])
        if server.poll() is not None:
            raise SystemExit(f"the server exited: {stdout.read_text()}")
        time.sleep(0.05)
    raise SystemExit("the server did not start")


def _saves(base: str, scenario: Path, pid: int, load: Load, saves: int) -> dict[str, Any]:
    given = {410}
    applied: list[float] = []
    shown: list[float] = []
    missed: list[str] = []
    rss = [_rss_kib(pid)]
    began = time.monotonic()
    last_text = scenario.read_text()
    with httpx.Client(base_url=base, headers=AUTH, timeout=30) as probe:

        def listed() -> dict[str, Any]:
            data: dict[str, Any] = probe.get("/_mock/scenarios").json()["data"][0]
            return data

        for n in range(1, saves + 1):
            rename = n % 3 == 0
            if n % 4 == 0:
                text = INVALID[(n // 4) % 3].format(n=n, status=410)
                started = time.perf_counter()
                _save(scenario, text, rename)
                ok = _until(lambda: listed()["reload_error"] is not None)
                shown.append(time.perf_counter() - started)
                version = hashlib.sha256(last_text.encode()).hexdigest()[:12]
                if not ok or listed()["version"] != version:
                    missed.append(f"save {n} (invalid) not shown, or the version changed")
            else:
                status = 411 + n % 40
                given.add(status)
                text = RULE.format(n=n, status=status)
                started = time.perf_counter()
                _save(scenario, text, rename)
                ok = _until(lambda wanted=status: probe.get("/v1/vaults").status_code == wanted)
                applied.append(time.perf_counter() - started)
                last_text = text
                if not ok:
                    missed.append(f"save {n} (valid) not applied")
            if n % 10 == 0:
                rss.append(_rss_kib(pid))
        load.stop.set()
        serving = listed()
    version = hashlib.sha256(last_text.encode()).hexdigest()[:12]
    wrong = {
        f"{path} {status}": count
        for (path, status), count in load.statuses.items()
        if not (
            (path == "/v1/vaults" and status in given) or (path != "/v1/vaults" and status == 200)
        )
    }
    return {
        "saves": saves,
        "valid_saves": len(applied),
        "invalid_saves": len(shown),
        "requests": sum(load.statuses.values()),
        "failed_requests": len(load.errors) + sum(wrong.values()),
        "unexpected": wrong,
        "transport_errors": load.errors[:5],
        "not_applied": missed,
        "last_version_serving": serving["version"] == version,
        "save_to_answer_ms": _spread(applied),
        "save_to_error_ms": _spread(shown),
        "seconds": round(time.monotonic() - began, 1),
        "rss_kib": {"every_10_saves": rss, "growth_after_10": rss[-1] - rss[min(1, len(rss) - 1)]},
    }


def _spread(seconds: list[float]) -> dict[str, float]:
    if not seconds:
        return {}
    return {
        "median": round(statistics.median(seconds) * 1000, 1),
        "worst": round(max(seconds) * 1000, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.live_reload", description=__doc__)
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--clients", type=int, default=2, help="threads of steady load")
    parser.add_argument("--pause", type=float, default=0.005, help="seconds between requests")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here too")
    args = parser.parse_args()
    result = run(args.saves, args.clients, args.pause)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    good = (
        result["failed_requests"] == 0
        and not result["not_applied"]
        and result["last_version_serving"]
    )
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
