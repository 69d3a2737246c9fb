#!/bin/sh
# Thin wrapper: prepare ONNX Runtime + all-MiniLM-L6-v2 under $KB_CACHE_DIR (default ~/.cache/kb).
# Usage: eval "$(scripts/prepare_model.sh)"   -> sets KB_ORT_LIB and KB_MODEL_DIR
set -e
exec python3 "$(dirname "$0")/prepare_model.py" "$@"
