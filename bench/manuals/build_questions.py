#!/usr/bin/env python3
"""Build bench/manuals/questions.jsonl from questions_src.py, checking every
evidence page with pdftotext.

    bench/manuals/build_questions.py DATASET_DIR   # the folder with pdfs/

For each question, the `check` phrase must be on every listed evidence page
(pdftotext text of that one page, lowercased, whitespace collapsed; either the
-layout or the raw reading). Pages of the same PDF where the phrase also
occurs are printed, so that every page that answers can be listed. Exits
non-zero when a check fails.
"""
import csv
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from questions_src import Q  # noqa: E402


def page_texts(pdf: Path, layout: bool) -> list[str]:
    args = ["pdftotext", "-q"] + (["-layout"] if layout else []) + [str(pdf), "-"]
    out = subprocess.run(args, capture_output=True, check=True).stdout.decode("utf-8", "replace")
    pages = out.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()
    return pages


def norm(text: str) -> str:
    return " ".join(text.lower().split())


def main() -> int:
    dataset = Path(sys.argv[1])
    packages = {r["name"]: r["package"] for r in csv.DictReader(open(HERE / "manifest.tsv"), delimiter="\t")}
    cache: dict[str, tuple[list[str], list[str]]] = {}
    failed = 0
    counts: dict[str, int] = {}
    lines = []
    for doc, names, question, answer, pages, check in Q:
        if doc not in cache:
            pdf = dataset / "pdfs" / f"{doc}.pdf"
            cache[doc] = ([norm(t) for t in page_texts(pdf, True)], [norm(t) for t in page_texts(pdf, False)])
        layout, raw = cache[doc]
        pat = re.compile(check)
        hits = [i + 1 for i in range(len(raw)) if pat.search(raw[i]) or pat.search(layout[i])]
        evidence = []
        for p in pages:
            if p not in hits:
                print(f"FAIL {doc} p.{p}: /{check}/ not on the page ({question})")
                failed += 1
                continue
            m = pat.search(raw[p - 1]) or pat.search(layout[p - 1])
            text = raw[p - 1] if pat.search(raw[p - 1]) else layout[p - 1]
            evidence.append(text[max(0, m.start() - 300): m.end() + 300])
        others = [p for p in hits if p not in pages]
        if others:
            print(f"note {doc}: /{check}/ also on pages {others} (listed {pages})")
        counts[doc] = counts.get(doc, 0) + 1
        lines.append({
            "id": f"manuals-{doc}-{counts[doc]:02d}",
            "company": packages[doc],
            "doc_name": doc,
            "question": question,
            "answer": answer,
            "names_document": names,
            "evidence_pages": pages,
            "evidence_text": evidence,
        })
    out = HERE / "questions.jsonl"
    with open(out, "w") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    print(f"{len(lines)} questions ({sum(not l['names_document'] for l in lines)} not naming their document) -> {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
