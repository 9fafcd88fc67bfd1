# What a contributor types. Every target creates its venv and installs on first use, so a clean
# clone needs nothing but `make run` or `make test`. `make run` serves the sources at once;
# docs/development/compiled-build.md says how the compiled wheel is built (`make wheel`) and how
# `run-compiled` and `test` use it. While editing, `make check` is the fast tier (under two
# minutes on two cores); `make test` runs everything before a merge.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8080
SOURCES := mockserver tests $(wildcard benchmarks) $(wildcard docs/*.py) container

# .venv holds the sources, installed editable: with their runtime dependencies only for `run`
# (quick to install), with the test and docs extras for lint, test and fmt.
VPY   := $(VENV)/bin/python
TOOLS := $(VENV)/.tools
DEV   := $(VENV)/.dev
SERVE := $(VENV)/.serve-sources
# The compiled wheel with the test extra: the suite's second run and the benchmarks.
CVENV  := .venv-compiled
CBIN   := $(CVENV)/bin
CSTAMP := $(CVENV)/.installed
CBENCH := $(CVENV)/.installed-bench
# Where the suite runs on the compiled wheel: a copy of the checkout without mockserver/, so
# that no entry of sys.path (pytest puts the rootdir first) finds the sources before the
# installed package.
COPY := build/compiled-run
COPIED := tests benchmarks seeds scenarios pyproject.toml README.md CHANGELOG.md mkdocs.yml Makefile \
	$(wildcard docs)
# What the wheel is made of: a change to any of these builds it again. $(WHEEL) names the
# wheel built last.
PACKAGE := pyproject.toml README.md \
	$(shell find mockserver seeds scenarios -type f ! -path '*/__pycache__/*' ! -name '*.so')
WHEEL := dist/.wheel

.PHONY: run run-compiled wheel check test lint fmt bench bench-soak bench-idempotency bench-memory \
	wrk valgrind peers baseline clean browser screenshots \
	compiled-copy docs docs-serve fuzz image image-test

$(VPY):
	$(PYTHON) -m venv $(VENV)

$(TOOLS): | $(VPY)
	$(BIN)/python -m pip install --quiet --upgrade pip build
	touch $@

$(DEV): pyproject.toml | $(TOOLS)
	$(BIN)/python -m pip install --quiet -e '.[test,docs,container]'
	touch $@

# `run`'s install: the sources, editable (an edit is served at the next start), with the
# runtime dependencies only: a fresh clone answers within seconds of them being installed.
$(SERVE): pyproject.toml | $(VPY)
	$(BIN)/python -m pip install --quiet -e .
	touch $@

run: $(SERVE)
	$(BIN)/mockserver run --host $(HOST) --port $(PORT)

# The compiled wheel (and its sdist) in dist/, built by the documented command: about 90 s,
# and only when a file of the package changed. Without a working C compiler it stops and says
# so.
wheel: $(WHEEL)

$(WHEEL): $(PACKAGE) | $(TOOLS)
	@compiler=$$($(BIN)/python -c "$$CC_PROBE") || { \
		echo "make wheel: no working C compiler ($$compiler does not build against Python's headers): install one (gcc, and python3-dev for Debian's Python) or set CC (docs/development/compiled-build.md)"; \
		exit 1; }
	rm -f dist/mockserver-*
	HATCH_BUILD_HOOKS_ENABLE=1 $(BIN)/python -m build
	ls dist/mockserver-*.whl > $@

# The compiled wheel served from its own venv (the one the suite's compiled run uses).
run-compiled: $(CSTAMP)
	$(CBIN)/mockserver run --host $(HOST) --port $(PORT)

# Whether the C compiler the build would use (CC, else the one Python was built with) compiles
# against Python's headers; prints that compiler.
define CC_PROBE
import os, shlex, subprocess, sys, sysconfig, tempfile
cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
print(shlex.join(cc))
with tempfile.TemporaryDirectory() as folder:
    source = os.path.join(folder, "probe.c")
    with open(source, "w") as out:
        out.write("#include <Python.h>\nint main(void) { return 0; }\n")
    include = sysconfig.get_paths()["include"]
    command = [*cc, "-I", include, "-c", source, "-o", os.path.join(folder, "probe.o")]
    try:
        works = subprocess.run(command, capture_output=True).returncode == 0
    except OSError:
        works = False
sys.exit(0 if works else 1)
endef
export CC_PROBE

# The container image (Containerfile; docs/guides/container.md): mockserver:VERSION, built with
# podman or docker, whichever answers here, on the Python image BASE. The build needs no
# network: container/context.py first puts in build/image/ the mockserver wheel and its
# dependencies' wheels for the base's Python (asked of the base), downloaded on the host. The
# wheel is the compiled one when it runs on the base (the host's Python ABI and machine, and a
# C compiler here), else the pure one. `make image-test` builds it and runs tests/image against
# it (the engine must run containers; testcontainers needs its API: DOCKER_HOST, as
# .ci/container-host sets up for podman). Neither is part of `test`.
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
	@kind=$$($(BIN)/python container/context.py choose --engine $(ENGINE) --base $(BASE) \
		--out $(IMAGE_CONTEXT)) || exit 1; \
	if [ "$$kind" = compiled ] && ! $(BIN)/python -c "$$CC_PROBE" >/dev/null; then \
		echo "image: the pure wheel after all: no working C compiler here"; kind=pure; \
	fi; \
	if [ "$$kind" = compiled ]; then \
		$(MAKE) --no-print-directory wheel && wheel=$$(cat $(WHEEL)); \
	else \
		env -u HATCH_BUILD_HOOKS_ENABLE $(BIN)/python -m build --wheel --outdir $(IMAGE_CONTEXT)/pure . \
			>/dev/null && \
		wheel=$$(ls $(IMAGE_CONTEXT)/pure/mockserver-*.whl); \
	fi && \
	$(BIN)/python container/context.py fill --out $(IMAGE_CONTEXT) --wheel "$$wheel"
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
# golden stream), the run on the compiled wheel and the documentation build.
check: $(DEV)
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/pytest -q -n 2 -m "not slow" tests/unit tests/api

$(CSTAMP): $(WHEEL)
	test -d $(CVENV) || $(PYTHON) -m venv $(CVENV)
	$(CBIN)/python -m pip install --quiet --upgrade pip
	$(CBIN)/python -m pip uninstall --quiet --quiet --yes mockserver
	$(CBIN)/python -m pip install --quiet "$$(cat $(WHEEL))[test]"
	touch $@

compiled-copy:
	rm -rf $(COPY)
	mkdir -p $(COPY)
	cp -R $(COPIED) $(COPY)/

# The suite on the sources (editable, all Python), then again on the compiled wheel installed
# in $(CVENV), with the tests marked pure_only skipped there.
test: lint browser $(CSTAMP)
	$(BIN)/pytest -q -n 2
	$(MAKE) --no-print-directory compiled-copy
	cd $(COPY) && $(CURDIR)/$(CBIN)/pytest -q -n 2 -p no:cacheprovider --compiled
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
# (installed from Debian's package when missing), on the compiled wheel, from the same copy as
# the suite's compiled run. `bench` takes about 20 minutes; `bench-soak` is the 5-minute POST
# soak alone, on each server (about 11 minutes); `bench-idempotency` is the idempotency soak
# alone (200,000 kept 409s with new keys, twice: about 2 minutes); `bench-memory` the memory
# soak (30 minutes).
# The libraries the pytest fixtures are measured against (the `bench` extra), beside the wheel.
$(CBENCH): $(CSTAMP)
	$(CBIN)/python -m pip install --quiet "$$(cat $(WHEEL))[test,bench]"
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

# `make bench BASELINE=REV` also measures the compiled build of commit REV (built in
# $(BASE_DIR), a git worktree) in the same load rounds and under callgrind: the `baseline.*`
# rows, read against ours on this machine in this run ("no worse than REV").
BASELINE ?=
BASE_DIR := build/baseline

bench: $(CBENCH) $(LSTAMP) wrk valgrind peers compiled-copy $(if $(BASELINE),baseline)
	cd $(COPY) && $(CURDIR)/$(CBIN)/python -m benchmarks --out $(CURDIR)/benchmarks/latest.json \
		--pure-sources $(CURDIR) --loop-python $(CURDIR)/$(LVENV)/bin/python \
		--peers $(CURDIR)/$(PEERS) \
		$(if $(BASELINE),--baseline-python $(CURDIR)/$(BASE_DIR)/$(CBIN)/python)

# The compiled build of BASELINE, in its own worktree, by its own Makefile (kept while REV is
# the same commit).
baseline:
	@test -n "$(BASELINE)" || { echo "baseline: say which commit, BASELINE=REV"; exit 2; }
	@want=$$(git rev-parse --verify "$(BASELINE)^{commit}") || exit 2; \
	if [ ! -e $(BASE_DIR)/.git ] || [ "$$(git -C $(BASE_DIR) rev-parse HEAD)" != "$$want" ]; then \
		rm -rf $(BASE_DIR) && git worktree prune && \
		git worktree add --detach $(BASE_DIR) $$want || exit 1; \
	fi
	$(MAKE) -C $(BASE_DIR) $(CSTAMP)

bench-soak: $(CSTAMP) wrk compiled-copy
	cd $(COPY) && $(CURDIR)/$(CBIN)/python -m benchmarks --only soak --soak 300 \
		--out $(CURDIR)/benchmarks/soak.json

bench-idempotency: $(CSTAMP) wrk compiled-copy
	cd $(COPY) && $(CURDIR)/$(CBIN)/python -m benchmarks --only idempotency \
		--out $(CURDIR)/benchmarks/idempotency.json

# The memory soak (benchmarks/memory_soak.py): a server doing the work that leaves cyclic garbage
# (webhooks to failing and slow receivers, TLS, scenarios, snapshots, --state-dir), its RSS after
# every round, for MEMORY_MINUTES, on each collector of MEMORY_COLLECTORS side by side.
MEMORY_MINUTES ?= 30
MEMORY_COLLECTORS ?= shipped,defaults,freeze-survivors
bench-memory: $(CSTAMP) compiled-copy
	cd $(COPY) && $(CURDIR)/$(CBIN)/python -m benchmarks.memory_soak --minutes $(MEMORY_MINUTES) \
		--collectors $(MEMORY_COLLECTORS) --out $(CURDIR)/benchmarks/memory_soak.json

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
	INSPECTOR_SCREENSHOTS=docs/screenshots $(BIN)/pytest -q tests/e2e/test_inspector_browser.py

# Extension modules beside the sources are left by a compiled build made in place (see
# docs/development/compiled-build.md); they would shadow the sources.
clean:
	rm -rf $(VENV) $(CVENV) $(LVENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
	find mockserver -name '*.so' -delete
	rm -f ./*__mypyc.*.so
