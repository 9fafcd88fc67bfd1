"""The build context of the image (`make image`): wheels made on the host for the base's Python.

The image is built with no network, so everything it installs is in the context: the mockserver
wheel and the wheels of its runtime dependencies, downloaded on the host for the base image's
Python version, ABI, machine and C library (asked of the base itself), plus the entry point.
The mockserver wheel is pure Python; some of its dependencies' wheels are not, hence the probe.

    python container/context.py probe --engine podman --base IMAGE --out DIR
        asks the base what it runs and writes it to DIR/base.json; refuses a base without
        CPython 3.11 or later
    python container/context.py fill --out DIR --wheel WHEEL
        puts WHEEL and its dependencies' wheels for that base in DIR/wheels, and the entry point
        in DIR
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# What a Python says about itself: the ABI its dependencies' extension modules need, and its C
# library.
PROBE = """
import json, os, platform, sys, sysconfig
try:
    libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
except (ValueError, OSError):
    libc = ""
name, _, version = libc.partition(" ")
print(json.dumps({
    "implementation": sys.implementation.name,
    "python": "%d.%d" % sys.version_info[:2],
    "soabi": sysconfig.get_config_var("SOABI"),
    "machine": platform.machine(),
    "glibc": version if name == "glibc" else None,
}))
"""

# manylinux tags that name a glibc version by an older alias (PEP 600).
LEGACY_MANYLINUX = {(2, 5): "manylinux1", (2, 12): "manylinux2010", (2, 17): "manylinux2014"}


def probe_base(engine: str, base: str) -> dict[str, Any]:
    """What the base image's python3 runs: asked of a throwaway container with no network."""
    command = [engine, "run", "--rm", "--network", "none", base, "python3", "-c", PROBE]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(
            f"container/context.py: cannot run python3 in the base image {base} with {engine} "
            f"(exit {done.returncode}):\n{done.stderr.strip()}\n"
            "BASE must be a local or pullable image with python3 (3.11 or later), e.g. "
            "docker.io/library/python:3.12-slim"
        )
    target: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return target


def _glibc(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def platforms(base: dict[str, Any]) -> list[str]:
    """The platform tags of wheels that install on the base (glibc only)."""
    machine = base["machine"]
    if base["glibc"] is None:
        sys.exit(
            "container/context.py: the base image's Python has no glibc (musl?); use a "
            "glibc-based base such as docker.io/library/python:3.12-slim"
        )
    major, newest = _glibc(base["glibc"])
    tags = [f"manylinux_{major}_{minor}_{machine}" for minor in range(newest, 4, -1)]
    tags += [
        f"{alias}_{machine}" for (_, minor), alias in LEGACY_MANYLINUX.items() if minor <= newest
    ]
    return [*tags, f"linux_{machine}"]


def probe(args: argparse.Namespace) -> int:
    base = probe_base(args.engine, args.base)
    if base["implementation"] != "cpython" or tuple(map(int, base["python"].split("."))) < (3, 11):
        sys.exit(
            f"container/context.py: the base runs {base['implementation']} {base['python']}: "
            "mockserver needs CPython 3.11 or later"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "base.json").write_text(json.dumps(base, indent=2) + "\n")
    print(f"image: the base runs {base['soabi']} on {base['machine']}", file=sys.stderr)
    return 0


def fill(args: argparse.Namespace) -> int:
    base = json.loads((args.out / "base.json").read_text())
    wheels = args.out / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    wheels.mkdir(parents=True)
    wheel = shutil.copy2(args.wheel, wheels)
    version = base["python"].replace(".", "")
    command = [
        sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(wheels),
        "--only-binary=:all:", "--implementation", "cp", "--python-version", base["python"],
        "--abi", f"cp{version}",
    ]  # fmt: skip
    for tag in platforms(base):
        command += ["--platform", tag]
    subprocess.run([*command, str(wheel)], check=True)
    shutil.copy2(HERE / "entrypoint.sh", args.out / "entrypoint.sh")
    count = len(list(wheels.glob("*.whl")))
    print(f"image: {count} wheels for {base['soabi']} in {wheels}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="container/context.py", description=__doc__)
    steps = parser.add_subparsers(dest="step", required=True)
    probed = steps.add_parser("probe", help="ask the base what it runs")
    probed.add_argument("--engine", required=True)
    probed.add_argument("--base", required=True)
    probed.add_argument("--out", type=Path, required=True)
    filled = steps.add_parser("fill", help="the wheels and the entry point")
    filled.add_argument("--out", type=Path, required=True)
    filled.add_argument("--wheel", type=Path, required=True)
    args = parser.parse_args(argv)
    return probe(args) if args.step == "probe" else fill(args)


if __name__ == "__main__":
    sys.exit(main())
