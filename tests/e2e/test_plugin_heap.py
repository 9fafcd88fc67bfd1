"""The plugin imports the app's modules and builds the session's mock with the collector paused,
and freezes what is alive then (mockserver/testing/session_heap.py): while the session runs the
freeze holds and the collector is on, garbage a test makes is reclaimed, and the session's end
thaws everything. A process that froze objects itself, or turned the collector off, keeps things
as it set them. Each case is a small suite run by pytester in a fresh process: the collector's
state is process-wide."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

# What the process's collector looks like once pytest is done with the session (after every
# cleanup), printed by an exit handler of the suite's conftest.
AT_EXIT = """
import atexit
import gc


def _report():
    print(f"AT EXIT: frozen={gc.get_freeze_count()} enabled={gc.isenabled()}")


atexit.register(_report)
"""

SUITE = """
import gc
import weakref


def test_the_mock_is_frozen_and_the_collector_on(mock_client):
    assert mock_client.get("/v1/whoami").status_code == 200
    assert gc.get_freeze_count() > 0
    assert gc.isenabled()


def test_a_cycle_a_test_makes_is_reclaimed(mock_server):
    class Node:
        pass

    node = Node()
    node.itself = node
    gone = weakref.ref(node)
    del node
    gc.collect()
    assert gone() is None
    with mock_server.client() as api:
        assert api.get("/v1/whoami").status_code == 200
"""


def _run(pytester: pytest.Pytester) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s")


def test_the_session_freezes_the_mock_and_thaws_at_its_end(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(AT_EXIT)
    pytester.makepyfile(test_heap=SUITE)
    result = _run(pytester)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["AT EXIT: frozen=0 enabled=True"])


def test_a_process_that_froze_objects_itself_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        AT_EXIT
        + """
gc.freeze()
FROZEN = gc.get_freeze_count()
"""
    )
    pytester.makepyfile(
        test_own_freeze="""
import gc

from conftest import FROZEN


def test_nothing_more_is_frozen(mock_client):
    assert mock_client.get("/v1/whoami").status_code == 200
    assert gc.get_freeze_count() <= FROZEN  # what it froze, less what has died since
"""
    )
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["AT EXIT: frozen=[1-9]* enabled=True"])


def test_a_collector_turned_off_stays_off(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(AT_EXIT + "\ngc.disable()\n")
    pytester.makepyfile(
        test_off="""
import gc


def test_still_off(mock_client, mock_server):
    assert mock_client.get("/v1/whoami").status_code == 200
    assert not gc.isenabled()
"""
    )
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["AT EXIT: frozen=0 enabled=False"])


def test_the_app_s_modules_are_imported_with_the_collector_paused(
    pytester: pytest.Pytester,
) -> None:
    # A collection that starts while the session's module is half imported (its LocalSession
    # not defined yet) is one the import of the app's modules set off.
    pytester.makeconftest(
        """
import gc
import sys

DURING_IMPORT = []


def _seen(phase, info):
    session = sys.modules.get("mockserver.testing.session")
    if phase == "start" and session is not None and not hasattr(session, "LocalSession"):
        DURING_IMPORT.append(info["generation"])


gc.callbacks.append(_seen)
"""
    )
    pytester.makepyfile(
        test_import="""
import sys

from conftest import DURING_IMPORT


def test_no_collection_while_the_app_is_imported(mock_client):
    assert mock_client.get("/v1/whoami").status_code == 200
    assert "mockserver.web.app" in sys.modules
    assert DURING_IMPORT == []
"""
    )
    result = _run(pytester)
    result.assert_outcomes(passed=1)
