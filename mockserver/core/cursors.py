"""Signed `cur_` cursors: the position of the last item a page returned, signed with the
store's secret so a cursor the mock did not issue is refused (422 `param: cursor`)."""

from __future__ import annotations

import base64
import hashlib
import hmac

from mockserver.core.errors import ValidationError

_PREFIX = "cur_"
_ENCODED_KEPT = 4096  # cursors kept by seq (a cursor depends only on the seq and the secret)


class CursorCodec:
    """Signs and checks `cur_` cursors; a cursor it did not issue is unknown (422)."""

    __slots__ = ("_decoded", "_encoded", "_secret")

    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        self._encoded: dict[int, str] = {}  # seq -> cursor: a page walked again signs nothing
        self._decoded: dict[str, int] = {}  # and back: a kept cursor is checked by lookup

    def _mac(self, payload: bytes) -> bytes:
        return hmac.digest(self._secret, payload, hashlib.sha256)[:10]  # one-shot, in C

    def encode(self, seq: int) -> str:
        cursor = self._encoded.get(seq)
        if cursor is None:
            payload = seq.to_bytes(8, "big")
            token = base64.urlsafe_b64encode(payload + self._mac(payload)).rstrip(b"=")
            cursor = _PREFIX + token.decode()
            if len(self._encoded) >= _ENCODED_KEPT:
                self._encoded.clear()
                self._decoded.clear()
            self._encoded[seq] = cursor
            self._decoded[cursor] = seq
        return cursor

    def decode(self, cursor: str) -> int:
        """The position a cursor names, or 422 `param: cursor`."""
        seq = self._decoded.get(cursor)
        if seq is not None:  # signed here: decoding it gives its seq back
            return seq
        if cursor.startswith(_PREFIX) and len(cursor) == len(_PREFIX) + 24:
            try:
                raw = base64.urlsafe_b64decode(cursor[len(_PREFIX) :] + "==")
            except ValueError:
                raw = b""
            payload, mac = raw[:8], raw[8:]
            if len(raw) == 18 and hmac.compare_digest(mac, self._mac(payload)):
                return int.from_bytes(payload, "big")
        raise ValidationError(f"Unknown cursor: '{cursor[:80]}'.", param="cursor")
