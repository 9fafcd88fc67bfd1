"""schemathesis hooks of the fuzz runs (tests/e2e/test_conformance.py, `make fuzz`), loaded by
path through `SCHEMATHESIS_HOOKS`; a run by hand without them still works, it reaches less.

Two things a real client does that generated requests do not:
- Time passes between requests. After every call the mock clock (frozen, so the run replays)
  moves `FUZZ_SECONDS_PER_CALL` seconds through the control plane at `FUZZ_ADMIN_URL`: audit
  exports complete (two seconds), download URLs and OAuth codes expire, retention runs.
- A client uses a new `Idempotency-Key` for a new request. In the stateful phase each valid key
  gets a per-run counter appended, so a chain of creates is not cut short by a replay or a 409
  of an earlier case's key (the other phases keep the generated keys: replays and conflicts
  are still sent there). Invalid keys are left as generated, to be refused.
"""

from __future__ import annotations

import itertools
import os
import re
import urllib.request
from typing import Any

import schemathesis

IDEMPOTENCY_KEY = "Idempotency-Key"
VALID_KEY = re.compile(r"[!-~]([ -~]*[!-~])?")
KEY_MAX = 255
_calls = itertools.count(1)


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    if case.meta is None or case.meta.phase.name.value != "stateful" or not case.headers:
        return
    key = case.headers.get(IDEMPOTENCY_KEY)
    if isinstance(key, str) and len(key) <= KEY_MAX and VALID_KEY.fullmatch(key):
        suffix = f".{next(_calls)}"
        case.headers[IDEMPOTENCY_KEY] = key[: KEY_MAX - len(suffix)] + suffix


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    admin = os.environ.get("FUZZ_ADMIN_URL")
    if not admin:
        return
    seconds = float(os.environ.get("FUZZ_SECONDS_PER_CALL", "2"))
    request = urllib.request.Request(
        f"{admin}/_mock/clock/advance",
        data=f'{{"seconds": {seconds}}}'.encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        answer.read()
