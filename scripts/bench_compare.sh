#!/usr/bin/env bash
# The build before a change against the working tree, on the same data, in
# one run: a fresh-process hybrid `kb search` (20,001 chunks), a warm
# `kb mcp` hybrid search, and the CPU `kb add` spends per chunk (NFCorpus
# abstracts as Markdown files). The two builds take turns inside every
# round, so a busy machine slows both alike; each figure is printed with
# the ratio new/old (the median of the rounds' ratios) and its spread
# (the smallest and largest round's ratio).
#
#   scripts/bench_compare.sh [BASE]
#
# BASE is any commit. Without it: the merge base with main when HEAD is on
# another branch; on main, HEAD when the working tree changes code, else the
# last commit that touched no code (a stop ends with one), so what is
# compared is the code since then.
#
# Each side builds in its own target directory and prepares its own model
# with its own scripts/prepare_model.py (a change may change the model),
# under KB_COMPARE_DIR (default ~/.cache/kb/compare); the Python venv and
# ONNX Runtime are shared with ~/.cache/kb.
#
#   KB_COMPARE_ROUNDS   rounds (default 5; ingest runs in the first 3)
#   KB_COMPARE_SEARCHES fresh searches per build and round (default 20)
#   KB_COMPARE_MCP      warm MCP searches per build and round (default 50)
#   KB_COMPARE_DOCS     NFCorpus abstracts for the ingest (default 300)
#   NFCORPUS            the BEIR NFCorpus directory (default ../shared/eval/nfcorpus)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

say() { printf '[bench_compare] %s\n' "$*" >&2; }

code_paths=(src Cargo.toml Cargo.lock models.toml scripts/prepare_model.py scripts/int8_graph.py scripts/numpy_bert.py build.rs)
touches_code() { # touches_code COMMIT: whether the commit changed code
  [ -n "$(git diff-tree --no-commit-id -r --name-only "$1" -- "${code_paths[@]}")" ]
}

base="${1:-}"
if [ -z "$base" ]; then
  branch="$(git rev-parse --abbrev-ref HEAD)"
  if [ "$branch" != main ] && git rev-parse -q --verify main >/dev/null; then
    base="$(git merge-base HEAD main)"
    why="the merge base with main"
  elif [ -n "$(git status --porcelain -- "${code_paths[@]}")" ]; then
    base=HEAD
    why="HEAD (the working tree changes code)"
  else
    base=HEAD
    while touches_code "$base"; do base="$(git rev-parse "$base^")"; done
    why="the last commit that touched no code"
  fi
else
  why="named"
fi
base="$(git rev-parse --verify "$base^{commit}")"
say "base: $(git log -1 --format='%h %s' "$base" | cut -c1-90) ($why)"

work="${KB_COMPARE_DIR:-$HOME/.cache/kb/compare}"
shared="${KB_CACHE_DIR:-$HOME/.cache/kb}"
nfcorpus="$(cd "${NFCORPUS:-../shared/eval/nfcorpus}" && pwd)"
mkdir -p "$work"

# The shared pieces of the cache (the venv and ONNX Runtime) must exist.
eval "$(python3 scripts/prepare_model.py)" >/dev/null

# 1. Sources and builds: the base in a worktree of its own, the new side here.
src_base="$work/base-src"
if [ ! -e "$src_base/.git" ]; then
  git worktree add --detach "$src_base" "$base" >&2
else
  git -C "$src_base" checkout -q --detach "$base"
fi
say "building the base ($work/target-base)"
(cd "$src_base" && CARGO_TARGET_DIR="$work/target-base" \
  cargo build --release --features dev-tools --bins --quiet)
say "building the working tree"
cargo build --release --features dev-tools --bins --quiet

# 2. Each side's model, prepared by its own script into its own cache.
prepare() { # prepare SIDE SRC: prints the side's int8 model directory
  local cache="$work/cache-$1"
  mkdir -p "$cache"
  for d in venv onnxruntime py; do
    [ -e "$cache/$d" ] || [ ! -e "$shared/$d" ] || ln -s "$shared/$d" "$cache/$d"
  done
  (cd "$2" && KB_CACHE_DIR="$cache" python3 scripts/prepare_model.py | sed -n 's/^KB_MODEL_DIR_INT8=//p')
}
model_base="$(prepare base "$src_base")"
model_new="$(prepare new "$repo")"

# 3. The data: one folder of Markdown files, and a 20,001-chunk knowledge
#    base per side (random vectors, real NFCorpus text), built by its build.
docs="${KB_COMPARE_DOCS:-300}"
corpus="$work/corpus-$docs"
if [ ! -f "$corpus/.complete" ]; then
  rm -rf "$corpus" && mkdir -p "$corpus"
  python3 - "$nfcorpus/corpus.jsonl" "$corpus" "$docs" <<'PY'
import json, sys, pathlib
src, out, n = sys.argv[1], pathlib.Path(sys.argv[2]), int(sys.argv[3])
with open(src, encoding="utf-8") as f:
    for i, line in enumerate(f):
        if i == n:
            break
        d = json.loads(line)
        (out / f"{d['_id']}.md").write_text(f"# {d.get('title') or d['_id']}\n\n{d['text']}\n", encoding="utf-8")
