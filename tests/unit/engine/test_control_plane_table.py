"""The control plane's route table names each endpoint by the function itself: every entry is
an async endpoint, and each route is there once."""

from __future__ import annotations

import inspect

import pytest

from mockserver.engine.control_plane.call import Endpoint
from mockserver.engine.control_plane.routes import ACCOUNT_ENDPOINTS, SERVER_ENDPOINTS


@pytest.mark.parametrize(
    "endpoint",
    [endpoint for _, _, endpoint in SERVER_ENDPOINTS + ACCOUNT_ENDPOINTS],
    ids=lambda endpoint: f"{endpoint.__module__}.{endpoint.__name__}",
)
def test_every_endpoint_of_the_table_is_an_async_function(endpoint: Endpoint) -> None:
    assert inspect.iscoroutinefunction(endpoint)
    assert endpoint.__module__.startswith("mockserver.engine.control_plane.")


def test_every_route_is_there_once() -> None:
    routes = [(tuple(methods), path) for methods, path, _ in SERVER_ENDPOINTS]
    scoped = [(tuple(methods), path) for methods, path, _ in ACCOUNT_ENDPOINTS]
    assert len(routes) == len(set(routes)) == 26
    assert len(scoped) == len(set(scoped)) == 19
