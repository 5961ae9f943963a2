#!/usr/bin/env bash
# Set up a fresh machine: clang-15 (the gfx1100 compile checks), a Python 3.12 venv in .venv with the pinned dependencies.
# Idempotent; run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-15 >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-15 >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-15 >/dev/null; fi
fi
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
  # tinygrad's emulator needs Python >= 3.12 for native half; take 3.12 from PATH or pyenv
  PY=""
  if python3.12 -c 'pass' 2>/dev/null; then PY=python3.12
  elif command -v pyenv >/dev/null && V=$(pyenv versions --bare | grep -m1 '^3\.12'); then PY=$(PYENV_VERSION=$V pyenv which python3); fi
  [ -n "$PY" ] || { echo "setup: no Python 3.12 found (python3.12 on PATH or pyenv)" >&2; exit 1; }
  rm -rf .venv && "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
