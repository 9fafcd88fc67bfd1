"""`MockServerContainer` with no container engine to talk to: an error that says what to do,
not the docker library's connection error. DOCKER_HOST names a socket nothing listens on, so
no engine on the machine is ever asked."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from mockserver.testing import ContainerEngineUnavailable, MockServerContainer


# The docker library leaves the socket it tried unclosed: collected (and its warning ignored)
# within this test, not in a later one.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_no_engine_is_an_error_that_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    socket = tmp_path / "no-engine.sock"
    monkeypatch.setenv("DOCKER_HOST", f"unix://{socket}")
    with pytest.raises(ContainerEngineUnavailable) as raised:
        MockServerContainer("mockserver:test")
    message = str(raised.value)
    del raised
    gc.collect()
    assert message.startswith(
        "no container engine answered: start Docker or Podman, or set DOCKER_HOST"
    )
    assert f"(DOCKER_HOST is unix://{socket}" in message
