"""The parts of the sandbox an app serves, for the inspector's Starlette endpoints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request

if TYPE_CHECKING:
    from mockserver.domain.store import Store
    from mockserver.engine.control import Control


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def control_of(request: Request) -> Control:
    """The control facade of the sandbox the app serves."""
    control: Control = request.app.state.control
    return control
