"""Every pytest session of an environment with mockserver installed imports the plugin, so the
import must be cheap: nothing heavy until a fixture is used. Checked in fresh interpreters, as
this test process has it all loaded. (How long the import takes is a benchmark figure:
`python -m benchmarks --only pytest`.)"""

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


def test_a_session_builds_the_app_on_a_fixture_s_first_use(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only our plugin: others installed here (respx, schemathesis) import httpx themselves.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(
        test_first_use=LOADED
        + """
def test_collected_and_running_with_nothing_heavy():
    assert loaded() == []


def test_the_first_fixture_builds_the_app(mock_client):
    assert mock_client.get("/v1/whoami").status_code == 200
    assert "mockserver.web.app" in loaded()
"""
    )
    result = pytester.runpytest_subprocess(
        "-p", "mockserver.testing.plugin", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=2)
