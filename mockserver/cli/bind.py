"""Whether `mockserver run` may open its control plane on the address it is asked to bind.

`/_mock` resets the sandbox, moves its clock, loads scenarios and revokes keys. On a loopback
address only this machine reaches it (and the browser guard, `origin_guard.py`, refuses what
the web pages open in its browser send); on any other (`0.0.0.0`, `::`, a LAN address, a host
name) the network does, so `run` refuses to start there unless the plane is guarded by
`--admin-token` or turned off by `--no-admin`.
"""

from __future__ import annotations

from mockserver.engine.control_plane.origin_guard import is_loopback


def open_control_plane_refusal(host: str, admin: bool, admin_token: str | None) -> str | None:
    """The message that refuses to serve an unguarded control plane on `host`, or None."""
    if not admin or admin_token or is_loopback(host):
        return None
    return (
        f"mockserver: refusing to serve the /_mock control plane without a token on {host}, "
        "which is not a loopback address: anyone who can reach it could reset the sandbox, "
        "move its clock or revoke its keys. Pass --admin-token TOKEN or set "
        "MOCKSERVER_ADMIN_TOKEN (calls then send X-Mock-Admin-Token), or pass --no-admin "
        "(MOCKSERVER_NO_ADMIN=1) to turn the control plane off, or bind 127.0.0.1."
    )
