"""The client `mock_server.client()` and `mock_account.client()` hand out: httpx on the server's
root, as `mock_client` is, so one path works on both (`/v1/documents`, `/_mock/reset`).

These clients were based at the API (`{url}/v1`) before, and took `/documents` for
`/v1/documents`. For one release such a path still goes there, with a DeprecationWarning: a path
whose first segment is none of the root's (`ROOTS`) is sent under `/v1`.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import httpx

# The first path segments the server's root serves: the API (in the default region and each
# region's), and the control plane.
ROOTS = frozenset({"v1", "us", "eu", "_mock"})


class RootClient(httpx.Client):
    """An httpx.Client based at the server's root; a path relative to `/v1`, as the clients based
    at the API took, still reaches it, with a DeprecationWarning."""

    def build_request(self, method: str, url: httpx.URL | str, **kwargs: Any) -> httpx.Request:
        if isinstance(url, str) and _under_the_api(url):
            warnings.warn(
                f"{url!r} is sent to '/v1/{url.lstrip('/')}': mock_server.client() is now based "
                "at the server's root, as mock_client is; write the path from the root (the "
                "rewrite goes in the next release).",
                DeprecationWarning,
                stacklevel=_outside_httpx(),
            )
            url = f"/v1/{url.lstrip('/')}"
        return super().build_request(method, url, **kwargs)


def _outside_httpx() -> int:
    """The `stacklevel` that names the line that called httpx (`get`, `post`, `request`,
    `stream`), for a warning raised in `build_request`, whichever of them called it."""
    level = 2  # build_request's caller
    frame = inspect.currentframe()
    frame = frame.f_back.f_back if frame is not None and frame.f_back is not None else None
    while frame is not None and _within_httpx(frame.f_globals.get("__name__", "")):
        frame = frame.f_back
        level += 1
    return level


def _within_httpx(module: str) -> bool:
    """Whether a frame of `module` is httpx's (or the `contextlib` wrapper of its `stream`)."""
    return module.startswith("httpx.") or module == "contextlib"


def _under_the_api(url: str) -> bool:
    """Whether `url` is a path the client based at `/v1` would have sent under it: a relative
    path whose first segment the root does not serve."""
    if "://" in url or url.startswith("//"):
        return False
    first = url.lstrip("/").split("/", 1)[0].split("?", 1)[0]
    return bool(first) and first not in ROOTS
