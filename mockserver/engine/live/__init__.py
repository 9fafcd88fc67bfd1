"""Live editing (`run --watch`): the seed and scenario files a server was started from are
followed as they are saved. `files.py` applies one saved file; `watch.py` waits for saves."""
