"""`MockServerContainer`: the mockserver image, started by testcontainers-python, for tests.

Needs the `container` extra (`pip install 'mockserver[container]'`, which brings
testcontainers) and an image built by `make image` (docs/guides/container.md). The container
gets a random admin token, its port 8080 is published on a free port of 127.0.0.1, and `start`
returns once `GET /_mock/health` answers 200. The handle gives `url`, `base_url`,
`admin_token`, an API client, and the control plane's helpers (reset, clock, accounts,
scenarios, journal, deliveries, and the request assertions: `testing/controls.py`) over httpx.

    with MockServerContainer("mockserver:0.1.0") as mock:
        with mock.client() as api:
            api.get("/whoami")
        mock.advance(300)

Importing this module imports testcontainers: without the extra it raises an ImportError that
names the extra. Nothing else of mockserver imports it.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self, cast

import httpx

from mockserver.core.version import __version__
from mockserver.testing.controls import Controls

try:
    from docker.errors import DockerException
    from testcontainers.core.container import DockerContainer
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "mockserver.testing.container needs testcontainers: pip install 'mockserver[container]'"
    ) from error

PORT = 8080  # where the image serves
FULL_KEY = "sk_test_mock_full"  # the default seed's full-scope key
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class ContainerEngineUnavailable(RuntimeError):
    """No container engine answered where the docker library looked for one (DOCKER_HOST, else
    the default socket); the message says what to do and ends with the library's error."""


class MockServerNotHealthy(RuntimeError):
    """The container did not answer `GET /_mock/health` with 200 in time (or stopped); the
    message ends with its log."""


class MockServerContainer(Controls, DockerContainer):
    """The mockserver image in a container, with the helpers of the pytest plugin's
    `mock_server` over its published port.

    `image` defaults to `mockserver:<this version>`; `admin_token` to a new random one;
    `clock` is the server clock's mode (`frozen` by default, as in the pytest fixtures);
    `options` are more `mockserver run` flags (`["--scenario", "/data/s.yaml"]`).
    `bind_address` is the host address the port is published on (127.0.0.1; None publishes
    on every address, for an engine on another machine). Other keyword arguments go to
    testcontainers' `DockerContainer`.
    """

    def __init__(
        self,
        image: str = f"mockserver:{__version__}",
        *,
        admin_token: str | None = None,
        clock: str = "frozen",
        options: Sequence[str] = (),
        bind_address: str | None = "127.0.0.1",
        health_timeout: float = 60.0,
        **kwargs: Any,
    ) -> None:
        try:
            super().__init__(image, **kwargs)  # connects to the engine
        except DockerException as error:
            where = os.environ.get("DOCKER_HOST")
            asked = f"DOCKER_HOST is {where}" if where else "DOCKER_HOST is not set"
            raise ContainerEngineUnavailable(
                "no container engine answered: start Docker or Podman, or set DOCKER_HOST "
                f"({asked}; {error})"
            ) from error
        self.admin_token = admin_token or secrets.token_urlsafe(24)
        self.api_key = FULL_KEY
        self.bind_address = bind_address
        self.health_timeout = health_timeout
        self.with_env("MOCKSERVER_ADMIN_TOKEN", self.admin_token)
        self.with_command(["--clock", clock, *options])
        # docker-py takes (host address, host port) for a port published on one address; a
        # None port is a free one. testcontainers' own type is the port alone.
        ports = cast("dict[str, Any]", self.ports)
        ports[f"{PORT}/tcp"] = (bind_address, None) if bind_address else None
        self._admin_client: httpx.Client | None = None
        self._url: str | None = None  # asked of the engine once per start

    def start(self) -> Self:
        """Start the container and return once `/_mock/health` answers 200."""
        self._url = None
        super().start()
        try:
            self._wait_for_health()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, force: bool = True, delete_volume: bool = True) -> None:
        """Close the control-plane client and remove the container."""
        if self._admin_client is not None:
            self._admin_client.close()
            self._admin_client = None
        super().stop(force=force, delete_volume=delete_volume)
        self._container = None  # stopped: a second stop (a failed `with`) has nothing to do

    def _wait_for_health(self) -> None:
        deadline = time.monotonic() + self.health_timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            try:
                response = httpx.get(f"{self.url}/_mock/health", timeout=5)
                if response.status_code == 200:
                    return
                last = f"{response.status_code} {response.text[:200]}"
            except httpx.TransportError as error:
                last = repr(error)
            container = self.get_wrapped_container()
            container.reload()
            if container.status in ("exited", "dead"):
                break
            time.sleep(0.2)
        out, err = self.get_logs()
        log = (out + err).decode(errors="replace")
        raise MockServerNotHealthy(f"GET /_mock/health: {last}\n--- container log ---\n{log}")

    @property
    def url(self) -> str:
        """The server's root, e.g. `http://127.0.0.1:PORT` (the control plane is under it)."""
        if self._url is None:
            host = self.get_container_host_ip()
            if host in LOCAL_HOSTS and self.bind_address:
                host = self.bind_address  # not `localhost`, which may try ::1 first
            self._url = f"http://{host}:{self.get_exposed_port(PORT)}"
        return self._url

    @property
    def base_url(self) -> str:
        """`{base_url}` of the API: the account's default region (`{url}/v1`)."""
        return f"{self.url}/v1"

    def client(self, api_key: str | None = None, **kwargs: Any) -> httpx.Client:
        """An httpx client on `base_url`, authenticated with a key (the seed's full key)."""
        headers = {"Authorization": f"Bearer {api_key or self.api_key}"}
        return httpx.Client(base_url=self.base_url, headers=headers, **kwargs)

    @property
    def admin(self) -> httpx.Client:
        """The control-plane client: `url`, with `X-Mock-Admin-Token`."""
        if self._admin_client is None:
            self._admin_client = httpx.Client(
                base_url=self.url, headers={"X-Mock-Admin-Token": self.admin_token}, timeout=60
            )
        return self._admin_client

    def _control_client(self) -> httpx.Client:
        return self.admin

    def health(self) -> dict[str, Any]:
        """`GET /_mock/health`: `{"status": "ok", "version": V}`."""
        answer: dict[str, Any] = httpx.get(f"{self.url}/_mock/health", timeout=5).json()
        return answer

    def new_account(self, **options: Any) -> dict[str, Any]:
        """A fresh isolated account with its keys (`POST /_mock/accounts`: `name`, `region`,
        `clock`)."""
        account: dict[str, Any] = self._call("POST", "/accounts", json=options)
        return account

    def load_scenario(self, name_or_path: str | Path) -> Any:
        """Load a scenario by name (a shipped one) or from a YAML file on this machine."""
        path = Path(name_or_path)
        if path.suffix in (".yaml", ".yml"):
            body = {"yaml": path.read_text(encoding="utf-8"), "source": str(path)}
        else:
            body = {"name": str(name_or_path)}
        return self._call("POST", "/scenarios", json=body)
