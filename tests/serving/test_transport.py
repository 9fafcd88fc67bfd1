"""HTTPS only: a verifiable test CA, TLS 1.2 at least, plain HTTP refused before the app.

Every socket here has a timeout, and the server-side timeouts are shortened where a test waits
for one, so nothing can hang.
"""

from __future__ import annotations

import logging
import socket
import ssl
import subprocess
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trustme
import uvicorn
from starlette.applications import Starlette

from mockserver.serving.certs import CERT_NAMES, make_test_certs
from mockserver.serving.https_only import REFUSAL, HttpsOnlyProtocol
from mockserver.serving.server import protocol_options
from mockserver.testing.live import LiveServer
from tests.support.api import assert_envelope
from tests.support.cli import MOCKSERVER, free_port
from tests.support.keys import auth

TIMEOUT = 30.0  # seconds to wait for an answer or a close that is due far sooner
# Seconds before a TLS handshake that uvloop lets stall is given up on (a timeout is one of the
# outcomes that test accepts, so this bound cannot fail it).
STALL = 5.0


@pytest.fixture(scope="module")
def tls_server(app: Starlette) -> Iterator[LiveServer]:
    server = LiveServer(app, tls=True).start()
    yield server
    server.stop()


@pytest.fixture
def tls(tls_server: LiveServer, fresh_app: Starlette) -> Iterator[httpx.Client]:
    """An HTTPS client that trusts the server's throwaway CA, as a consumer would configure it."""
    with httpx.Client(
        base_url=tls_server.base_url,
        headers=auth(),
        verify=ssl.create_default_context(cafile=tls_server.ca_bundle),
        timeout=TIMEOUT,
    ) as client:
        yield client


def plain_url(server: LiveServer) -> str:
    return f"http://{server.host}:{server.port}"


def connect(server: LiveServer) -> socket.socket:
    return socket.create_connection((server.host, server.port), timeout=TIMEOUT)


def read_until_closed(sock: socket.socket) -> bytes:
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def test_live_server_exposes_https_and_its_ca_bundle(tls_server: LiveServer) -> None:
    assert tls_server.base_url == f"https://127.0.0.1:{tls_server.port}"
    assert tls_server.ca_bundle is not None
    assert tls_server.ca_bundle.read_text().startswith("-----BEGIN CERTIFICATE-----")


def test_https_verifies_against_the_generated_ca(tls: httpx.Client) -> None:
    response = tls.get("/v1/whoami")
    assert response.status_code == 200
    assert response.json()["account_id"] == "acct_mock_us"
    assert response.http_version == "HTTP/1.1"
    assert tls.get("/eu/v1/vaults/vault_mock_eu").status_code == 200
    assert_envelope(tls.get("/v1/documents/doc_nope"), 404, "not_found")


def test_verification_fails_without_the_ca(tls_server: LiveServer) -> None:
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.get(f"{tls_server.base_url}/v1/whoami", headers=auth(), timeout=TIMEOUT)


@pytest.mark.parametrize("name", [n for n in CERT_NAMES if not n.startswith("*")])
def test_the_certificate_covers_every_local_name(tls_server: LiveServer, name: str) -> None:
    context = ssl.create_default_context(cafile=tls_server.ca_bundle)
    with connect(tls_server) as raw, context.wrap_socket(raw, server_hostname=name) as conn:
        assert conn.version() in ("TLSv1.2", "TLSv1.3")


def test_regional_host_over_tls_with_its_own_sni(tls: httpx.Client) -> None:
    eu = {"Host": "eu.localhost"}
    response = tls.get("/v1/vaults", headers=eu, extensions={"sni_hostname": "eu.localhost"})
    assert response.status_code == 200
    assert {v["region"] for v in response.json()["data"]} == {"eu"}


def test_plain_http_is_refused_and_never_processed(
    tls_server: LiveServer, tls: httpx.Client
) -> None:
    before = tls.get("/v1/documents?limit=100").json()["data"]
    response = httpx.post(
        f"{plain_url(tls_server)}/v1/documents",
        json={"title": "Sent in the clear", "vault_id": "vault_mock_us"},
        headers=auth(),
        timeout=TIMEOUT,
    )
    assert response.status_code == 400
    assert "HTTPS only" in response.text
    assert response.headers["connection"] == "close"
    assert response.headers["content-type"].startswith("text/plain")
    assert "x-request-id" not in response.headers
    assert tls.get("/v1/documents?limit=100").json()["data"] == before


def test_tls_1_2_and_1_3_are_accepted(tls_server: LiveServer) -> None:
    for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
        context = ssl.create_default_context(cafile=tls_server.ca_bundle)
        context.minimum_version = context.maximum_version = version
        with connect(tls_server) as raw, context.wrap_socket(raw, server_hostname="localhost") as c:
            assert c.version() == version.name.replace("v1_", "v1.")


