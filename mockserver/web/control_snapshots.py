"""`/_mock/snapshots`: save, list, restore, delete, download and upload whole sandboxes.

The rules live in the control facade (`engine/control.py`) and `engine/snapshots.py`; these
handlers read the request and render the answer.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mockserver.engine.control import Control
from mockserver.web.body import read_body, read_control_json
from mockserver.web.control_api import admin
from mockserver.web.render import json_response

UPLOAD_MAX = 1 << 30  # bytes of a snapshot file an upload reads at most (413 beyond)


@admin
async def save(request: Request, control: Control) -> Response:
    body = await read_control_json(request)
    snapshot = await control.save_snapshot(body.get("name"))
    return json_response(snapshot.summary(), status=201)


@admin
async def listing(request: Request, control: Control) -> Response:
    return json_response({"data": [snapshot.summary() for snapshot in control.snapshots()]})


@admin
async def restore(request: Request, control: Control) -> Response:
    snapshot = control.restore_snapshot(request.path_params["name"])
    return json_response({**snapshot.summary(), "restored": True, **control.clock().as_json()})


@admin
async def delete(request: Request, control: Control) -> Response:
    name = request.path_params["name"]
    control.delete_snapshot(name)
    return json_response({"name": name, "deleted": True})


@admin
async def download(request: Request, control: Control) -> Response:
    name = request.path_params["name"]
    return Response(
        control.snapshot_file(name),
        media_type="application/octet-stream",
        headers={"Content-Disposition": f'attachment; filename="{name}.mocksnap"'},
    )


@admin
async def upload(request: Request, control: Control) -> Response:
    data = await read_body(request, UPLOAD_MAX)
    snapshot = control.add_snapshot_file(request.query_params.get("name"), data)
    return json_response(snapshot.summary(), status=201)


def snapshot_routes() -> list[BaseRoute]:
    return [
        Route("/_mock/snapshots", save, methods=["POST"]),
        Route("/_mock/snapshots", listing, methods=["GET"]),
        Route("/_mock/snapshots/upload", upload, methods=["POST"]),
        Route("/_mock/snapshots/{name}/restore", restore, methods=["POST"]),
        Route("/_mock/snapshots/{name}/download", download, methods=["GET"]),
        Route("/_mock/snapshots/{name}", delete, methods=["DELETE"]),
    ]
