#!/usr/bin/env python3
"""Plain BM25 over PDF pages: the baseline beside kb for a FinanceBench-layout
set (questions.jsonl + pdfs/), such as the manuals set.

    scripts/bm25_pages.py DATASET_DIR [--dump FILE]

Every page of every PDF in DATASET_DIR/pdfs is one document: its text is
`pdftotext` (poppler, default reading order, no -layout) of the whole PDF split
at form feeds, so page N is what `pdftotext -f N -l N` gives. Tokens: the text
lowercased, split into runs of word characters (Python's \\w+); no stemming,
no stop words. Okapi BM25 with k1 = 1.2, b = 0.75 and the non-negative idf
ln(1 + (N - df + 0.5) / (df + 0.5)); each distinct query word counts once.

Scored as kb-eval scores kb: for each question, the first of the top 10
pages that is from the question's PDF (`doc_name`) and is an evidence page;
page hit@1/@5/@10, MRR@10, and doc@10 (a top-10 page from the right PDF).
Rows: all questions, the fit and check halves (the parity of the 64-bit
FNV-1a hash of `doc_name`, even = fit, as kb-eval's halves.rs), and the
questions with `names_document: false` (those that name neither the
document nor its program), when the set marks them.
"""
import argparse
import json
import math
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

K1, B = 1.2, 0.75
WORD = re.compile(r"\w+")


def fnv1a_64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def half(doc_name: str) -> str:
    return "fit" if fnv1a_64(doc_name.encode()) % 2 == 0 else "check"


def tokens(text: str) -> list[str]:
    return WORD.findall(text.lower())


def pdf_pages(pdf: Path) -> list[str]:
    out = subprocess.run(["pdftotext", "-q", str(pdf), "-"], capture_output=True, check=True)
    pages = out.stdout.decode("utf-8", "replace").split("\f")
    if pages and not pages[-1].strip():
        pages.pop()  # pdftotext ends every page with a form feed
    return pages


class Index:
    def __init__(self, docs: list[tuple[str, int, list[str]]]):
        self.keys = [(name, page) for name, page, _ in docs]
        self.lengths = [len(toks) for _, _, toks in docs]
        self.avgdl = sum(self.lengths) / max(1, len(docs))
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, (_, _, toks) in enumerate(docs):
            for term, tf in Counter(toks).items():
                self.postings.setdefault(term, []).append((i, tf))
        n = len(docs)
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}

    def search(self, query: str, k: int = 10) -> list[tuple[str, int, float]]:
        scores: dict[int, float] = {}
        for term in set(tokens(query)):
            for i, tf in self.postings.get(term, ()):
                norm = K1 * (1 - B + B * self.lengths[i] / self.avgdl)
                scores[i] = scores.get(i, 0.0) + self.idf[term] * tf * (K1 + 1) / (tf + norm)
        top = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return [(*self.keys[i], s) for i, s in top]


def row(name: str, outcomes: list[tuple[int | None, bool]]) -> str:
    n = max(1, len(outcomes))
    hit = lambda k: sum(1 for r, _ in outcomes if r is not None and r < k) / n  # noqa: E731
    mrr = sum(1 / (r + 1) for r, _ in outcomes if r is not None and r < 10) / n
    doc = sum(1 for _, d in outcomes if d) / n
    return f"| bm25-pages | {name} | {len(outcomes)} | {hit(1):.3f} | {hit(5):.3f} | {hit(10):.3f} | {mrr:.3f} | {doc:.3f} |"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", type=Path)
    ap.add_argument("--dump", type=Path, help="write each question's top 10 pages as JSON lines")
    args = ap.parse_args()
    pdfs = sorted((args.dataset / "pdfs").glob("*.pdf"))
    docs = []
    for pdf in pdfs:
        for n, text in enumerate(pdf_pages(pdf), 1):
            docs.append((pdf.stem, n, tokens(text)))
    index = Index(docs)
    questions = [json.loads(l) for l in open(args.dataset / "questions.jsonl") if l.strip()]
    rows: dict[str, list] = {"all": [], "fit": [], "check": [], "not naming": []}
    dump = []
    for q in questions:
        hits = index.search(q["question"], 10)
        first = next((i for i, (d, p, _) in enumerate(hits) if d == q["doc_name"] and p in q["evidence_pages"]), None)
        o = (first, any(d == q["doc_name"] for d, _, _ in hits))
        rows["all"].append(o)
        rows[half(q["doc_name"])].append(o)
        if q.get("names_document") is False:
            rows["not naming"].append(o)
        dump.append({"id": q.get("id"), "doc_name": q["doc_name"], "evidence_pages": q["evidence_pages"],
                     "first": first, "hits": [[d, p, round(s, 3)] for d, p, s in hits]})
    print("| ranker | questions | n | hit@1 | hit@5 | hit@10 | MRR@10 | doc@10 |")
    print("|--------|-----------|--:|------:|------:|-------:|-------:|-------:|")
    for name, outcomes in rows.items():
        if outcomes:
            print(row(name, outcomes))
    print(f"\nBM25 (k1={K1}, b={B}, \\w+ lowercase tokens, no stemming) over {len(docs)} pages of "
          f"{len(pdfs)} PDFs in {args.dataset}; {len(questions)} questions.")
    if args.dump:
        args.dump.write_text("".join(json.dumps(d) + "\n" for d in dump))
    return 0


if __name__ == "__main__":
    sys.exit(main())
