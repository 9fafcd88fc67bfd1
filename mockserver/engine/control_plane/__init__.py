"""The `/_mock` control plane: reset, the clock, legal holds, scenarios, the journal and
verification, accounts, webhooks and events, snapshots, the data as a seed
(docs/reference/control-plane.md).

Not part of the v1 contract. Every endpoint parses its input and calls the control facade
(`engine/control.py`), where the rules live; `routes.py` lists them. Off with `--no-admin`
(no route at all) and, with `--admin-token`, every call must carry `X-Mock-Admin-Token`;
without one, the control guard middleware refuses what a web page could send (`origin_guard.py`).
"""
