#!/usr/bin/env bash
# Benchmark of `kb add` on a mixed real corpus assembled from Debian
# packages (the package registry is the only network kb's tests may use).
#
#   scripts/bench_ingest.sh            build the corpus if needed, then measure
#   scripts/bench_ingest.sh --corpus   only build the corpus (prints its path)
#   KB_BENCH_PDFS=150 KB_BENCH_GO=1000 ... override the per-type file counts
#   KB_BENCH_SKIP_MODEL=1              skip the model-alone pass (it re-embeds
#                                      every chunk: as long as the ingest)
#
# Prints: the ingest summary (files and chunks per type, time per stage),
# wall time and peak RSS of `kb add` (GNU time), the model alone on the same
# chunks (`kb-bench model`), the DB size, and the time of re-running
# `kb add` on the unchanged folder (median of 5).
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${KB_CACHE_DIR:-$HOME/.cache/kb}"
src="$cache/bench-src"
corpus="$cache/bench-corpus"
data="${KB_BENCH_DATA:-$cache/bench-ingest}"
pdfs="${KB_BENCH_PDFS:-300}"
markdown="${KB_BENCH_MARKDOWN:-585}"
python="${KB_BENCH_PYTHON:-300}"
go="${KB_BENCH_GO:-1650}"
bash_files="${KB_BENCH_BASH:-350}"

say() { printf '[bench_ingest] %s\n' "$*" >&2; }

# 1. The corpus: real files from Debian packages, picked deterministically
#    (sorted paths, the first N of each kind; small and mid-sized files so
#    that about 3,000 files make a corpus the model embeds in minutes).
packages=(texlive-science-doc golang-1.19-src libpython3.11-stdlib bash-completion
  docker-doc jc npm nodejs-doc ansible)
if [ ! -f "$corpus/.complete" ]; then
  mkdir -p "$src/pkgs" "$src/tree"
  (cd "$src/pkgs" && for p in "${packages[@]}"; do
    ls "$p"_*.deb >/dev/null 2>&1 || apt-get download "$p" >&2
  done)
  for deb in "$src"/pkgs/*.deb; do dpkg-deb -x "$deb" "$src/tree"; done
  rm -rf "$corpus" && mkdir -p "$corpus"/{pdf,markdown,python,go,bash}
  pick() { # pick DEST N [SUFFIX] < file list: copies the first N
    local dest=$1 n=$2 suffix=${3:-} i=0
    while IFS= read -r f; do # reads to the end, so no SIGPIPE upstream
      i=$((i + 1))
      [ "$i" -gt "$n" ] || cp "$f" "$corpus/$dest/$(printf '%04d' "$i")-$(basename "$f")$suffix"
    done
  }
  find "$src/tree" -name '*.pdf' -size -300k | sort | pick pdf "$pdfs"
  find "$src/tree" -name '*.md' -size +1k -size -8k | sort | pick markdown "$markdown"
  find "$src/tree/usr/lib/python3.11" -name '*.py' -size +1k -size -24k | sort | pick python "$python"
  find "$src/tree/usr/share/go-1.19/src" -name '*.go' -not -path '*/testdata/*' -size +1k -size -6k |
    sort | pick go "$go"
  # Completion scripts carry no extension or shebang: name them .bash; the
  # Go tree's own scripts come as they are.
  {
    find "$src/tree/usr/share/go-1.19" \( -name '*.bash' -o -name '*.sh' \) | sort
    find "$src/tree/usr/share/bash-completion/completions" -type f | sort
  } | pick bash "$bash_files" .bash
  touch "$corpus/.complete"
fi
for t in pdf markdown python go bash; do
  say "$t: $(find "$corpus/$t" -type f | wc -l) files, $(du -sh "$corpus/$t" | cut -f1)"
done

if [ "${1:-}" = "--corpus" ]; then
  echo "$corpus"
  exit 0
fi

# 2. The tools, built in release mode, and the model.
cargo build --release --locked --features dev-tools --bin kb --bin kb-bench >&2
eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"
kb=target/release/kb
rm -rf "$data"
"$kb" --data-dir "$data" init --model-dir "$KB_MODEL_DIR" >&2

# 3. The ingest itself.
say "kb add (this embeds every chunk; minutes on 2 cores)"
/usr/bin/time -v -o "$data/time.txt" "$kb" --data-dir "$data" add "$corpus" \
  --format json >"$data/summary.json"
wall=$(grep 'Elapsed (wall clock)' "$data/time.txt" | awk '{print $NF}')
rss_kb=$(grep 'Maximum resident set size' "$data/time.txt" | awk '{print $NF}')
echo "kb add: wall $wall, peak RSS $((rss_kb / 1024)) MB"
python3 - "$data/summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["seconds"]
print(f"documents {s['added']}, chunks {s['chunks']}, failed {s['failed']}, "
      f"pages without text {s['pages_without_text']}")
print(f"stages (s): total {t['total']:.1f}, walk {t['walk']:.2f}, parse {t['parse']:.1f} "
      f"(summed over threads), embed {t['embed']:.1f}, write {t['write']:.1f}")
print("| type | documents | chunks | parse s | files/s parsed | chunks/s overall |")
print("|---|---:|---:|---:|---:|---:|")
for name, c in s["by_type"].items():
    fps = c["documents"] / c["parse_seconds"] if c["parse_seconds"] else 0
    print(f"| {name} | {c['documents']} | {c['chunks']} | {c['parse_seconds']:.1f} | "
          f"{fps:.1f} | {c['chunks'] / t['total']:.1f} |")
EOF
echo "DB size: $(du -h "$data/kb.db" | cut -f1)"

# 4. The model alone on the same chunks: the floor for the ingest.
if [ "${KB_BENCH_SKIP_MODEL:-0}" != 1 ]; then
  target/release/kb-bench model --data-dir "$data" --model-dir "$KB_MODEL_DIR"
fi

# 5. Re-adding the unchanged folder.
times=()
for _ in 1 2 3 4 5; do
  start=$(date +%s.%N)
  "$kb" --data-dir "$data" add "$corpus" --quiet --format json >/dev/null
  times+=("$(echo "$(date +%s.%N) - $start" | bc)")
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "re-add unchanged: median %.2f s (of %d runs)\n", a[int((NR+1)/2)], NR}'
