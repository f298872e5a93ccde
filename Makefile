# `make demo` and `make test` work on a fresh machine: each installs what it needs first.
# Installation is stamped, so a second run installs nothing and starts at once.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DATA := .demo-data
DEMO_STAMP := $(DEMO_DATA)/.ready
TORCH := torch==2.13.0

.PHONY: install demo-data demo test lint clean browser

install: $(STAMP)

# torch first, pinned: an unpinned torch pulled in by sentence-transformers would be a
# multi-GB CUDA build; this one is the local CPU wheel.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e '.[xtal,llm,dev]'
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

test: $(DEMO_STAMP) browser
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) $(DEMO_DATA) .agentcycle *.egg-info
