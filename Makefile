# KORT Ladder: `make run` serves a demo ladder on the embedded default (SQLite, in-process tasks);
# `make test` runs the test suite. Both create .venv and install the pinned requirements first.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000
# The development server runs with debug on; production runs gunicorn with a real secret key.
RUN_ENV := DJANGO_DEBUG=$${DJANGO_DEBUG:-1}

.PHONY: run test lint install

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

run: $(VENV)/.installed
	$(RUN_ENV) $(PY) manage.py migrate --noinput
	$(RUN_ENV) $(PY) manage.py collectstatic --noinput -v 0
	$(RUN_ENV) $(PY) manage.py load_demo_ladder --address $(HOST)
	$(RUN_ENV) $(PY) manage.py runserver $(HOST)

test: $(VENV)/.installed
	$(PY) -m pytest

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .
