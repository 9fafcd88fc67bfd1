"""The inspector: `/_mock/ui`, web pages to watch and steer the mock while a test runs.

    pages.py    read-only views (GET), usable without JavaScript; no GET changes anything
    actions.py  the buttons (form POSTs answered with 303 back to the page), choosing the
                watched account included
    engine/inspector_views.py, engine/inspector_webhooks.py
                view models from the store, the journals and the delivery engine (no
                Starlette, no Jinja2)
    web.py      the admin guard for pages, templates, static files, sign-in
    templates/  Jinja2, server-rendered;  static/  one CSS and one JS file, no build step

Mounted with the rest of `/_mock` (so `--no-admin` removes it) and guarded by the same token.
"""

from __future__ import annotations

from starlette.applications import Starlette

from mockserver.engine.routing import Route
from mockserver.web.inspector.bridge import BASE, later, page_route


def inspector_routes(app: Starlette) -> list[Route]:
    """The inspector's pages and forms, as routes of the sandbox `app` serves; each module is
    imported by the first request for one of its endpoints."""
    base = BASE
    table = [
        (["GET"], base, later("pages", "overview")),
        (["GET"], f"{base}/requests", later("pages", "requests_page")),
        (["GET"], f"{base}/requests/{{seq:int}}", later("pages", "request_detail")),
        (["GET"], f"{base}/webhooks", later("pages", "webhooks_page")),
        (["GET"], f"{base}/resources", later("pages", "resources_page")),
        (["GET"], f"{base}/audit", later("pages", "audit_page")),
        (["GET"], f"{base}/state", later("pages", "state")),
        (["POST"], f"{base}/watch", later("actions", "watch")),
        (["POST"], f"{base}/clock/advance", later("actions", "advance_clock")),
        (["POST"], f"{base}/clock/set", later("actions", "set_clock")),
        (["POST"], f"{base}/reset", later("actions", "reset")),
        (["POST"], f"{base}/scenarios/load", later("actions", "load_scenario_named")),
        (["POST"], f"{base}/scenarios/unload", later("actions", "unload_scenarios")),
        (["POST"], f"{base}/webhooks/{{delivery_id}}/redeliver", later("actions", "redeliver")),
        (["POST"], f"{base}/events/trigger", later("actions", "trigger")),
        (["POST"], f"{base}/events/{{evt_id}}/resend", later("actions", "resend_event")),
        (["GET"], f"{base}/login", later("web", "login_form")),
        (["POST"], f"{base}/login", later("web", "login")),
        (["GET"], f"{base}/static/{{name}}", later("web", "static")),
    ]
    return [page_route(app, methods, path, endpoint) for methods, path, endpoint in table]


__all__ = ["inspector_routes"]
