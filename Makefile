# Two entry points: `make run` and `make test`. Both build everything from nothing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000

.PHONY: run test setup browser lint format messages bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@

setup: $(VENV)/.installed

# Debian's Chromium drives the browser tests and renders PDFs.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium (needs root)..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; }

run: setup
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_defaults
	$(BIN)/python manage.py ensure_admin
	$(BIN)/python manage.py runserver $(PORT)

admin: setup
	$(BIN)/python manage.py createsuperuser --noinput

test: setup browser
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format:
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

messages:
	$(BIN)/python manage.py makemessages -l zh_Hans --no-obsolete --ignore=.venv --ignore=staticfiles
	$(BIN)/python manage.py compilemessages -l zh_Hans --ignore=.venv

# Writes docs/BENCHMARKS.md. The impact benchmark builds a 100,000-assessment
# SQLite file in /tmp once (several minutes, ~4 GB) and reuses it.
bench: setup browser
	$(BIN)/python benchmarks/bench_costs.py --write
	$(BIN)/python benchmarks/bench_pdf.py --write
	$(BIN)/python benchmarks/bench_impact.py --write

clean:
	rm -rf $(VENV) staticfiles db.sqlite3
