"""The inspector's route table: its pages and forms under `/_mock/ui`, and the overview at
`/_mock/ui` itself (which a mount cannot serve: its paths go on below it). Imported by the
first request for a page (`Pages`)."""

from __future__ import annotations

from starlette.routing import Route, Router

from mockserver.web.inspector import actions, pages, web
from mockserver.web.inspector.bridge import page
from mockserver.web.unmatched import router

overview = page(pages.overview)


def pages_router() -> Router:
    """The pages and forms below `/_mock/ui`, by their paths there."""
    get, post = ["GET"], ["POST"]
    return router(
        [
            Route("/requests", page(pages.requests_page), methods=get),
            Route("/requests/{seq:int}", page(pages.request_detail), methods=get),
            Route("/scenarios", page(pages.scenarios_page), methods=get),
            Route("/webhooks", page(pages.webhooks_page), methods=get),
            Route("/resources", page(pages.resources_page), methods=get),
            Route("/audit", page(pages.audit_page), methods=get),
            Route("/state", page(pages.state), methods=get),
            Route("/watch", page(actions.watch), methods=post),
            Route("/clock/advance", page(actions.advance_clock), methods=post),
            Route("/clock/set", page(actions.set_clock), methods=post),
            Route("/reset", page(actions.reset), methods=post),
            Route("/scenarios/load", page(actions.load_scenario_named), methods=post),
            Route("/scenarios/unload", page(actions.unload_scenarios), methods=post),
            Route("/webhooks/{delivery_id}/redeliver", page(actions.redeliver), methods=post),
            Route("/events/trigger", page(actions.trigger), methods=post),
            Route("/events/{evt_id}/resend", page(actions.resend_event), methods=post),
            Route("/login", page(web.login_form), methods=get),
            Route("/login", page(web.login), methods=post),
            Route("/static/{name}", page(web.static), methods=get),
        ]
    )
