#!/usr/bin/env python3
"""PDF structure benchmark: kb's inferred headings against the PDF's own
outline. PDFs with bookmarks (FinanceBench filings, Debian documentation
packages) are copied without their bookmarks (`qpdf --empty --pages`), kb
reads the copies, and its headings are scored against the original
bookmarks.

    scripts/bench_pdf_structure.py --kb-eval target/release/kb-eval \\
        --financebench ../shared/eval/financebench-dev --max-files 40

Needs qpdf and pdftotext (Debian: qpdf, poppler-utils), pdfium
(scripts/prepare_pdf.sh) and the model's tokenizer (`--model-dir`, or what
`kb init` would choose). The Debian packages are fetched with
`apt-get download` into $KB_CACHE_DIR/bench-pdf, as scripts/bench_pdf.py
does; nothing is installed. `kb-eval pdf-structure` prints what kb makes
of each PDF (the same parser `kb add` runs).

Reported:
- outline kept: files whose kb headings equal their bookmarks (title's
  letters and digits, level, page) when read with the bookmarks;
- inferred (bookmarks stripped): heading precision and recall of titles
  (letters and digits compared, leading numbering ignored; then, for the
  bookmarks left, a nearly equal title within a page: see `score`).
  Precision counts the headings the outline reaches: a heading kb nests
  under a bookmark without children is beyond it (`beyond_outline`), and
  is reported, with the precision over all headings beside it, and
  listed in `--details` for a hand check (with the bookmarks missed). Level
  agreement of matched headings (under the best order-keeping
  correspondence of kb's levels to the outline's; also by the rank of
  each level among the levels used on each side, where one extra level
  shifts every heading under it), page agreement; pooled over all
  headings, and the mean over files;
- titles: FinanceBench filings whose title names the company, whose
  embedded title (the context header's) names company and year; titles
  that are cover boilerplate;
- running headers (a line among the top or bottom two of a page, digits
  aside, at the same height on at least three pages, by pdftotext)
  reaching a heading more than once, and the section chains holding such
  a heading (target 0), with and without the bookmarks (a bookmark's own
  title is not counted);
- words split by a stray space: `X Y` in kb's text where pdftotext's page
  has `XY` and not both `X` and `Y`.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_pdf  # noqa: E402  (fetch, cache_dir, log)

PACKAGES = bench_pdf.PACKAGES + ["r-doc-pdf", "python-reportlab-doc"]
MAX_FILE_BYTES = 6 << 20
MAX_PAGES = 400
BOILERPLATE = {
    "document", "formk", "form10k", "form10q", "form8k",
    "unitedstatessecuritiesandexchangecommission", "securitiesandexchangecommission",
    "documentsincorporatedbyreference", "forimmediaterelease", "tableofcontents",
    "contents", "untitled", "pressrelease", "newsrelease",
}
log = bench_pdf.log


def key(t: str) -> str:
    """Letters and digits, lower case, accents dropped (a Greek heading set
    in capitals drops them) and compatibility forms folded (NFKD)."""
    t = unicodedata.normalize("NFKD", t.lower())
    return "".join(c for c in t if c.isalnum() and not unicodedata.combining(c))


NUMBERING = re.compile(
    r"^\s*(§\s*)?(?:(?:chapter|part|section|item|appendix|附录|chapitre|partie|annexe|kapitel"
    r"|teil|anhang|capitolo|parte|appendice|capítulo|apéndice|apêndice|anexo|hoofdstuk"
    r"|deel|bijlage)\s*[0-9a-z]+[.):]?\s+"
    r"|(?:[0-9ivxlc]+[.)]?|[a-z][.)]|[0-9a-z]+(?:\.[0-9]+)+\.?)\s+)"
    r"|^\s*第\s*[0-9一二三四五六七八九十百零〇]+\s*[章节節部篇]\s*"
    r"|^\s*(?:(?:ال)?فصل|پیوست)\s+\S+\s+"
    r"|^\s*(?:[−.-]*[٠-٩۰-۹]+[−.-]*\s+)+",
    re.IGNORECASE)


def title_key(t: str) -> str:
    """A heading's letters and digits without its leading numbering
    (`2.3`, `Chapter 3`, `Item 7.`, `第一章`, `فصل اول`, `۱-۱` as a
    right-to-left line reads it out, `−۱ ۱`)."""
    k = key(NUMBERING.sub("", t, count=1))
    return k or key(t)


def outline(path: Path) -> list[tuple[str, int, int]] | None:
    """The bookmarks as (title, level, page), depth first."""
    out = subprocess.run(["qpdf", "--json=2", "--json-key=outlines", str(path)],
                         capture_output=True, timeout=120)
    if out.returncode not in (0, 3):
        return None
    try:
        items = json.loads(out.stdout)["outlines"]
    except (ValueError, KeyError):
        return None
    flat: list[tuple[str, int, int]] = []

    def walk(nodes, level):
        for n in nodes:
            page = n.get("destpageposfrom1")
            title = " ".join((n.get("title") or "").split())
            if page and title:
                flat.append((title, level, int(page)))
            walk(n.get("kids") or [], level + 1)

    walk(items, 1)
    return flat


def page_count(path: Path) -> int:
    out = subprocess.run(["qpdf", "--show-npages", str(path)], capture_output=True, timeout=60)
    try:
        return int(out.stdout.strip())
    except ValueError:
        return 0


def strip(path: Path, dest: Path) -> bool:
    if dest.exists():
        return True
    dest.parent.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(["qpdf", "--empty", "--pages", str(path), "--", str(dest)],
                         capture_output=True, timeout=300)
    return out.returncode in (0, 3) and dest.exists()


def pdftotext_pages(path: Path) -> list[str]:
    out = subprocess.run(["pdftotext", "-q", str(path), "-"], capture_output=True, timeout=300)
    pages = out.stdout.decode("utf-8", "replace").split("\f")
    if pages and not pages[-1].strip():
        pages.pop()
    return pages


def running_lines(path: Path) -> dict[str, set[int]]:
    """Running lines: text (digits aside) among the top two or bottom two
    lines of at least three pages at the same height there, within two
    points (a chapter's running header tops only its chapter's pages), by
    pdftotext's line boxes; each with the pages where it runs. Digits
    aside only where they count pages: the same text on two of those
    pages, or a number that keeps step with the page on three ("Page 7",
    "Form 10-K 45"); "APPENDIX 2" atop its first page, "APPENDIX 3" atop
    its, is a title, not a running line. A heading repeated down the page
    ("Notes" over each country's terms) is not one, nor is the same text
    elsewhere (a company's name on the cover of a filing whose statements
    it heads)."""
    out = subprocess.run(["pdftotext", "-q", "-bbox-layout", str(path), "-"],
                         capture_output=True, timeout=300)
    xml = out.stdout.decode("utf-8", "replace")
    # (text with digits masked, height) -> {page: text}
    placed: dict[tuple[str, int], dict[int, str]] = collections.defaultdict(dict)
    for number, page in enumerate(xml.split("<page ")[1:], start=1):
        lines = []
        for m in re.finditer(r'<line xMin="[^"]*" yMin="([^"]*)"[^>]*>(.*?)</line>', page, re.S):
            words = re.findall(r"<word[^>]*>(.*?)</word>", m.group(2), re.S)
            text = html.unescape(" ".join(words))
            lines.append((float(m.group(1)), key(text)))
        lines.sort()
        for y, k in lines[:2] + lines[-2:]:
            placed[(re.sub(r"\d", "#", k), round(y / 2))][number] = k

    def counts_pages(at: dict[int, str]) -> bool:
        if max(collections.Counter(at.values()).values()) >= 2:
            return True
        numbers = {p: [int(n) for n in re.findall(r"\d+", t)] for p, t in at.items()}
        width = min(len(n) for n in numbers.values())
        return any(max(collections.Counter(n[j] - p for p, n in numbers.items()).values()) >= 3
                   for j in range(width))

    run: dict[str, set[int]] = collections.defaultdict(set)
    for (k, h), at in list(placed.items()):
        near = {**placed.get((k, h - 1), {}), **placed.get((k, h + 1), {}), **at}
        if len(near) >= 3 and any(c.isalpha() for c in k) and counts_pages(near):
            run[k] |= set(near)
    return run


def split_words(kb_pages: list[str], pop_pages: list[str]) -> tuple[int, int, list[str]]:
    split, total, examples = 0, 0, []
    for mine, theirs in zip(kb_pages, pop_pages):
        truth = {w.lower() for w in re.findall(r"\w+", theirs)}
        toks = [w.lower() for w in re.findall(r"\w+", mine)]
        total += len(toks)
        for a, b in zip(toks, toks[1:]):
            ab = a + b
            if len(ab) >= 4 and ab in truth and not (a in truth and b in truth):
                split += 1
                if len(examples) < 10:
                    examples.append(f"{a} {b}")
    return split, total, examples


def count_running(d: dict, run: dict[str, set[int]], name: str, out: dict,
                  outline_titles: frozenset = frozenset()) -> None:
    """Headings that repeat a running line on a page where it runs (every
    one after the first: a chapter's title may be its running header too),
    and the section chains holding such a repeated heading. A bookmark's
    title is the author's heading, not a running line kb took for one."""
    rk = lambda s: re.sub(r"\d", "#", key(s))  # noqa: E731
    seen: collections.Counter = collections.Counter()
    repeated = set()
    for h in d.get("headings", []):
        k = rk(h[0])
        if h[2] in run.get(k, ()) and key(h[0]) not in outline_titles:
            seen[k] += 1
            if seen[k] > 1:
                repeated.add(k)
                out["headings"] += 1
                if len(out["examples"]) < 10:
                    out["examples"].append(f"{name}: heading {h[0]!r}")
    for s in d.get("sections", []):
        if any(rk(part) in repeated for part in s.split(" > ")):
            out["chains"] += 1
            if len(out["examples"]) < 10:
                out["examples"].append(f"{name}: chain {s!r}")


def kb_structure(kb_eval: str, model_dir: str | None, files: list[Path]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for i in range(0, len(files), 20):
        batch = files[i:i + 20]
        cmd = [kb_eval, "pdf-structure", *map(str, batch)]
        if model_dir:
            cmd += ["--model-dir", model_dir]
        res = subprocess.run(cmd, capture_output=True, timeout=3600)
        for line in res.stdout.decode("utf-8", "replace").splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            out[d["path"]] = d
        log(f"  kb read {min(i + 20, len(files))}/{len(files)}")
    return out


def digits(t: str) -> str:
    return "".join(c for c in t if c.isdigit())


def score(bookmarks, headings):
    """Matched (bookmark index, heading index) pairs, and how many of them
    the second pass matched. First by title, nearest page first. Then, for
    the bookmarks left, a heading within a page whose title is nearly the
    same (difflib ratio 0.8 or more) and whose digits hold the other's: a
    font whose glyphs map to no character drops letters from the page's
    text that the bookmark has ("Εντοές" for "Εντολές": pdftotext reads the
    same), a filer's bookmark shortens its heading ("Financial Performance
    Summary" over "... for Fiscal 2016"). "Exhibit 21" never matches
    "Exhibit 10.40"."""
    free = list(range(len(headings)))
    pairs = []
    left = []
    for bi, bm in enumerate(bookmarks):
        k = title_key(bm[0])
        cands = [i for i in free if title_key(headings[i][0]) == k]
        if not cands:
            left.append(bi)
            continue
        best = min(cands, key=lambda i: abs(headings[i][2] - bm[2]))
        free.remove(best)
        pairs.append((bi, best))
    near = 0
    for bi in left:
        bm = bookmarks[bi]
        k = title_key(bm[0])
        cands = []
        for i in free:
            if abs(headings[i][2] - bm[2]) > 1:
                continue
            h = title_key(headings[i][0])
            short, long_ = sorted((digits(k), digits(h)), key=len)
            ratio = difflib.SequenceMatcher(None, k, h).ratio()
            if ratio >= 0.8 and short in long_:
                cands.append((ratio, -abs(headings[i][2] - bm[2]), i))
        if cands:
            i = max(cands)[2]
            free.remove(i)
            pairs.append((bi, i))
            near += 1
    pairs.sort(key=lambda p: p[1])
    return pairs, near


def beyond_outline(bookmarks, headings, pairs) -> set[int]:
    """The headings the outline does not reach: those kb nests (by its own
    levels) under a heading matched to a bookmark without children. An
    outline that stops at a section says nothing of the section's
    sub-headings (a filing's bookmarks name its items, not the headings
    inside them; a TeX outline stops at its depth), so they are neither
    right nor wrong against it. A heading kb sets at the bookmark's level
    or above is its sibling, which the outline does judge."""
    matched = {hi: bi for bi, hi in pairs}
    leaf = [i + 1 >= len(bookmarks) or bookmarks[i + 1][1] <= b[1]
            for i, b in enumerate(bookmarks)]
    out: set[int] = set()
    stack: list[tuple[int, int]] = []
    for i, h in enumerate(headings):
        while stack and stack[-1][0] >= h[1]:
            stack.pop()
        owner = next((hi for _, hi in reversed(stack) if hi in matched), None)
        if i not in matched and owner is not None and leaf[matched[owner]]:
            out.add(i)
        stack.append((h[1], i))
    return out


def fnv1a_64(name: str) -> int:
    """64-bit FNV-1a of the UTF-8 bytes: kb-eval's and kb-dev's halves."""
    h = 0xCBF29CE484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001B3) % (1 << 64)
    return h


def ranks(levels):
    order = sorted(set(levels))
    return {l: i for i, l in enumerate(order)}


def aligned_levels(pairs) -> int:
    """Matched headings whose levels agree under the best order-keeping
    correspondence of kb's levels to the outline's (each level to at most
    one): an extra level on one side (a cover line above the chapters)
    costs its own headings, not every heading below it."""
    kl = sorted({h[1] for _, h in pairs})
    bl = sorted({b[1] for b, _ in pairs})
    w = collections.Counter((h[1], b[1]) for b, h in pairs)
    best = [[0] * (len(bl) + 1) for _ in range(len(kl) + 1)]
    for i in range(1, len(kl) + 1):
        for j in range(1, len(bl) + 1):
            best[i][j] = max(best[i - 1][j], best[i][j - 1],
                             best[i - 1][j - 1] + w[(kl[i - 1], bl[j - 1])])
    return best[len(kl)][len(bl)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb-eval", default="target/release/kb-eval")
    ap.add_argument("--model-dir", default=os.environ.get("KB_MODEL_DIR_INT8"))
    ap.add_argument("--financebench", type=Path, help="a FinanceBench dataset folder (pdfs/)")
    ap.add_argument("--max-files", type=int, default=40, help="Debian PDFs with bookmarks")
    ap.add_argument("--min-bookmarks", type=int, default=5)
    ap.add_argument("--details", type=Path, help="write each file's scores as JSON here")
    ap.add_argument("--pdfs", type=Path, action="append",
                    help="read the PDFs under this folder instead of the Debian packages")
    ap.add_argument("--half", choices=["all", "fit", "check"], default="all",
                    help="only the files of this half (the parity of the FNV-1a hash of "
                         "the file name, as `cargo dev fit-pdf-rules` splits them)")
    ap.add_argument("--skip-originals", action="store_true",
                    help="score only the copies without bookmarks (no titles, running "
                         "headers or split words)")
    args = ap.parse_args()
    for tool in ["qpdf", "pdftotext"]:
        if not shutil.which(tool):
            log(f"{tool} is missing: apt install qpdf poppler-utils")
            return 1
    root = bench_pdf.cache_dir()
    trees = args.pdfs or [bench_pdf.fetch(PACKAGES)]
    in_half = lambda p: args.half == "all" or (fnv1a_64(p.name) % 2 == 1) == (args.half == "check")
    fin = sorted((args.financebench / "pdfs").glob("*.pdf")) if args.financebench else []
    fin = [p for p in fin if in_half(p)]

    debian = sorted(p for tree in trees for p in tree.rglob("*.pdf") if p.is_file()
                    and not p.is_symlink() and p.stat().st_size <= MAX_FILE_BYTES
                    and in_half(p))
    with_outline: list[tuple[Path, list]] = []
    for p in fin:
        o = outline(p)
        if o and len(o) >= args.min_bookmarks:
            with_outline.append((p, o))
    chosen: list[tuple[Path, list]] = []
    for p in debian:
        o = outline(p)
        if o and len(o) >= args.min_bookmarks and page_count(p) <= MAX_PAGES:
            chosen.append((p, o))
    if args.max_files and len(chosen) > args.max_files:
        step = len(chosen) / args.max_files
        chosen = [chosen[int(i * step)] for i in range(args.max_files)]
    with_outline += chosen
    log(f"{len(with_outline)} PDFs with bookmarks ({len(with_outline) - len(chosen)} filings)")

    stripped_dir = root / "stripped"
    stripped: dict[str, Path] = {}
    for p, _ in with_outline:
        d = stripped_dir / (key(str(p.relative_to(p.anchor)))[-80:] + ".pdf")
        if strip(p, d):
            stripped[str(p)] = d
    originals = [] if args.skip_originals else sorted({p for p, _ in with_outline} | set(fin))
    log("kb reads the originals")
    kb_orig = kb_structure(args.kb_eval, args.model_dir, originals)
    log("kb reads the copies without bookmarks")
    kb_strip = kb_structure(args.kb_eval, args.model_dir, list(stripped.values()))

    details = []
    tot = collections.Counter()
    macro_p, macro_r = [], []
    for p, bms in with_outline:
        orig = kb_orig.get(str(p), {})
        inf = kb_strip.get(str(stripped.get(str(p), "")), {})
        d = {"file": str(p), "bookmarks": len(bms)}
        if "headings" in orig:
            kept = [(key(h[0]), h[1], h[2]) for h in orig["headings"]]
            want = [(key(t), min(l, 6), pg) for t, l, pg in bms]
            d["outline_kept"] = kept == want
            tot["outline_kept"] += kept == want
        if "headings" not in inf:
            d["error"] = inf.get("error", "not read")
            details.append(d)
            continue
        hs = [(h[0], h[1], h[2]) for h in inf["headings"]]
        idx, near = score(bms, hs)
        pairs = [(bms[bi], hs[hi]) for bi, hi in idx]
        beyond = beyond_outline(bms, hs, idx)
        rb = ranks([b[1] for b, _ in pairs])
        rk = ranks([h[1] for _, h in pairs])
        level_ok = sum(rb[b[1]] == rk[h[1]] for b, h in pairs)
        level_aligned = aligned_levels(pairs)
        page_ok = sum(b[2] == h[2] for b, h in pairs)
        d.update(headings=len(hs), matched=len(pairs), matched_near=near,
                 beyond_outline=len(beyond), level_ok=level_ok,
                 level_aligned=level_aligned, page_ok=page_ok)
        d["unmatched"] = [
            {"title": h[0], "level": h[1], "page": h[2], "beyond_outline": i in beyond}
            for i, h in enumerate(hs) if i not in {hi for _, hi in idx}]
        d["missed"] = [
            {"title": b[0], "level": b[1], "page": b[2]}
            for i, b in enumerate(bms) if i not in {bi for bi, _ in idx}]
        tot["files"] += 1
        tot["bookmarks"] += len(bms)
        tot["headings"] += len(hs)
        tot["matched"] += len(pairs)
        tot["matched_near"] += near
        tot["beyond_outline"] += len(beyond)
        tot["level_ok"] += level_ok
        tot["level_aligned"] += level_aligned
        tot["page_ok"] += page_ok
        judged = len(hs) - len(beyond)
        macro_p.append(len(pairs) / judged if judged else 0.0)
        macro_r.append(len(pairs) / len(bms))
        details.append(d)

    # Titles, running headers and split words on every original.
    titles = {"financebench": len(fin), "names_company": 0, "header_names_company_and_year": 0,
              "boilerplate": 0, "file_name_fallback": 0, "files": 0, "examples": []}
    running = {"headings": 0, "chains": 0, "examples": []}
    running_inferred = {"headings": 0, "chains": 0, "examples": []}
    split = {"split": 0, "words": 0, "examples": []}
    for p in originals:
        d = kb_orig.get(str(p))
        if not d or "title" not in d:
            continue
        titles["files"] += 1
        t = d["title"]
        titles["boilerplate"] += key(t) in BOILERPLATE
        titles["file_name_fallback"] += t == p.name
        if p in fin:
            parts = p.stem.split("_")
            company = key(parts[0])
            year = next((x[:4] for x in parts if x[:4].isdigit()), "")
            names = company in key(t)
            header = company in key(d["search_title"]) and year in d["search_title"]
            titles["names_company"] += names
            titles["header_names_company_and_year"] += header
            if not names:
                titles["examples"].append(f"{p.name}: {t!r} -> {d['search_title']!r}")
        pop = pdftotext_pages(p)
        run = running_lines(p)
        count_running(d, run, p.name, running,
                      frozenset(key(t) for t, _, _ in (outline(p) or [])))
        if str(p) in stripped and str(stripped[str(p)]) in kb_strip:
            count_running(kb_strip[str(stripped[str(p)])], run, p.name, running_inferred)
        n, w, ex = split_words(d["pages"], pop)
        split["split"] += n
        split["words"] += w
        split["examples"] += [f"{p.name}: {e}" for e in ex[:2]]
    split["examples"] = split["examples"][:15]
    split["per_10k_words"] = round(1e4 * split["split"] / max(split["words"], 1), 2)

    m = max(tot["matched"], 1)
    report = {
        "files_with_bookmarks": len(with_outline),
        "outline_kept_files": tot["outline_kept"],
        "inferred": {
            "files": tot["files"],
            "bookmarks": tot["bookmarks"],
            "headings": tot["headings"],
            "beyond_outline": tot["beyond_outline"],
            "matched_near": tot["matched_near"],
            "precision": round(tot["matched"] / max(tot["headings"] - tot["beyond_outline"], 1), 3),
            "precision_of_all_headings": round(tot["matched"] / max(tot["headings"], 1), 3),
            "recall": round(tot["matched"] / max(tot["bookmarks"], 1), 3),
            "level_agreement": round(tot["level_aligned"] / m, 3),
            "level_agreement_by_rank": round(tot["level_ok"] / m, 3),
            "page_agreement": round(tot["page_ok"] / m, 3),
            "precision_mean_over_files": round(sum(macro_p) / max(len(macro_p), 1), 3),
            "recall_mean_over_files": round(sum(macro_r) / max(len(macro_r), 1), 3),
        },
        "titles": titles,
        "running_headers_reaching_structure": running,
        "running_headers_reaching_structure_inferred": running_inferred,
        "split_words": split,
    }
    if args.details:
        args.details.write_text(json.dumps(details, indent=1))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
