#!/usr/bin/env bash
# kb at 100,000 and 1,000,000 chunks.
#
#   scripts/bench_scale.sh [CHUNKS...]     default: 100000 1000000
#   KB_BENCH_RUNS=30                       fresh-process queries per mode
#
# The knowledge bases are synthetic: 48-word windows of real NFCorpus text
# (the corpus repeated, each round its own documents) with random unit
# vectors instead of the model's (so a million chunks build in minutes; the
# vector scan costs the same, and the queries are embedded by the real int8
# model). They are kept under ~/.cache/kb/bench-scale-N, never in git (1M is
# about 2.5 GB). Per size it prints: the DB size; fresh-process keyword-only,
# vector-only and hybrid p50/p95 (`kb-bench cli`); peak RSS of one hybrid
# search (GNU time, median of 3); warm `kb mcp` p50 (`kb-bench mcp`, on a
# copy of the DB); `kb add` of 100 more Markdown files (real model), `kb
# status` (median of 5) and `kb remove` of one document; then the added
# files are removed again so a rerun measures the same thing. The load
# average goes with every figure.
set -euo pipefail
cd "$(dirname "$0")/.."

NFCORPUS="${NFCORPUS:-../shared/eval/nfcorpus}"
RUNS="${KB_BENCH_RUNS:-30}"
cache="${KB_CACHE_DIR:-$HOME/.cache/kb}"
load() { cut -d' ' -f1-3 /proc/loadavg; }

eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"
cargo build --release --locked --features dev-tools --bin kb --bin kb-bench >&2
kb=target/release/kb
bench=target/release/kb-bench

# 100 Markdown files for the `kb add` step: NFCorpus documents from the end
# of the corpus, one a file.
add_dir="$cache/bench-scale-add"
if [ ! -f "$add_dir/.complete" ]; then
  rm -rf "$add_dir" && mkdir -p "$add_dir"
  python3 - "$NFCORPUS/corpus.jsonl" "$add_dir" <<'EOF'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])][-100:]
for i, d in enumerate(docs):
    with open(f"{sys.argv[2]}/{i:03d}-{d['_id']}.md", "w") as f:
        f.write(f"# {d['title']}\n\n{d['text']}\n")
EOF
  touch "$add_dir/.complete"
fi

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { # seconds CMD...: wall seconds of one run, output dropped
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}

for n in "${@:-100000 1000000}"; do
  for chunks in $n; do
    dir="$cache/bench-scale-$((chunks / 1000))k" # 100k, 1000k
    echo "== $chunks chunks ($dir)"
    KB_MODEL=all-MiniLM-L6-v2-int8 "$bench" build --data-dir "$dir" --model-dir "$KB_MODEL_DIR_INT8" \
      --corpus "$NFCORPUS/corpus.jsonl" --chunks "$chunks" --random-vectors
    echo "DB size: $(du -h "$dir/kb.db" | cut -f1) (kb.db), $(du -sh "$dir" | cut -f1) (folder)"
    echo "fresh-process search, load $(load):"
    KB_BENCH_VECTOR=1 "$bench" cli --data-dir "$dir" --runs "$RUNS" | sed 's/^/  /'
    echo "  (load after: $(load))"
    rss=()
    for _ in 1 2 3; do
      /usr/bin/time -v -o /tmp/kb-scale-time.txt "$kb" --data-dir "$dir" search "vitamin d deficiency and bone health" >/dev/null
      rss+=("$(awk -F': ' '/Maximum resident/ {print $2}' /tmp/kb-scale-time.txt)")
    done
    echo "peak RSS of one hybrid kb search: $(printf '%s\n' "${rss[@]}" | median | awk '{printf "%.0f MB", $1/1024}') (median of 3)"
    echo "warm kb mcp, load $(load):"
    "$bench" mcp --data-dir "$dir" --runs "$RUNS" | sed 's/^/  /'
    echo "kb add of 100 more files (int8 model), load $(load):"
    /usr/bin/time -v -o /tmp/kb-scale-time.txt "$kb" --data-dir "$dir" add "$add_dir" --format json >/tmp/kb-scale-add.json
    python3 - /tmp/kb-scale-add.json /tmp/kb-scale-time.txt <<'EOF'
import json, re, sys
s = json.load(open(sys.argv[1])); t = open(sys.argv[2]).read()
wall = t.split("Elapsed (wall clock) time (h:mm:ss or m:ss): ")[1].split()[0].split(":")
wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1)) / 1024
sec = s["seconds"]
print(f"  {s['added']} documents, {s['chunks']} chunks: wall {wall:.1f} s (embed {sec['embed']:.1f} s, "
      f"write {sec['write']:.2f} s, walk {sec['walk']:.2f} s), peak RSS {rss:.0f} MB")
EOF
    st=()
    for _ in 1 2 3 4 5; do st+=("$(seconds "$kb" --data-dir "$dir" status)"); done
    echo "kb status: $(printf '%s\n' "${st[@]}" | median | awk '{printf "%.0f ms", $1*1000}') (median of 5), load $(load)"
    # (head would close the pipe early: with pipefail, sort's SIGPIPE
    # stopped the script at random)
    mapfile -t added < <(find "$add_dir" -name '*.md' | sort)
    first=${added[0]}
    echo "kb remove of one document: $(seconds "$kb" --data-dir "$dir" remove "$first" | awk '{printf "%.0f ms", $1*1000}'), load $(load)"
    # Back to the built state for the next run.
    "$kb" --data-dir "$dir" remove "${added[@]:1}" >/dev/null
  done
done
