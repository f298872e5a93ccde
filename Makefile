# `make demo` and `make test` work on a fresh machine: each installs what it needs first.
# Installation is stamped, so a second run installs nothing and starts at once.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DATA := .demo-data
DEMO_STAMP := $(DEMO_DATA)/.ready
TORCH := torch==2.13.0

.PHONY: install demo-data demo test lint clean browser postgres

install: $(STAMP)

# torch first, pinned: an unpinned torch pulled in by sentence-transformers would be a
# multi-GB CUDA build; this one is the local CPU wheel. llama-cpp-python (llm-local)
# builds from source without -march=native, which can crash on another CPU; pip caches
# the built wheel, so only a new machine pays the ~10 min build.
# --no-compile: byte-compiling every installed file is most of the install's CPU (torch
# alone: 35 s against 9 s); Python compiles what is imported on first use and keeps it,
# so a PYTHONDONTWRITEBYTECODE inherited from the shell (some CI images set it) is
# dropped for every command here: each process would compile torch and Prefect again.
unexport PYTHONDONTWRITEBYTECODE
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile $(TORCH)
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/python -m pip install --quiet --no-compile \
		-e '.[xtal,llm,llm-local,dev]'
	touch $@

demo-data: $(DEMO_STAMP)

$(DEMO_STAMP): $(STAMP)
	$(BIN)/python -m agentcycle.demo_data $(DEMO_DATA)
	touch $@

demo: $(DEMO_STAMP)
	$(BIN)/agentcycle demo --data-dir $(DEMO_DATA)

# Headless Chromium renders the HTML reports in tests (Debian's package; needs root).
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# A real PostgreSQL for the scale-out tests (Debian's package; the tests start their own
# cluster as an unprivileged user in a temporary folder, never the system one).
postgres:
	@command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		postgresql >/dev/null; }

# Three workers on the two cores, each test file on one (its module fixtures stay
# together): most slow tests wait on servers, model replies and subprocesses, so a third
# worker fills those waits (the suite here: 16:45 with three against 19:34 with two).
# tests/conftest.py gives every process one torch/BLAS thread: a clean clone's
# `make test` took 17:06 and 18:33 so, against 20:48 with a thread per core (2026-12-07).
# Files run in the order conftest.py gives them (the slowest first), not xdist's own.
test: $(DEMO_STAMP) browser postgres
	$(BIN)/python tools/lint_imports.py
	$(BIN)/python -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder --durations=15

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) $(DEMO_DATA) .agentcycle *.egg-info
