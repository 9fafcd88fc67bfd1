"""What only serving the app over a socket needs: uvicorn, TLS and the collector settings.

`server` sets uvicorn up the way `mockserver run` and the test servers of `testing.live` serve
the app: uvicorn's HTTP protocol held to the slow-client limits of `guard`, and HTTPS only when
TLS is on. The real service is HTTPS only (TLS 1.2+) and rejects plain HTTP before it reaches
the application: `certs` makes or loads the certificate and the server's TLS context, and
`https_only` is the connection protocol that tells TLS from plain HTTP on each new connection.
`gc_tuning` sets the collector for a serving process, and `asgi` types the ASGI interface
without importing Starlette. Nothing under `web/`, `engine/` or `domain/` knows about any of it.
"""
