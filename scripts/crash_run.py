#!/usr/bin/env python3
"""The crash part of kb's reliability campaign, on demand.

Repeats `kill -9` at a random moment of `kb add`, `kb reindex` and
`kb remove` on a mixed folder (Markdown, notes, Python/Bash/Go code, a PDF,
an empty and a binary file), until N processes were really killed. After
each kill it checks the knowledge base as the crash left it:

  * SQLite's `PRAGMA integrity_check` is ok, and `kb status` opens it;
  * `kb doctor` finds no fault: every chunk has its keyword (FTS5) row and
    its vector;
  * no partial document: every document present has all its chunks, the
    same as in an uninterrupted run; a `kb remove` is all or nothing;

then runs the interrupted command again to the end and compares the result
with the uninterrupted run, exactly: the same documents and chunks, every
chunk's vector bit for bit, and the same search results (paths, chunks,
scores and cosines, unrounded) for hybrid, keyword and vector queries. It
uses kb's default model (the int8 copy) at the default batch size: a text's
vector does not depend on what it is batched with, so an interrupted run
that resumes gives the uninterrupted run's index. It prints every try and
the totals, and exits 1 if any try failed.

    scripts/crash_run.py --kills 60 [--seed 1] [--kb target/debug/kb] [--work DIR]

Without --kb it builds kb (`cargo build`, the dev profile). ONNX Runtime and
the model come from scripts/prepare_model.py (PyPI packages, cached under
~/.cache/kb, or $KB_CACHE_DIR). Everything else happens under --work (a
temporary directory by default, kept when a try fails).
"""

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ["how do I install the model offline", "WAL checkpoint", "parse the PDF pages"]


def log(msg):
    print(msg, flush=True)


# --- the mixed folder ---------------------------------------------------------

GO_SOURCE = """package inventory

import (
\t"errors"
\t"sort"
)

// Item is one line of the stock list.
type Item struct {
\tName     string
\tQuantity int
\tPrice    float64
}

// ErrOutOfStock is returned when an order asks for more than is left.
var ErrOutOfStock = errors.New("out of stock")

// Total is the value of every item in stock.
func Total(items []Item) float64 {
\tsum := 0.0
\tfor _, it := range items {
\t\tsum += float64(it.Quantity) * it.Price
\t}
\treturn sum
}

// Take removes n of the named item, refusing to go below zero.
func Take(items []Item, name string, n int) error {
\tfor i := range items {
\t\tif items[i].Name == name {
\t\t\tif items[i].Quantity < n {
\t\t\t\treturn ErrOutOfStock
\t\t\t}
\t\t\titems[i].Quantity -= n
\t\t\treturn nil
\t\t}
\t}
\treturn errors.New("no such item: " + name)
}

// ByValue sorts the most valuable stock first.
func ByValue(items []Item) {
\tsort.Slice(items, func(a, b int) bool {
\t\treturn float64(items[a].Quantity)*items[a].Price > float64(items[b].Quantity)*items[b].Price
\t})
}
"""


PY_SOURCE = '''"""Reading and summarising a CSV of daily temperatures."""

import csv
import statistics
from dataclasses import dataclass


@dataclass
class Reading:
    day: str
    low: float
    high: float

    @property
    def spread(self) -> float:
        """The difference between the day's high and low."""
        return self.high - self.low


def load(path):
    """Reads day,low,high rows, skipping the header and blank lines."""
    with open(path, newline="") as f:
        rows = csv.reader(f)
        next(rows, None)
        return [Reading(r[0], float(r[1]), float(r[2])) for r in rows if r]


def summary(readings):
    """Mean low, mean high and the widest daily spread."""
    if not readings:
        raise ValueError("no readings")
    widest = max(readings, key=lambda r: r.spread)
    return {
        "mean_low": statistics.mean(r.low for r in readings),
        "mean_high": statistics.mean(r.high for r in readings),
        "widest_day": widest.day,
    }
'''


