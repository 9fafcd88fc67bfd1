"""The image's end-to-end tier: containers of the image built by `make image`, run by the
container engine's command line (and by testcontainers, in test_container_module.py).

`make image-test` runs it with MOCKSERVER_TEST_IMAGE (the image) and CONTAINER_ENGINE (podman
or docker); `make test` never collects it (tests/conftest.py). Every container publishes its
port 8080 on a free port of 127.0.0.1 only, has a name of its own, and is removed by the test
that started it. The session's summary reports the image's size and the time from `run` to the
first HTTP answer of the shared container.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

IMAGE = os.environ.get("MOCKSERVER_TEST_IMAGE", "")
ENGINE = os.environ.get("CONTAINER_ENGINE", "podman")
ADMIN_TOKEN = "image-tier-" + secrets.token_urlsafe(12)
START_TIMEOUT = 60.0  # seconds for a container to answer HTTP: generous on a busy machine
MEASURED: dict[str, float] = {}


def engine(
    *args: str, check: bool = True, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """One command of the container engine; its output as text."""
    done = subprocess.run(
        [ENGINE, *args], capture_output=True, text=True, check=False, timeout=timeout
    )
    if check and done.returncode != 0:
        raise AssertionError(f"{ENGINE} {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done


def run_options() -> list[str]:
    """What every `run` of the tier adds: the port on loopback only, and (podman) no
    healthcheck timer, which needs systemd; `healthcheck run` still runs the check."""
    options = ["--publish", "127.0.0.1::8080"]
    if ENGINE.endswith("podman"):
        options.append("--health-interval=disable")
    return options


@dataclass
class Container:
    """A running container of the image: its name, its root URL on 127.0.0.1, and the
    seconds from `run` to its first HTTP answer."""

    name: str
    url: str = ""
    first_answer: float = 0.0
    removed: bool = field(default=False)

    def exec(self, *command: str) -> str:
        return engine("exec", self.name, *command).stdout.strip()

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = json.loads(
            engine("inspect", "--format", "{{json .State}}", self.name).stdout
        )
        return state

    def logs(self) -> str:
        done = engine("logs", self.name, check=False)
        return done.stdout + done.stderr

    def wait_exit(self, timeout: float = START_TIMEOUT) -> int:
        """The exit status, once the container has stopped."""
        return int(engine("wait", self.name, timeout=timeout).stdout.strip().splitlines()[-1])

    def remove(self) -> None:
        if not self.removed:
            engine("rm", "--force", self.name, check=False)
            self.removed = True


def start(*args: str, env: dict[str, str] | None = None, answer: bool = True) -> Container:
    """`run -d` the image with `args` after the image name; with `answer`, return once it
    answers HTTP (any status: /_mock/health may be refused or absent), else at once."""
    container = Container(f"mockserver-image-test-{secrets.token_hex(4)}")
    variables = [f"--env={name}={value}" for name, value in (env or {}).items()]
    began = time.monotonic()
    engine("run", "--detach", "--name", container.name, *run_options(), *variables, IMAGE, *args)
    if not answer:
        return container
    port = engine("port", container.name, "8080/tcp").stdout.strip().splitlines()[0]
    container.url = f"http://127.0.0.1:{port.rsplit(':', 1)[1]}"
    deadline = began + START_TIMEOUT
    while True:
        try:
            httpx.get(f"{container.url}/_mock/health", timeout=5)
            break
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or not container.state().get("Running", False):
            logs = container.logs()
            container.remove()
            raise AssertionError(f"{container.name} never answered HTTP\n{logs}")
        time.sleep(0.05)
    container.first_answer = time.monotonic() - began
    return container


@pytest.fixture(scope="session")
def served() -> Iterator[Container]:
    """One container for the read-mostly tests, with the tier's admin token."""
    if not IMAGE:
        pytest.fail("MOCKSERVER_TEST_IMAGE names no image: run `make image-test`")
    container = start(env={"MOCKSERVER_ADMIN_TOKEN": ADMIN_TOKEN})
    MEASURED["first_answer"] = container.first_answer
    yield container
    container.remove()


@pytest.fixture
def admin(served: Container) -> Iterator[httpx.Client]:
    """A control-plane client of the shared container, which it resets first."""
    with httpx.Client(
        base_url=served.url, headers={"X-Mock-Admin-Token": ADMIN_TOKEN}, timeout=30
    ) as client:
        assert client.post("/_mock/reset").status_code == 200
        yield client


@pytest.fixture
def api(served: Container, admin: httpx.Client) -> Iterator[httpx.Client]:
    """An API client of the shared container (reset), with the seed's full key."""
    headers = {"Authorization": "Bearer sk_test_mock_full"}
    with httpx.Client(base_url=f"{served.url}/v1", headers=headers, timeout=30) as client:
        yield client


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The image's size and the shared container's time to its first answer."""
    if not IMAGE:
        return
    done = engine("image", "inspect", "--format", "{{.Size}}", IMAGE, check=False)
    if done.returncode == 0:
        size = int(done.stdout.strip()) / 1e6
        terminalreporter.write_line(f"image {IMAGE}: {size:.0f} MB ({ENGINE})")
    if "first_answer" in MEASURED:
        seconds = MEASURED["first_answer"]
        terminalreporter.write_line(f"image {IMAGE}: first answer {seconds:.2f} s after run")
