#!/usr/bin/env python3
"""PDF reading benchmark: kb's PDF engine (pdfium, in the `kb __extract-pdf`
child that `kb add` runs for every PDF) against poppler's pdftotext, on real
PDFs from Debian documentation packages; and OCR accuracy on image-only PDFs
made by rasterising real text PDFs (so the original text is the truth).

    scripts/bench_pdf.py --kb target/release/kb            # both parts
    scripts/bench_pdf.py --kb target/release/kb --part read --max-files 300
    scripts/bench_pdf.py --kb target/release/kb --part ocr --ocr-pages 20
    scripts/bench_pdf.py --kb target/release/kb --part read --pdfs DIR   # any folder

Needs: poppler-utils (pdftotext, pdftoppm) and img2pdf from Debian, pdfium
(scripts/prepare_pdf.sh), Tesseract for the OCR part. The packages are
fetched with `apt-get download` into $KB_CACHE_DIR/bench-pdf (default
~/.cache/kb/bench-pdf) and extracted there; nothing is installed.

Reported, read part: files pdftotext reads / kb reads / each refuses; pages
per second of each (files one after another, one process each, wall clock);
word recall of kb's page text against pdftotext's (per page, multiset of
lower-cased words; pooled over every page, and the worst files; also
over words of two or more characters, since pdftotext reads letter-spaced
type and math as single letters; and recall of letters and digits, which no
cut of a line into words changes), and the same for pairs of consecutive
words, which a page read in the wrong order
(two columns read across, line by line) loses while keeping its words;
pdftotext's own order is not always right (it reads some tables by
columns), so this compares builds rather than scoring one. OCR part:
character accuracy (1 - Levenshtein distance / length of the truth, spaces
over the characters of the truth, with the words of the two sides matched
to each other, so a page read in another order than pdftotext's, or cut
into lines differently, scores its recognition, not its order; the
full-page figure in pdftotext's order is reported beside it) and seconds
per page. `pip install rapidfuzz` makes the edit distances fast.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

PACKAGES = [
    "texlive-publishers-doc",
    "texlive-humanities-doc",
    "texlive-latex-recommended-doc",
    "texlive-fonts-recommended-doc",
    "texlive-science-doc",
]
MAX_FILE_BYTES = 6 << 20
# Where PACKAGES put their PDFs. Other scripts unpack more packages into the
# same tree (bench_pdf_structure.py: r-doc-pdf, python-reportlab-doc), which
# would change which files the every-k-th pick below takes.
DOCS = Path("usr/share/doc/texlive-doc")
WORD = re.compile(r"\w+", re.UNICODE)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cache_dir() -> Path:
    return Path(os.environ.get("KB_CACHE_DIR") or Path.home() / ".cache" / "kb") / "bench-pdf"


def fetch(packages: list[str]) -> Path:
    root = cache_dir()
    debs = root / "debs"
    tree = root / "tree"
    debs.mkdir(parents=True, exist_ok=True)
    tree.mkdir(parents=True, exist_ok=True)
    for pkg in packages:
        marker = tree / f".{pkg}.done"
        if marker.exists():
            continue
        log(f"apt-get download {pkg}")
        subprocess.run(["apt-get", "download", pkg], cwd=debs, check=True,
                       stdout=subprocess.DEVNULL)
        deb = sorted(debs.glob(f"{pkg}_*.deb"))[-1]
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True)
        marker.touch()
    return tree


def pdf_files(tree: Path, limit: int) -> list[Path]:
    files = sorted(p for p in tree.rglob("*.pdf") if p.is_file() and not p.is_symlink()
                   and p.stat().st_size <= MAX_FILE_BYTES)
    if limit and len(files) > limit:
        # Every k-th file: a spread over all packages, the same each run.
        step = len(files) / limit
        files = [files[int(i * step)] for i in range(limit)]
    return files


def kb_options(pdfium: str, ocr: str, tesseract: str | None) -> str:
    return json.dumps({"pdfium": pdfium, "ocr": ocr, "ocr_languages": "eng",
                       "tesseract": tesseract})


WANTED_OCR = []


def kb_read(kb: str, path: Path, options: str, timeout: float) -> tuple[list[str] | None, str, float]:
    """Pages' text by kb's extractor (None if refused), the reason, seconds.
    Pages that `enable_ocr: auto` would OCR (no text, or an unreadable text
    layer) are counted in WANTED_OCR as (file, page, had text)."""
    t = time.perf_counter()
    try:
        out = subprocess.run([kb, "__extract-pdf", str(path), "--options", options],
                             capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout", time.perf_counter() - t
    dt = time.perf_counter() - t
    try:
        result = json.loads(out.stdout)
    except ValueError:
        return None, f"crashed ({out.returncode})", dt
    if "Err" in result:
        return None, result["Err"], dt
    pages = [dehyphenate("\n".join(l["text"] for l in p["lines"]))
             for p in result["Ok"]["pages"]]
    for n, (p, text) in enumerate(zip(result["Ok"]["pages"], pages), 1):
        if p.get("ocr_error"):
            WANTED_OCR.append((str(path), n, any(c.isalnum() for c in text)))
    return pages, "", dt


def dehyphenate(text: str) -> str:
    """A word hyphenated at a line end joined again, as pdftotext does (and
    as kb does when it joins a page's lines into paragraphs)."""
    return re.sub(r"(\w)-\n(\w)", r"\1\2", text)


def poppler_read(path: Path, timeout: float) -> tuple[list[str] | None, float]:
    t = time.perf_counter()
    try:
        out = subprocess.run(["pdftotext", "-q", str(path), "-"], capture_output=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t
    dt = time.perf_counter() - t
    if out.returncode != 0:
        return None, dt
    text = out.stdout.decode("utf-8", "replace")
    pages = text.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()
    return pages, dt


def words(text: str) -> collections.Counter:
    # NFKC: presentation forms and ligatures count as the letters they draw.
    text = unicodedata.normalize("NFKC", text)
    return collections.Counter(w.lower() for w in WORD.findall(text))


def word_pairs(text: str) -> collections.Counter:
    """Consecutive words in reading order."""
    ws = [w.lower() for w in WORD.findall(unicodedata.normalize("NFKC", text))]
    return collections.Counter(zip(ws, ws[1:]))


def overlap(truth: collections.Counter, got: collections.Counter) -> int:
    return sum(min(n, got[w]) for w, n in truth.items())


def longer_words(c: collections.Counter) -> collections.Counter:
    """Words of two or more characters: letter-spaced type ("T A B L E")
    and math are single letters in pdftotext's text, which a reader that
    joins them into words would otherwise be counted as missing."""
    return collections.Counter({w: n for w, n in c.items() if len(w) > 1})


def characters(text: str) -> collections.Counter:
    """Letters and digits (NFKC, lower case): what a page holds however its
    words are cut, so a reader that joins pdftotext's split letters
    ("i n t e m p e s t i f s", "C OMMAND") loses nothing here."""
    text = unicodedata.normalize("NFKC", text).lower()
    return collections.Counter(c for c in text if c.isalnum())


def read_part(args, pdfium: str) -> dict:
    if args.pdfs:
        tree = Path(args.pdfs)
        files = pdf_files(tree, args.max_files)
        log(f"{len(files)} PDFs from {tree}")
    else:
        tree = fetch(PACKAGES)
        files = pdf_files(tree / DOCS, args.max_files)
        log(f"{len(files)} PDFs from {', '.join(PACKAGES)}")
    # OCR "auto" without an engine: pages that would be OCR'd are only marked.
    opts = kb_options(pdfium, "auto", None)
    WANTED_OCR.clear()
    both = kb_only = pop_only = neither = 0
    kb_time = pop_time = 0.0
    kb_pages_read = pop_pages_read = 0
    hit = total = 0
    long_hit = long_total = 0
    pair_hit = pair_total = 0
    char_hit = char_total = 0
    per_file = []
    file_counts = {}
    per_file_pairs = []
    refused = []
    for i, f in enumerate(files):
        kb_pages, why, kdt = kb_read(args.kb, f, opts, args.timeout)
        pop_pages, pdt = poppler_read(f, args.timeout)
        if kb_pages is not None:
            kb_time += kdt
            kb_pages_read += len(kb_pages)
        if pop_pages is not None:
            pop_time += pdt
            pop_pages_read += len(pop_pages)
        if kb_pages is not None and pop_pages is not None:
            both += 1
            fh = ft = ph = pt = ch = ct = 0
            for kp, pp in zip(kb_pages, pop_pages):
                truth, got = words(pp), words(kp)
                fh += overlap(truth, got)
                ft += sum(truth.values())
                truth = longer_words(truth)
                long_hit += overlap(truth, got)
                long_total += sum(truth.values())
                truth = characters(pp)
                ch += overlap(truth, characters(kp))
                ct += sum(truth.values())
                truth = word_pairs(pp)
                ph += overlap(truth, word_pairs(kp))
                pt += sum(truth.values())
            hit += fh
            total += ft
            pair_hit += ph
            pair_total += pt
            char_hit += ch
            char_total += ct
            file_counts[str(f.relative_to(tree))] = [fh, ft, ph, pt, ch, ct]
            if ft:
                per_file.append((fh / ft, ft, str(f.relative_to(tree))))
            if pt:
                per_file_pairs.append((ph / pt, pt, str(f.relative_to(tree))))
        elif pop_pages is not None:
            pop_only += 1
            refused.append((str(f.relative_to(tree)), why))
        elif kb_pages is not None:
            kb_only += 1
        else:
            neither += 1
        if (i + 1) % 50 == 0:
            log(f"  {i + 1}/{len(files)}: recall so far {hit / max(total, 1):.4f}")
    per_file.sort()
    per_file_pairs.sort()
    if args.per_file:
        # [words found, words, pairs found, pairs, characters found,
        # characters] per file: two builds' files compared one by one.
        Path(args.per_file).write_text(json.dumps(file_counts, indent=0))
    return {
        "files": len(files),
        "read_by_both": both,
        "read_by_pdftotext_only": pop_only,
        "read_by_kb_only": kb_only,
        "read_by_neither": neither,
        "kb_refused": refused,
        "kb_pages": kb_pages_read,
        "kb_seconds": round(kb_time, 2),
        "kb_pages_per_s": round(kb_pages_read / kb_time, 1) if kb_time else None,
        "pdftotext_pages": pop_pages_read,
        "pdftotext_seconds": round(pop_time, 2),
        "pdftotext_pages_per_s": round(pop_pages_read / pop_time, 1) if pop_time else None,
        "word_recall": round(hit / total, 4) if total else None,
        "word_recall_two_or_more_characters": round(long_hit / long_total, 4)
        if long_total else None,
        "character_recall": round(char_hit / char_total, 4) if char_total else None,
        "pages_auto_would_ocr": len(WANTED_OCR),
        "of_them_with_a_text_layer_judged_garbage": [
            (f, n) for f, n, had_text in WANTED_OCR if had_text][:20],
        "words_compared": total,
        "files_below_0.95": sum(1 for r, _, _ in per_file if r < 0.95),
        "worst_files": [(round(r, 3), n, p) for r, n, p in per_file[:8]],
        "word_pair_recall": round(pair_hit / pair_total, 4) if pair_total else None,
        "worst_files_by_word_pairs": [(round(r, 3), n, p) for r, n, p in per_file_pairs[:8]],
    }


def levenshtein(a: str, b: str) -> int:
    try:
        from rapidfuzz.distance import Levenshtein
        return Levenshtein.distance(a, b)
    except ImportError:
        pass
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def word_matched_accuracy(got: str, truth: str) -> float:
    """Character accuracy that does not depend on reading order or on how
    the page is cut into lines (pdftotext puts each table cell on a line
    of its own, Tesseract a whole row): the words of each side (NFKC,
    hyphenated line ends joined) are matched exactly where they can be,
    each remaining truth word to the closest remaining recognised word;
    the errors are the edit distances of those pairs plus the characters
    of words left over on either side, over the characters of the truth."""
    def split(text):
        text = unicodedata.normalize("NFKC", re.sub(r"(\w)-\n(\w)", r"\1\2", text))
        return text.split()
    g, t = collections.Counter(split(got)), collections.Counter(split(truth))
    total = sum(len(w) * n for w, n in t.items())
    if not total:
        return 0.0
    exact = g & t
    rest_g = list((g - exact).elements())
    rest_t = sorted((t - exact).elements(), key=len, reverse=True)
    errors = 0
    for w in rest_t:
        if not rest_g:
            errors += len(w)
            continue
        k, d = min(((k, levenshtein(w, c)) for k, c in enumerate(rest_g)), key=lambda x: x[1])
        if d < len(w):
            errors += d
            rest_g.pop(k)
        else:
            errors += len(w)
    errors += sum(len(c) for c in rest_g)
    return max(0.0, 1 - errors / total)


def norm(text: str) -> str:
    # Hyphens at line ends rejoined, ligature-free, spaces collapsed.
    text = re.sub(r"-\n(\w)", r"\1", text)
    return " ".join(text.split())


def ocr_part(args, pdfium: str) -> dict:
    tesseract = shutil.which("tesseract")
    if not tesseract:
        return {"error": "tesseract not installed"}
    tree = fetch(PACKAGES)
    files = pdf_files(tree / DOCS, 0)
    opts_ocr = kb_options(pdfium, "auto", tesseract)
    work = Path(tempfile.mkdtemp(prefix="kb-ocr-bench-"))
    accuracies = []
    strict_accuracies = []
    seconds = []
    pages_done = 0
    step = max(1, len(files) // 200)
    try:
        for f in files[::step]:
            if pages_done >= args.ocr_pages:
                break
            pop_pages, _ = poppler_read(f, args.timeout)
            if not pop_pages:
                continue
            # Pages of plain prose in Latin script (the OCR language is
            # English): enough text, few symbols.
            for n, truth in enumerate(pop_pages[:3], 1):
                t = norm(truth)
                letters = [c for c in t if c.isalpha()]
                if len(t) < 800 or sum(c.isalpha() or c == " " for c in t) < 0.9 * len(t):
                    continue
                if sum(ord(c) < 0x250 for c in letters) < 0.98 * len(letters):
                    continue
                png = work / "page"
                subprocess.run(["pdftoppm", "-r", "300", "-gray", "-png", "-f", str(n), "-l",
                                str(n), "-singlefile", str(f), str(png)], check=True)
                scan = work / "scan.pdf"
                subprocess.run(["img2pdf", str(png) + ".png", "-o", str(scan)], check=True,
                               stderr=subprocess.DEVNULL)
                got, why, dt = kb_read(args.kb, scan, opts_ocr, args.timeout * 4)
                if got is None:
                    log(f"  {f.name} p.{n}: kb refused: {why}")
                    continue
                g = norm(got[0])
                strict = max(0.0, 1 - levenshtein(g, t) / len(t))
                acc = word_matched_accuracy(got[0], truth)
                accuracies.append(acc)
                strict_accuracies.append(strict)
                seconds.append(dt)
                pages_done += 1
                log(f"  {f.name} p.{n}: accuracy {acc:.4f} word-matched, {strict:.4f} "
                    f"in pdftotext's order, {dt:.2f} s")
                if pages_done >= args.ocr_pages:
                    break
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "pages": len(accuracies),
        "char_accuracy_mean": round(statistics.mean(accuracies), 4) if accuracies else None,
        "char_accuracy_median": round(statistics.median(accuracies), 4) if accuracies else None,
        "char_accuracy_min": round(min(accuracies), 4) if accuracies else None,
        "char_accuracy_in_pdftotext_order_median":
            round(statistics.median(strict_accuracies), 4) if strict_accuracies else None,
        "seconds_per_page_median": round(statistics.median(seconds), 2) if seconds else None,
        "tesseract": subprocess.run([tesseract, "--version"], capture_output=True,
                                    text=True).stdout.splitlines()[0],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", default="target/release/kb", help="the kb binary")
    ap.add_argument("--part", choices=["read", "ocr", "both"], default="both")
    ap.add_argument("--max-files", type=int, default=600, help="0 = every PDF")
    ap.add_argument("--ocr-pages", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--pdfs", metavar="DIR",
                    help="read the PDFs under DIR instead of the packages' (read part)")
    ap.add_argument("--per-file", metavar="FILE",
                    help="write each file's word and pair counts as JSON to FILE")
    args = ap.parse_args()
    for tool in ["pdftotext", "pdftoppm", "img2pdf"]:
        if not shutil.which(tool):
            log(f"{tool} is missing: apt install poppler-utils img2pdf")
            return 1
    pdfium = os.environ.get("PDFIUM_DYNAMIC_LIB_PATH") or str(
        Path(os.environ.get("KB_CACHE_DIR") or Path.home() / ".cache" / "kb")
        / "pdfium" / "libpdfium.so")
    report = {"machine": f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"}
    if args.part in ("read", "both"):
        report["read"] = read_part(args, pdfium)
    if args.part in ("ocr", "both"):
        report["ocr"] = ocr_part(args, pdfium)
    report["load_after"] = round(os.getloadavg()[0], 1)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
