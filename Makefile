# What a contributor types. Every target creates .venv and installs on first use, so a clean
# clone needs nothing but `make run` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8080
SOURCES := mockserver tests $(wildcard benchmarks)
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: run test lint fmt native bench bench-soak wrk clean browser screenshots

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The libraries the pytest fixtures are benchmarked against (the `bench` extra).
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $(BENCH_STAMP)

# The request path compiled with mypyc (mockserver/native.py): about 40 s when a compiled
# module's source changed, nothing otherwise. `MOCKSERVER_PURE=1` runs it all as Python.
native: $(STAMP)
	$(BIN)/python -m mockserver.native_build build

run: native
	$(BIN)/mockserver run --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint browser native
	$(BIN)/pytest -q

# Debian's chromium for the inspector's browser tests (Playwright drives it; it never downloads
# a browser of its own). Without root or a registry the tests skip and say why.
browser:
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium) \
		|| echo "chromium could not be installed: the inspector's browser tests will skip"

fmt: $(STAMP)
	$(BIN)/ruff format $(SOURCES)
	$(BIN)/ruff check --fix $(SOURCES)

# Benchmarks: our server side by side with a bare Starlette app, wrk as the load generator
# (installed from Debian's package when missing). `bench` takes about 10 minutes;
# `bench-soak` is the 5-minute POST soak alone, on each server (about 11 minutes).
bench: native wrk $(BENCH_STAMP)
	$(BIN)/python -m benchmarks

bench-soak: native wrk
	$(BIN)/python -m benchmarks --only soak --soak 300 --out benchmarks/soak.json

wrk:
	@command -v wrk >/dev/null || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update && $$SUDO apt-get install -y wrk; }

# The README's inspector screenshots, taken by the browser tests at 1280x800.
screenshots: $(STAMP) browser
	INSPECTOR_SCREENSHOTS=docs/screenshots $(BIN)/pytest -q tests/e2e/test_inspector_browser.py

clean:
	-$(BIN)/python -m mockserver.native_build clean
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
