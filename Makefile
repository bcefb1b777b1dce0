# Two entry points: `make run` and `make test`. Both build everything from nothing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# DEBUG is off unless asked for (config/settings.py); these targets are development ones.
export DJANGO_DEBUG ?= true
# pip-tools lives in its own venv, never in .venv: it is no requirement of the project.
TOOLS_VENV := .venv-tools
PIP_TOOLS_VERSION := 7.6.2
PIP_TOOLS_PIP_VERSION := 26.3
PIP_COMPILE = CUSTOM_COMPILE_COMMAND="make lock" $(TOOLS_VENV)/bin/pip-compile --quiet \
	--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links $(LOCK_ARGS)

.PHONY: run admin test test-fast test-postgres typecheck setup browser fonts lock lint format messages bench bench-pages wrk soak clean calibration

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

setup: $(VENV)/.installed

# requirements.in and requirements-dev.in name the direct dependencies;
# `make lock` compiles them into the fully pinned requirements.txt and
# requirements-dev.txt. It keeps the pins that still fit; `make lock
# LOCK_ARGS=--upgrade` (or `LOCK_ARGS="--upgrade-package NAME"`) moves them.
$(TOOLS_VENV)/bin/pip-compile:
	$(PYTHON) -m venv $(TOOLS_VENV)
	$(TOOLS_VENV)/bin/pip install --quiet pip==$(PIP_TOOLS_PIP_VERSION) pip-tools==$(PIP_TOOLS_VERSION)

lock: | $(TOOLS_VENV)/bin/pip-compile
	$(PIP_COMPILE) --output-file=requirements.txt requirements.in
	$(PIP_COMPILE) --output-file=requirements-dev.txt requirements-dev.in

# Debian's Chromium drives the browser tests and renders PDFs; the CJK fonts make
# Chinese print in the PDF (without them every Chinese PDF is empty boxes, and the
# app refuses to cache one). `run`, `test` and `bench` check both and install what
# is missing (apt-get, root); `fc-list` (fontconfig) is how the app checks too.
browser: fonts
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium (needs root)..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

fonts:
	@if [ -z "$$(fc-list :lang=zh 2>/dev/null)" ]; then \
	  echo "Installing Debian's fonts-noto-cjk for Chinese PDFs (needs root)..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fontconfig fonts-noto-cjk >/dev/null; \
	fi
	@fc-list :lang=zh | grep -q . || { echo "No Chinese font (fc-list :lang=zh is empty): Chinese PDFs would print empty boxes." >&2; exit 1; }

run: setup browser
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_defaults
	$(BIN)/python manage.py ensure_admin
	$(BIN)/python manage.py runserver $(PORT)

admin: setup
	$(BIN)/python manage.py createsuperuser --noinput

# The whole suite: migrations up to date, types, then every test (browser and server ones too).
test: setup browser
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The quick loop: no Chromium, no server process.
test-fast: setup
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-dev} $(BIN)/python -m pytest -m "not browser and not slow" $(PYTEST_ARGS)

# CI's PostgreSQL pass: the tests that use the database, on PostgreSQL. The browser tests
# and the tests without a database would repeat the SQLite pass of `make test` unchanged.
POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/test
test-postgres: setup
	DATABASE_URL=$(POSTGRES_URL) $(BIN)/python -m pytest -m "database and not browser" $(PYTEST_ARGS)

# mypy with django-stubs; the settings are in pyproject.toml ([tool.mypy]).
typecheck: setup
	$(BIN)/mypy

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format:
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

messages:
	$(BIN)/python manage.py makemessages -l zh_Hans --no-obsolete --ignore=.venv --ignore=.venv-tools --ignore=staticfiles
	$(BIN)/python manage.py compilemessages -l zh_Hans --ignore=.venv --ignore=.venv-tools

# Fault tests against gunicorn and the Celery worker on this machine's PostgreSQL and Redis:
# saves through a PostgreSQL restart, 30 PDFs at once, a worker killed mid-render. Restarts
# PostgreSQL (root), takes about 6 minutes, writes docs/RELIABILITY.md; not part of `make test`.
soak: setup browser
	$(BIN)/python benchmarks/soak.py --write

# Writes docs/CALIBRATION.md: the published cases of tests/test_calibration.py against ours.
calibration: setup
	$(BIN)/python -c "from tests.test_calibration import DOC, calibration_page; DOC.write_text(calibration_page())"

# Writes docs/BENCHMARKS.md. The impact benchmark builds a 100,000-assessment
# SQLite file in /tmp once (several minutes, ~4 GB) and reuses it.
bench: setup browser wrk
	$(BIN)/python benchmarks/bench_import.py --write
	$(BIN)/python benchmarks/bench_costs.py --write
	$(BIN)/python benchmarks/bench_odds.py --write
	$(BIN)/python benchmarks/bench_pdf.py --write
	$(BIN)/python benchmarks/bench_impact.py --write
	$(BIN)/python benchmarks/bench_pages.py --write

# Every page against a bare view under wrk: gunicorn with the production settings on SQLite
# and on this machine's PostgreSQL (127.0.0.1:5432) and Redis, about 8 minutes; writes the
# "## Pages" section (add --compare-workers by hand for the worker-class table).
bench-pages: setup browser wrk
	$(BIN)/python benchmarks/bench_pages.py --write

# Debian's wrk drives the page benchmark; installed when missing (apt-get, root).
wrk:
	@command -v wrk >/dev/null 2>&1 || { \
	  echo "Installing Debian's wrk (needs root)..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

clean:
	rm -rf $(VENV) $(TOOLS_VENV) staticfiles db.sqlite3
