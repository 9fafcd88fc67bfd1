"""A seed or scenario file's text, or the loader's error at the file and line that stops it.

Apart from the YAML modules: reading a file's text and reporting where it cannot be read
need none of YAML's machinery.
"""

from __future__ import annotations

from pathlib import Path

from mockserver.core.errors import LoadError


def read_source(path: Path, error: type[LoadError], kind: str) -> str:
    """A seed or scenario file's text; `error(file, line, message)` when it cannot be read or
    is not UTF-8 (the line of the first bad byte)."""
    source = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(source, 1, f"cannot read {kind} file: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(source, line, "not valid UTF-8") from exc
