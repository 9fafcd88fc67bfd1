"""`GET /_mock/seed`: the sandbox's current data as a seed file (the rules are the control
facade's and `seeds/export.py`'s)."""

from __future__ import annotations

from mockserver.engine.answers import header_lines
from mockserver.engine.control_plane.call import ControlCall
from mockserver.engine.request import Response

YAML = "application/yaml"


async def export(call: ControlCall) -> Response:
    data = call.control.seed_file().encode()
    return Response(200, header_lines(200, data, YAML), data)
