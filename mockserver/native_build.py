"""Builds the compiled request path of `mockserver.native` (mypyc, then the C compiler).

    python -m mockserver.native_build build    # compile, unless the build is current (make does)
    python -m mockserver.native_build status   # compiled, stale, pure or forced pure
    python -m mockserver.native_build clean    # remove the compiled modules

mypy (which brings mypyc) and setuptools are test dependencies: a plain install never builds.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mockserver.native import GROUP, MANIFEST, MODULES, PACKAGE, built_files, digests, source_of
from mockserver.native import status as native_status


def clean() -> None:
    """Remove the extension modules and the manifest: everything runs as Python again."""
    for path in built_files():
        path.unlink()
    MANIFEST.unlink(missing_ok=True)


def build() -> bool:
    """Compile `MODULES` in place unless the build is current; whether it compiled."""
    if native_status() == "compiled":
        return False
    from mypyc.build import mypycify
    from setuptools import setup

    clean()
    root = PACKAGE.parent
    previous = Path.cwd()
    os.chdir(root)  # mypyc names modules by their paths from here; --inplace writes here
    try:
        extensions = mypycify(
            [str(source_of(m).relative_to(root)) for m in MODULES], group_name=GROUP
        )
        setup(
            name="mockserver-native",
            packages=[],
            py_modules=[],
            ext_modules=extensions,
            script_args=["-q", "build_ext", "--inplace", "--build-temp", "build/native"],
        )
    finally:
        os.chdir(previous)
    MANIFEST.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    return True


def main(argv: list[str] | None = None) -> int:
    command = argv if argv is not None else sys.argv[1:]
    if command == ["build"]:
        print("compiled" if build() else "compiled build is current", file=sys.stderr)
    elif command == ["clean"]:
        clean()
    elif command in ([], ["status"]):
        print(native_status())
    else:
        print("usage: python -m mockserver.native_build build|status|clean", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
