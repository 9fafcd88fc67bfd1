"""JSON responses of the control plane and the inspector (the error envelope is
`engine.envelope`'s)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response

JSON = "application/json"


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response encoded with orjson."""
    return Response(orjson.dumps(body), status_code=status, headers=headers, media_type=JSON)
