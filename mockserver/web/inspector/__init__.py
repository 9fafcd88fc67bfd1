"""The inspector: `/_mock/ui`, web pages to watch and steer the mock while a test runs.

    pages.py    read-only views (GET), usable without JavaScript
    actions.py  the buttons (form POSTs answered with 303 back to the page)
    views.py    view models from the store and the journals (no Starlette, no Jinja2)
    web.py      the admin guard for pages, templates, static files, sign-in
    templates/  Jinja2, server-rendered;  static/  one CSS and one JS file, no build step

Mounted with the rest of `/_mock` (so `--no-admin` removes it) and guarded by the same token.
"""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from mockserver.web.inspector import actions, pages, web


def inspector_routes() -> list[BaseRoute]:
    base = web.BASE
    return [
        Route(base, pages.overview, methods=["GET"]),
        Route(f"{base}/requests", pages.requests_page, methods=["GET"]),
        Route(f"{base}/requests/{{seq:int}}", pages.request_detail, methods=["GET"]),
        Route(f"{base}/webhooks", pages.webhooks_page, methods=["GET"]),
        Route(f"{base}/resources", pages.resources_page, methods=["GET"]),
        Route(f"{base}/audit", pages.audit_page, methods=["GET"]),
        Route(f"{base}/state", pages.state, methods=["GET"]),
        Route(f"{base}/clock/advance", actions.advance_clock, methods=["POST"]),
        Route(f"{base}/clock/set", actions.set_clock, methods=["POST"]),
        Route(f"{base}/reset", actions.reset, methods=["POST"]),
        Route(f"{base}/scenarios/load", actions.load_scenario_named, methods=["POST"]),
        Route(f"{base}/scenarios/unload", actions.unload_scenarios, methods=["POST"]),
        Route(f"{base}/webhooks/{{delivery_id}}/redeliver", actions.redeliver, methods=["POST"]),
        Route(f"{base}/events/trigger", actions.trigger, methods=["POST"]),
        Route(f"{base}/events/{{evt_id}}/resend", actions.resend_event, methods=["POST"]),
        Route(f"{base}/login", web.login_form, methods=["GET"]),
        Route(f"{base}/login", web.login, methods=["POST"]),
        Route(f"{base}/static/{{name}}", web.static, methods=["GET"]),
    ]


__all__ = ["inspector_routes"]
