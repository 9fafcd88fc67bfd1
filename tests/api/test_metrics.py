"""`GET /_mock/metrics`: the Prometheus exposition, read with prometheus_client's own parser,
follows the requests made; its guard is the control plane's; `--no-metrics` turns it off."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.applications import Starlette

from mockserver.cli import run as run_command
from mockserver.cli.main import main
from mockserver.core.config import Settings
from mockserver.core.observed import Observed
from mockserver.engine.metrics import ACCOUNTS_LABELLED, EXPORTED, Metrics
from mockserver.testing.inprocess import inprocess_client
from mockserver.testing.receiver import WebhookReceiver
from mockserver.web.app import create_app
from tests.support.keys import auth
from tests.support.scenarios import create_doc, load
from tests.support.webhooks import register, settle

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: httpx.Client, **headers: str) -> Samples:
    """Every sample of the exposition, by name and labels."""
    response = client.get("/_mock/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[sample.name, frozenset(sample.labels.items())] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def requests(samples: Samples, route: str, status: str, account: str, method: str = "GET") -> float:
    labels = {"method": method, "route": route, "status": status, "account": account}
    return value(samples, "mockserver_requests_total", **labels)


@pytest.fixture
def app() -> Starlette:
    return create_app(Settings(clock_mode="frozen"))


@pytest.fixture
def client(app: Starlette) -> Iterator[httpx.Client]:
    with inprocess_client(app, headers=auth()) as client:
        yield client


def test_requests_are_counted_by_method_route_template_status_and_account(
    client: httpx.Client,
) -> None:
    for _ in range(3):
        assert client.get("/v1/whoami").status_code == 200
    assert client.get("/v1/documents/doc_missing").status_code == 404
    assert client.get("/us/v1/documents/doc_other").status_code == 404
    assert client.get("/v1/whoami", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert client.get("/v1/no/such/thing").status_code == 404
    assert client.request("BREW", "/v1/whoami").status_code == 404
    assert client.get("/_mock/clock").status_code == 200
    assert client.get("/_mock/no/such/thing").status_code == 404
    assert client.get("/_mock/ui/requests").status_code == 200
    samples = scrape(client)
    assert requests(samples, "/v1/whoami", "200", "acct_mock_us") == 3
    assert requests(samples, "/v1/documents/{id}", "404", "acct_mock_us") == 2
    assert requests(samples, "/v1/whoami", "401", "none") == 1
    assert requests(samples, "unmatched", "404", "acct_mock_us") == 1
    assert requests(samples, "/v1/whoami", "404", "acct_mock_us", method="other") == 1
    assert requests(samples, "/_mock/clock", "200", "none") == 1
    assert requests(samples, "unmatched", "404", "none") == 1
    assert requests(samples, "/_mock/ui/requests", "200", "none") == 1
    whoami = {"route": "/v1/whoami"}
    assert value(samples, "mockserver_request_duration_seconds_count", **whoami) == 5  # BREW too
    assert value(samples, "mockserver_request_duration_seconds_bucket", le="+Inf", **whoami) == 5
    assert value(samples, "mockserver_request_duration_seconds_sum", **whoami) > 0
    # The scrape itself is not counted, and a second one sees the same counts.
    again = scrape(client)
    assert requests(again, "/v1/whoami", "200", "acct_mock_us") == 3
    assert not any(dict(labels).get("route") == "/_mock/metrics" for _, labels in again)


def test_every_exported_family_and_the_process_collector_are_there(client: httpx.Client) -> None:
    response = client.get("/_mock/metrics")
    names = {family.name for family in text_string_to_metric_families(response.text)}
    assert set(EXPORTED) <= names
    assert "process_cpu_seconds" in names or "process_start_time_seconds" in names


def test_gauges_are_read_off_the_sandbox_at_scrape_time(client: httpx.Client) -> None:
    before = scrape(client)
    assert value(before, "mockserver_accounts") == 2
    assert value(before, "mockserver_idempotency_records") == 0
    assert create_doc(client, "kept", **{"Idempotency-Key": "k-1"}).status_code == 201
    made = client.post("/_mock/accounts", json={"region": "eu"})
    assert made.status_code == 201, made.text
    after = scrape(client)
    assert value(after, "mockserver_accounts") == 3
    assert value(after, "mockserver_idempotency_records") == 1
    journal = len(client.get("/_mock/requests", params={"limit": 1000}).json()["data"])
    assert value(after, "mockserver_journal_entries") == journal


def test_scenario_and_chaos_hits_are_counted_by_scenario_and_rule(client: httpx.Client) -> None:
    load(
        client,
        """
        name: steering
        rules:
          - name: busy-whoami
            match: {path: /v1/whoami, headers: {x-busy: "1"}}
            respond: {status: 503}
        chaos:
          seed: 7
          rules:
            - name: always
              match: {method: POST, path: /v1/documents}
              probability: 1
              respond: {status: 502}
        """,
    )
    assert client.get("/v1/whoami", headers={"x-busy": "1"}).status_code == 503
    assert client.get("/v1/whoami", headers={"x-busy": "1"}).status_code == 503
    assert create_doc(client).status_code == 502
    samples = scrape(client)
    hit = {"scenario": "steering", "rule": "busy-whoami"}
    assert value(samples, "mockserver_scenario_hits_total", **hit) == 2
    chaos = [labels for name, labels in samples if name == "mockserver_chaos_hits_total"]
    assert [dict(labels)["scenario"] for labels in chaos] == ["steering"]
    assert value(samples, "mockserver_chaos_hits_total", **dict(chaos[0])) == 1
    # The injected answers keep their route template: no route ran, the path names one.
    assert requests(samples, "/v1/whoami", "503", "acct_mock_us") == 2
    assert requests(samples, "/v1/documents", "502", "acct_mock_us", method="POST") == 1


def test_transport_faults_are_counted_by_kind(client: httpx.Client) -> None:
    load(
        client,
        """
        name: faults
        rules:
          - name: reset
            match: {headers: {x-fault: reset}}
            respond: {fault: reset}
          - name: drop
            match: {headers: {x-fault: drop}}
            respond: {fault: drop_after_commit}
        """,
    )
    for kind in ("reset", "reset", "drop"):
        with pytest.raises(httpx.TransportError):
            client.get("/v1/whoami", headers={"x-fault": kind})
    samples = scrape(client)
    assert value(samples, "mockserver_faults_total", kind="reset") == 2
    assert value(samples, "mockserver_faults_total", kind="drop_after_commit") == 1
    # A reset answered nothing; a drop after commit ran the request.
    assert requests(samples, "/v1/whoami", "none", "acct_mock_us") == 2
    assert requests(samples, "/v1/whoami", "200", "acct_mock_us") == 1


def test_rate_limited_requests_are_counted_and_an_injected_429_is_not(
    client: httpx.Client,
) -> None:
    load(
        client,
        """
        name: throttle
        rules:
          - name: fake-429
            match: {path: /v1/vaults}
            respond: {status: 429}
        """,
    )
    assert client.get("/v1/vaults").status_code == 429  # the scenario's, in the window
    statuses = [client.get("/v1/whoami").status_code for _ in range(201)]
    assert statuses == [200] * 199 + [429] * 2
    samples = scrape(client)
    assert value(samples, "mockserver_rate_limited_total") == 2
    assert requests(samples, "/v1/whoami", "429", "acct_mock_us") == 2
    assert requests(samples, "/v1/vaults", "429", "acct_mock_us") == 1


def test_webhook_outcomes_and_the_pending_backlog(
    app: Starlette, client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["169.254.169.254"] if host == "metadata.test" else ["127.0.0.1"]

    monkeypatch.setattr(app.state.webhooks.sender, "resolver", resolver)
    with WebhookReceiver() as receiver:
        receiver.respond(200, 500)
        register(client, receiver.url, ["document.created"])
        assert create_doc(client, "one").status_code == 201
        settle(client)
        assert create_doc(client, "two").status_code == 201
        settle(client)
        register(client, "https://metadata.test/hooks", ["vault.created"])
        made = client.post("/v1/vaults", json={"name": "v", "region": "us"})
        assert made.status_code == 201, made.text
        settle(client)
        samples = scrape(client)
    attempts = "mockserver_webhook_attempts_total"
    assert value(samples, attempts, outcome="delivered") == 1  # "one"
    assert value(samples, attempts, outcome="failed") == 1  # "two": 500, retried later
    assert value(samples, attempts, outcome="refused") == 1  # link-local: never connected
    assert value(samples, attempts, outcome="timeout") == 0
    # "two" and the vault's event wait for their retries.
    assert value(samples, "mockserver_webhook_pending") == 2


def test_two_apps_in_one_process_count_apart() -> None:
    first = create_app(Settings(clock_mode="frozen"))
    second = create_app(Settings(clock_mode="frozen"))
    with (
        inprocess_client(first, headers=auth()) as one,
        inprocess_client(second, headers=auth()) as two,
    ):
        for _ in range(3):
            one.get("/v1/whoami")
        two.get("/v1/whoami")
        assert requests(scrape(one), "/v1/whoami", "200", "acct_mock_us") == 3
        assert requests(scrape(two), "/v1/whoami", "200", "acct_mock_us") == 1


def test_accounts_past_the_first_thousand_are_other(app: Starlette) -> None:
    metrics = Metrics(app.state.sandbox)
    for number in range(ACCOUNTS_LABELLED + 5):
        observed = Observed(metrics)
        observed.route, observed.account = "/v1/whoami", f"acct_{number}"
        metrics.count("GET", 200, 0.001, observed)
    accounts = {key[3] for key in metrics.requests}
    assert len(accounts) == ACCOUNTS_LABELLED + 1
    assert metrics.requests["GET", "/v1/whoami", 200, "other"] == 5


def test_no_metrics_turns_the_endpoint_off() -> None:
    app = create_app(Settings(clock_mode="frozen", metrics=False))
    with inprocess_client(app, headers=auth()) as client:
        client.get("/v1/whoami")
        response = client.get("/_mock/metrics")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found"


@pytest.mark.parametrize(
    ("flags", "environ", "status"),
    [
        ([], {}, 200),
        (["--no-metrics"], {}, 404),
        ([], {"MOCKSERVER_NO_METRICS": "1"}, 404),
        ([], {"MOCKSERVER_NO_METRICS": "0"}, 200),
    ],
)
def test_the_run_command_maps_no_metrics_and_its_variable(
    monkeypatch: pytest.MonkeyPatch, flags: list[str], environ: dict[str, str], status: int
) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    served: list[Starlette] = []
    monkeypatch.setattr(run_command, "serve", lambda app, *_, **__: served.append(app))
    assert main(["run", "--port", "0", "--clock", "frozen", *flags]) == 0
    with inprocess_client(served[0], headers=auth()) as client:
        assert client.get("/_mock/metrics").status_code == status


def test_no_admin_has_no_metrics_either() -> None:
    app = create_app(Settings(clock_mode="frozen", admin=False))
    with inprocess_client(app, headers=auth()) as client:
        assert client.get("/_mock/metrics").status_code == 404


def test_with_an_admin_token_either_header_form_is_let_in() -> None:
    app = create_app(Settings(clock_mode="frozen", admin_token="s3cret"))
    with inprocess_client(app) as client:
        refused = client.get("/_mock/metrics")
        assert refused.status_code == 401
        error = refused.json()["error"]
        assert error["type"] == "authentication_error"
        assert refused.headers["x-request-id"] == error["request_id"]
        assert client.get("/_mock/metrics", headers={"X-Mock-Admin-Token": "no"}).status_code == 401
        wrong = client.get("/_mock/metrics", headers={"Authorization": "Bearer no"})
        assert wrong.status_code == 401
        assert scrape(client, **{"X-Mock-Admin-Token": "s3cret"})
        assert scrape(client, Authorization="Bearer s3cret")


def test_without_a_token_a_web_page_is_refused_as_on_the_control_plane(
    client: httpx.Client,
) -> None:
    response = client.get("/_mock/metrics", headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "permission_error"


def test_a_scenario_timeout_is_a_timeout_attempt(client: httpx.Client) -> None:
    with WebhookReceiver() as receiver:
        load(
            client,
            f"""
            name: slow-receiver
            setup:
              - add_webhook_endpoint:
                  id: whk_scenario
                  url: {receiver.url}
                  events: ["document.created"]
            webhooks:
              - {{name: slow, endpoint: whk_scenario, fault: timeout, attempts: [1]}}
            """,
        )
        assert create_doc(client).status_code == 201
        settle(client)
        samples = scrape(client)
    attempts = "mockserver_webhook_attempts_total"
    assert value(samples, attempts, outcome="timeout") == 1
    assert value(samples, attempts, outcome="delivered") == 0
    assert value(samples, "mockserver_webhook_pending") == 1
