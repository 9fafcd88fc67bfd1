"""The image as a user runs it: what it is made of, what it serves, how it starts and stops.

Tests marked "needs the runtime contract" check what section 26 of the design adds to
`mockserver run` itself (`GET /_mock/health`, MOCKSERVER_ variables, `--version`): they pass
once the server has it.
"""

from __future__ import annotations

import json
import time

import httpx

from mockserver import __version__
from tests.image.conftest import ADMIN_TOKEN, ENGINE, IMAGE, Container, engine, start


def test_the_image_serves_8080_as_a_user_and_stops_on_sigterm() -> None:
    (image,) = json.loads(engine("image", "inspect", IMAGE).stdout)
    config = image["Config"]
    assert config["User"] not in ("", "0", "root")
    assert "8080/tcp" in config["ExposedPorts"]
    assert config["StopSignal"] in ("SIGTERM", "15")
    # docker keeps the healthcheck in the configuration, podman beside it
    healthcheck = config.get("Healthcheck") or image["Healthcheck"]
    check = " ".join(healthcheck["Test"])
    assert "/_mock/health" in check
    assert "MOCKSERVER_HOST=0.0.0.0" in config["Env"]
    assert "MOCKSERVER_PORT=8080" in config["Env"]


def test_it_runs_as_a_user_other_than_root(served: Container) -> None:
    assert served.exec("id", "-u") != "0"
    status = served.exec("cat", "/proc/1/status")
    uids = next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1:]
    assert "0" not in uids, "the server (PID 1) runs as root"


def test_whoami_with_the_seed_key(served: Container) -> None:
    response = httpx.get(
        f"{served.url}/v1/whoami", headers={"Authorization": "Bearer sk_test_mock_full"}
    )
    assert response.status_code == 200
    assert response.json()["account_id"] == "acct_mock_us"


def test_health_answers_without_the_admin_token(served: Container) -> None:
    # needs the runtime contract: GET /_mock/health
    response = httpx.get(f"{served.url}/_mock/health")
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ok", "version": __version__}


def test_the_image_healthcheck_passes(served: Container) -> None:
    # needs the runtime contract: GET /_mock/health
    if ENGINE.endswith("podman"):
        done = engine("healthcheck", "run", served.name, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    else:  # docker runs the check itself, every 10 s
        deadline = time.monotonic() + 60
        status = ""
        while status != "healthy" and time.monotonic() < deadline:
            time.sleep(0.5)
            status = served.state()["Health"]["Status"]
        assert status == "healthy"


def test_the_control_plane_needs_the_admin_token(served: Container) -> None:
    url = f"{served.url}/_mock/reset"
    assert httpx.post(url).status_code == 401
    assert httpx.post(url, headers={"X-Mock-Admin-Token": "not-it"}).status_code == 401
    assert httpx.post(url, headers={"X-Mock-Admin-Token": ADMIN_TOKEN}).status_code == 200


def test_a_whole_client_flow(api: httpx.Client, admin: httpx.Client) -> None:
    vault = api.post(
        "/vaults", json={"name": "Contracts", "region": "us", "members": ["legal@example.com"]}
    )
    assert vault.status_code == 201, vault.text
    document = api.post(
        "/documents",
        json={"title": "NDA", "vault_id": vault.json()["id"], "metadata": {"amount": 25000}},
    )
    assert document.status_code == 201, document.text
    doc_id = document.json()["id"]
    workflow = api.post(
        "/workflows",
        json={"document_id": doc_id, "steps": [{"assignee": "legal@example.com"}]},
    )
    assert workflow.status_code == 201, workflow.text
    advanced = api.post(f"/workflows/{workflow.json()['id']}/advance", json={"decision": "approve"})
    assert advanced.status_code == 200, advanced.text
    assert api.get(f"/documents/{doc_id}").json()["status"] == "signed"
    events = api.get("/audit_logs", params={"resource_id": doc_id, "limit": 20}).json()["data"]
    types = [event["type"] for event in reversed(events)]
    assert types[0] == "document.created"
    assert "workflow.completed" in types
    assert "document.signed" in types
    journal = admin.get("/_mock/requests", params={"limit": 10}).json()["data"]
    assert any(entry["path"] == "/v1/workflows" for entry in journal)


def test_a_non_loopback_bind_without_a_token_refuses_to_start() -> None:
    container = start(answer=False)
    try:
        assert container.wait_exit() == 2
        log = container.logs()
        assert "--admin-token" in log
        assert "--no-admin" in log
    finally:
        container.remove()


def test_no_admin_serves_the_api_without_a_control_plane() -> None:
    container = start("--no-admin")
    try:
        whoami = httpx.get(
            f"{container.url}/v1/whoami", headers={"Authorization": "Bearer sk_test_mock_full"}
        )
        assert whoami.status_code == 200
        assert httpx.post(f"{container.url}/_mock/reset").status_code == 404
    finally:
        container.remove()


def test_it_stops_on_sigterm_within_5_seconds_with_status_0() -> None:
    container = start(env={"MOCKSERVER_ADMIN_TOKEN": ADMIN_TOKEN})
    try:
        # `stop --time 5`: SIGTERM, then SIGKILL after 5 s, which would be status 137.
        engine("stop", "--time", "5", container.name)
        assert container.wait_exit() == 0, container.logs()
    finally:
        container.remove()


def test_other_arguments_run_other_mockserver_commands() -> None:
    done = engine("run", "--rm", "--network", "none", IMAGE, "schema", "snapshot")
    assert json.loads(done.stdout)["$schema"].startswith("https://json-schema.org/")


def test_mockserver_variables_configure_the_server() -> None:
    # needs the runtime contract: MOCKSERVER_<OPTION> variables
    container = start(
        env={"MOCKSERVER_ADMIN_TOKEN": ADMIN_TOKEN, "MOCKSERVER_CLOCK": "frozen"},
    )
    try:
        clock = httpx.get(
            f"{container.url}/_mock/clock", headers={"X-Mock-Admin-Token": ADMIN_TOKEN}
        )
        assert clock.json()["mode"] == "frozen"
    finally:
        container.remove()


def test_version() -> None:
    # needs the runtime contract: `mockserver --version`
    done = engine("run", "--rm", "--network", "none", IMAGE, "--version")
    assert __version__ in done.stdout
