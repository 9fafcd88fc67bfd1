"""Fidelity against the real service: record (proxy), import (recording to scenario), conform."""
