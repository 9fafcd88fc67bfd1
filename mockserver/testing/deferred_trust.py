"""httpx's default TLS verification, with the CA certificates read at the first TLS handshake.

httpx reads its CA bundle when a client is made, whether or not the client ever makes a TLS
connection: about 45 ms on a slow machine, which a session's first `mock_server` test paid
for a client of a plain-HTTP server. This context verifies as httpx's default does (the
certificate required, the host name checked, the CAs of `SSL_CERT_FILE`, else `SSL_CERT_DIR`,
else certifi's bundle) and reads them when a connection first needs them.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading
from typing import Any


class DeferredTrust(ssl.SSLContext):
    """An `ssl.SSLContext` set as `httpx.create_ssl_context()` makes one, which loads its CA
    certificates when it first wraps a socket or a BIO. Build it with `DeferredTrust.make()`."""

    _lock: threading.Lock
    _trusted: bool

    @classmethod
    def make(cls) -> DeferredTrust:
        """A client context with the settings of `ssl.create_default_context()`, no CA read."""
        context = cls(ssl.PROTOCOL_TLS_CLIENT)
        context.verify_mode = ssl.CERT_REQUIRED
        context.check_hostname = True
        if sys.version_info >= (3, 13):  # what create_default_context sets there
            context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
        keylog = os.environ.get("SSLKEYLOGFILE")
        if keylog and not sys.flags.ignore_environment:
            context.keylog_filename = keylog
        context._lock = threading.Lock()
        context._trusted = False
        return context

    def trust(self) -> None:
        """Load the CA certificates httpx would, once."""
        with self._lock:
            if self._trusted:
                return
            if os.environ.get("SSL_CERT_FILE"):
                self.load_verify_locations(cafile=os.environ["SSL_CERT_FILE"])
            elif os.environ.get("SSL_CERT_DIR"):
                self.load_verify_locations(capath=os.environ["SSL_CERT_DIR"])
            else:
                import certifi

                self.load_verify_locations(cafile=certifi.where())
            self._trusted = True

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.trust()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.trust()
        return super().wrap_bio(*args, **kwargs)
