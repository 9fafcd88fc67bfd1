"""Serving tests: real sockets and what only `mockserver run` needs (uvicorn options, TLS, the
one-write transport, GC pacing, the lifespan ticker), and concurrency over sockets."""
