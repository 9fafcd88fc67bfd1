"""The HTTP face of the mock: the ASGI app of a sandbox (`app.py`, `adapter.py`), transport
faults acted out on a connection, and the inspector's pages (Starlette endpoints)."""
