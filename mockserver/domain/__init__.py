"""The domain: resources, their rules and state machines. Pure Python: no HTTP, no YAML."""
