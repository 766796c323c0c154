# The two fresh-machine commands (README, Quick start): `make demo` and `make test`.
SAMPLE_FROM ?= 2026-03-01
SAMPLE_TO ?= 2026-06-30
PYTEST_ARGS ?=
# `make test`: two pytest-xdist workers, each with its own servers (free ports, private temp dirs); whole files per
# worker (module- and session-scoped setups are not built twice), the slow files first (tests/conftest.py; xdist would
# otherwise hand out the files with the most tests first).
# XDIST= runs the suite in one process.
XDIST ?= -n 2 --dist loadfile --no-loadscope-reorder

.PHONY: setup demo test test-fast lint servers bench lock

setup:
	./scripts/setup.sh

demo: setup
	.venv/bin/graphfeed run --from $(SAMPLE_FROM) --to $(SAMPLE_TO)

servers:
	./scripts/install_servers.sh
	./scripts/install_browser.sh

test: setup lint servers
	.venv/bin/python -m pytest $(XDIST) $(PYTEST_ARGS)

lint: setup
	./scripts/lint.sh

test-fast: setup
	.venv/bin/python -m pytest -m "not slow" $(PYTEST_ARGS)

bench: setup
	for b in bench/*.py; do .venv/bin/python $$b; done

lock:
	.venv/bin/python -m pip freeze --exclude-editable | grep -v '^graphfeed' > requirements.lock
