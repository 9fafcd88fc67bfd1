"""Unit tests: the core, domain, audit, seeds, scenarios, webhooks and web modules called directly,
one directory per package (a few files add one in-process request that shows the same over HTTP)."""
