"""End-to-end tests: the CLI as a subprocess, the pytest plugin under pytester, a real browser,
schemathesis, authlib, the shipped scenario files, benchmarks, packaging, the image's build
context, lazy imports and the golden master."""
