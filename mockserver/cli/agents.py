"""`mockserver mcp`: the MCP server over stdio, for a coding agent (`mockserver.agents`).

With `--url` its tools drive the mock running there; without, a sandbox of the command's own
(the default seed, a frozen clock), run in-process for as long as the agent keeps stdin open.
The MCP SDK (the `mcp` extra) is imported only here, once the command runs; without it the
command exits with status 2 naming the extra.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

import anyio

from mockserver.agents.client import Broken, MockClient, Refused
from mockserver.core.config import Settings
from mockserver.core.errors import MissingExtra
from mockserver.web.app import create_app, running

NEEDS_MCP = "mockserver mcp needs the MCP SDK: pip install 'mockserver[mcp]'"

Command = Callable[..., argparse.ArgumentParser]


def add_command(commands: Any, command: Command) -> None:
    """Add `mcp` to the commands."""
    mcp = command(
        "mcp",
        "serve the Model Context Protocol over stdio, so a coding agent can drive the mock; "
        "needs the mcp extra (pip install 'mockserver[mcp]')",
        commands,
        details="Its tools reset the sandbox, move its clock, load scenarios, make API calls, "
        "explain refused requests, verify, snapshot and restore. It exits with status 0 when the "
        "agent closes its input, 2 for a usage error, a missing extra, or an --account the mock "
        "does not have. A --url server that does not answer is reported by each tool call.",
    )
    mcp.add_argument(
        "--url",
        metavar="BASE",
        help="root URL of a running mock to drive, e.g. http://127.0.0.1:8080 (default: a "
        "sandbox of its own: the default seed, a frozen clock)",
    )
    mcp.add_argument(
        "--admin-token",
        metavar="TOKEN",
        help="the running mock's admin token, sent as X-Mock-Admin-Token (default: none)",
    )
    mcp.add_argument(
        "--account",
        metavar="ID",
        help="act in this account's sandbox only (one made with POST /_mock/accounts): the "
        "tools that act on the server or on other accounts are not offered (default: the "
        "whole server)",
    )


def run(args: argparse.Namespace) -> int:
    """Serve MCP on stdio until stdin closes; 2 for a missing extra or a bad --account."""
    if find_spec("mcp") is None:
        raise MissingExtra(NEEDS_MCP)
    from mockserver.agents.stdio import serve_stdio  # the MCP SDK: imported on first use

    async def serve() -> int:
        if args.url:
            client = MockClient.remote(args.url, args.admin_token, args.account)
            return await _served(client, serve_stdio)
        app = create_app(Settings(clock_mode="frozen", admin_token=args.admin_token))
        async with running(app):
            client = MockClient.in_process(app, args.admin_token, args.account)
            return await _served(client, serve_stdio)

    return anyio.run(serve)


async def _served(client: MockClient, serve_stdio: Callable[[MockClient], Any]) -> int:
    """Check the scope's account can be reached, then serve; 2 when it cannot."""
    try:
        if client.account is not None:
            await client.control("GET", client.scoped(""))
        await serve_stdio(client)
    except (Refused, Broken) as error:
        detail = error.body if isinstance(error, Refused) else str(error)
        print(f"mockserver mcp: no account {client.account} to act in: {detail}", file=sys.stderr)
        return 2
    finally:
        await client.aclose()
    return 0