def test_tls_1_1_is_refused_by_the_server(
    tls_server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # TLS 1.1 is deprecated: the point
        context.minimum_version = ssl.TLSVersion.TLSv1
        context.maximum_version = ssl.TLSVersion.TLSv1_1
    context.set_ciphers("DEFAULT@SECLEVEL=0")  # so the client really offers TLS 1.1
    context.load_verify_locations(tls_server.ca_bundle)
    caplog.set_level(logging.DEBUG, logger="mockserver.serving")
    with connect(tls_server) as raw, pytest.raises(ssl.SSLError):
        context.wrap_socket(raw, server_hostname="localhost")
    # The refusal is the server's: it saw the 1.1 hello and declined it (asyncio closes without
    # flushing the alert, so the client only sees the connection end).
    pause = threading.Event()
    for _ in range(100):
        if "UNSUPPORTED_PROTOCOL" in caplog.text:
            break
        pause.wait(0.05)
    assert "UNSUPPORTED_PROTOCOL" in caplog.text


def test_non_http_bytes_get_the_plain_refusal(tls_server: LiveServer) -> None:
    with connect(tls_server) as sock:
        sock.sendall(b"\x00\xff\xfe\x01 not http at all\r\n\r\n")
        assert read_until_closed(sock) == REFUSAL


def test_a_broken_tls_handshake_closes_only_that_connection(
    tls_server: LiveServer, tls: httpx.Client
) -> None:
    with connect(tls_server) as sock:
        sock.sendall(b"\x16\x03\x01\x00\x05hello" + bytes(range(256)))
        assert read_until_closed(sock) == b""
    assert tls.get("/v1/whoami").status_code == 200


def test_a_silent_connection_is_closed_after_the_first_byte_timeout(
    tls_server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(HttpsOnlyProtocol, "first_byte_timeout", 0.2)
    with connect(tls_server) as sock:
        assert read_until_closed(sock) == b""


def test_a_plain_request_head_that_never_ends_is_still_answered(
    tls_server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(HttpsOnlyProtocol, "first_byte_timeout", 0.2)
    with connect(tls_server) as sock:
        sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: localhost\r\n")
        assert read_until_closed(sock) == REFUSAL


def test_stopping_closes_connections_still_being_sniffed(
    app: Starlette, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Far beyond the wait below: a server that waited for the first byte would never stop in it.
    monkeypatch.setattr(HttpsOnlyProtocol, "first_byte_timeout", 10 * TIMEOUT)
    server = LiveServer(app, tls=True).start()
    ca_bundle = server.ca_bundle
    assert ca_bundle is not None
    with connect(server) as sock:
        stopper = threading.Thread(target=server.stop)
        stopper.start()
        stopper.join(timeout=TIMEOUT)
        assert not stopper.is_alive(), "the server waited on a connection that never spoke"
        assert read_until_closed(sock) == b""
    assert not ca_bundle.exists()


def test_on_uvloop_plain_http_is_still_refused_and_tls_fails_loudly(
    app: Starlette, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """uvloop reads before the first byte can be peeked at (see https_only's docstring), which
    is why https_only() picks the asyncio loop; on uvloop nothing hangs or crashes anyway."""
    pytest.importorskip("uvloop")
    files = make_test_certs(tmp_path)
    options = {**protocol_options(files), "loop": "uvloop"}
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="off", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        pause = threading.Event()
        for _ in range(1000):
            if server.started or not thread.is_alive():
                break
            pause.wait(0.01)
        plain = httpx.get(f"http://127.0.0.1:{port}/v1/whoami", timeout=TIMEOUT)
        assert plain.status_code == 400
        # Whether uvloop reads the handshake before the peek (logged, closed) or the peek wins
        # and the handshake stalls (a timeout) is a race; either way TLS never succeeds here.
        with pytest.raises((httpx.ConnectError, httpx.ConnectTimeout, httpx.ReadTimeout)):
            httpx.get(f"https://127.0.0.1:{port}/", verify=files.client_context(), timeout=STALL)
        again = httpx.get(f"http://127.0.0.1:{port}/v1/whoami", timeout=TIMEOUT)
        assert again.status_code == 400  # and the server lives on
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_a_plain_live_server_has_no_ca_bundle(app: Starlette) -> None:
    server = LiveServer(app).start()
    try:
        assert server.ca_bundle is None
        assert server.base_url.startswith("http://")
        with pytest.raises(ValueError, match="TLS"):
            server.client_context()
    finally:
        server.stop()


# The command line: `mockserver run --tls` as a user types it.


class Command:
    """`mockserver run ARGS` on a free port; its stdout lines are collected by a thread, so a
    test can wait for one with a bound. Leaving the block terminates it and closes its pipes."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [*MOCKSERVER, "run", "--port", str(self.port), "--clock", "frozen", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._arrived:
                self.lines.append(line)
                self._arrived.notify_all()

    def line(self, index: int) -> str:
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.lines) > index, timeout=30)
        assert len(self.lines) > index, f"the command printed only {self.lines}"
        return self.lines[index]

    def whoami(self, url: str, verify: ssl.SSLContext) -> int:
        """The status of whoami at `url`, retried until the server is up (bounded)."""
        pause = threading.Event()
        for _ in range(300):
            try:
                return httpx.get(f"{url}/v1/whoami", headers=auth(), verify=verify).status_code
            except httpx.TransportError:
                assert self.process.poll() is None, self.process.stderr
                pause.wait(0.05)
        raise AssertionError("the server did not come up")

    def __enter__(self) -> Command:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self._reader.join(timeout=10)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


def test_cli_tls_writes_the_ca_where_asked_and_serves_https_only(tmp_path: Path) -> None:
    tls_dir = tmp_path / "tls"
    with Command("--tls", "--tls-dir", str(tls_dir)) as command:
        assert str(tls_dir / "ca.pem") in command.line(0)
        assert f"listening on https://127.0.0.1:{command.port} " in command.line(1)
        assert f"https://127.0.0.1:{command.port}/v1" in command.line(2)
        ca = ssl.create_default_context(cafile=tls_dir / "ca.pem")
        assert command.whoami(f"https://localhost:{command.port}", ca) == 200
        plain = f"http://127.0.0.1:{command.port}/v1/whoami"
        assert httpx.get(plain, headers=auth(), timeout=TIMEOUT).status_code == 400
        assert (tls_dir / "server.key").stat().st_mode & 0o777 == 0o600
    assert {p.name for p in tls_dir.iterdir()} == {"ca.pem", "server.pem", "server.key"}


def test_cli_tls_default_folder_is_printed_and_removed_at_exit() -> None:
    with Command("--tls") as command:
        ca_bundle = Path(command.line(0).split("CA bundle: ")[1].split(" ")[0])
        assert ca_bundle.is_file()
        ca = ssl.create_default_context(cafile=ca_bundle)
        assert command.whoami(f"https://127.0.0.1:{command.port}", ca) == 200
    assert not ca_bundle.parent.exists()


def test_cli_serves_the_users_own_certificate(tmp_path: Path) -> None:
    own_ca = trustme.CA()
    leaf = own_ca.issue_cert("localhost")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    leaf.cert_chain_pems[0].write_to_path(cert)
    leaf.private_key_pem.write_to_path(key)
    with Command("--tls-cert", str(cert), "--tls-key", str(key)) as command:
        assert command.line(0).startswith(
            f"mockserver listening on https://127.0.0.1:{command.port} "
        )
        verify = ssl.create_default_context()
        own_ca.configure_trust(verify)
        assert command.whoami(f"https://localhost:{command.port}", verify) == 200


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tls-cert", "missing.pem"], "missing.pem"),
        (["--tls-key", "key.pem"], "--tls-key needs --tls-cert"),
    ],
)
def test_cli_tls_mistakes_exit_2_before_serving(args: list[str], message: str) -> None:
    result = subprocess.run(
        [*MOCKSERVER, "run", "--port", str(free_port()), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert "listening" not in result.stdout


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_live_answer_arrives_whole(live: httpx.Client, method: str) -> None:
    """Over a real socket, as `mockserver run` serves: a raw keep-alive request gets its head
    and body, twice on one connection, and a HEAD (no body at all) gets its head."""
    host, port = live.base_url.host, live.base_url.port
    assert port is not None
    request = (
        f"{method} /v1/whoami HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: {auth()['Authorization']}\r\n\r\n"
    ).encode()
    with socket.create_connection((host, port), timeout=5) as sock:
        for _ in range(2):  # twice on one connection: nothing is left behind
            sock.sendall(request)
            data = b""
            while b"\r\n\r\n" not in data:
                data += sock.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            if method == "GET":
                while len(body) < length:
                    body += sock.recv(65536)
                assert body.startswith(b'{"account_id":')
            assert head.startswith(b"HTTP/1.1 200 OK")


def test_transport_faults_break_a_tls_connection_too(tls: httpx.Client) -> None:
    scenario = (
        "name: tls-faults\nrules:\n  - name: reset\n    match: {path: /v1/whoami}\n"
        "    respond: {fault: reset}\n  - name: cut\n    match: {path: /v1/documents}\n"
        "    respond: {fault: truncate}\n"
    )
    assert tls.post("/_mock/scenarios", json={"yaml": scenario}).status_code == 201
    with pytest.raises(httpx.TransportError):
        tls.get("/v1/whoami")
    with tls.stream("GET", "/v1/documents") as response:
        assert response.status_code == 200
        with pytest.raises(httpx.RemoteProtocolError):
            response.read()
    assert tls.get("/v1/vaults").status_code == 200  # a new connection, answered