def pdf_bytes(pages):
    """A plain PDF with one text column per page (Helvetica, 11 pt)."""
    objects = []

    def add(body):
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    pages_id = len(objects) + 1 + 2 * len(pages)
    kids = []
    for lines in pages:
        ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
        for line in lines:
            esc = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({esc}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1", "replace")
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
                % (pages_id, font, content)
            )
        )
    assert add(
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    ) == pages_id
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        catalog,
        xref,
    )
    return bytes(out)


def wrap(text, width=90):
    words, lines, line = text.split(), [], ""
    for w in words:
        if len(line) + len(w) + 1 > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    if line:
        lines.append(line)
    return lines


def build_corpus(dest):
    """About 120 chunks of real text: kb's own manuals and scripts, small
    Python and Go modules, a PDF, an empty and a binary file."""
    dest.mkdir(parents=True)
    sections = []
    for name in ["README.md", "ARCHITECTURE.md"]:
        text = (ROOT / name).read_text()
        sections += ["## " + s for s in text.split("\n## ")[1:] if len(s) > 300]
    md = dest / "manual"
    md.mkdir()
    for i, s in enumerate(sections[:14]):
        (md / f"part-{i:02}.md").write_text(f"# Manual part {i}\n\n{s}\n")
    notes = dest / "notes"
    notes.mkdir()
    paragraphs = [p for p in (ROOT / "README.md").read_text().split("\n\n") if len(p) > 250]
    for i, p in enumerate(paragraphs[:6]):
        (notes / f"note-{i}.txt").write_text(p.replace("`", "") + "\n")
    code = dest / "code"
    code.mkdir()
    for f in ["bench_ingest.sh", "eval_nfcorpus.sh"]:
        if (ROOT / "scripts" / f).exists():
            shutil.copy(ROOT / "scripts" / f, code / f)
    (code / "temperatures.py").write_text(PY_SOURCE)
    (code / "inventory.go").write_text(GO_SOURCE)
    pages = [wrap(p)[:40] for p in paragraphs[6:9]]
    (dest / "handbook.pdf").write_bytes(pdf_bytes(pages))
    (dest / "empty.md").write_text("")
    (dest / "garbage.md").write_bytes(bytes(range(256)) * 8)
    return dest


# --- running kb ---------------------------------------------------------------


