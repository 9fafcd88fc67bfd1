"""The package's version, as pyproject.toml gives it: in a module of its own, so that the code
that reports it (health checks, snapshot files, the OpenAPI document, the command line) needs
nothing of the package's top."""

__version__ = "0.1.0"
