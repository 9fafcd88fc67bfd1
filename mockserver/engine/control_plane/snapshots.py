"""`/_mock/snapshots`: save, list, restore, delete, download and upload whole sandboxes (the
rules are the control facade's and `engine/snapshots/`)."""

from __future__ import annotations

from mockserver.engine.answers import header_lines, json_response
from mockserver.engine.control_plane.call import ControlCall
from mockserver.engine.request import Response
from mockserver.engine.snapshots import UPLOAD_MAX


async def save(call: ControlCall) -> Response:
    body = await call.json()
    snapshot = await call.control.save_snapshot(body.get("name"))
    return json_response(snapshot.summary(), status=201)


async def listing(call: ControlCall) -> Response:
    return json_response({"data": [snapshot.summary() for snapshot in call.control.snapshots()]})


async def restore(call: ControlCall) -> Response:
    control = call.control
    snapshot = control.restore_snapshot(call.params["name"])
    return json_response({**snapshot.summary(), "restored": True, **control.clock().as_json()})


async def delete(call: ControlCall) -> Response:
    name = call.params["name"]
    call.control.delete_snapshot(name)
    return json_response({"name": name, "deleted": True})


async def download(call: ControlCall) -> Response:
    name = call.params["name"]
    data = call.control.snapshot_file(name)
    disposition = {"Content-Disposition": f'attachment; filename="{name}.snapshot.json"'}
    return Response(200, header_lines(200, data, "application/json", disposition), data)


async def upload(call: ControlCall) -> Response:
    data = await call.raw(UPLOAD_MAX)
    snapshot = await call.control.add_snapshot_file(call.query.get("name"), data)
    return json_response(snapshot.summary(), status=201)
