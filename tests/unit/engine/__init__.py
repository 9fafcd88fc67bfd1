"""Unit tests of the engine: the sandbox and its control facade, without HTTP."""