class Kb:
    def __init__(self, binary, home, model_dir, ort_lib):
        self.binary = binary
        self.model_dir = model_dir
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
        self.env.update(
            HOME=str(home),
            ORT_DYLIB_PATH=str(ort_lib),
            HF_HUB_OFFLINE="1",
            NO_COLOR="1",
        )

    def argv(self, data, args):
        return [str(self.binary), "--data-dir", str(data), *args]

    def run(self, data, *args, check=True):
        p = subprocess.run(
            self.argv(data, args), env=self.env, capture_output=True, text=True
        )
        if check and p.returncode != 0:
            raise RuntimeError(f"kb {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
        return p

    def json(self, data, *args):
        return json.loads(self.run(data, *args, "--format", "json").stdout)

    def spawn(self, data, *args):
        return subprocess.Popen(
            self.argv(data, args),
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def copy_kb(src, dst):
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)


# --- what a knowledge base holds ------------------------------------------------


def vectors(conn):
    """chunk id -> its vector's bytes, read from the vec0 table's own storage
    (plain SQLite tables: chunks_vec_rowids says where each vector lies in
    the blobs of chunks_vec_vector_chunks00)."""
    dim = 4 * 384
    blobs = dict(conn.execute("SELECT rowid, vectors FROM chunks_vec_vector_chunks00"))
    out = {}
    for rowid, chunk, offset in conn.execute(
        "SELECT rowid, chunk_id, chunk_offset FROM chunks_vec_rowids"
    ):
        out[rowid] = bytes(blobs[chunk][offset * dim:(offset + 1) * dim])
    return out


def documents(db):
    """path -> (hash, type, [(chunk text, vector bytes) in order]), read by
    SQLite alone."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        docs = {}
        for path, h, t in conn.execute(
            "SELECT source_path, content_hash, doc_type FROM documents"
        ):
            docs[path] = (h, t, [])
        vecs = vectors(conn)
        rows = conn.execute(
            "SELECT d.source_path, c.chunk_index, c.text, c.id FROM chunks c "
            "JOIN documents d ON d.id = c.document_id ORDER BY d.source_path, c.chunk_index"
        )
        indexes = {}
        for path, i, text, chunk_id in rows:
            docs[path][2].append((text, vecs.get(chunk_id)))
            indexes.setdefault(path, []).append(i)
        for path, idx in indexes.items():
            if idx != list(range(len(idx))):
                raise AssertionError(f"{path}: chunk numbers {idx}")
        return docs
    finally:
        conn.close()


def integrity(db):
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


def searches(kb, data):
    """Top results of a few queries in each mode: score, path, chunk text,
    cosine, exactly as printed. Equal scores are ordered by chunk id, and
    ids depend on the order documents were written in, so ties are sorted by
    path and text, and the last score (whose ties may fall either side of
    the cut) is left out."""
    out = []
    for q in QUERIES:
        for mode in ["hybrid", "keyword", "vector"]:
            r = kb.json(data, "search", q, "--mode", mode, "--top", "10")
            hits = [
                (
                    hit["score"],
                    hit["source"]["path"],
                    hit["text"],
                    hit["score_breakdown"].get("cosine"),
                )
                for hit in r["results"]
            ]
            if len(hits) == 10:
                hits = [h for h in hits if h[0] > hits[-1][0]]
            out.append(sorted(hits, key=lambda h: (-h[0], h[1], h[2])))
    return out


def doctor_faults(kb, data):
    p = kb.run(data, "doctor", "--format", "json", check=False)
    try:
        checks = json.loads(p.stdout)["checks"]
    except (ValueError, KeyError):
        return [f"kb doctor exited {p.returncode}: {p.stderr.strip()}"]
    return [f"{c['name']}: {c['detail']}" for c in checks if c["status"] == "fault"]


def check_after_kill(kb, data, reference, removed=None):
    """Problems in the state a kill left (empty list: consistent)."""
    problems = []
    db = data / "kb.db"
    ok = integrity(db)
    if ok != ["ok"]:
        problems.append(f"integrity_check: {ok[:3]}")
    st = kb.run(data, "status", "--format", "json", check=False)
    if st.returncode != 0:
        problems.append(f"kb status exited {st.returncode}: {st.stderr.strip()}")
    problems += doctor_faults(kb, data)
    docs = documents(db)
    for path, (h, t, chunks) in docs.items():
        ref = reference.get(path)
        if ref is None:
            problems.append(f"{path}: not in the uninterrupted run")
        elif (h, t, chunks) != ref:
            texts = [c[0] for c in chunks] == [c[0] for c in ref[2]]
            what = "vectors differ" if texts and (h, t) == ref[:2] else "partial or different"
            problems.append(
                f"{path}: {what} ({len(chunks)} chunks, reference {len(ref[2])})"
            )
    if removed is not None:
        gone = [p for p in removed if p not in docs]
        if gone and len(gone) != len(removed):
            problems.append(f"remove was partial: {len(gone)} of {len(removed)} gone")
        kept = [p for p in reference if p not in removed and p not in docs]
        if kept:
            problems.append(f"{len(kept)} documents lost that were not being removed")
    return problems


def compare(kb, data, reference, reference_searches):
    problems = []
    docs = documents(data / "kb.db")
    if docs != reference:
        missing = sorted(set(reference) - set(docs))
        extra = sorted(set(docs) - set(reference))
        changed = sorted(p for p in docs if p in reference and docs[p] != reference[p])
        problems.append(f"documents differ: missing {missing[:3]}, extra {extra[:3]}, changed {changed[:3]}")
    problems += doctor_faults(kb, data)
    if searches(kb, data) != reference_searches:
        problems.append("search results differ from the uninterrupted run")
    return problems


# --- the campaign -------------------------------------------------------------


def timed(kb, data, *args):
    t = time.monotonic()
    kb.run(data, *args)
    return time.monotonic() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kb", type=Path)
    ap.add_argument("--work", type=Path)
    a = ap.parse_args()
    rng = random.Random(a.seed)

    if a.kb is None:
        subprocess.run(["cargo", "build", "--quiet", "--bin", "kb"], cwd=ROOT, check=True)
        a.kb = ROOT / "target" / "debug" / "kb"
    prepared = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "prepare_model.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    env = dict(line.split("=", 1) for line in prepared.split() if "=" in line)
    work = a.work or Path(tempfile.mkdtemp(prefix="kb-crash-"))
    work.mkdir(parents=True, exist_ok=True)
    # The default model: the int8 copy.
    kb = Kb(a.kb.resolve(), work / "home", env["KB_MODEL_DIR_INT8"], env["KB_ORT_LIB"])
    corpus = build_corpus(work / "corpus")

    # The uninterrupted runs.
    empty = work / "empty"
    kb.run(empty, "init", "--model", "all-MiniLM-L6-v2-int8", "--model-dir", kb.model_dir, "--quiet")
    full = work / "full"
    copy_kb(empty, full)
    t_add = timed(kb, full, "add", str(corpus), "--quiet")
    reference = documents(full / "kb.db")
    reference_searches = searches(kb, full)
    chunks = sum(len(d[2]) for d in reference.values())
    scratch = work / "scratch"
    copy_kb(full, scratch)
    t_reindex = timed(kb, scratch, "reindex", "--quiet")
    if documents(scratch / "kb.db") != reference or searches(kb, scratch) != reference_searches:
        log("an uninterrupted reindex changed the results; cannot compare")
        return 1
    to_remove = sorted(reference)[::3]
    copy_kb(full, scratch)
    t_remove = timed(kb, scratch, "remove", *to_remove)
    after_remove = documents(scratch / "kb.db")
    after_remove_searches = searches(kb, scratch)
    log(
        f"corpus: {len(reference)} documents, {chunks} chunks; uninterrupted: add {t_add:.1f} s, "
        f"reindex {t_reindex:.1f} s, remove of {len(to_remove)} documents {t_remove:.2f} s"
    )

    kills = {"add": 0, "reindex": 0, "remove": 0}
    finished_first = 0
    failures = []
    tries = 0
    ops = ["add", "reindex", "add", "reindex", "remove"]
    while sum(kills.values()) < a.kills:
        op = ops[tries % len(ops)]
        tries += 1
        data = work / "try"
        if op == "add":
            copy_kb(empty, data)
            args, span, removed = ["add", str(corpus), "--quiet"], t_add, None
        elif op == "reindex":
            copy_kb(full, data)
            args, span, removed = ["reindex", "--quiet"], t_reindex, None
        else:
            copy_kb(full, data)
            args, span, removed = ["remove", *to_remove], t_remove, to_remove
        at = rng.uniform(0.0, span * 1.1)
        proc = kb.spawn(data, *args)
        time.sleep(at)
        if proc.poll() is not None:
            finished_first += 1
            log(f"try {tries:3} {op:7}: finished before the kill at {at:.2f} s (not counted)")
            continue
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        kills[op] += 1
        problems = check_after_kill(kb, data, reference, removed)
        # Run the interrupted command again, to the end.
        if op == "remove":
            left = [p for p in to_remove if p in documents(data / "kb.db")]
            if left:
                kb.run(data, "remove", *left)
            problems += compare(kb, data, after_remove, after_remove_searches)
        else:
            kb.run(data, *args)
            problems += compare(kb, data, reference, reference_searches)
        status = "ok" if not problems else "FAILED: " + "; ".join(problems)
        log(f"try {tries:3} {op:7}: killed at {at:5.2f} s of {span:5.2f}; {status}")
        if problems:
            failures.append((tries, op, problems))
            keep = work / f"failed-{tries}"
            copy_kb(data, keep)

    total = sum(kills.values())
    log(
        f"\n{total} kills (add {kills['add']}, reindex {kills['reindex']}, remove {kills['remove']}) "
        f"in {tries} tries ({finished_first} finished before their kill); "
        f"{len(failures)} inconsistent, lost or different from the uninterrupted run"
    )
    if failures:
        log(f"failed states kept under {work}")
        return 1
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
