"""Serving tests: real sockets and what only `mockserver run` needs (uvicorn options, TLS, GC
pacing, the lifespan ticker), and concurrency over sockets."""
