"""mockserver: a stateful, deterministic sandbox of the Document, Vault, Workflow and Audit API."""

from mockserver import native

__version__ = "0.1.0"

# Before any compiled module is imported: a stale or disabled build loads from the sources.
native.activate()
