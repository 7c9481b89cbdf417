# Two commands for a newcomer:  make serve   |   make test
# Each target sets up what it needs first (venv, npm assets, Debian packages).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: setup system serve preview build test test-notebooks bench check-kernels lock clean page rules-history durations

setup: system $(VENV)/.installed node_modules/.installed

system:
	@tools/contributing/install_system_packages.sh

# explainer installed (editable), as a reader's `pip install` would: a snippet in a chapter
# folder (python snippets/many_heads/one_head_or_many.py) imports it from anywhere.
$(VENV)/.installed: requirements.txt snippets/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check --quiet -r requirements.txt
	$(BIN)/pip install --disable-pip-version-check --quiet --no-deps --no-build-isolation -e snippets
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# SHARDS=3: first the snippets as CI's matrix runs them, each shard by itself in its own cache
# (.cache/shards/), and their runs compared byte for byte with the full build's (tools/running/shards.py).
build: setup
	$(if $(SHARDS),$(BIN)/python -m tools.running.shards local $(SHARDS))
	$(BIN)/python -m tools.pages.build_site

serve: build
	@echo "Serving http://127.0.0.1:$(PORT)/ (English) and http://127.0.0.1:$(PORT)/zh/ (中文) — Ctrl+C to stop"
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory site

# For contributors: both languages with live reload (an edited page shows in the browser
# when it is saved; an edited snippet re-runs alone). No PDFs: make build makes them.
preview: setup
	$(BIN)/python -m tools.pages.preview --port $(PORT)

# The tests' site is built first (the snippets, both languages, the PDFs; a copy of site/ when
# make build made that from the same inputs), so that the test files can then run on every core
# (pytest-xdist, one file per worker at a time), none of them building or running anything again.
test: setup
	$(BIN)/python -m tools.pages.build_site --site-dir .cache/test-site
	$(BIN)/python -m pytest --numprocesses auto --maxprocesses 4 --dist loadfile

# Every notebook run in full in a fresh kernel outside the checkout (make test runs their cells
# once, in the build, as a notebook does, and one notebook of each kind in a fresh kernel).
test-notebooks: setup
	EXPLAINER_ALL_NOTEBOOKS=1 $(BIN)/python -m pytest tests/test_notebooks.py -k fresh_kernel

# A new page pair with its snippet, test and nav entries: make page NAME=my_idea [CHAPTER=many-heads] [CLAIM=C08]
page: $(VENV)/.installed
	$(BIN)/python -m tools.contributing.new_page $(NAME) $(if $(CHAPTER),--chapter $(CHAPTER)) $(if $(CLAIM),--claim $(CLAIM))

bench: setup
	$(BIN)/python -m tools.contributing.bench_build
	$(BIN)/python -m tools.contributing.lighthouse_bench
	$(BIN)/python -m tools.contributing.preview_bench

# Every trained verdict again under a second CPU kernel (ATEN_CPU_CAPABILITY=default): must agree.
check-kernels: setup
	$(BIN)/python -m tools.running.kernel_check

# How long each snippet takes, for the order a build starts them in and its time left, and the
# fingerprints of the numbers each records (tests/test_fingerprints.py compares every build's):
# runs what changed, then writes tools/running/durations.json and fingerprints.json (commit
# both). FORCE=1 runs them all.
durations: $(VENV)/.installed
	$(BIN)/python -m tools.running.snippet_runner --write-durations $(if $(FORCE),--force)
	$(BIN)/python -m tools.running.fingerprints --write

# After changing a rule in docs/claims.yml: its new version appended to docs/rules_history.yml.
rules-history: $(VENV)/.installed
	$(BIN)/python -m tools.verdicts.rules_history

# Re-resolve requirements.in into the fully pinned requirements.txt.
lock:
	rm -rf .cache/lock-venv && $(PYTHON) -m venv .cache/lock-venv
	.cache/lock-venv/bin/pip install --disable-pip-version-check --quiet -r requirements.in
	.cache/lock-venv/bin/pip freeze --exclude-editable > requirements.txt

clean:
	rm -rf site .site-zh .cache outputs
