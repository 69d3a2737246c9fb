#!/usr/bin/env bash
# Scores kb's keyword, vector and hybrid search on BEIR NFCorpus (nDCG@10,
# Recall@100) and prints a Markdown table.
#
# Usage: scripts/eval_nfcorpus.sh [KB-EVAL OPTIONS...]
#   e.g. --split dev, --fusion rrf, --feedback-chunks 0 (see README,
#   Retrieval quality); the test split and the defaults without options
#   NFCORPUS     BEIR-format NFCorpus (default: ../shared/eval/nfcorpus)
#   KB_EVAL_DIR  where the evaluation's kb.db is kept between runs
#                (default: ~/.cache/kb/eval-nfcorpus; delete it to re-index)
set -euo pipefail
cd "$(dirname "$0")/.."

eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"

cargo run --release --features dev-tools --bin kb-eval -- beir "${NFCORPUS:-../shared/eval/nfcorpus}" \
    --data-dir "${KB_EVAL_DIR:-$HOME/.cache/kb/eval-nfcorpus}" \
    --model-dir "$KB_MODEL_DIR" --reuse "$@"
