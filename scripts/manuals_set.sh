#!/usr/bin/env bash
# The manuals tuning set: long manuals and guides from Debian's
# documentation packages, laid out as FinanceBench's dev set is
# (questions.jsonl + pdfs/), for `kb-eval financebench DIR`.
#
#   scripts/manuals_set.sh            # -> ${KB_CACHE_DIR:-~/.cache/kb}/manuals-set
#
# Each package is fetched at the version pinned in bench/manuals/manifest.tsv
# with `apt-get download` (Debian 12 "bookworm"; run `apt-get update` first
# if apt has no package lists), the chosen PDF is taken out of it (gunzipped
# where Debian ships it compressed), and its sha256 is checked against the
# manifest. The .deb files stay in debs/ beside pdfs/, so a second run
# downloads nothing. Nothing of this goes into git.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
manifest="$repo/bench/manuals/manifest.tsv"
out="${KB_CACHE_DIR:-$HOME/.cache/kb}/manuals-set"
mkdir -p "$out/debs" "$out/pdfs"
chmod 755 "$out" "$out/debs" 2>/dev/null || true # apt's _apt user writes here when it can

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tail -n +2 "$manifest" | while IFS=$'\t' read -r name package version path pages sha; do
    deb="$out/debs/${package}_${version/:/%3a}_all.deb" # apt writes an epoch's colon as %3a
    if [[ ! -f "$deb" ]]; then
        (cd "$out/debs" && apt-get download -q "${package}=${version}")
    fi
    x="$tmp/$package"
    [[ -d "$x" ]] || { mkdir -p "$x" && dpkg-deb -x "$deb" "$x"; }
    target="$out/pdfs/$name.pdf"
    if [[ "$path" == *.gz ]]; then
        gzip -dc "$x$path" >"$target"
    else
        cp "$x$path" "$target"
    fi
    got="$(sha256sum "$target" | cut -c1-64)"
    if [[ "$got" != "$sha" ]]; then
        echo "manuals_set: $name.pdf from $package $version has sha256 $got, the manifest says $sha" >&2
        exit 1
    fi
    echo "$name.pdf  $package $version  $pages pages  sha256 ok"
done
cp "$repo/bench/manuals/questions.jsonl" "$repo/bench/manuals/README.md" "$out/"
echo "manuals set: $(ls "$out/pdfs" | wc -l) PDFs and $(grep -c . "$out/questions.jsonl") questions in $out"
