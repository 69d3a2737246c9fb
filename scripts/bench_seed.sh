#!/usr/bin/env bash
# The workload the design describes, built from public data, and what
# `kb add` takes for it: about 2,025 PDFs of varying complexity (344 of them
# SEC filings), 500 notes and 500 code files, scaled by SCALE.
#
#   scripts/bench_seed.sh [SCALE]      SCALE: a fraction of that (default 0.1)
#
# The files: the FinanceBench filings in ../shared/eval/financebench-dev/pdfs
# (37 at most; FINANCEBENCH overrides the directory), PDFs from Debian's
# TeX Live documentation packages (manuals, package guides, papers; 50 KB to
# 6 MB), Markdown notes and Python, Go and shell code from Debian packages,
# picked deterministically (sorted paths, every k-th file). Packages are
# fetched with `apt-get download` into $KB_CACHE_DIR/bench-seed; nothing is
# installed.
#
# Prints the files and chunks of each type, then the wall time, chunks/s,
# CPU per chunk and peak RSS of `kb add` (GNU time), each also projected to
# SCALE 1 (linearly: the work is per file). Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."

scale="${1:-0.1}"
cache="${KB_CACHE_DIR:-$HOME/.cache/kb}"
root="$cache/bench-seed"
financebench="${FINANCEBENCH:-../shared/eval/financebench-dev}"
say() { printf '[bench_seed] %s\n' "$*" >&2; }

count() { python3 -c "import sys; print(max(1, round(float(sys.argv[1]) * float(sys.argv[2]))))" "$1" "$scale"; }
pdfs=$(count 2025)
filings=$(count 344)
notes=$(count 500)
code=$(count 500)

eval "$(python3 scripts/prepare_model.py)"
export ORT_DYLIB_PATH="$KB_ORT_LIB"
eval "$(scripts/prepare_pdf.sh)"
export PDFIUM_DYNAMIC_LIB_PATH
# The same features as the other benchmarks: one build serves them all.
cargo build --release --quiet --features dev-tools --bins
kb="$PWD/target/release/kb"

# 1. The packages.
packages=(texlive-latex-base-doc texlive-latex-recommended-doc texlive-latex-extra-doc
  texlive-science-doc texlive-pictures-doc texlive-publishers-doc texlive-fonts-extra-doc
  docker-doc nodejs-doc golang-1.19-src libpython3.11-stdlib bash-completion)
mkdir -p "$root/debs" "$root/tree"
for p in "${packages[@]}"; do
  [ -f "$root/tree/.$p.done" ] && continue
  say "apt-get download $p"
  (cd "$root/debs" && apt-get download "$p" >/dev/null) || {
    say "apt-get download $p failed: is the Debian archive reachable (apt-get update)?"
    exit 2
  }
  dpkg-deb -x "$(ls "$root/debs/${p}"_*.deb | tail -1)" "$root/tree"
  touch "$root/tree/.$p.done"
done

# 2. The corpus for this scale.
corpus="$root/corpus-$scale"
if [ ! -f "$corpus/.complete" ]; then
  rm -rf "$corpus" && mkdir -p "$corpus"/{filings,pdf,notes,code}
  # The file list comes on stdin, so the program goes in -c.
  pick_py='
import shutil, sys, pathlib
dest, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
files = [l.rstrip("\n") for l in sys.stdin if l.strip()]
step = max(1, len(files) // n) if files else 1
for i, f in enumerate(files[::step][:n]):
    p = pathlib.Path(f)
    shutil.copyfile(p, dest / f"{i:04d}-{p.name}")
'
  pick() { # pick DEST N: every k-th of the sorted list on stdin, N in all
    python3 -c "$pick_py" "$corpus/$1" "$2"
  }
  find "$financebench/pdfs" -name '*.pdf' | sort | pick filings "$filings"
  have=$(ls "$corpus/filings" | wc -l)
  find "$root/tree" -name '*.pdf' -size +50k -size -6M | sort | pick pdf $((pdfs - have))
  find "$root/tree" -name '*.md' -size +1k -size -40k | sort | pick notes "$notes"
  {
    find "$root/tree/usr/lib/python3.11" -name '*.py' -size +1k -size -40k
    find "$root/tree/usr/share/go-1.19/src" -name '*.go' -not -path '*/testdata/*' -size +1k -size -40k
    find "$root/tree/usr/share/bash-completion/completions" -type f -size +1k | sed 's/$//'
  } | sort | pick code "$code"
  # Completion scripts carry no extension or shebang: name them .bash.
  for f in "$corpus"/code/*; do
    case "$f" in *.py|*.go|*.sh|*.bash) ;; *) mv "$f" "$f.bash" ;; esac
  done
  touch "$corpus/.complete"
fi
say "corpus: $(find "$corpus" -type f ! -name .complete | wc -l) files in $corpus"

# 3. kb add into a fresh knowledge base, under GNU time.
data="$root/data-$scale"
rm -rf "$data"
"$kb" --data-dir "$data" init --model-dir "$KB_MODEL_DIR_INT8" --quiet
/usr/bin/time -v "$kb" --data-dir "$data" add "$corpus" --quiet 2>"$root/time-$scale.txt" || {
  tail -20 "$root/time-$scale.txt" >&2
  exit 1
}
"$kb" --data-dir "$data" status --format json >"$root/status-$scale.json"
python3 - "$root/time-$scale.txt" "$root/status-$scale.json" "$scale" "$corpus" <<'PY'
import json, os, re, sys
time_txt, status_json, scale, corpus = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
t = open(time_txt).read()
def field(name):
    return re.search(rf"{re.escape(name)}: (.+)", t).group(1).strip()
user, sys_ = float(field("User time (seconds)")), float(field("System time (seconds)"))
wall_s = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
parts = [float(p) for p in wall_s.split(":")]
wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
rss = int(field("Maximum resident set size (kbytes)")) / 1024
status = json.load(open(status_json))
chunks = status["total_chunks"]
files = {d: len(os.listdir(os.path.join(corpus, d))) for d in ("filings", "pdf", "notes", "code")}
docs = {k: v for k, v in status["documents"].items() if v}
print(f"corpus at scale {scale}: {files['filings']} filings, {files['pdf']} other PDFs, "
      f"{files['notes']} notes, {files['code']} code files")
print(f"indexed: {status['total_documents']} documents ({', '.join(f'{k} {v}' for k, v in docs.items())}), "
      f"{chunks:,} chunks")
print(f"kb add: wall {wall:.1f} s, CPU {user + sys_:.1f} s, {chunks / wall:.1f} chunks/s, "
      f"{(user + sys_) * 1000 / chunks:.1f} ms CPU per chunk, peak RSS {rss:.0f} MB")
print(f"projected to scale 1: {chunks / scale:,.0f} chunks, wall {wall / scale / 60:.0f} min "
      f"(CPU {(user + sys_) / scale / 60:.0f} min)")
PY
