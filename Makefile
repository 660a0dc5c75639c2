# 轮藏 Lunzang — two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 5000

.PHONY: run test test-chromium test-postgres lint format bench fuzz setup db translations clean chromium screenshots vendor

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	# (setuptools' "Editable installation" banner, 10 lines of !! on a fresh clone, is advice for
	# packagers, not a failure: silenced)
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP) translations

translations: $(STAMP)
	$(BIN)/pybabel compile --use-fuzzy -d webapp/translations -D messages >/dev/null 2>&1 || $(BIN)/pybabel compile -d webapp/translations

db: setup
	$(BIN)/lunzang init-db --with-sample

run: db
	$(BIN)/lunzang run --host $(HOST) --port $(PORT)

lint: setup
	$(BIN)/ruff check catalog webapp tests scripts
	$(BIN)/ruff format --check catalog webapp tests scripts
	$(BIN)/mypy
	$(BIN)/lint-imports  # the layers in pyproject.toml [tool.importlinter]: packages import one way

format: setup
	$(BIN)/ruff format catalog webapp tests scripts
	$(BIN)/ruff check --fix catalog webapp tests scripts

# The browser tests drive Debian's Chromium, never a download. `make test` runs them on its
# headless shell (package chromium-headless-shell, built from the same Debian source package and
# version as chromium: the same Blink and V8, without the desktop browser's window and WebUI
# processes — what Playwright itself runs for headless tests); it takes about half the CPU of the
# full browser's headless mode (browser tests 193 s → 120 s of wall time on two cores).
# `make test-chromium` runs the same browser tests on the full browser, /usr/bin/chromium, as
# `make screenshots` draws with it; .ci/run runs both.
CHROMIUM ?= /usr/bin/chromium-headless-shell
FULL_CHROMIUM := /usr/bin/chromium

# Without the browser, stop at once with one line saying how to install it.
chromium:
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) is missing: sudo apt-get install $(notdir $(CHROMIUM)) (.ci/run does it), then make test again" >&2; exit 1; }

# The SQLite suite runs on every core (pytest-xdist; each worker builds its own template database).
# loadgroup: a file with module-scoped fixtures (the accessibility crawl's site, servers) stays on
# one worker so they start once; other tests, browser tests included, go one by one to whichever
# worker is free (tests/conftest.py). TEST_WORKERS=0 runs serially. (One worker more than cores
# was measured too: 190 s against 185 s on a clean clone of two cores, within the runs' spread;
# more workers, more waits on a busy machine.)
# Lint runs beside the tests (mypy uses one core for ~8 s on a fresh clone); its output follows
# the tests', and either failing fails make test.
# PYTHONDONTWRITEBYTECODE emptied: where the environment sets it (this machine does), each worker
# and each CLI subprocess of the suite compiled our modules anew, and pytest rewrote every test
# module's asserts again (collecting took ~2.5x the CPU); the suite keeps its bytecode instead.
TEST_WORKERS ?= auto
LINT_LOG := build/lint.log
test: chromium setup
	@mkdir -p $(dir $(LINT_LOG))
	@$(MAKE) --no-print-directory lint > $(LINT_LOG) 2>&1 & lint=$$!; \
	PYTHONDONTWRITEBYTECODE= LUNZANG_CHROMIUM=$(CHROMIUM) $(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup; tests=$$?; \
	wait $$lint; linted=$$?; echo "== make lint =="; cat $(LINT_LOG); \
	if [ $$linted -ne 0 ]; then echo "make lint failed (above)" >&2; fi; \
	exit $$(( tests != 0 ? tests : linted ))

# The browser tests again, on the full browser (/usr/bin/chromium).
test-chromium: setup
	@$(MAKE) --no-print-directory chromium CHROMIUM=$(FULL_CHROMIUM)
	PYTHONDONTWRITEBYTECODE= LUNZANG_CHROMIUM=$(FULL_CHROMIUM) $(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup -m browser

POSTGRES_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test
# Serial: the PostgreSQL suite shares one database (its sample_snapshot schema) across tests.
test-postgres: setup
	PYTHONDONTWRITEBYTECODE= LUNZANG_CHROMIUM=$(CHROMIUM) DATABASE_URL=$(POSTGRES_URL) $(BIN)/pytest -p no:xdist

bench: setup
	$(BIN)/pytest tests/benchmarks -s -p no:cacheprovider -o addopts="" $(BENCH_ARGS)

# schemathesis against a live lunzang serve on a throwaway database (bounded: FUZZ_SECONDS, 300).
fuzz: setup
	$(BIN)/python tests/fuzz/run.py $(FUZZ_ARGS)

# PNGs of every main page at 1366×900 and 390×844 in build/screenshots/ (git-ignored), drawn by
# Debian's Chromium; fonts-noto-cjk makes the Chinese show as text.
SCREENSHOTS ?= build/screenshots
screenshots: setup
	$(BIN)/python scripts/screenshots.py $(SCREENSHOTS)

# Front-end tools from npm, vendored with their licence and version (package.json pins them):
# axe-core, which tests/browser/test_accessibility.py injects into Chromium. Run after changing
# package.json; the copied files are committed, so the tests need neither npm nor the network.
AXE_DIR := tests/browser/vendor/axe-core
vendor:
	npm install --no-audit --no-fund --ignore-scripts
	mkdir -p $(AXE_DIR)
	cp node_modules/axe-core/axe.min.js node_modules/axe-core/LICENSE $(AXE_DIR)/
	node -e "console.log(require('./node_modules/axe-core/package.json').version)" > $(AXE_DIR)/VERSION

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
