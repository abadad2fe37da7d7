# The developer interface: `make run` and `make test` each set up everything they need.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test setup lint format bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check ".[dev]"
	touch $(STAMP)

setup: $(STAMP)
	DEBUG=true $(PY) manage.py migrate --noinput
	DEBUG=true $(PY) manage.py loadcontent

run: setup
	DEBUG=true $(PY) manage.py runserver $(HOST):$(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

test: setup lint
	DEBUG=true $(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/pytest

clean:
	rm -rf $(VENV) staticfiles db.sqlite3

# Load benchmark: gunicorn + production settings + a seeded database, driven by Debian's wrk.
bench: $(STAMP)
	command -v wrk >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk; }
	$(PY) bench/run.py
	$(PY) -m bench.upload_steps
