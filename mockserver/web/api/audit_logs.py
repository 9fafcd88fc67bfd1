"""`/v1/audit_logs`: the audit log, its exports and their pre-signed downloads."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from mockserver.engine.operations import lifecycle
from mockserver.web.api.operate import Endpoint, Run, operate


async def list_audit_logs(request: Request) -> Response:
    """`GET /v1/audit_logs`."""
    return await operate(request, lifecycle.list_audit_logs)


async def create_export(request: Request) -> Response:
    """`POST /v1/audit_logs/export`."""
    return await operate(request, lifecycle.create_export)


async def get_export(request: Request) -> Response:
    """`GET /v1/audit_logs/export/{export_id}`."""
    return await operate(request, lifecycle.get_export)


async def download_export(request: Request) -> Response:
    """`GET /v1/audit_logs/export/{export_id}/download`."""
    return await operate(request, lifecycle.download_export)


def endpoints() -> dict[Run, Endpoint]:
    """Each operation's function (as the module has it now) and its endpoint."""
    return {
        lifecycle.list_audit_logs: list_audit_logs,
        lifecycle.create_export: create_export,
        lifecycle.get_export: get_export,
        lifecycle.download_export: download_export,
    }
