# `make run`: install into .venv and open the GUI on the bundled demo suite.
# `make test`: install into .venv if needed and run every test (Qt headless), on SQLite and on a throw-away
# PostgreSQL cluster (tests/postgres_cluster.sh installs PostgreSQL when it is missing and it can); the tests also
# execute the example notebooks, build the documentation site with --strict and install the wheel in a fresh venv
# (tests/test_notebooks.py, test_docs_site.py, test_wheel.py).
# `make test-postgres`: only the tests that run on PostgreSQL.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
DEMO_DB ?= demo.sqlite
# The CPU build of torch sits in /opt/wheels on the project machines; elsewhere pip uses PyPI.
FIND_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)

.PHONY: install run test test-postgres lint bench clean smoke screenshots crash dist docs docs-serve

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check $(FIND_LINKS) -e '.[test]'
	touch $(STAMP)

run: install
	$(PY) -m gui.check_platform
	test -f $(DEMO_DB) || $(VENV)/bin/tsqe --db $(DEMO_DB) demo
	$(VENV)/bin/tsqe-gui --db $(DEMO_DB)

# The real-window tests need Xvfb, xdotool and ImageMagick: installed first when make runs as root, else they skip.
test: install
	-$(PY) -m gui.check_platform --walkthrough
	QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 bash tests/postgres_cluster.sh $(PY) -m pytest -q
	$(MAKE) lint
	$(MAKE) --no-print-directory smoke SMOKE_OPTIONAL=1

# The real window (xcb, not offscreen) on the demo under Xvfb: drawn, titled, filled, then it quits.
SMOKE_OUT ?= smoke.png
smoke: install
	@if ! $(PY) -m gui.check_platform --xvfb; then \
	  if [ -n "$(SMOKE_OPTIONAL)" ]; then echo "smoke: skipped (Xvfb or Qt's X11 libraries missing, see above)"; exit 0; fi; exit 1; fi; \
	test -f $(DEMO_DB) || $(VENV)/bin/tsqe --db $(DEMO_DB) demo >/dev/null; \
	XDG_CONFIG_HOME=$$(mktemp -d) xvfb-run -a -s "-screen 0 1600x1000x24" $(VENV)/bin/tsqe-gui --smoke $(SMOKE_OUT) $(DEMO_DB)

screenshots: install
	QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$$(mktemp -d) $(PY) -m gui.screenshots docs/screenshots

test-postgres: install
	QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 bash tests/postgres_cluster.sh \
		$(PY) -m pytest -q -k postgresql

# Only the crash-safety tests (SIGKILL at random moments of each job; `make test` runs them too).
crash: install
	QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest -q -s -m crash

# ruff, mypy and the layer contracts (import-linter) as configured in pyproject.toml (mypy strict for store/ and
# suite/; the contracts are described in docs/architecture.md).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

# The user guide and reference as a site in site/ (the tests build it too, --strict: a broken link fails them).
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

docs-serve: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve

# The sdist and, built from it, the wheel, in dist/ (the build backend comes with the test extras: no network).
dist: install
	rm -rf dist
	$(PY) -m build --no-isolation --outdir dist .

clean:
	rm -rf $(VENV) $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm dist site
