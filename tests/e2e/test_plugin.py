"""The pytest plugin, exercised the way consumers use it: a small suite run by pytester."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONSUMER = """
import httpx
import pytest

CREATED = []


def test_live_server_over_a_socket(mock_server):
    assert mock_server.base_url.startswith("http://127.0.0.1:")
    assert mock_server.base_url_us == mock_server.url + "/us/v1"
    assert mock_server.base_url_eu == mock_server.url + "/eu/v1"
    r = httpx.get(mock_server.base_url + "/whoami",
                  headers={"Authorization": "Bearer " + mock_server.api_key})
    assert r.status_code == 200
    assert r.json()["account_id"] == "acct_mock_us"
    with mock_server.client() as client:
        doc = client.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"}).json()
    CREATED.append(doc["id"])


def test_state_is_reset_before_each_test(mock_server):
    with mock_server.client() as client:
        assert client.get("/v1/documents/" + CREATED[0]).status_code == 404


def test_in_process_client(mock_client):
    r = mock_client.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"})
    assert r.status_code == 201
    CREATED.append(r.json()["id"])


def test_both_fixtures_share_one_reset_app(mock_server, mock_client):
    created = mock_client.post("/v1/documents", json={"title": "t", "vault_id": "vault_mock_us"})
    with mock_server.client() as client:
        assert client.get("/v1/documents/" + created.json()["id"]).status_code == 200


def test_both_clients_are_based_at_the_root(mock_server, mock_client):
    with mock_server.client() as client:
        for one in (client, mock_client):
            assert one.get("/v1/whoami").json()["account_id"] == "acct_mock_us"
            assert one.get("/eu/v1/whoami").status_code == 200
            assert one.get("/_mock/clock").json()["now"] == "2026-01-15T09:00:00Z"


def test_a_path_from_v1_still_reaches_the_api_with_a_warning(mock_server):
    with mock_server.client() as client:
        with pytest.warns(DeprecationWarning, match="based at the server's root") as warned:
            answer = client.get("/whoami")
    assert answer.status_code == 200
    assert answer.request.url.path == "/v1/whoami"
    assert warned[0].filename == __file__  # the warning names the test's line


def test_frozen_clock_and_helpers(mock_server):
    assert mock_server.now() == "2026-01-15T09:00:00Z"
    assert mock_server.advance(240) == "2026-01-15T09:04:00Z"
    with mock_server.client() as client:
        assert client.get("/v1/documents/doc_mock_signed").json()["status"] == "locked"
    mock_server.set_time("2026-02-01T00:00:00Z")
    assert mock_server.now() == "2026-02-01T00:00:00Z"
    mock_server.legal_hold("doc_mock_draft")
    with mock_server.client() as client:
        assert client.delete("/v1/documents/doc_mock_draft").status_code == 409
    mock_server.reset()
    assert mock_server.now() == "2026-01-15T09:00:00Z"


@pytest.mark.mock_server(tls=True)
def test_tls_by_marker(mock_server):
    assert mock_server.base_url.startswith("https://")
    assert mock_server.ca_bundle.exists()
    with mock_server.client() as client:
        assert client.get("/v1/whoami").status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(mock_server.base_url + "/whoami")


@pytest.mark.parametrize("mock_server", [{"tls": True}], indirect=True)
def test_tls_by_parametrisation(mock_server):
    import ssl
    context = ssl.create_default_context(cafile=str(mock_server.ca_bundle))
    r = httpx.get(mock_server.base_url + "/whoami", verify=context,
                  headers={"Authorization": "Bearer " + mock_server.api_key})
    assert r.status_code == 200
"""


def test_consumer_suite_passes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=CONSUMER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=9)


def test_consumer_suite_passes_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_consumer=CONSUMER.replace("CREATED[0]", "'doc_nope'"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "-n", "2")
    result.assert_outcomes(passed=9)


def test_random_seed_option_changes_ids(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_ids="""
        def test_id(mock_client):
            body = {"title": "t", "vault_id": "vault_mock_us"}
            print("ID=" + mock_client.post("/v1/documents", json=body).json()["id"])
        """
    )

    def created_id(*args: str) -> str:
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", *args)
        result.assert_outcomes(passed=1)
        return next(line for line in result.outlines if "ID=" in line).split("ID=")[1][:28]

    assert created_id() == created_id()
    assert created_id("--mock-random-seed", "1") != created_id()


def test_idempotency_records_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_cap="""
        def test_oldest_runs_again(mock_client):
            body = {"title": "t", "vault_id": "vault_mock_us"}
            def create(key):
                return mock_client.post(
                    "/v1/documents", json=body, headers={"Idempotency-Key": key}
                ).json()["id"]
            first = create("a")
            create("b")
            assert create("b") != first
            assert create("a") != first  # dropped by the cap of 1: runs again
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--mock-idempotency-records", "1"
    )
    result.assert_outcomes(passed=1)


def test_seed_option(pytester: pytest.Pytester) -> None:
    seed = Path(__file__).parent / "data" / "tiny_seed.yaml"
    pytester.makepyfile(
        test_seed="""
        import httpx

        def test_tiny(mock_server):
            r = httpx.get(mock_server.base_url + "/vaults",
                          headers={"Authorization": "Bearer sk_test_tiny"})
            assert [v["id"] for v in r.json()["data"]] == ["vault_tiny"]
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--mock-seed", str(seed))
    result.assert_outcomes(passed=1)


def test_server_errors_fail_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_boom="""
        from mockserver.domain import workflows

        def test_boom(mock_client, monkeypatch):
            def explode(*args, **kwargs):
                raise RuntimeError("kaboom")
            monkeypatch.setattr(workflows, "get", explode)
            assert mock_client.get("/v1/workflows/wf_mock_in_review").status_code == 500
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1, passed=1)
    result.stdout.fnmatch_lines(["*the mock server raised an unexpected error*", "*kaboom*"])


def test_readme_example_runs(pytester: pytest.Pytester) -> None:
    guide = (Path(__file__).parents[2] / "docs" / "guides" / "pytest.md").read_text()
    section = guide.split("## A first test", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    pytester.makepyfile(test_readme=example)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=2)
