# The developer interface: `make run` and `make test` each set up everything they need.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test setup messages lint format bench bench-imports clean lock

# Python writes its bytecode caches (the venv's and the project's) even where the environment says
# not to: the install compiles nothing, so the first process to import a module (migrate, then the
# suite's workers) compiles it once, instead of every process, every time.
export PYTHONDONTWRITEBYTECODE :=

# Installs exactly the versions (and files, by hash) in requirements.lock; `make lock` rewrites it
# from the ranges in pyproject.toml. pip installs uv (its own lines of the lock, by hash), then uv
# installs the lock: the same files in about a sixth of pip's time.
$(STAMP): requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	awk '/^uv==/ {p = 1} p && /^ *#/ {exit} p' requirements.lock > $(VENV)/uv-requirement.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
	  -r $(VENV)/uv-requirement.txt
	$(VENV)/bin/uv pip install --quiet --python $(PY) --require-hashes -r requirements.lock
	touch $(STAMP)

# The interface catalogues, each compiled when its .po is newer than its .mo (what compilemessages
# runs, without starting Django when nothing changed).
PO := $(wildcard locale/*/LC_MESSAGES/*.po)
MO := $(PO:.po=.mo)

$(MO): %.mo: %.po
	msgfmt --check-format -o $@ $<

messages: $(MO)

setup: $(STAMP) messages
	DEBUG=true $(PY) manage.py migrate --noinput
	DEBUG=true $(PY) manage.py loadcontent

run: setup
	DEBUG=true $(PY) manage.py runserver $(HOST):$(PORT)

# mypy reads what to check, and how strictly, from pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The suite runs on every core (pytest-xdist; each worker has its own test database);
# `make test WORKERS=0` runs it in one process. It does `make run`'s set-up first (venv,
# catalogues, the development database migrated and loaded), so a fresh clone that ran only
# `make test` can `make run` at once; the suite itself makes its own test databases.
# The lint (mypy is one core for ~12 s) runs beside the set-up's migrate and loadcontent; its
# output is printed when both are done, and a lint failure fails the target.
WORKERS ?= auto
test: $(STAMP)
	$(MAKE) --no-print-directory lint > $(VENV)/lint.log 2>&1 & lint=$$!; \
	$(MAKE) --no-print-directory setup; setup=$$?; \
	wait $$lint; linted=$$?; cat $(VENV)/lint.log; \
	test $$setup = 0 && test $$linted = 0
	DEBUG=true $(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/pytest -n $(WORKERS)

lock: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check pip-tools
	$(VENV)/bin/pip-compile --quiet --allow-unsafe --extra=dev --generate-hashes \
	  --no-emit-find-links --no-emit-index-url --strip-extras \
	  --output-file=requirements.lock pyproject.toml

clean:
	rm -rf $(VENV) staticfiles db.sqlite3

# Load benchmark: gunicorn + production settings + a seeded database, driven by Debian's wrk.
bench: $(STAMP)
	command -v wrk >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk; }
	command -v redis-server >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server; }
	$(PY) bench/run.py
	$(PY) -m bench.upload_steps

# Import previews of pathological files at 1x and 10x: the time ratio shows an import is linear.
bench-imports: $(STAMP)
	$(PY) bench/imports.py
