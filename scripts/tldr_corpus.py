#!/usr/bin/env python3
"""Builds a tldr-like corpus: short Markdown command pages made from real
Debian man pages (the ingest benchmark).

No package on the registries this project reaches (crates.io, PyPI, Debian,
npm) ships the English tldr pages themselves (the npm and PyPI tldr clients
download them at run time), so the pages are generated in tldr's format from
the man pages of a fixed list of Debian packages:

    # tar

    > An archiving utility.
    > GNU tar is an archiving program designed to store multiple files in a single file.
    > More information: `man 1 tar`.

    - Create a new archive:

    `tar --create`

The title and first quote line come from the page's NAME, the second from the
first sentence of DESCRIPTION; each example (eight at most, as in tldr) is an
option's first sentence and the option itself, or, for pages without
options, a SYNOPSIS line and a sentence of DESCRIPTION. Pages are taken in a
fixed order (commands first: sections 1, 8, 6, 5, 7, 4, 2, 3; then by name)
until there are N of them.

    tldr_corpus.py SRC OUT [N]    SRC: a folder of extracted .deb trees
                                  (usr/share/man/manS/...); OUT: the corpus
"""
import gzip
import multiprocessing
import os
import re
import subprocess
import sys

SECTION_ORDER = ["1", "8", "6", "5", "7", "4", "2", "3"]
HEADING = re.compile(r"^[A-Z][A-Z0-9 ,/&()_-]*$")
OPTION = re.compile(r"^(-{1,2}[A-Za-z0-9?][^\s]*(?:[ ,=]\s?[^\s-][^\s]*)*)(?:\s{2,}(.*))?$")


def read_source(path):
    raw = open(path, "rb").read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw


def is_stub(path):
    head = read_source(path)[:400].decode("latin-1")
    return any(line.startswith(".so ") for line in head.splitlines()[:5])


def render(path):
    # Rendering is the slow part (man, groff): kept beside the page, so a
    # second run (more pages, a fixed script) takes seconds.
    cached = path + ".tldr-render.txt"
    if os.path.exists(cached):
        return open(cached, encoding="utf-8").read()
    text = render_uncached(path)
    with open(cached + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(cached + ".tmp", cached)
    return text


def render_uncached(path):
    env = dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="")
    try:
        out = subprocess.run(
            ["man", "-l", "-E", "UTF-8", "--nh", "--nj", path],
            env=env,
            capture_output=True,
            timeout=60,
        ).stdout
    except subprocess.TimeoutExpired:
        return ""
    text = out.decode("utf-8", "replace")
    # Overstrike (bold/underline) left by the formatter.
    return re.sub(r".\x08", "", text)


def sections(text):
    out, name, body = {}, None, []
    for line in text.splitlines():
        if HEADING.match(line) and not line.startswith(" "):
            if name is not None:
                out.setdefault(name, body)
            name, body = line.strip(), []
        elif name is not None:
            body.append(line.rstrip())
    if name is not None:
        out.setdefault(name, body)
    return out


def paragraphs(lines):
    paras, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line)
        elif cur:
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)
    return paras


def first_sentence(text, limit=160):
    text = re.sub(r"\s+", " ", text).strip()
    m = re.search(r"^(.+?[.:;])(\s|$)", text)
    s = m.group(1) if m else text
    if len(s) > limit:
        s = s[:limit].rsplit(" ", 1)[0]
    return s.rstrip(".:;, ")


def capitalise(s):
    return s[:1].upper() + s[1:] if s else s


def placeholders(spec):
    """`-f, --file=ARCHIVE` -> `--file {{ARCHIVE}}`-like tldr placeholders."""
    forms = [f.strip() for f in re.split(r",\s+(?=-)", spec) if f.strip()]
    form = max(forms, key=lambda f: (f.startswith("--"), len(f))) if forms else spec
    form = re.sub(r"[=\s]\[?<?([A-Za-z][\w.-]*)>?\]?", r" {{\1}}", form)
    return form.strip()


