"""mockserver: a stateful, deterministic sandbox of the Document, Vault, Workflow and Audit API.

The public Python API is `__all__`: build a `Sandbox` from `Settings` and answer `Request`s
with `Response`s in-process, or serve it over HTTP with `create_app` (an ASGI app); every error
the mock raises is a `MockError`. Every other module is internal and may change without notice.
Names are imported on first use, so `import mockserver` costs next to nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mockserver.core.version import __version__

__all__ = [
    "MockError",
    "Request",
    "Response",
    "Sandbox",
    "Settings",
    "TransportFault",
    "TransportFaultError",
    "__version__",
    "create_app",
]

_WHERE = {
    "MockError": "mockserver.core.errors",
    "Request": "mockserver.engine.request",
    "Response": "mockserver.engine.request",
    "Sandbox": "mockserver.web.sandbox",
    "Settings": "mockserver.core.config",
    "TransportFault": "mockserver.engine.request",
    "TransportFaultError": "mockserver.engine.transport_error",
    "create_app": "mockserver.web.app",
}

if TYPE_CHECKING:
    from mockserver.core.config import Settings
    from mockserver.core.errors import MockError
    from mockserver.engine.request import Request, Response, TransportFault
    from mockserver.engine.transport_error import TransportFaultError
    from mockserver.web.app import create_app
    from mockserver.web.sandbox import Sandbox


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mockserver' has no attribute '{name}'")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
