"""Steps that send a form or a raw body, and steps that repeat until a status."""

from __future__ import annotations

from pathlib import Path

import pytest

from mockserver.cli.main import main
from mockserver.core.errors import ScenarioError
from mockserver.scenarios.loader import load_scenario_text

STEPS = """
name: bodies
steps:
  - request:
      method: POST
      path: /v1/oauth/token
      key: null
      form: {grant_type: authorization_code, code: oac_never_issued, client_id: mock_client,
             client_secret: mock_secret, redirect_uri: "http://127.0.0.1:8765/callback"}
    expect: {status: 400, body: {error: {code: invalid_grant}}}
  - request:
      method: POST
      path: /v1/documents
      headers: {Content-Type: application/json}
      content: '{"title": "NDA", "vault_id": "vault_mock_us"}'
    expect: {status: 201, body: {title: NDA}}
  - request: {method: GET, path: /v1/whoami}
    repeat: {until_status: 429, at_most: 1000}
    expect: {status: 429, headers: {Retry-After: "*"}}
"""


def test_form_content_and_repeat_steps_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bodies.yaml"
    path.write_text(STEPS)
    assert main(["replay", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "3 passed, 0 failed"
    assert lines[2].endswith("-> 429 after 200 requests")  # the sandbox key's burst is 200


def test_a_repeat_that_never_sees_its_status_fails_after_at_most(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "short.yaml"
    path.write_text(
        "name: short\nsteps:\n  - request: {method: GET, path: /v1/whoami}\n"
        "    repeat: {until_status: 429, at_most: 3}\n    expect: {status: 429}\n"
    )
    assert main(["replay", str(path)]) == 1
    assert "-> 200 after 3 requests: expected status 429" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            "{request: {method: POST, path: /v1/x, body: {}, form: {a: b}}}",
            "a request has at most one of body, form, content",
        ),
        ("{advance: 3, repeat: {until_status: 429, at_most: 2}}", "repeat goes with a request"),
    ],
)
def test_bad_step_bodies_are_refused(step: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        load_scenario_text(f"name: bad\nsteps:\n  - {step}\n", "bad.yaml")