PY
  touch "$corpus/.complete"
fi
for side in base new; do
  target="$work/target-$side"
  [ "$side" = new ] && target="$repo/target"
  model="$model_base"
  [ "$side" = new ] && model="$model_new"
  if [ ! -f "$work/data-$side/search/kb.db" ]; then
    say "building the $side side's 20,001-chunk knowledge base"
    KB_CACHE_DIR="$work/cache-$side" KB_MODEL=all-MiniLM-L6-v2-int8 \
      "$target/release/kb-bench" build --data-dir "$work/data-$side/search" --model-dir "$model" \
      --corpus "$nfcorpus/corpus.jsonl" --chunks 20000 --random-vectors >/dev/null 2>&1
  fi
done

# 4. The interleaved runs.
export ORT_DYLIB_PATH="$shared/onnxruntime/libonnxruntime.so"
python3 - "$work" "$repo/target/release" "$work/target-base/release" \
  "$model_new" "$model_base" "$corpus" <<'PY'
import json, os, re, resource, shutil, statistics, subprocess, sys, time

work, new_bin, base_bin, model_new, model_base, corpus = sys.argv[1:7]
rounds = int(os.environ.get("KB_COMPARE_ROUNDS", "5"))
searches = int(os.environ.get("KB_COMPARE_SEARCHES", "20"))
mcp_calls = int(os.environ.get("KB_COMPARE_MCP", "50"))
queries = ["vitamin d deficiency and bone health", "does green tea prevent cancer",
           "statins side effects muscle pain", "gut bacteria and obesity",
           "how much protein do athletes need"]
sides = {
    "old": {"bin": base_bin, "model": model_base, "cache": f"{work}/cache-base", "data": f"{work}/data-base"},
    "new": {"bin": new_bin, "model": model_new, "cache": f"{work}/cache-new", "data": f"{work}/data-new"},
}

def env(side):
    e = dict(os.environ, KB_CACHE_DIR=sides[side]["cache"])
    e.pop("KB_DATA_DIR", None)
    return e

def fresh_search(side, n):
    s = sides[side]
    times = []
    for i in range(n):
        t = time.perf_counter()
        subprocess.run([f"{s['bin']}/kb", "--data-dir", f"{s['data']}/search", "search", queries[i % 5]],
                       env=env(side), check=True, capture_output=True)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)

def warm_mcp(side):
    s = sides[side]
    out = subprocess.run([f"{s['bin']}/kb-bench", "mcp", "--data-dir", f"{s['data']}/search",
                          "--runs", str(mcp_calls)], env=env(side), check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"hybrid[^\n]*?p50 ([0-9.]+) ms", out)
    if not m:
        raise SystemExit(f"kb-bench mcp printed no hybrid p50:\n{out}")
    return float(m.group(1))

def ingest_cpu(side):
    """CPU ms per chunk of `kb add` of the corpus into a fresh data directory."""
    s = sides[side]
    data = f"{s['data']}/ingest"
    shutil.rmtree(data, ignore_errors=True)
    kb = f"{s['bin']}/kb"
    subprocess.run([kb, "--data-dir", data, "init", "--model-dir", s["model"], "--quiet"],
                   env=env(side), check=True, capture_output=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([kb, "--data-dir", data, "add", corpus, "--quiet"], env=env(side), check=True,
                   capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    status = json.loads(subprocess.run([kb, "--data-dir", data, "status", "--format", "json"],
                                       env=env(side), check=True, capture_output=True, text=True).stdout)
    return cpu * 1000 / status["total_chunks"]

for side in sides:  # warm-up: page cache, optimised graphs
    fresh_search(side, 3)
results = {m: {s: [] for s in sides} for m in ("search", "mcp", "ingest")}
for r in range(rounds):
    order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
    for side in order:
        results["search"][side].append(fresh_search(side, searches))
    for side in order:
        results["mcp"][side].append(warm_mcp(side))
    if r < 3:
        for side in order:
            results["ingest"][side].append(ingest_cpu(side))
    load = open("/proc/loadavg").read().split()[0]
    print(f"round {r + 1}/{rounds} done (load {load})", file=sys.stderr, flush=True)

labels = {"search": "fresh hybrid kb search, p50 ms (20,001 chunks)",
          "mcp": "warm kb mcp hybrid search, p50 ms",
          "ingest": "kb add, CPU ms per chunk"}
print(f"{'what':<46} {'old':>9} {'new':>9} {'new/old':>8}  spread")
for m, label in labels.items():
    old, new = results[m]["old"], results[m]["new"]
    ratios = [n / o for n, o in zip(new, old)]
    print(f"{label:<46} {statistics.median(old):>9.1f} {statistics.median(new):>9.1f} "
          f"{statistics.median(ratios):>8.2f}  {min(ratios):.2f}-{max(ratios):.2f} over {len(ratios)} rounds")
PY