def options(sec):
    """(option spec, first sentence) pairs from OPTIONS-like sections."""
    out = []
    names = [n for n in sec if "OPTION" in n] or [n for n in sec if n == "DESCRIPTION"]
    for n in names:
        lines = sec[n]
        i = 0
        while i < len(lines):
            line = lines[i]
            indent = len(line) - len(line.lstrip())
            m = OPTION.match(line.strip()) if 3 <= indent <= 10 else None
            if m:
                desc = [m.group(2)] if m.group(2) else []
                j = i + 1
                while j < len(lines) and (
                    not lines[j].strip() and not desc
                    or lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) > indent
                ):
                    if lines[j].strip():
                        desc.append(lines[j].strip())
                    j += 1
                    if len(desc) > 4:
                        break
                sentence = first_sentence(" ".join(desc), 120)
                if sentence and len(m.group(1)) < 60:
                    out.append((placeholders(m.group(1)), sentence))
                i = j
            else:
                i += 1
    return out


def page(item):
    section, name, path = item
    if is_stub(path):
        return None
    sec = sections(render(path))
    name_lines = " ".join(l.strip() for l in sec.get("NAME", []))
    m = re.match(r"^(.+?)\s+(?:-|\\-|—|–)\s+(.+)$", name_lines)
    if not m:
        return None
    summary = capitalise(first_sentence(m.group(2), 200))
    desc_paras = paragraphs(sec.get("DESCRIPTION", []))
    about = first_sentence(" ".join(l.strip() for l in desc_paras[0]), 200) if desc_paras else ""
    examples = []
    for spec, sentence in options(sec)[:8]:
        examples.append((capitalise(sentence), f"{name} {spec}"))
    if len(examples) < 2:
        synopsis = [l.strip() for l in sec.get("SYNOPSIS", []) if l.strip()]
        sentences = []
        for p in desc_paras[1:] + desc_paras[:1]:
            s = first_sentence(" ".join(l.strip() for l in p), 120)
            if s:
                sentences.append(s)
        for k, line in enumerate(synopsis[: 8 - len(examples)]):
            what = sentences[k] if k < len(sentences) else f"Synopsis of {name}"
            examples.append((capitalise(what), line))
    if not examples:
        return None
    lines = [f"# {name}", "", f"> {summary}."]
    if about and about.lower() != summary.lower():
        lines.append(f"> {capitalise(about)}.")
    lines += [f"> More information: `man {section} {name}`.", ""]
    for what, code in examples:
        code = code.replace("`", "'")
        lines += [f"- {what}:", "", f"`{code}`", ""]
    return section, name, "\n".join(lines)


def main():
    src, out = sys.argv[1], sys.argv[2]
    want = int(sys.argv[3]) if len(sys.argv) > 3 else 4612
    items = []
    for section in SECTION_ORDER:
        d = os.path.join(src, "usr/share/man", "man" + section)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            path = os.path.join(d, f)
            if f.endswith((".tldr-render.txt", ".tmp")):
                continue
            if os.path.isfile(path) and not os.path.islink(path):
                name = re.sub(r"\.gz$", "", f)
                name = name.rsplit(".", 1)[0] if "." in name else name
                items.append((section, name, path))
    seen, pages = set(), []
    with multiprocessing.Pool(os.cpu_count() or 2) as pool:
        for result in pool.imap(page, items, chunksize=8):
            if len(pages) >= want:
                break
            if result is None:
                continue
            section, name, text = result
            if (section, name) in seen:
                continue
            seen.add((section, name))
            pages.append(result)
    for section, name, text in pages:
        d = os.path.join(out, "man" + section)
        os.makedirs(d, exist_ok=True)
        safe = re.sub(r"[^\w.+-]", "_", name)
        with open(os.path.join(d, safe + ".md"), "w", encoding="utf-8") as f:
            f.write(text)
    print(f"{len(pages)} pages written to {out}", file=sys.stderr)
    if len(pages) < want:
        sys.exit(f"only {len(pages)} pages of the {want} wanted")


if __name__ == "__main__":
    main()
