"""TLS material: a throwaway CA and server certificate, or the user's own, and the server context.

`trustme` builds a real CA and a leaf certificate in memory (no openssl command line needed); it
is imported only when test certificates are made, so a plain-HTTP server never loads it. The leaf
covers every name a local client uses for the mock, including the regional hosts.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

# `*.localhost` is there for clients that accept a wildcard under a single-label parent; OpenSSL
# does not, which is why the two regional hosts are also listed by name.
CERT_NAMES = ("localhost", "us.localhost", "eu.localhost", "*.localhost", "127.0.0.1", "::1")
CA_FILE = "ca.pem"
CERT_FILE = "server.pem"
KEY_FILE = "server.key"


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """Where the server's certificate chain and key are, and the CA bundle clients should trust.

    `ca_bundle` is None for a user's own certificate: its CA is theirs, not ours.
    """

    cert: Path
    key: Path | None
    ca_bundle: Path | None

    def server_context(self) -> ssl.SSLContext:
        """The server side: this certificate, TLS 1.2 at least, HTTP/1.1 offered by ALPN.

        Raises ValueError, naming the files, if they are missing, unreadable or do not match.
        """
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.load_cert_chain(self.cert, self.key)
        except OSError as error:  # ssl.SSLError included
            key = self.key or "in the same file"
            raise ValueError(f"cannot load certificate {self.cert} (key {key}): {error}") from error
        # Clients that prefer HTTP/2 (httpx with http2=True, curl) settle on HTTP/1.1 at once.
        context.set_alpn_protocols(["http/1.1"])
        return context

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts the CA bundle (and only it), as a consumer would build."""
        if self.ca_bundle is None:
            raise ValueError("no CA bundle: the certificate was supplied by the user")
        return ssl.create_default_context(cafile=self.ca_bundle)


def make_test_certs(directory: Path) -> TlsFiles:
    """Make a new throwaway CA and a server certificate signed by it, written into `directory`.

    Writes `ca.pem` (the CA bundle to trust), `server.pem` (leaf and chain) and `server.key`
    (readable by the owner only), replacing any earlier files of the same names.
    """
    import trustme

    directory.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA(organization_name="mockserver", organization_unit_name="mockserver test CA")
    leaf = ca.issue_cert(*CERT_NAMES, organization_name="mockserver")
    ca_bundle, cert, key = directory / CA_FILE, directory / CERT_FILE, directory / KEY_FILE
    ca.cert_pem.write_to_path(ca_bundle)
    key.touch(mode=0o600)
    key.chmod(0o600)  # touch() leaves the mode of an existing file alone
    leaf.private_key_pem.write_to_path(key)
    cert.write_bytes(b"".join(blob.bytes() for blob in leaf.cert_chain_pems))
    return TlsFiles(cert, key, ca_bundle)


def user_certs(cert: Path, key: Path | None) -> TlsFiles:
    """The user's own certificate chain (and key, unless it is in the same PEM file)."""
    return TlsFiles(cert, key, None)
