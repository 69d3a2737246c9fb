#!/usr/bin/env bash
# Fresh-process `kb search` at 20,000 chunks: builds the
# knowledge base once, then prints p50/p95 of five runs of 30 fresh-process
# queries (keyword-only and hybrid) with the load average of each, and
# checks that 100 hybrid queries return exactly what an exact float scan
# returns.
#
# Usage: scripts/bench_search.sh [CHUNKS]
#   KB_BENCH_DIR    where the knowledge base is kept (default ~/.cache/kb/bench20k)
#   KB_BENCH_MODEL  model (default all-MiniLM-L6-v2-int8)
#   KB_BENCH_REAL=1 embed the chunks with the model (minutes) instead of
#                   random unit vectors (seconds; the text is real NFCorpus
#                   text either way, and the queries are embedded by the model)
#   NFCORPUS        the BEIR NFCorpus directory (default ../shared/eval/nfcorpus)
set -euo pipefail
cd "$(dirname "$0")/.."

CHUNKS="${1:-20000}"
DIR="${KB_BENCH_DIR:-$HOME/.cache/kb/bench20k}"
MODEL="${KB_BENCH_MODEL:-all-MiniLM-L6-v2-int8}"
NFCORPUS="${NFCORPUS:-../shared/eval/nfcorpus}"

eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"
case "$MODEL" in
    *-int8) MODEL_DIR="$KB_MODEL_DIR_INT8" ;;
    *) MODEL_DIR="$KB_MODEL_DIR" ;;
esac

cargo build --release --features dev-tools --bins >&2
BENCH=target/release/kb-bench
RANDOM_FLAG=--random-vectors
[ "${KB_BENCH_REAL:-}" = 1 ] && RANDOM_FLAG=

KB_MODEL="$MODEL" "$BENCH" build --data-dir "$DIR" --model-dir "$MODEL_DIR" \
    --corpus "$NFCORPUS/corpus.jsonl" --chunks "$CHUNKS" $RANDOM_FLAG

for run in 1 2 3 4 5; do
    echo "run $run, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    "$BENCH" cli --data-dir "$DIR" --runs 30 | sed 's/^/  /'
done
"$BENCH" exact --data-dir "$DIR" --queries "$NFCORPUS/queries.jsonl" --runs 100
