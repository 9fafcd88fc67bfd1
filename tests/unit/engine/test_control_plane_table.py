"""The control plane's route table names each endpoint by its module and function, imported by
the first request for it: every name must resolve to an endpoint, or that request would fail."""

from __future__ import annotations

import importlib
import inspect

import pytest

from mockserver.engine.control_plane import ACCOUNT_ENDPOINTS, SERVER_ENDPOINTS


@pytest.mark.parametrize(
    ("module", "name"),
    sorted({(module, name) for _, _, module, name in SERVER_ENDPOINTS + ACCOUNT_ENDPOINTS}),
)
def test_every_endpoint_of_the_table_resolves(module: str, name: str) -> None:
    endpoint = getattr(importlib.import_module(f"mockserver.engine.control_plane.{module}"), name)
    assert inspect.iscoroutinefunction(endpoint)


def test_every_route_is_there_once() -> None:
    routes = [(tuple(methods), path) for methods, path, _, _ in SERVER_ENDPOINTS]
    scoped = [(tuple(methods), path) for methods, path, _, _ in ACCOUNT_ENDPOINTS]
    assert len(routes) == len(set(routes)) == 26
    assert len(scoped) == len(set(scoped)) == 17
