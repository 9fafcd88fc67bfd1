"""How bytes reach the app: HTTPS with test certificates, and plain HTTP refused at the door.

The real service is HTTPS only (TLS 1.2+) and rejects plain HTTP before it reaches the
application. `certs` makes or loads the certificate and the server's TLS context; `https_only`
is the uvicorn connection protocol that tells TLS from plain HTTP on each new connection. The CLI
and `testing.live` use both; nothing under `http/` or `domain/` knows about them.
"""
