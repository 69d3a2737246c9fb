#!/usr/bin/env bash
# Make kb's PDF engines available offline:
#   - pdfium (libpdfium, the PDF library Chrome uses), copied out of the PyPI
#     `pypdfium2` wheel into $KB_CACHE_DIR/pdfium/ (default ~/.cache/kb);
#   - Tesseract, the OCR engine for pages without a text layer: the Debian
#     package tesseract-ocr (apt-get, when run as root) or Homebrew's
#     tesseract; when neither can be installed, a note says how.
#
# Usage: eval "$(scripts/prepare_pdf.sh)"   # sets PDFIUM_DYNAMIC_LIB_PATH and KB_TESSERACT
# Only the KEY=VALUE lines go to stdout; progress goes to stderr. Re-runs
# take well under a second. KB_PYPDFIUM2_SPEC overrides the wheel version.
set -euo pipefail

CACHE="${KB_CACHE_DIR:-$HOME/.cache/kb}"
SPEC="${KB_PYPDFIUM2_SPEC:-pypdfium2==5.15.2}"
DIR="$CACHE/pdfium"
case "$(uname -s)" in
    Darwin) LIB_NAME=libpdfium.dylib ;;
    *) LIB_NAME=libpdfium.so ;;
esac
LIB="$DIR/$LIB_NAME"

log() { printf '[prepare_pdf] %s\n' "$*" >&2; }

if [ -f "$LIB" ] && [ "$(cat "$DIR/SOURCE" 2>/dev/null)" = "$SPEC" ]; then
    log "pdfium up to date ($SPEC): $LIB"
else
    log "fetching $SPEC from PyPI for its $LIB_NAME"
    mkdir -p "$DIR"
    wheels="$(mktemp -d "$DIR/wheel.XXXXXX")"
    trap 'rm -rf "$wheels"' EXIT
    python3 -m pip download --quiet --disable-pip-version-check --no-input \
        --no-deps --only-binary=:all: -d "$wheels" "$SPEC" >&2
    python3 - "$wheels" "$LIB_NAME" "$LIB.tmp" <<'EOF'
import glob, sys, zipfile
wheels, name, out = sys.argv[1:]
for whl in glob.glob(wheels + "/*.whl"):
    with zipfile.ZipFile(whl) as z:
        for member in z.namelist():
            if member.endswith("/" + name):
                with z.open(member) as src, open(out, "wb") as dst:
                    dst.write(src.read())
                sys.exit(0)
sys.exit(f"no {name} in the downloaded wheel")
EOF
    mv -f "$LIB.tmp" "$LIB"
    printf '%s\n' "$SPEC" > "$DIR/SOURCE"
    log "wrote $LIB"
fi

TESSERACT="$(command -v tesseract || true)"
if [ -z "$TESSERACT" ] && [ "${KB_SKIP_TESSERACT_INSTALL:-}" != 1 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing tesseract-ocr (apt-get)"
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y -q tesseract-ocr tesseract-ocr-eng >&2; then
            apt-get update -q >&2 && apt-get install -y -q tesseract-ocr tesseract-ocr-eng >&2 || true
        fi
    elif command -v brew >/dev/null; then
        log "installing tesseract (Homebrew)"
        brew install tesseract >&2 || true
    fi
    TESSERACT="$(command -v tesseract || true)"
fi
if [ -n "$TESSERACT" ]; then
    log "OCR engine: $TESSERACT ($("$TESSERACT" --version 2>&1 | head -n 1))"
else
    log "note: no OCR engine; scanned PDF pages will be counted, not read." \
        "Install Tesseract (apt install tesseract-ocr, or brew install tesseract)."
fi

printf 'PDFIUM_DYNAMIC_LIB_PATH=%q\n' "$LIB"
printf 'KB_TESSERACT=%q\n' "$TESSERACT"
