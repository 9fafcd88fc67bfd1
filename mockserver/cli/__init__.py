"""The command line: `mockserver run`, `validate`, `replay` and the rest."""

from mockserver.cli.main import main

__all__ = ["main"]
