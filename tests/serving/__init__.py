"""Serving tests: real sockets and what only `mockserver run` needs (uvicorn options, TLS, the
collector settings and their memory soak, the lifespan ticker), and concurrency over sockets."""
