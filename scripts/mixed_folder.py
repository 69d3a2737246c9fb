#!/usr/bin/env python3
"""A mixed documents folder of real files, for the new formats' ingest
figure (README): the HTML manuals Debian's documentation packages install
under /usr/share/doc, the same manuals written as Word, OpenDocument,
PowerPoint and EPUB files by the established Python libraries (python-docx,
odfpy, python-pptx, EbookLib; not kb's own test builders), the package
list as CSV and XLSX, JSON/YAML/TOML and JavaScript/TypeScript/Rust files
found on the machine, and PNG icons (images without text).

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install python-docx \
        python-pptx openpyxl odfpy EbookLib
    /tmp/venv/bin/python scripts/mixed_folder.py OUT_DIR

Everything is written under OUT_DIR; nothing here is committed.
"""

import csv
import glob
import itertools
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import docx
import openpyxl
import pptx
from ebooklib import epub
from odf.opendocument import OpenDocumentText
from odf.text import H, P


class Blocks(HTMLParser):
    """A manual's headings and paragraphs: (level or 0, text)."""

    def __init__(self):
        super().__init__()
        self.blocks, self.cur, self.level, self.skip = [], [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag in ("h1", "h2", "h3", "p", "li", "pre", "dt", "dd"):
            self.flush()
            self.level = int(tag[1]) if tag[0] == "h" and tag[1:].isdigit() else 0

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        if tag in ("h1", "h2", "h3", "p", "li", "pre", "dt", "dd"):
            self.flush()

    def handle_data(self, data):
        if not self.skip:
            self.cur.append(data)

    def flush(self):
        text = " ".join("".join(self.cur).split())
        if text:
            self.blocks.append((self.level, text))
        self.cur, self.level = [], 0


def blocks_of(path):
    p = Blocks()
    with open(path, encoding="utf-8", errors="replace") as f:
        p.feed(f.read())
    p.flush()
    return p.blocks


def main(out):
    os.makedirs(out, exist_ok=True)
    manuals = sorted(glob.glob("/usr/share/doc/**/*.html", recursive=True))
    web = os.path.join(out, "web")
    manuals = [m for m in manuals if os.path.isfile(m)]
    for i, m in enumerate(manuals):
        rel = m[len("/usr/share/doc/"):].replace("/", "__")
        os.makedirs(web, exist_ok=True)
        shutil.copy(m, os.path.join(web, rel))
    # The longest manuals as office documents and e-books.
    long = sorted(manuals, key=os.path.getsize, reverse=True)[:40]
    office = os.path.join(out, "office")
    os.makedirs(office, exist_ok=True)
    for i, m in enumerate(long):
        blocks = blocks_of(m)
        name = os.path.basename(m).rsplit(".", 1)[0] + f"-{i}"
        if i % 4 == 0:
            d = docx.Document()
            d.core_properties.title = name
            for level, text in blocks:
                if level:
                    d.add_heading(text, level)
                else:
                    d.add_paragraph(text)
            d.save(os.path.join(office, name + ".docx"))
        elif i % 4 == 1:
            d = OpenDocumentText()
            for level, text in blocks:
                d.text.addElement(H(outlinelevel=level, text=text) if level else P(text=text))
            d.save(os.path.join(office, name + ".odt"))
        elif i % 4 == 2:
            prs = pptx.Presentation()
            slide = None
            for level, text in blocks[:400]:
                if level or slide is None:
                    slide = prs.slides.add_slide(prs.slide_layouts[1])
                    slide.shapes.title.text = text
                    body = slide.placeholders[1].text_frame
                else:
                    body.add_paragraph().text = text[:500]
            prs.save(os.path.join(office, name + ".pptx"))
        else:
            book = epub.EpubBook()
            book.set_title(name)
            book.add_author("Debian")
            chapters, cur = [], []
            for level, text in blocks + [(1, "end")]:
                if level == 1 and cur:
                    c = epub.EpubHtml(title=f"c{len(chapters)}", file_name=f"c{len(chapters)}.xhtml")
                    c.content = "".join(cur)
                    book.add_item(c)
                    chapters.append(c)
                    cur = []
                tag = f"h{level}" if level else "p"
                cur.append(f"<{tag}>{text.replace('&', '&amp;').replace('<', '&lt;')}</{tag}>")
            book.spine = chapters
            book.add_item(epub.EpubNcx())
            book.add_item(epub.EpubNav())
            epub.write_epub(os.path.join(office, name + ".epub"), book)
    # Tables: the installed packages.
    tables = os.path.join(out, "tables")
    os.makedirs(tables, exist_ok=True)
    rows = [
        line.split("\t")
        for line in subprocess.run(
            ["dpkg-query", "-W", "-f", "${Package}\t${Version}\t${Installed-Size}\t${binary:Summary}\n"],
            capture_output=True, text=True, check=True,
        ).stdout.splitlines()
    ]
    header = ["package", "version", "size_kb", "summary"]
    with open(os.path.join(tables, "packages.csv"), "w", newline="") as f:
        csv.writer(f).writerows([header] + rows)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Packages"
    for r in [header] + rows:
        ws.append(r)
    wb.save(os.path.join(tables, "packages.xlsx"))
    # Data files and code found on the machine.
    def take(patterns, n, folder):
        dest = os.path.join(out, folder)
        os.makedirs(dest, exist_ok=True)
        found = itertools.chain.from_iterable(glob.iglob(p, recursive=True) for p in patterns)
        for i, f in enumerate(itertools.islice((f for f in found if os.path.isfile(f)), n)):
            shutil.copy(f, os.path.join(dest, f"{i}-{os.path.basename(f)}"))

    home = os.path.expanduser("~")
    take([f"{home}/.cargo/registry/src/*/*/Cargo.toml"], 100, "data")
    take(["/usr/lib/node_modules/npm/node_modules/*/package.json"], 100, "data")
    take(["/usr/lib/google-cloud-sdk/lib/googlecloudsdk/schemas/compute/v1/*.yaml"], 100, "data")
    take([f"{home}/.cargo/registry/src/*/scraper-*/src/**/*.rs",
          f"{home}/.cargo/registry/src/*/zip-*/src/**/*.rs"], 100, "code")
    take(["/usr/lib/node_modules/npm/lib/**/*.js"], 100, "code")
    take(["/usr/lib/node_modules/npm/node_modules/**/*.mjs",
          "/usr/lib/node_modules/npm/node_modules/**/*.ts"], 50, "code")
    take(["/usr/share/icons/**/*.png"], 20, "images")


if __name__ == "__main__":
    main(sys.argv[1])
