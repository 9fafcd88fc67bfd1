"""The app factory: every server, test client and CLI run is built by `create_app(settings)`."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response

from mockserver.clock import Clock, FrozenClock, RealClock, parse_ts
from mockserver.config import DEFAULT_START_TIME, Settings
from mockserver.domain.models import SeedData
from mockserver.domain.seeding import load_world
from mockserver.errors import NotFound
from mockserver.resources import default_seed_path
from mockserver.seeds import load_seed
from mockserver.store import Store

from .admin_api import admin_routes
from .compression import Compression
from .pipeline import Pipeline
from .routes import v1_routes

# Below this a response goes as it is: gzip would gain little on small bodies and cost CPU.
# Level 6 (zlib's default) rather than Starlette's 9, which costs far more for a few percent.
GZIP_MINIMUM_SIZE = 1024


def make_clock(settings: Settings) -> Clock:
    """A frozen clock at the start time, or the wall clock (moved to the start time if given)."""
    if settings.clock_mode == "frozen":
        return FrozenClock(parse_ts(settings.start_time or DEFAULT_START_TIME))
    clock = RealClock()
    if settings.start_time:
        clock.start_at(parse_ts(settings.start_time))
    return clock


async def unknown_route(request: Request, exc: Exception) -> Response:
    """Unknown paths and methods are 404 `not_found` in the envelope (raised to the pipeline)."""
    raise NotFound(f"Unrecognized request URL ({request.method} {request.url.path}).")


def create_app(settings: Settings | None = None, *, seed: SeedData | None = None) -> Starlette:
    """Build a server: load the seed (raising SeedError before anything runs), then the app."""
    settings = settings or Settings()
    if seed is None:
        seed = load_seed(settings.seed_path or default_seed_path())
    store = Store(seed, make_clock(settings), settings.random_seed, loader=load_world)
    routes = v1_routes() + (admin_routes() if settings.admin else [])
    app = Starlette(
        routes=routes,
        # gzip outermost: it keeps every header the pipeline adds and judges the final body.
        middleware=[
            Middleware(Compression, minimum_size=GZIP_MINIMUM_SIZE, compresslevel=6),
            Middleware(Pipeline, store=store),
        ],
        exception_handlers={HTTPException: unknown_route},
    )
    app.state.store = store
    app.state.settings = settings
    return app
