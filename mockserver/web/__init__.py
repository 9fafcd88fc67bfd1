"""The HTTP face of the mock: Starlette routes, the ASGI pipeline and rendering."""
