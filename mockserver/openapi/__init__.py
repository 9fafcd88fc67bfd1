"""The OpenAPI 3.1 description of the mocked API (`GET /v1/openapi.json`, `mockserver openapi`).

Built in Python, not written as JSON, from the constants the handlers validate with (scopes,
statuses, regions, field limits, the email pattern, the error classes), so it cannot drift from
the code on those. `build_document(limits)` returns the document as a dict; `document_bytes`
renders it the one way both the server and the command line print it (sorted keys, two-space
indent, a trailing newline), so the two are byte-identical for the same limits.

    fields.py      primitive schemas: ids, timestamps, emails, request fields from Limits
    resources.py   response schemas of every resource and list
    requests.py    request bodies and parameters, with the handlers' rules
    responses.py   the error envelope, response headers and per-operation response sets
    paths.py       every operation under /v1
    links.py       which answer feeds which next request (OpenAPI links)
    rules.py       what the server enforces that no schema can say, for the descriptions
    webhooks.py    the signed event deliveries, under `webhooks`
    document.py    assembly: info, servers, security schemes, components
"""

from __future__ import annotations

from mockserver.openapi.document import build_document, document_bytes

__all__ = ["build_document", "document_bytes"]
