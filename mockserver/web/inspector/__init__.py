"""The inspector: `/_mock/ui`, web pages to watch and steer the mock while a test runs.

    pages.py    read-only views (GET), usable without JavaScript; no GET changes anything
    actions.py  the buttons (form POSTs answered with 303 back to the page), choosing the
                watched account included
    engine/inspector_views.py, engine/inspector_webhooks.py
                view models from the store, the journals and the delivery engine (no
                Starlette, no Jinja2)
    web.py      the admin guard for pages, templates, static files, sign-in
    routes.py   the route table;  bridge.py  how a page is given its request
    templates/  Jinja2, server-rendered;  static/  one CSS and one JS file, no build step

Mounted at `/_mock/ui` with the rest of `/_mock` (so `--no-admin` removes it), behind the
control plane's guard and the same token.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.types import Receive, Scope, Send

from mockserver.web.inspector.bridge import BASE, Endpoint


class Pages:
    """The inspector's pages as an ASGI app (the mount's), its modules imported by the first
    request for one: the pages, forms and their view models cost every app built (each pytest
    session's) milliseconds, and most sessions never open one."""

    def __init__(self) -> None:
        self._loaded: tuple[Endpoint, Router] | None = None

    def _load(self) -> tuple[Endpoint, Router]:
        if self._loaded is None:
            from mockserver.web.inspector import routes  # the inspector: an optional part

            self._loaded = routes.overview, routes.pages_router()
        return self._loaded

    @property
    def routes(self) -> list[BaseRoute]:
        """The routes below `/_mock/ui`."""
        return self._load()[1].routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._load()[1](scope, receive, send)

    async def overview(self, request: Request) -> Response:
        """`GET /_mock/ui`."""
        return await self._load()[0](request)


def inspector_routes() -> list[BaseRoute]:
    """The overview at `/_mock/ui` and the mount of the pages below it."""
    pages = Pages()
    return [Route(BASE, pages.overview, methods=["GET"]), Mount(BASE, app=pages)]


__all__ = ["inspector_routes"]
