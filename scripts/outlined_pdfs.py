#!/usr/bin/env python3
"""PDFs whose outline is known, made the way people make them from office
documents: Markdown and HTML documentation from Debian packages (Docker,
Go, Node.js, Python, Git) converted by pandoc to DOCX or to a plain HTML
page, then by LibreOffice to PDF.
The headings become the PDF's bookmarks, so these files join the
bookmarked corpus of `cargo dev fit-pdf-rules` and
scripts/bench_pdf_structure.py (`--pdfs DIR`) beside the TeX-made ones.

    scripts/outlined_pdfs.py [--max-files 200]     prints the folder made

Every n-th Markdown or HTML file (sorted paths) with at least
MIN_HEADINGS headings; even positions go through DOCX, odd ones through
HTML (two producers' styles). Needs pandoc, LibreOffice and qpdf (Debian: pandoc,
libreoffice-writer-nogui, qpdf). The packages are fetched with
`apt-get download` as scripts/bench_pdf.py does; the PDFs and
LibreOffice's profile go to $KB_CACHE_DIR/bench-pdf/outlined/, never
into git. Files already made are kept.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_pdf  # noqa: E402  (fetch, cache_dir, log)
from bench_pdf_structure import outline  # noqa: E402

PACKAGES = ["docker-doc", "nodejs-doc", "golang-1.19-src", "python3.11-doc", "git-doc"]
MIN_HEADINGS = 4
# Markdown's bytes are its text; HTML's are mostly markup.
BYTES = {".md": (3_000, 60_000), ".html": (8_000, 150_000)}
ROUTES = ("docx", "html")
# LibreOffice converts this many files per start.
BATCH = 25
log = bench_pdf.log


def headings(source: Path) -> int:
    """HTML's <h1>-<h6>; Markdown's ATX headings outside fenced code."""
    text = source.read_text(errors="replace")
    if source.suffix == ".html":
        return len(re.findall(r"<h[1-6][\s>]", text))
    n, fenced = 0, False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} \S", line):
            n += 1
    return n


def sources(tree: Path, max_files: int) -> list[Path]:
    def fits(p: Path) -> bool:
        low, high = BYTES[p.suffix]
        return p.is_file() and low <= p.stat().st_size <= high

    found = sorted(p for p in tree.rglob("*") if p.suffix in BYTES and fits(p)
                   and headings(p) >= MIN_HEADINGS)
    step = max(1, len(found) // max(1, max_files))
    return found[::step][:max_files]


def to_office(source: Path, route: str, name: str, work: Path) -> Path:
    """pandoc's DOCX, or a standalone HTML page (its title only in <title>,
    so no heading is added that the source lacks)."""
    out = work / f"{name}.{route}"
    reader = "gfm" if source.suffix == ".md" else "html"
    args = ["pandoc", "-f", reader, "-o", str(out), str(source)]
    if route == "html":
        args[3:3] = ["-t", "html5", "-s", "--metadata", f"pagetitle={name}"]
    else:
        args[3:3] = ["-t", "docx"]
    subprocess.run(args, check=True, stderr=subprocess.DEVNULL)
    return out


def to_pdf(files: list[Path], outdir: Path, profile: Path) -> None:
    for i in range(0, len(files), BATCH):
        subprocess.run(
            ["soffice", f"-env:UserInstallation={profile.as_uri()}", "--headless",
             "--convert-to", "pdf", "--outdir", str(outdir), *map(str, files[i:i + BATCH])],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        log(f"  LibreOffice: {min(i + BATCH, len(files))}/{len(files)} into {outdir.name}/")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-files", type=int, default=200)
    args = ap.parse_args()
    for tool in ("pandoc", "soffice", "qpdf"):
        if not shutil.which(tool):
            log(f"{tool} not found: apt-get install pandoc libreoffice-writer-nogui qpdf")
            return 2
    tree = bench_pdf.fetch(PACKAGES)
    root = bench_pdf.cache_dir() / "outlined"
    wanted = {route: [] for route in ROUTES}
    for i, source in enumerate(sources(tree, args.max_files)):
        route = ROUTES[i % 2]
        name = str(source.relative_to(tree).with_suffix("")).replace("/", "_")
        if not (root / route / f"{name}.pdf").exists():
            wanted[route].append((source, name))
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        for route, todo in wanted.items():
            (root / route).mkdir(parents=True, exist_ok=True)
            office = [to_office(src, route, name, work) for src, name in todo]
            to_pdf(office, root / route, root / "libreoffice-profile")
    pdfs = sorted(root.glob("*/*.pdf"))
    with_outline = sum(1 for p in pdfs if len(outline(p) or []) >= MIN_HEADINGS)
    log(f"{len(pdfs)} PDFs, {with_outline} with at least {MIN_HEADINGS} bookmarks")
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
