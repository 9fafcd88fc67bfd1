"""Account sandboxes: an account created through the control plane is a sandbox of its own.

Its data, keys, clock (its own, or the server's followed), timers, request ids, rate windows,
idempotency records, webhooks, scenarios and journal entries live in a `SandboxState` built for it
alone (`build.py`), so a reset, a snapshot or a scenario of one account touches no other, and a
named account's answers depend only on the server's random seed, its creation body and its own
requests (`spec.py`). The server routes each API request to the sandbox that owns its
credential (`sandboxes.py`).
"""
