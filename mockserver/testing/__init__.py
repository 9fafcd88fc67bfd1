"""The mock in test suites: the pytest plugin's fixtures, the webhook receiver, the live server
and the container.

The public names are `__all__`: the types the fixtures hand out (`MockServer`, `MockAccount`,
`MockClient`, and `Controls`, the helpers they share), their errors, the webhook receiver and
its scripts, `LiveServer`, and `MockServerContainer` with its errors (the `container` extra).
Every other module is internal and may change without notice. pytest imports this package in
every run of an environment that has mockserver (the plugin lives in it), so names are
imported on first use: `import mockserver.testing` imports neither pytest, httpx, the app nor
testcontainers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Sorted as `sorted()` sorts, as `mockserver.__all__` is (not isort's constants-first order).
__all__ = [  # noqa: RUF022
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

_WHERE = {
    "ContainerEngineUnavailable": "mockserver.testing.container",
    "HANG": "mockserver.testing.receiver",
    "HOLD": "mockserver.testing.receiver",
    "Controls": "mockserver.testing.controls",
    "LiveServer": "mockserver.testing.live",
    "MockAccount": "mockserver.testing.account",
    "MockClient": "mockserver.testing.mock_client",
    "MockServer": "mockserver.testing.server",
    "MockServerContainer": "mockserver.testing.container",
    "MockServerNotHealthy": "mockserver.testing.container",
    "Received": "mockserver.testing.receiver",
    "ScenarioRefused": "mockserver.testing.server",
    "SharedServerError": "mockserver.testing.server",
    "WebhookReceiver": "mockserver.testing.receiver",
    "closed_port": "mockserver.testing.receiver",
    "release_port": "mockserver.testing.receiver",
}

if TYPE_CHECKING:
    from mockserver.testing.account import MockAccount
    from mockserver.testing.container import (
        ContainerEngineUnavailable,
        MockServerContainer,
        MockServerNotHealthy,
    )
    from mockserver.testing.controls import Controls
    from mockserver.testing.live import LiveServer
    from mockserver.testing.mock_client import MockClient
    from mockserver.testing.receiver import (
        HANG,
        HOLD,
        Received,
        WebhookReceiver,
        closed_port,
        release_port,
    )
    from mockserver.testing.server import MockServer, ScenarioRefused, SharedServerError


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mockserver.testing' has no attribute '{name}'")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
