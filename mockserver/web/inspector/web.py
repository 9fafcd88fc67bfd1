"""What every inspector page shares: the admin guard, the templates, the static files, sign-in.

The guard is the control plane's (`admin_api.check_admin_token`): mounted only with `/_mock`,
and with `--admin-token` the token must come either as `X-Mock-Admin-Token` (scripts) or as the
`mock_admin_token` cookie that `/_mock/ui/login` sets (browsers cannot add a header to a link).
The cookie is `HttpOnly` and `SameSite=Strict`, and every form POST must come from the page's
own origin (its `Origin` header, which browsers send on POSTs, names the same host), so another
site open in the same browser cannot press the inspector's buttons. With no token, the engine's
browser guard (`control_plane/origin_guard.py`) has already refused any page or form request
whose `Origin` or `Host` is not loopback, or that the browser marks `Sec-Fetch-Site:
cross-site`. Whatever the token, no answer may be shown in a frame (`Authentication` adds the
headers to every answer to `/_mock/ui`).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from functools import wraps
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mockserver.core.errors import AuthenticationError, NotFound, PermissionDenied
from mockserver.engine import inspector_views as views
from mockserver.engine.control_plane.call import check_admin_token
from mockserver.web.context import sandbox_of, server_of, store_of
from mockserver.web.form import read_form
from mockserver.web.inspector.bridge import BASE

if TYPE_CHECKING:
    from starlette.templating import Jinja2Templates

    from mockserver.domain.store import Store

COOKIE = "mock_admin_token"

UiHandler = Callable[[Request, "Store"], Awaitable[Response]]


@functools.cache
def _templates() -> Jinja2Templates:
    """The page templates, made (and Jinja2 imported) by the first page served: a server whose
    inspector is never opened starts a twentieth of a second sooner."""
    import jinja2
    from starlette.templating import Jinja2Templates

    templates = Jinja2Templates(
        env=jinja2.Environment(
            loader=jinja2.PackageLoader("mockserver.web.inspector", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,  # a typo in a template fails its test
            trim_blocks=True,
            lstrip_blocks=True,
        )
    )
    templates.env.filters["pretty"] = views.pretty
    return templates


_STATIC_TYPES = {"inspector.css": "text/css", "inspector.js": "text/javascript"}
_STATIC = {
    name: (resources.files(__package__).joinpath("static", name).read_bytes(), media)
    for name, media in _STATIC_TYPES.items()
}


def ui(handler: UiHandler) -> Callable[[Request], Awaitable[Response]]:
    """The admin guard for pages and forms: the token from the header or the cookie, and for a
    POST the same origin. A browser opening a page without the token is sent to sign in."""

    @wraps(handler)
    async def run(request: Request) -> Response:
        header = request.headers.get("x-mock-admin-token")
        given = header or request.cookies.get(COOKIE, "")
        try:
            check_admin_token(request.app.state.settings.admin_token, given)
        except AuthenticationError:
            wants_page = "text/html" in request.headers.get("accept", "")
            if request.method == "GET" and header is None and wants_page:
                return RedirectResponse(f"{BASE}/login", status_code=303)
            raise
        if request.method == "POST":
            same_origin(request)
        return await handler(request, store_of(request))

    return run


def same_origin(request: Request) -> None:
    """403 for a POST whose `Origin` names another host than the one it was sent to."""
    origin = request.headers.get("origin")
    if origin is None:
        return  # not a browser's cross-site form (they always send Origin on POST)
    if urlsplit(origin).netloc != request.headers.get("host", ""):
        raise PermissionDenied(
            f"The inspector accepts forms only from its own pages (Origin {origin[:100]})."
        )


def page(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    """A rendered page; every page shows the clock in its header."""
    sandbox = sandbox_of(request)
    store = sandbox.store
    context.setdefault("clock", views.clock(store))
    context.setdefault("token_required", request.app.state.settings.admin_token is not None)
    context.setdefault("watching", views.watched(sandbox))
    # The state the page shows, so the live refresh notices any change made after rendering.
    live = context["clock"] is not None  # the sign-in page shows nothing of the state
    server = server_of(request)
    context.setdefault("reload_problems", views.reload_problems(server) if live else [])
    mark = views.live_mark(server) if live else ""
    context.setdefault(
        "fingerprint",
        views.fingerprint(store, sandbox.journal, sandbox.webhooks, mark) if live else "",
    )
    return _templates().TemplateResponse(request, template, context, status_code=status)


def back(to: str, **notice: str) -> Response:
    """303 back to a page after a form (so a reload does not post again), with a notice."""
    query = urlencode(notice)
    return RedirectResponse(f"{BASE}{to}{'?' + query if query else ''}", status_code=303)


async def form_of(request: Request) -> dict[str, str]:
    """A form body as a dict (the last value wins for a repeated field)."""
    return dict(await read_form(request))


async def static(request: Request) -> Response:
    """The inspector's CSS and JS, from the package (no CDN, no build step)."""
    found = _STATIC.get(request.path_params["name"])
    if found is None:
        raise NotFound(f"No inspector file named '{request.path_params['name'][:60]}'.")
    body, media = found
    return Response(body, media_type=media, headers={"cache-control": "no-cache"})


async def login_form(request: Request) -> Response:
    return page(request, "login.html", failed=False, clock=None)


async def login(request: Request) -> Response:
    """Check the token typed in and keep it in a cookie; a wrong one shows the form again."""
    token: str | None = request.app.state.settings.admin_token
    same_origin(request)
    given = (await form_of(request)).get("token", "")
    try:
        check_admin_token(request.app.state.settings.admin_token, given)
    except AuthenticationError:
        return page(request, "login.html", status=401, failed=True, clock=None)
    response = RedirectResponse(BASE, status_code=303)
    if token is not None:
        response.set_cookie(COOKIE, given, httponly=True, samesite="strict", path="/_mock")
    return response
