"""`mockserver trigger`, `listen` and `events resend`: webhook tools against a running mock.

They talk to the server at `--url` (`remote.py`). `trigger` and `events resend` are one
control-plane call each (the recipes run inside the server, `web/triggers.py`); `listen`
registers an endpoint, polls the deliveries journal for its attempts and deletes the endpoint
when it is stopped. Exit status: 0 done, 2 when the mock refused the request (an unknown type,
id or field), 1 when it could not be reached.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from mockserver.cli.remote import Refused, Remote, RemoteError
from mockserver.engine.control_plane.triggers import RECIPES, parse_override

DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_KEY = "sk_test_mock_full"
POLL_INTERVAL = 0.2  # seconds between two looks at the deliveries journal
COMMANDS = ("trigger", "listen", "events")

Command = Callable[..., argparse.ArgumentParser]


def _connection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--url",
        default=DEFAULT_URL,
        metavar="BASE",
        help="root URL of the running mock (default: %(default)s)",
    )
    parser.add_argument(
        "--key",
        default=DEFAULT_KEY,
        help="API key whose account and environment to use (default: %(default)s)",
    )
    parser.add_argument(
        "--admin-token",
        metavar="TOKEN",
        help="the X-Mock-Admin-Token of a mock run with --admin-token (default: none)",
    )


def add_commands(commands: Any, command: Command) -> None:
    """Register `trigger`, `listen` and `events resend` on the main parser."""
    trigger = command(
        "trigger",
        "make a webhook event happen on a running mock",
        details="Creates what the event needs through the API and the control plane, so it "
        "is audited and delivered to every subscribed endpoint, and prints "
        '{"event_type", "event_ids", "objects"} as JSON. Exit status 2 for an unknown type '
        "or a field that cannot be overridden.",
    )
    trigger.add_argument("event_type", metavar="EVENT_TYPE", help=f"one of: {', '.join(RECIPES)}")
    trigger.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="set a field of the event's data (dotted for nested ones, metadata.kind); VALUE "
        "is read as JSON when it parses, else as a string; repeat for more (default: none)",
    )
    _connection(trigger)

    listen = command(
        "listen",
        "forward webhook events to a local URL and print each delivery attempt",
        details="Registers an endpoint for the events pointing at --forward-to, prints its "
        "whsec_ signing secret on the first line, then one line per attempt: "
        "`<mock time> <event type> <evt_id> -> <status or error>`. Ctrl-C (or SIGTERM) deletes "
        "the endpoint and exits 0.",
    )
    listen.add_argument(
        "--forward-to",
        required=True,
        metavar="URL",
        help="where the mock POSTs the events, e.g. http://127.0.0.1:3000/hooks (no default)",
    )
    listen.add_argument(
        "--events",
        default="*",
        metavar="T1,T2",
        help="comma-separated event types to forward (default: %(default)s, every type)",
    )
    _connection(listen)

    events = command("events", "event tools (events resend)")
    event_commands = events.add_subparsers(dest="events_command", required=True, metavar="COMMAND")
    resend = command(
        "resend",
        "deliver an event again, with a fresh signature",
        event_commands,
        details="Same evt_ id and body, to one endpoint or to every endpoint subscribed to its "
        "type; prints the new delivery ids. Exit status 2 for an unknown event or endpoint.",
    )
    resend.add_argument("event_id", metavar="EVT_ID", help="the event's id (evt_...)")
    resend.add_argument(
        "--endpoint",
        metavar="WHK_ID",
        help="only this endpoint (default: every endpoint subscribed to the event's type)",
    )
    _connection(resend)


def run(args: argparse.Namespace) -> int:
    """Run one of the commands; RemoteError becomes its message and exit status. (httpx is
    imported here, by the first command that needs it, not by `mockserver run`.)"""

    try:
        with Remote(args.url, args.key, args.admin_token) as remote:
            if args.command == "trigger":
                return _trigger(remote, args.event_type, args.override)
            if args.command == "listen":
                return _listen(remote, args.forward_to, args.events)
            return _resend(remote, args.event_id, args.endpoint)
    except RemoteError as error:
        print(f"mockserver {args.command}: {error}", file=sys.stderr)
        return error.exit_code


def _trigger(remote: Remote, event_type: str, given: list[str]) -> int:
    if event_type not in RECIPES:
        print(
            f"mockserver trigger: unknown event type '{event_type}'. Known types: "
            f"{', '.join(RECIPES)}",
            file=sys.stderr,
        )
        return 2
    overrides: dict[str, Any] = {}
    for text in given:
        try:
            name, value = parse_override(text)
        except ValueError as error:
            print(f"mockserver trigger: --override {error}", file=sys.stderr)
            return 2
        overrides[name] = value
    made = remote.call(
        "POST",
        "/_mock/events/trigger",
        {"type": event_type, "overrides": overrides, "key": remote.key},
    )
    print(json.dumps(made))
    return 0


def _resend(remote: Remote, event_id: str, endpoint_id: str | None) -> int:
    body = {"endpoint_id": endpoint_id} if endpoint_id is not None else {}
    made = remote.call("POST", f"/_mock/events/{event_id}/resend", body)
    for delivery in made["data"]:
        print(delivery["id"])
    return 0


def _listen(remote: Remote, url: str, events: str) -> int:
    """Register, follow, and delete the endpoint once stopped. The signals are caught before
    the endpoint exists, so a stop that comes early still deletes it."""
    types = [t.strip() for t in events.split(",") if t.strip()] or ["*"]
    stop = threading.Event()
    previous = {
        signum: signal.signal(signum, lambda *_: stop.set())
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        endpoint = remote.call("POST", "/v1/webhook_endpoints", {"url": url, "events": types})
        try:
            print(endpoint["signing_secret"], flush=True)
            print(
                f"Forwarding {', '.join(types)} to {url} through endpoint {endpoint['id']}; "
                "Ctrl-C to stop.",
                file=sys.stderr,
                flush=True,
            )
            watch = Watch(remote, endpoint["id"])
            while not stop.is_set():
                watch.poll()
                stop.wait(POLL_INTERVAL)
            watch.poll()  # attempts that ended meanwhile
        finally:
            remote.call("DELETE", f"/v1/webhook_endpoints/{endpoint['id']}")
            print(f"Deleted endpoint {endpoint['id']}.", file=sys.stderr, flush=True)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


class Watch:
    """The attempts to one endpoint, each printed once. Deliveries to an endpoint finish in
    order, so each look starts `after` the last one known to be finished (and printed): the
    journal answers only the endpoint's queue and what is new."""

    def __init__(self, remote: Remote, endpoint_id: str) -> None:
        self.remote = remote
        self.endpoint_id = endpoint_id
        self.after: str | None = None
        self.printed: dict[str, int] = {}  # delivery id -> attempts printed

    def poll(self) -> None:

        params = {"endpoint_id": self.endpoint_id}
        if self.after is not None:
            params["after"] = self.after
        try:
            listing = self.remote.call("GET", "/_mock/webhooks/deliveries", params=params)
        except Refused:  # `after` left the journal (it keeps the latest ones): look at all
            self.after = None
            return
        finished = True
        for delivery in listing["data"]:
            attempts = delivery["attempts"]
            for attempt in attempts[self.printed.get(delivery["id"], 0) :]:
                outcome = attempt["status_code"] if attempt["error"] is None else attempt["error"]
                print(
                    f"{attempt['at']} {delivery['event_type']} {delivery['event_id']} -> {outcome}",
                    flush=True,
                )
            self.printed[delivery["id"]] = len(attempts)
            if finished and delivery["status"] != "pending" and not delivery["in_flight"]:
                self.after = delivery["id"]
                self.printed.pop(delivery["id"], None)
            else:
                finished = False
