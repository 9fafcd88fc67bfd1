"""The command line: run, validate and seed generate, as a user types them."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from mockserver.cli.main import main
from mockserver.core.shipped import default_seed_path
from tests.support.cli import MOCKSERVER, free_port


def bad_seed(tmp_path: Path) -> Path:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "version: 1\naccounts:\n  - id: acct_x\n    name: X\n    default_region: mars\n"
    )
    return path


def test_validate_accepts_the_default_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(default_seed_path())]) == 0
    assert "ok" in capsys.readouterr().out


def test_validate_reports_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = bad_seed(tmp_path)
    assert main(["validate", str(default_seed_path()), str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:5: ")
    assert "default_region" in err


def test_validate_reports_every_bad_record_of_a_seed_one_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(
        "version: 1\naccounts:\n  - id: acct_x\n    name: X\n    default_region: mars\n"
        "  - id: nope\n    name: Y\n    default_region: us\n"
    )
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:5: accounts[0].default_region: unknown default_region 'mars' "
        "(expected one of: us, eu)",
        f"{path}:6: accounts[1].id: invalid id 'nope': expected 'acct_' then letters, digits "
        "or '_'",
    ]


def test_validate_reports_format_and_reference_problems_of_a_seed_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "both.yaml"
    path.write_text(
        "version: 1\naccounts:\n  - id: acct_x\n    name: X\n    default_region: us\n"
        "    environments:\n      sandbox:\n        vaults:\n"
        "          - {id: vault_x, name: V, region: mars, created_at: '2025-01-01T00:00:00Z'}\n"
        "        documents:\n"
        "          - {id: doc_x, vault_id: vault_nowhere, title: T, status: draft,\n"
        "             created_at: '2025-01-01T00:00:00Z', sha256: " + "0" * 64 + "}\n"
        "          - {id: doc_y, vault_id: vault_x, title: T, status: draft,\n"
        "             created_at: '2025-01-01T00:00:00Z', sha256: " + "1" * 64 + "}\n"
    )
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:9: accounts[0].environments.sandbox.vaults[0].region: unknown region 'mars' "
        "(expected one of: us, eu)",
        f"{path}:11: accounts[0].environments.sandbox.documents[0].vault_id: no such vault: "
        "'vault_nowhere'",
    ]  # doc_y is in the refused vault: not reported again


def test_run_with_a_bad_seed_exits_2_before_serving(tmp_path: Path) -> None:
    port = free_port()
    result = subprocess.run(
        [*MOCKSERVER, "run", "--port", str(port), "--seed", str(bad_seed(tmp_path))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"{tmp_path / 'bad.yaml'}:5: " in result.stderr
    assert "listening" not in result.stdout


def test_run_serves_whoami_on_a_real_port() -> None:
    port = free_port()
    process = subprocess.Popen(
        [*MOCKSERVER, "run", "--port", str(port), "--clock", "frozen"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pause = threading.Event()
        response = None
        for _ in range(300):
            try:
                response = httpx.get(
                    f"http://127.0.0.1:{port}/v1/whoami",
                    headers={"Authorization": "Bearer sk_test_mock_full"},
                )
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                pause.wait(0.05)
        assert response is not None
        assert response.status_code == 200
        assert response.json()["account_id"] == "acct_mock_us"
    finally:
        process.terminate()
        process.communicate(timeout=10)


# Runs the command line in a Python where `import faker` fails, as without the generate extra.
WITHOUT_FAKER = (
    "import sys; sys.modules['faker'] = None; "
    "from mockserver.cli import main; sys.exit(main(sys.argv[1:]))"
)


def without_faker(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", WITHOUT_FAKER, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_seed_generate_without_faker_names_the_extra() -> None:
    done = without_faker("seed", "generate", "--documents", "3")
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "mockserver seed generate needs Faker: pip install 'mockserver[generate]'\n"
    )
    assert done.stdout == ""


def test_other_commands_need_no_faker() -> None:
    done = without_faker("validate", str(default_seed_path()))
    assert done.returncode == 0, done.stderr
    assert "ok" in done.stdout


def test_seed_generate_prints_a_valid_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["seed", "generate", "--documents", "30", "--random-seed", "5"]) == 0
    path = tmp_path / "generated.yaml"
    path.write_text(capsys.readouterr().out)
    assert main(["validate", str(path)]) == 0
