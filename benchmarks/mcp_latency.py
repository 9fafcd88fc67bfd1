"""What an MCP tool call costs over a direct request: `api_request GET /v1/whoami` through
`/_mock/mcp` (streamable HTTP, each MCP request served on its own) against the same request
sent straight to the server, both over a real socket to one server on 127.0.0.1, N of each
after one warm-up (the sandbox reset between, so neither meets the rate limit); and the import
of the MCP SDK, in a fresh process, after the app's own. A benchmark, not a test: nothing
asserts a time.

    python benchmarks/mcp_latency.py [--calls 100]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time

import httpx
from mcp import Client

from mockserver.core.config import Settings
from mockserver.testing.live import LiveServer
from mockserver.web.app import create_app

IMPORT = (
    "import time, mockserver.web.app; t = time.perf_counter(); "
    "import mockserver.agents.server; print(time.perf_counter() - t)"
)


def _ms(times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[int(len(ordered) * 0.9)]
    return f"median {statistics.median(times) * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms"


async def _measure(base_url: str, calls: int) -> tuple[list[float], list[float]]:
    whoami = {"method": "GET", "path": "/v1/whoami"}
    through_mcp: list[float] = []
    async with Client(f"{base_url}/_mock/mcp") as client:
        await client.call_tool("api_request", whoami)
        for _ in range(calls):
            started = time.perf_counter()
            result = await client.call_tool("api_request", whoami)
            through_mcp.append(time.perf_counter() - started)
            assert not result.is_error
    direct: list[float] = []
    headers = {"authorization": "Bearer sk_test_mock_full"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers) as http:
        await http.post("/_mock/reset")  # an empty rate window for this half too
        await http.get("/v1/whoami")
        for _ in range(calls):
            started = time.perf_counter()
            (await http.get("/v1/whoami")).raise_for_status()
            direct.append(time.perf_counter() - started)
    return through_mcp, direct


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # At most 190: the key's burst of 200 in the frozen clock's one rate window.
    parser.add_argument("--calls", type=int, default=100)
    args = parser.parse_args()
    server = LiveServer(create_app(Settings(clock_mode="frozen"))).start()
    try:
        through_mcp, direct = asyncio.run(_measure(server.base_url, args.calls))
    finally:
        server.stop()
    imported = subprocess.run(
        [sys.executable, "-c", IMPORT], capture_output=True, text=True, check=True
    )
    print(f"MCP api_request GET /v1/whoami: {_ms(through_mcp)}")
    print(f"direct GET /v1/whoami:          {_ms(direct)}")
    print(f"MCP SDK import (after the app's): {float(imported.stdout) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
