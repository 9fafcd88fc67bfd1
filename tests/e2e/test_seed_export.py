"""A state built on one `mockserver run`, saved with `GET /_mock/seed`, checked by
`mockserver validate` and served by a second `mockserver run --seed`: the same resources."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import yaml

from tests.support.cli import MOCKSERVER, free_port
from tests.support.seed_export import build, read_everything, workflow_ids


@contextmanager
def _serving(*options: str) -> Iterator[httpx.Client]:
    port = free_port()
    command = [*MOCKSERVER, "run", "--port", str(port), "--clock", "frozen", "--no-rate-limit"]
    process = subprocess.Popen(
        [*command, *options], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    try:
        pause = threading.Event()
        for _ in range(400):
            try:
                client.get("/_mock/clock")
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                pause.wait(0.05)
        yield client
    finally:
        client.close()
        process.terminate()
        process.communicate(timeout=10)


def test_a_state_saved_as_a_seed_is_served_again(tmp_path: Path) -> None:
    with _serving() as first:
        state = build(first)
        saved = first.get("/_mock/seed")
        assert saved.status_code == 200
        assert saved.headers["content-type"] == "application/yaml"
        flows = workflow_ids(saved.text)
        before = read_everything(first, state.keys, flows)
    path = tmp_path / "state.yaml"
    path.write_bytes(saved.content)
    checked = subprocess.run(
        [*MOCKSERVER, "validate", str(path)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    start = yaml.safe_load(saved.text)["reference_time"]
    with _serving("--seed", str(path), "--start-time", start) as second:
        after = read_everything(second, state.keys, flows)
        assert list(after) == list(before)
        for what, seen in before.items():
            assert after[what] == seen, what
        assert second.get("/_mock/seed").content == saved.content
