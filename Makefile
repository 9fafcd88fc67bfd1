# What a contributor types. Every target creates its venv and installs on first use, so a clean
# clone needs nothing but `make run` or `make test`. `make run` serves the sources at once.
# While editing, `make check` is the fast tier (under two minutes on two cores); `make test`
# runs everything before a merge.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8080
SOURCES := mockserver tests $(wildcard benchmarks) $(wildcard docs/*.py) container

# .venv holds the sources, installed editable: with their runtime dependencies only for `run`
# (quick to install), with the test and docs extras for lint, test and fmt, and the bench extra
# for the benchmarks.
VPY   := $(VENV)/bin/python
TOOLS := $(VENV)/.tools
DEV   := $(VENV)/.dev
SERVE := $(VENV)/.serve-sources
BENCH := $(VENV)/.bench
# What the package is made of: a change to any of these installs it again where it is
# installed as a user installs it (the one-test loop's venv, below).
PACKAGE := pyproject.toml README.md \
	$(shell find mockserver seeds scenarios -type f ! -path '*/__pycache__/*')

.PHONY: run check test lint fmt lock upgrade bench bench-soak bench-idempotency bench-memory \
	wrk valgrind peers baseline clean browser screenshots docs docs-serve fuzz image image-test

$(VPY):
	$(PYTHON) -m venv $(VENV)

$(TOOLS): | $(VPY)
	$(BIN)/python -m pip install --quiet --upgrade pip build
	touch $@

# The test, docs and container extras at the versions of the lock (requirements/dev.txt, with
# hashes), so that a new release of any of them cannot break `make test`; then the sources,
# editable, with nothing more. `make lock` writes the lock again after pyproject.toml changed
# (keeping the pinned versions that still fit); `make upgrade` moves every pin to the newest
# release that fits pyproject.toml's ranges.
LOCK := requirements/dev.txt
LOCKED_EXTRAS := --extra test --extra docs --extra container
UV := $(VENV)/.uv

$(DEV): pyproject.toml $(LOCK) | $(TOOLS)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(UV): | $(VPY)
	$(BIN)/python -m pip install --quiet 'uv>=0.9'
	touch $@

lock: $(UV)
	$(BIN)/uv pip compile --quiet pyproject.toml $(LOCKED_EXTRAS) --python-version 3.11 \
		--generate-hashes --custom-compile-command "make lock" -o $(LOCK)

upgrade: $(UV)
	$(BIN)/uv pip compile --quiet --upgrade pyproject.toml $(LOCKED_EXTRAS) --python-version 3.11 \
		--generate-hashes --custom-compile-command "make lock" -o $(LOCK)

# `run`'s install: the sources, editable (an edit is served at the next start), with the
# runtime dependencies only: a fresh clone answers within seconds of them being installed.
$(SERVE): pyproject.toml | $(VPY)
	$(BIN)/python -m pip install --quiet -e .
	touch $@

run: $(SERVE)
	$(BIN)/mockserver run --watch --host $(HOST) --port $(PORT)

# The container image (Containerfile; docs/guides/container.md): mockserver:VERSION, built with
# podman or docker, whichever answers here, on the Python image BASE. The build needs no
# network: container/context.py first puts in build/image/ the mockserver wheel and its
# dependencies' wheels for the base's Python (asked of the base), downloaded on the host. The
# mockserver wheel is pure Python, so the one wheel fits every base. `make image-test` builds
# it and runs tests/image against it (the engine must run containers; testcontainers needs its
# API: DOCKER_HOST, as .ci/container-host sets up for podman). Neither is part of `test`.
BASE ?= docker.io/library/python:3.12-slim
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
IMAGE ?= mockserver:$(VERSION)
IMAGE_CONTEXT := build/image
# The first of podman and docker that answers, asked once and only by a target that uses it.
ENGINE ?= $(eval ENGINE := $(shell for engine in podman docker; do \
	$$engine info >/dev/null 2>&1 && { echo $$engine; break; }; done))$(ENGINE)

image: | $(TOOLS)
	@test -n "$(ENGINE)" || { echo "make image: neither podman nor docker runs here"; exit 1; }
	rm -rf $(IMAGE_CONTEXT)
	$(BIN)/python container/context.py probe --engine $(ENGINE) --base $(BASE) \
		--out $(IMAGE_CONTEXT)
	$(BIN)/python -m build --wheel --outdir $(IMAGE_CONTEXT)/dist . >/dev/null
	$(BIN)/python container/context.py fill --out $(IMAGE_CONTEXT) \
		--wheel "$$(ls $(IMAGE_CONTEXT)/dist/mockserver-*.whl)"
	$(ENGINE) build $(if $(filter podman,$(notdir $(ENGINE))),--format docker) --network none \
		--build-arg BASE=$(BASE) --tag $(IMAGE) --file Containerfile $(IMAGE_CONTEXT)

image-test: image $(DEV)
	MOCKSERVER_TEST_IMAGE=$(IMAGE) CONTAINER_ENGINE=$(ENGINE) $(BIN)/pytest -q -p no:cacheprovider \
		tests/image

lint: $(DEV)
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/lint-imports

# The fast tier: ruff (lint and format check) and the tests that run in one process, the unit
# tier (tests/unit) and the API tier (tests/api: through httpx's ASGI transport, and the same
# tests over a socket to a server thread), less the tests marked `slow` (long randomized
# searches: the fuzzer, property tests with large example budgets). Left to `test`: those,
# mypy and import-linter, the serving tier (tests/serving: uvicorn, TLS, slow clients), the
# end-to-end tier (tests/e2e: the CLI as a subprocess, the plugin, the browser, the docs, the
# golden stream) and the documentation build.
check: $(DEV)
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/pytest -q -n 2 -m "not slow" tests/unit tests/api

# Lint, then the whole suite once on the sources (editable), then the documentation build.
test: lint browser
	$(BIN)/pytest -q -n 2
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The long fuzz run (docs/development/fuzzing.md), not part of `test`: schemathesis for
# FUZZ_MINUTES against a fresh mock, every check but the documented exclusions, seeded by
# FUZZ_SEED; its report goes to build/fuzz/ (report.json, summary.md). Then the property tests
# with their larger example budget.
FUZZ_MINUTES ?= 20
FUZZ_SEED ?= 20261122
fuzz: $(DEV)
	$(BIN)/python -m tests.e2e.fuzz --minutes $(FUZZ_MINUTES) --seed $(FUZZ_SEED) --out build/fuzz
	FUZZ_PROFILE=long $(BIN)/pytest -q -p no:cacheprovider tests/api/test_properties.py

# The documentation site (MkDocs, Material theme): built offline into site/, or served with live
# reload while editing. `python -m docs.gen` rewrites its generated pages (CLI, scenario fields,
# benchmark table); the suite fails while they are stale.
docs: $(DEV)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(DEV)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

# Debian's chromium for the inspector's browser tests (Playwright drives it; it never downloads
# a browser of its own). Without root or a registry the tests skip and say why.
browser:
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium) \
		|| echo "chromium could not be installed: the inspector's browser tests will skip"

fmt: $(DEV)
	$(BIN)/ruff format $(SOURCES)
	$(BIN)/ruff check --fix $(SOURCES)

# Benchmarks: our server side by side with a bare Starlette app, wrk as the load generator
# (installed from Debian's package when missing), on the sources in .venv. `bench` takes about
# 20 minutes; `bench-soak` is the 5-minute POST soak alone, on each server (about 11 minutes);
# `bench-idempotency` is the idempotency soak alone (200,000 kept 409s with new keys, twice:
# about 2 minutes); `bench-memory` the memory soak (30 minutes).
# The libraries the pytest fixtures are measured against (the `bench` extra), beside the rest.
$(BENCH): pyproject.toml | $(DEV)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	touch $@

# The one-test loop's venv (benchmarks/test_loop.py): the package installed from the sources as
# `pip install .` gives it to a user (not editable), and pytest, and nothing else (another
# pytest plugin would import httpx or anyio in the run with no fixture).
# Made once; the package is installed again when the sources change.
LVENV  := .venv-loop
LSTAMP := $(LVENV)/.installed

$(LSTAMP): $(PACKAGE)
	test -x $(LVENV)/bin/python || $(PYTHON) -m venv $(LVENV)
	$(LVENV)/bin/python -m pip install --quiet . 'pytest>=8.0'
	$(LVENV)/bin/python -m pip install --quiet --no-deps --force-reinstall .
	touch $@

# `make bench BASELINE=REV` also measures commit REV (installed from $(BASE_DIR), a git
# worktree, into a venv of its own) in the same load rounds and under callgrind: the
# `baseline.*` rows, read against ours on this machine in this run ("no worse than REV").
BASELINE ?=
BASE_DIR := build/baseline
BASE_VENV := $(BASE_DIR)/$(VENV)

bench: $(BENCH) $(LSTAMP) wrk valgrind peers $(if $(BASELINE),baseline)
	$(BIN)/python -m benchmarks --out benchmarks/latest.json \
		--loop-python $(CURDIR)/$(LVENV)/bin/python --peers $(CURDIR)/$(PEERS) \
		$(if $(BASELINE),--baseline-python $(CURDIR)/$(BASE_VENV)/bin/python)
	$(BIN)/python -m benchmarks.live_reload --out benchmarks/live_reload.json

# Commit BASELINE in its own worktree, installed (not editable) into its own venv; both are
# kept while REV is the same commit.
baseline:
	@test -n "$(BASELINE)" || { echo "baseline: say which commit, BASELINE=REV"; exit 2; }
	@want=$$(git rev-parse --verify "$(BASELINE)^{commit}") || exit 2; \
	if [ ! -e $(BASE_DIR)/.git ] || [ "$$(git -C $(BASE_DIR) rev-parse HEAD)" != "$$want" ]; then \
		rm -rf $(BASE_DIR) && git worktree prune && \
		git worktree add --detach $(BASE_DIR) $$want || exit 1; \
	fi
	test -e $(BASE_VENV)/.installed || { $(PYTHON) -m venv $(BASE_VENV) && \
		$(BASE_VENV)/bin/python -m pip install --quiet ./$(BASE_DIR) && \
		touch $(BASE_VENV)/.installed; }

bench-soak: $(DEV) wrk
	$(BIN)/python -m benchmarks --only soak --soak 300 --out benchmarks/soak.json

bench-idempotency: $(DEV) wrk
	$(BIN)/python -m benchmarks --only idempotency --out benchmarks/idempotency.json

# The memory soak (benchmarks/memory_soak.py): a server doing the work that leaves cyclic garbage
# (webhooks to failing and slow receivers, TLS, scenarios, snapshots, --state-dir), its RSS after
# every round, for MEMORY_MINUTES, on each collector of MEMORY_COLLECTORS side by side.
MEMORY_MINUTES ?= 30
MEMORY_COLLECTORS ?= shipped,defaults,freeze-survivors
bench-memory: $(DEV)
	$(BIN)/python -m benchmarks.memory_soak --minutes $(MEMORY_MINUTES) \
		--collectors $(MEMORY_COLLECTORS) --out benchmarks/memory_soak.json

wrk:
	@command -v wrk >/dev/null || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update && $$SUDO apt-get install -y wrk; }

# The mock's peers for the `peers` group of `bench` (benchmarks/peers.py), from npm into
# build/peers, pinned, install scripts off (none is needed); npm's wiremock carries WireMock's
# standalone jar, which the group runs with java. Installed again when the versions change.
# Without npm, node or java the group skips the peer it lacks and says so.
PEERS := build/peers
PEER_PACKAGES := @stoplight/prism-cli@5.14.2 json-server@0.17.4 wiremock@3.13.2
peers:
	@test "$$(cat $(PEERS)/.installed 2>/dev/null)" = "$(PEER_PACKAGES)" || { \
		command -v npm >/dev/null || { echo "peers: npm is not installed: bench skips the peers"; exit 0; }; \
		npm install --prefix $(PEERS) --no-audit --no-fund --ignore-scripts $(PEER_PACKAGES) && \
		echo "$(PEER_PACKAGES)" > $(PEERS)/.installed || echo "peers: npm install failed: bench skips them"; }

# callgrind counts the instructions per request (benchmarks/instructions.py).
valgrind:
	@command -v valgrind >/dev/null || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update && $$SUDO apt-get install -y valgrind; }

# The README's inspector screenshots, taken by the browser tests at 1280x800.
screenshots: $(DEV) browser
	INSPECTOR_SCREENSHOTS=docs/screenshots $(BIN)/pytest -q tests/e2e/test_inspector_browser.py \
		tests/e2e/test_live_reload_browser.py

clean:
	rm -rf $(VENV) $(LVENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
