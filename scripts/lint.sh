#!/usr/bin/env bash
# The checks that keep the layers straight (run by `make test`, hence CI): ruff lint + format check, import-linter
# layer contracts (pyproject [tool.importlinter]), mypy --strict (pyproject [tool.mypy] files: the ground layer, flow/,
# the source registry and spec, the whole of graph/write), and the tree rules ruff cannot express (scripts/check_tree.py: 400-line modules, tests
# that assert).
# `scripts/lint.sh --fix` applies ruff's safe fixes and formats the tree first.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${VENV_BIN:-.venv/bin}
if [ "${1:-}" = "--fix" ]; then
  "$BIN/ruff" check --fix --quiet . || true
  "$BIN/ruff" format --quiet .
fi
"$BIN/ruff" check .
"$BIN/ruff" check --preview --select PLC2701 .   # no private names imported across modules (pyproject: exceptions)
"$BIN/ruff" format --check .
"$BIN/lint-imports" --no-cache
"$BIN/mypy"
"$BIN/python" scripts/check_tree.py
