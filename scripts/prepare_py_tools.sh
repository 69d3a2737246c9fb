#!/usr/bin/env bash
# A private Python venv with the reference clients the end-to-end tests
# drive kb with: the official MCP Python SDK (PyPI `mcp`, tests/mcp_sdk_client.py)
# and the Agent Skills reference validator (PyPI `skills-ref`, whose
# `agentskills validate` checks SKILL.md). In $KB_CACHE_DIR/py (default
# ~/.cache/kb/py).
#
# Usage: eval "$(scripts/prepare_py_tools.sh)"   # sets KB_TEST_PYTHON
# Only the KEY=VALUE line goes to stdout; progress goes to stderr. When the
# venv cannot be made (no Python, no network), KB_TEST_PYTHON is empty and
# a note says so: the tests that need it then fail, unless
# KB_TEST_SKIP_PY_TOOLS=1. Re-runs take well under a second.
set -euo pipefail

CACHE="${KB_CACHE_DIR:-$HOME/.cache/kb}"
VENV="$CACHE/py"
# Pinned so every machine runs the clients the tests were written against.
SPECS="mcp==2.3.0 skills-ref==0.1.1"

log() { printf '[prepare_py_tools] %s\n' "$*" >&2; }

python=""
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/SOURCE" 2>/dev/null)" = "$SPECS" ]; then
    python="$VENV/bin/python"
    log "up to date ($SPECS): $VENV"
elif command -v python3 >/dev/null; then
    log "making $VENV with $SPECS"
    rm -rf "$VENV"
    # shellcheck disable=SC2086 # SPECS is a list of requirements
    if python3 -m venv "$VENV" >&2 \
        && "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
            --no-input $SPECS >&2; then
        printf '%s\n' "$SPECS" > "$VENV/SOURCE"
        python="$VENV/bin/python"
    else
        log "note: could not install $SPECS from PyPI; the MCP SDK and skills-ref tests will fail" \
            "(set KB_TEST_SKIP_PY_TOOLS=1 to skip them)"
    fi
else
    log "note: no python3; the MCP SDK and skills-ref tests will fail" \
        "(set KB_TEST_SKIP_PY_TOOLS=1 to skip them)"
fi

printf 'KB_TEST_PYTHON=%q\n' "$python"
