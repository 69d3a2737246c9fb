#!/usr/bin/env bash
# `kb add` of a tldr-like corpus (4,612 short Markdown command pages) with
# the fp32 and the int8 model, against a plain ONNX Runtime session on the
# same chunks in the same batches.
#
#   scripts/bench_ingest_tldr.sh                 corpus (once), then both models
#   scripts/bench_ingest_tldr.sh --corpus        only build the corpus (prints its path)
#   KB_BENCH_MODELS="all-MiniLM-L6-v2-int8"      the models to measure (default both)
#   KB_BENCH_SKIP_REFERENCE=1                    skip the model-alone and plain ORT passes
#   KB_BENCH_REFERENCE_CHUNKS=2048               run those on the first N chunks only (default all)
#
# The corpus: no registry package this project reaches ships the English
# tldr pages (the npm and PyPI tldr clients download them at run time), so
# scripts/tldr_corpus.py writes pages in tldr's format from the real man
# pages of a fixed list of Debian packages (see the list below).
#
# Prints per model: wall and CPU time of `kb add`, chunks, chunks/s, CPU ms
# per chunk, peak RSS (GNU time), the pipeline's stage times; then kb's
# embedder alone and a plain ONNX Runtime session (Python, same model file,
# same batches) on the chunks that run stored, and the ratio of the three.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${KB_CACHE_DIR:-$HOME/.cache/kb}"
src="$cache/tldr-src"
corpus="$cache/tldr-corpus"
pages="${KB_BENCH_PAGES:-4612}"
say() { printf '[bench_ingest_tldr] %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

packages=(9base apt bind9-dnsutils binutils-x86-64-linux-gnu coreutils cups cups-client
  dpkg dpkg-dev e2fsprogs emboss ffmpeg findutils gawk gdal-bin ghostscript git-man
  gnupg-utils graphviz grep imagemagick-6.q16 iproute2 libssl-doc libx11-doc llvm-14 lvm2 mailutils
  manpages manpages-dev mariadb-client mdadm mesa-utils mtools mutt netpbm nmap nmh
  openssh-client openssl perl-doc postfix postgresql-client-15 procps rsync sed sleuthkit sox
  systemd tar tcl8.6-doc texlive-binaries util-linux x11-apps x11-utils x11-xserver-utils
  xfonts-utils xfsprogs)
if [ ! -f "$corpus/.complete" ]; then
  mkdir -p "$src/pkgs"
  (cd "$src/pkgs" && for p in "${packages[@]}"; do
    ls "$p"_*.deb >/dev/null 2>&1 || apt-get download "$p" >&2
  done)
  rm -rf "$src/tree" && mkdir -p "$src/tree"
  for deb in "$src"/pkgs/*.deb; do dpkg-deb -x "$deb" "$src/tree"; done
  rm -rf "$corpus.tmp"
  python3 scripts/tldr_corpus.py "$src/tree" "$corpus.tmp" "$pages"
  touch "$corpus.tmp/.complete"
  rm -rf "$corpus" && mv "$corpus.tmp" "$corpus"
fi
say "corpus: $(find "$corpus" -name '*.md' | wc -l) pages, $(du -sh "$corpus" | cut -f1)"
if [ "${1:-}" = "--corpus" ]; then
  echo "$corpus"
  exit 0
fi

cargo build --release --locked --features dev-tools --bin kb --bin kb-bench >&2
eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"
kb=target/release/kb
py="$cache/venv/bin/python"

for model in ${KB_BENCH_MODELS:-all-MiniLM-L6-v2 all-MiniLM-L6-v2-int8}; do
  case "$model" in
    *-int8) dir="$KB_MODEL_DIR_INT8" ;;
    *) dir="$KB_MODEL_DIR" ;;
  esac
  data="$cache/bench-tldr-$model"
  rm -rf "$data"
  "$kb" --data-dir "$data" init --model "$model" --model-dir "$dir" >&2
  say "$model: kb add of $corpus (load $(load))"
  /usr/bin/time -v -o "$data/time.txt" "$kb" --data-dir "$data" add "$corpus" \
    --format json >"$data/summary.json"
  echo "== $model: kb add (load average after: $(load))"
  python3 - "$data/time.txt" "$data/summary.json" <<'EOF'
import json, re, sys
t = open(sys.argv[1]).read()
def field(name):
    return re.search(re.escape(name) + r":\s*(.+)", t).group(1).strip()
wall_s = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall_s)))
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
rss = int(field("Maximum resident set size (kbytes)")) / 1024
s = json.load(open(sys.argv[2]))
n, sec = s["chunks"], s["seconds"]
print(f"documents {s['added']}, chunks {n}, failed {s['failed']}")
print(f"wall {wall:.1f} s, CPU {cpu:.1f} s, {n / wall:.1f} chunks/s, "
      f"{cpu * 1000 / n:.1f} ms CPU per chunk, peak RSS {rss:.0f} MB")
print(f"stages (s): total {sec['total']:.1f}, walk {sec['walk']:.2f}, parse {sec['parse']:.2f} "
      f"(summed over threads), embed {sec['embed']:.1f}, write {sec['write']:.2f}; "
      f"outside the model: {(sec['total'] - sec['embed']) / sec['embed'] * 100:.2f}% of the model's time")
EOF
  if [ "${KB_BENCH_SKIP_REFERENCE:-0}" != 1 ]; then
    say "$model: kb's embedder alone, then plain ONNX Runtime, on the same batches (load $(load))"
    KB_MODEL="$model" target/release/kb-bench model --data-dir "$data" --model-dir "$dir" \
      --dump "$data/batches.jsonl" --chunks "${KB_BENCH_REFERENCE_CHUNKS:-100000000}"
    onnx=$(find "$dir" -maxdepth 2 -name '*.onnx' | head -1)
    "$py" scripts/ort_reference.py "$onnx" "$dir/tokenizer.json" "$data/batches.jsonl" 2
    echo "(load average after: $(load))"
  fi
done
