"""The request path compiled to C with mypyc, for `make run`, `make test` and `make bench`.

Every request runs through the same few dozen small functions, and as Python the calls
between them cost more than their work, so compiling them cuts the CPU of every request
(docs/performance). The modules of `MODULES`
are built beside their sources (`*.so`, and one shared library `_native__mypyc`);
`_native.json` records the SHA-256 of each source they were built from. A plain `pip install`
builds nothing and runs the same modules as Python, and so does any process with
`MOCKSERVER_PURE=1`.

A source edited since the build (without `make`) must not be shadowed by its old compiled
code: then every compiled module loads from its source, all together, since compiled modules
call each other directly and a mix would still run the old code of the others.

`mockserver.native_build` makes the build (`python -m mockserver.native_build`).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGE = Path(__file__).resolve().parent
MANIFEST = PACKAGE / "_native.json"
GROUP = "mockserver._native"  # the shared library: mockserver/_native__mypyc*.so
PURE_ENV = "MOCKSERVER_PURE"

# What every API request runs: the pipeline, the dispatcher, the journal, rate limits,
# idempotency, the document and audit domain, and the helpers they call on each request.
MODULES = (
    "mockserver.core.clock",
    "mockserver.serving.gc_tuning",
    "mockserver.core.ids",
    "mockserver.engine.journal",
    "mockserver.domain.kept_bytes",
    "mockserver.core.scheduler",
    "mockserver.core.sharded",
    "mockserver.domain.store",
    "mockserver.audit.chain",
    "mockserver.audit.event",
    "mockserver.audit.log",
    "mockserver.domain.documents",
    "mockserver.domain.idempotency",
    "mockserver.domain.pagination",
    "mockserver.domain.ratelimit",
    "mockserver.domain.validation",
    "mockserver.domain.vaults",
    "mockserver.domain.views",
    "mockserver.web.app",
    "mockserver.web.body",
    "mockserver.web.compression",
    "mockserver.web.context",
    "mockserver.web.core_api",
    "mockserver.web.dispatch",
    "mockserver.web.exchange",
    "mockserver.serving.head_writer",
    "mockserver.web.headers",
    "mockserver.web.hosts",
    "mockserver.web.journal_layer",
    "mockserver.web.limits",
    "mockserver.web.pipeline",
    "mockserver.web.query",
    "mockserver.web.render",
    "mockserver.web.routes",
    "mockserver.web.traffic",
)


def source_of(module: str) -> Path:
    return PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")


def digests() -> dict[str, str]:
    """The SHA-256 of each compiled module's source, as it is now."""
    return {m: hashlib.sha256(source_of(m).read_bytes()).hexdigest() for m in MODULES}


def built_files() -> list[Path]:
    """The extension modules of a build, wherever they are."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(p for p in PACKAGE.rglob("*.so") if p.name.endswith(suffixes))


def status() -> str:
    """`compiled`, `stale` (a source changed since the build), `pure` (nothing built) or
    `forced pure` (MOCKSERVER_PURE=1)."""
    if not built_files():
        return "pure"
    if os.environ.get(PURE_ENV) == "1":
        return "forced pure"
    try:
        recorded = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return "stale"
    return "compiled" if recorded == digests() else "stale"


class _FromSource:
    """Finds the compiled modules' sources before the extension modules beside them."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


_acted_on: str | None = None  # what `activate` found, for the life of the process


def running() -> str:
    """The status this process acted on when the package was imported: what it runs, even if
    a build has changed the files since."""
    return _acted_on if _acted_on is not None else status()


def activate() -> str:
    """Load every compiled module from its source unless the build is current (called once,
    when the package is imported, before any of them is); the status it acted on."""
    global _acted_on
    state = _acted_on = status()
    if state in ("stale", "forced pure") and not any(
        isinstance(f, _FromSource) for f in sys.meta_path
    ):
        sys.meta_path.insert(0, _FromSource())
    return state
