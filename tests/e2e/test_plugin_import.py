"""Every pytest session of an environment with mockserver installed imports the plugin, so the
import must be cheap: nothing heavy until a fixture is used, and no app at all for a session on
a running server (`--mockserver-url`). Checked in fresh interpreters, as this test process has
it all loaded. (How long the import takes is a benchmark figure: `python -m benchmarks --only
pytest`.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]

# Third-party libraries, and the parts of the package that build or serve the app.
HEAVY = (
    "starlette",
    "httpx",
    "httpcore",
    "anyio",
    "uvicorn",
    "yaml",
    "orjson",
    "faker",
    "jinja2",
    "jsonschema",
    "trustme",
    "ssl",
    "mockserver.audit",
    "mockserver.domain",
    "mockserver.engine",
    "mockserver.openapi",
    "mockserver.scenarios",
    "mockserver.seeds",
    "mockserver.serving",
    "mockserver.web",
    "mockserver.webhooks",
    "mockserver.testing.inprocess",
    "mockserver.testing.live",
    "mockserver.testing.remote_session",
    "mockserver.testing.server",
    "mockserver.testing.session",
)

LOADED = f"""
def loaded():
    import sys

    return sorted(
        name for name in sys.modules
        if any(name == heavy or name.startswith(heavy + ".") for heavy in {HEAVY!r})
    )
"""


def test_importing_the_plugin_after_pytest_imports_nothing_heavy() -> None:
    program = f"import pytest\nimport mockserver.testing.plugin\n{LOADED}\nprint(loaded())"
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


def run_with_only_our_plugin(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tests: str, *options: str
) -> pytest.RunResult:
    """Run `tests` (with `loaded()` beside them) in a new pytest process with only our plugin:
    others installed here (respx, schemathesis) import httpx themselves."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("MOCKSERVER_URL", raising=False)
    pytester.makepyfile(test_consumer=LOADED + tests)
    return pytester.runpytest_subprocess(
        "-p", "mockserver.testing.plugin", "-p", "no:cacheprovider", *options
    )


def test_a_session_builds_the_app_on_a_fixture_s_first_use(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    tests = """
def test_collected_and_running_with_nothing_heavy():
    assert loaded() == []


def test_the_first_fixture_builds_the_app(mock_client):
    assert mock_client.get("/v1/whoami").status_code == 200
    assert "mockserver.web.app" in loaded()
"""
    run_with_only_our_plugin(pytester, monkeypatch, tests).assert_outcomes(passed=2)


def test_a_session_imports_uvicorn_with_its_first_live_server(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    tests = """
def test_the_in_process_client_serves_no_socket(mock_client):
    assert mock_client.get("/v1/whoami").status_code == 200
    assert not [name for name in loaded() if name.startswith(("uvicorn", "mockserver.serving."))
        and name != "mockserver.serving.asgi"]
    assert "mockserver.testing.live" not in loaded()


def test_the_live_server_comes_with_uvicorn(mock_server):
    with mock_server.client() as api:
        assert api.get("/v1/whoami").status_code == 200
    assert {"uvicorn", "mockserver.testing.live"} <= set(loaded())
"""
    run_with_only_our_plugin(pytester, monkeypatch, tests).assert_outcomes(passed=2)


def test_a_running_server_s_session_imports_no_app(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    tests = """
def test_the_client_of_a_running_server(mock_client):  # made without a request
    assert "mockserver.testing.remote_session" in loaded()
    assert not [name for name in loaded() if name.startswith(("mockserver.web", "starlette"))]
"""
    url = ("--mockserver-url", "http://127.0.0.1:9")
    run_with_only_our_plugin(pytester, monkeypatch, tests, *url).assert_outcomes(passed=1)
