# `make run`: install into .venv and open the GUI on the bundled demo suite.
# `make test`: install into .venv if needed and run every test (Qt headless).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
DEMO_DB ?= demo.sqlite
# The CPU build of torch sits in /opt/wheels on the project machines; elsewhere pip uses PyPI.
FIND_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)

.PHONY: install run test lint bench clean crash

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check $(FIND_LINKS) -e '.[test]'
	touch $(STAMP)

run: install
	test -f $(DEMO_DB) || $(VENV)/bin/tsqe --db $(DEMO_DB) demo
	$(VENV)/bin/tsqe-gui --db $(DEMO_DB)

test: install
	QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest -q
	$(MAKE) lint

# Only the crash-safety tests (SIGKILL at random moments of each job; `make test` runs them too).
crash: install
	QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest -q -s -m crash

# ruff and mypy as configured in pyproject.toml (mypy strict for store/ and suite/).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
