"""API tests: HTTP through the app in-process (`api`, `inprocess_client`, raw ASGI), with
`both` also over the plugin's real-socket server thread."""
