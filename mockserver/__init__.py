"""mockserver: a stateful, deterministic sandbox of the Document, Vault, Workflow and Audit API."""

__version__ = "0.1.0"
