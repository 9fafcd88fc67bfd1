"""The public names of `mockserver.testing`: its sorted `__all__`, each importable, none of them
imported by `import mockserver.testing` (pytest imports the package in every run), and docs
that import only these names."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import mockserver.testing

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = [
    "ContainerEngineUnavailable",
    "Controls",
    "HANG",
    "HOLD",
    "LiveServer",
    "MockAccount",
    "MockClient",
    "MockServer",
    "MockServerContainer",
    "MockServerNotHealthy",
    "Received",
    "ScenarioRefused",
    "SharedServerError",
    "WebhookReceiver",
    "closed_port",
    "release_port",
]
# What `import mockserver.testing` must leave unimported: the names' modules and what they need.
HEAVY = ("pytest", "httpx", "testcontainers", "ssl", "http.server", "mockserver.web")
PRIVATE_IMPORT = re.compile(
    r"^\s*(from\s+mockserver\.testing\.\w+\s+import|import\s+mockserver\.testing\.)"
)


def test_the_public_names_are_a_sorted_list() -> None:
    assert mockserver.testing.__all__ == PUBLIC
    assert sorted(PUBLIC) == PUBLIC
    for name in PUBLIC:
        assert getattr(mockserver.testing, name) is not None
    assert set(PUBLIC) <= set(dir(mockserver.testing))
    with pytest.raises(AttributeError):
        _ = mockserver.testing.Session  # type: ignore[attr-defined]


def test_the_names_are_the_modules_objects() -> None:
    from mockserver.testing import MockServer, WebhookReceiver, closed_port
    from mockserver.testing.receiver import WebhookReceiver as Receiver
    from mockserver.testing.receiver import closed_port as held_port
    from mockserver.testing.server import MockServer as HandleMockServer

    assert MockServer is HandleMockServer
    assert WebhookReceiver is Receiver
    assert closed_port is held_port


def test_importing_the_package_imports_none_of_them() -> None:
    program = (
        "import sys\nimport mockserver.testing\n"
        f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_docs_import_only_public_names() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for page in pages
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if PRIVATE_IMPORT.match(line)
    ]
    assert found == []
