# The two set-up commands: `make run` launches the app, `make test` runs the tests.
# Each creates the virtual environment it needs first (runtime + test tools; never torch).
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: run test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/guide-tui

test: $(STAMP)
	$(VENV)/bin/python -m pytest
