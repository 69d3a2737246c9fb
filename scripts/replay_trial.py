#!/usr/bin/env python3
"""Replays the defects the new-user and agent trials found (the first trial's
and the third's, issue 54), against one kb binary.

    scripts/replay_trial.py --kb target/release/kb [--model-dir DIR] [--only 1-10]

Each finding runs the commands that showed it on small files this script
writes, prints what kb answered (cut to a few lines) and whether the answer
is what a user should get: `fixed` or `NOT FIXED`. Run it with an older kb
to see the defects, with this one to see them gone. It needs the model
(KB_MODEL_DIR_INT8 or --model-dir) and ORT_DYLIB_PATH, as ./test.sh sets
them; nothing leaves the machine.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FINDINGS = []


def finding(title):
    def wrap(fn):
        FINDINGS.append((title, fn))
        return fn

    return wrap


class Trial:
    def __init__(self, kb, model_dir):
        self.kb = kb
        self.home = Path(tempfile.mkdtemp(prefix="kb-trial-"))
        self.data = self.home / "data"
        self.docs = self.home / "docs"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
        self.env["KB_CACHE_DIR"] = str(self.home / "cache")
        self.model_dir = model_dir
        self.write_docs()
        self.run("init", "--model-dir", model_dir, "-q")
        self.run("add", str(self.docs), "-q")

    def write_docs(self):
        d = self.docs
        (d / "guides").mkdir(parents=True)
        long_para = "\n".join(
            f"- Step {i} of the key rotation runs ssh-keygen and copies the public key to host {i}."
            for i in range(60)
        )
        (d / "guides/ssh.md").write_text(
            "# SSH\n\n## Generating a key — ed25519 only\n\nRun ssh-keygen -t ed25519.\n\n"
            "## Deploying the key\n\nCopy it with ssh-copy-id.\n\n"
            "## Notes\n\nFirst notes.\n\n## Notes\n\nSecond notes.\n\n"
            "## Rotation\n\n" + long_para + "\n\n- one item\n- two items\n"
        )
        (d / "guides/git.md").write_text(
            "# git\n\n## Discard\n\nRun git reset --hard HEAD to drop changes.\n\n"
            "## Soft\n\nA soft reset keeps files; hard work pays.\n"
        )
        (d / "validate.py").write_text(
            "def isValidNumber(x):\n    return x > 0\n"
        )
        (d / "page.html").write_text("<html><title>t</title><body>hello</body></html>")
        (d / "model.stl").write_text("solid cube\n")
        (self.home / "outside.md").write_text("# Outside\n\nzebra crossing notes\n")
        os.symlink(self.home / "outside.md", d / "link.md")

    def run(self, *args, env=None, stdin=None):
        e = dict(self.env)
        e.update(env or {})
        p = subprocess.run(
            [self.kb, "--data-dir", str(self.data), *map(str, args)],
            env=e,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return p

    def json(self, *args, **kw):
        p = self.run(*args, "--format", "json", **kw)
        try:
            return json.loads(p.stdout), p
        except json.JSONDecodeError:
            return None, p

    def mcp(self, messages):
        """Sends JSON-RPC lines to `kb mcp` and returns the replies by id."""
        lines = [
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "replay", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ] + messages
        p = self.run("mcp", stdin="\n".join(json.dumps(m) for m in lines) + "\n")
        replies = {}
        for line in p.stdout.splitlines():
            try:
                m = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "id" in m:
                replies[m["id"]] = m
        return replies

    def call(self, i, tool, arguments):
        return {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }

    def doc(self, name):
        return str(self.docs / name)


def out(p):
    return (p.stdout + p.stderr).strip()


@finding("kb open DOC --max-lines 0 panics")
def f1(t):
    p = t.run("open", t.doc("guides/ssh.md"), "--max-lines", "0", "--format", "json")
    return out(p), p.returncode == 0 and "panicked" not in p.stderr


@finding("MCP open with max_lines 0 is an internal error")
def f2(t):
    r = t.mcp([t.call(1, "open", {"document": t.doc("guides/ssh.md"), "max_lines": 0})])
    reply = r.get(1, {})
    return json.dumps(reply)[:400], "result" in reply and not reply["result"].get("isError")


@finding('show --section with an em dash, copied from outline, is not found')
def f3(t):
    p = t.run("show", t.doc("guides/ssh.md"), "--section", "Generating a key — ed25519 only", "--format", "json")
    return out(p), p.returncode == 0


@finding("show --section with the part before the dash is not found")
def f4(t):
    p = t.run("show", t.doc("guides/ssh.md"), "--section", "Generating a key", "--format", "json")
    return out(p), p.returncode == 0


@finding("later chunks of a split section start mid-sentence and carry no lines")
def f5(t):
    v, p = t.json("search", "key rotation step host", "--document", t.doc("guides/ssh.md"), "--top", "10")
    if v is None:
        v, p = t.json("search", "key rotation step host", "--top", "10")
    if v is None:
        return out(p), False
    text = (t.docs / "guides/ssh.md").read_text()
    rs = [r for r in v["results"] if r["source"]["path"].endswith("ssh.md")]
    ok = bool(rs) and all(
        r["source"].get("line_start") and r["text"] in text for r in rs
    )
    return json.dumps([(r["source"].get("line_start"), r["text"][:40]) for r in rs]), ok


@finding("two headings with one text: a plain-text warning even with JSON output")
def f6(t):
    p = t.run("show", t.doc("guides/ssh.md"), "--section", "Notes", "--format", "json")
    ok = p.returncode == 0 and all(
        line.startswith("{") for line in p.stderr.strip().splitlines()
    )
    return out(p)[:500], ok


@finding("the second of two like-named headings cannot be asked for")
def f7(t):
    v, p = t.json("show", t.doc("guides/ssh.md"), "--section", "Notes", "--occurrence", "2")
    return out(p)[:400], v is not None and "Second notes" in v.get("content", "")


@finding("suggestions list a duplicated heading twice")
def f8(t):
    p = t.run("show", t.doc("guides/ssh.md"), "--section", "Note", "--format", "json")
    try:
        s = json.loads(p.stderr.strip().splitlines()[-1]).get("suggestions", [])
    except (json.JSONDecodeError, IndexError):
        s = []
    return out(p)[:400], len(s) == len(set(s)) and "Notes" in s


@finding("typos in a heading or a symbol get no suggestion")
def f9(t):
    p1 = t.run("show", t.doc("guides/ssh.md"), "--section", "Deployng the key", "--format", "json")
    p2 = t.run("show", t.doc("validate.py"), "--section", "isValidNumbr", "--format", "json")
    return out(p1)[:300] + "\n" + out(p2)[:300], "Deploying the key" in p1.stderr and "isValidNumber" in p2.stderr


@finding("unsupported files are counted, never named")
def f10(t):
    v, p = t.json("add", str(t.docs))
    names = [u["path"] for u in (v or {}).get("unsupported_files", [])]
    return out(p)[:500], any(n.endswith("model.stl") for n in names)


@finding("kb add FILE of an unsupported type exits 0 with no reason")
def f11(t):
    p = t.run("add", t.doc("model.stl"), "--format", "json")
    return out(p), p.returncode == 1 and "kb reads" in p.stderr


@finding("removing a symlink from an added folder never removes its document, and it is never stale")
def f12(t):
    def stale():
        v, _ = t.json("status")
        return (v or {}).get("stale_documents", 0)

    t.run("add", str(t.docs), "--follow-external-links", "-q")
    before = stale()
    os.remove(t.docs / "link.md")
    # Before the next add: the document is stale (its file is still there).
    after = stale()
    v, p = t.json("add", str(t.docs))
    return f"status: stale_documents {before} -> {after}\n" + out(p)[:300], (
        after == before + 1 and v is not None and v["removed"] >= 1
    )


@finding("kb doctor after an interrupted reindex --model X says `kb reindex` (which drops the switch)")
def f13(t):
    # Start a switch and stop it at once; what doctor says then.
    proc = subprocess.Popen(
        [t.kb, "--data-dir", str(t.data), "reindex", "--model", "all-MiniLM-L6-v2", "--model-dir", t.model_dir.replace("-int8", ""), "--quiet"],
        env=t.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.wait(timeout=600)
    v, p = t.json("doctor")
    fixes = [c.get("fix") for c in (v or {}).get("checks", []) if c["name"] == "reindex"]
    return json.dumps(fixes) or "(no unfinished reindex)", all(
        f and "--model" in f and ":" not in f.split("(")[0] for f in fixes
    )


@finding("KB_MODEL=bogus gives E_MODEL_MISMATCH suggesting a reindex to bogus")
def f14(t):
    p = t.run("search", "ssh", "--format", "json", env={"KB_MODEL": "bogus"})
    return out(p), "E_UNKNOWN_MODEL" in p.stderr


@finding("MCP: numbers sent as strings are rejected")
def f15(t):
    r = t.mcp([t.call(1, "search", {"query": "ssh key", "top": "2"})])
    reply = r.get(1, {})
    return json.dumps(reply)[:300], "result" in reply and not reply["result"].get("isError")


@finding("MCP: input schemas use type arrays (Inspector --strict warnings)")
def f16(t):
    r = t.mcp([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}])
    tools = r.get(1, {}).get("result", {}).get("tools", [])
    arrays = [
        (tool["name"], k)
        for tool in tools
        for k, s in tool["inputSchema"].get("properties", {}).items()
        if isinstance(s.get("type"), list)
    ]
    return json.dumps(arrays)[:300], bool(tools) and not arrays


@finding("MCP: tools have no title, outputSchema or structuredContent")
def f17(t):
    r = t.mcp(
        [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, t.call(2, "status", {})]
    )
    tools = r.get(1, {}).get("result", {}).get("tools", [])
    res = r.get(2, {}).get("result", {})
    ok = bool(tools) and all(x.get("title") and x.get("outputSchema") for x in tools) and "structuredContent" in res
    return json.dumps([(x["name"], x.get("title")) for x in tools])[:300], ok


@finding("MCP: E_SECTION_NOT_FOUND has no suggestions array")
def f18(t):
    r = t.mcp([t.call(1, "show", {"document": t.doc("guides/ssh.md"), "section": "Deployng"})])
    return json.dumps(r.get(1, {}))[:400], "suggestions" in json.dumps(r.get(1, {}))


@finding("MCP: list returns a bare array with no total")
def f19(t):
    r = t.mcp([t.call(1, "list", {})])
    res = r.get(1, {}).get("result", {})
    sc = res.get("structuredContent") or {}
    return json.dumps(res)[:300], isinstance(sc, dict) and "total" in sc and "items" in sc


@finding("MCP: non-object arguments get -32601")
def f20(t):
    r = t.mcp([{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", "arguments": [1]}}])
    return json.dumps(r.get(1, {}))[:300], r.get(1, {}).get("error", {}).get("code") == -32602


@finding("MCP: a bad lines range names an empty field")
def f21(t):
    r = t.mcp([t.call(1, "open", {"document": t.doc("guides/ssh.md"), "lines": "9:2"})])
    s = json.dumps(r.get(1, {}))
    return s[:400], "lines" in s and '"field": ""' not in s


@finding("MCP: tool descriptions repeat command-line text")
def f22(t):
    r = t.mcp([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}])
    tools = r.get(1, {}).get("result", {}).get("tools", [])
    said = lambda x: json.dumps([x["description"], x["inputSchema"]])  # noqa: E731
    cli = [x["name"] for x in tools if "stdin" in said(x) or "--top" in said(x)]
    return json.dumps(cli), bool(tools) and not cli


@finding("SKILL.md and the MCP instructions disagree on the cosine of a weak result")
def f23(t):
    r = t.mcp([])
    instructions = r.get(0, {}).get("result", {}).get("instructions", "")
    skill = t.run("skill").stdout
    ok = "0.4" in instructions and "0.4" in skill and "0.35" not in instructions
    return instructions[:300], ok


@finding("nonsense queries are not flagged")
def f24(t):
    v, p = t.json("search", "qwxzv recipe for chocolate cake")
    return out(p)[:300], v is not None and v.get("no_good_match") is True


@finding("no way to search within one document or a path")
def f25(t):
    v, p = t.json("search", "reset", "--path", "*.md", "--document", t.doc("guides/git.md"))
    return out(p)[:300], v is not None and all(r["source"]["path"].endswith(".md") for r in v["results"])


@finding('quoted phrases are ignored ("reset --hard" = reset hard)')
def f26(t):
    v, p = t.json("search", '"reset --hard"', "--fts-only")
    paths = [r["source"]["path"] for r in (v or {}).get("results", [])]
    texts = [r["text"] for r in (v or {}).get("results", [])]
    return json.dumps(paths)[:300], bool(texts) and all("reset --hard" in x for x in texts)


@finding("no command re-syncs everything added (qmd update)")
def f27(t):
    v, p = t.json("update")
    return out(p)[:300], p.returncode == 0 and v is not None and "roots" in v


@finding("no tree of what is indexed (sources)")
def f28(t):
    p = t.run("sources", "--depth", "1", "--format", "human")
    return out(p)[:400], p.returncode == 0 and "guides/" in p.stdout


@finding("a person at a terminal gets JSON")
def f29(t):
    p = subprocess.run(
        ["script", "-qec", f"{t.kb} --data-dir {t.data} search ssh --fts-only", "/dev/null"],
        env=t.env, capture_output=True, text=True, timeout=120,
    )
    return p.stdout[:300], not p.stdout.lstrip().startswith("{")


@finding("open --lines past the end: exit 0 with first_line 0")
def f30(t):
    p = t.run("open", t.doc("guides/git.md"), "--lines", "100:200", "--format", "json")
    return out(p), p.returncode == 1


@finding("--threshold -1 tips `-- -1`; --tpo suggests --type; contradicting flags use internal names")
def f31(t):
    a = t.run("search", "x", "--threshold", "-1", "--format", "json")
    b = t.run("search", "x", "--tpo", "3", "--format", "json")
    c = t.run("search", "x", "--mode", "keyword", "--vec-only", "--format", "json")
    ok = "-- -1" not in a.stderr and '"--top"' in b.stderr and "--vec-only" in c.stderr
    return "\n".join(out(x)[:200] for x in (a, b, c)), ok


@finding("show --section for people has no header to cite; outline prints an absolute path")
def f32(t):
    a = t.run("show", t.doc("guides/git.md"), "--section", "Discard", "--format", "human")
    b = t.run("outline", t.doc("guides/git.md"), "--format", "human")
    ok = a.stdout.startswith("git (") and "§ Discard" in a.stdout and b.stdout.startswith("git (")
    return a.stdout[:200] + "\n" + b.stdout[:200], ok


@finding("kb config shows 1024-token chunks where the model reads 254; --tags '' ignored; unknown tag silent")
def f33(t):
    a = t.run("config", "--format", "human")
    b = t.run("search", "ssh", "--tags", "", "--format", "json")
    c = t.run("search", "ssh", "--tags", "nosuchtag", "--format", "json")
    ok = "chunks hold at most" in a.stdout and b.returncode == 1 and c.returncode == 1
    return "\n".join(x for x in (b.stderr[:200], c.stderr[:200])), ok


@finding('"Added 1 document … re-indexed after a change" for an update; "Stale: 1 documents"')
def f34(t):
    f = t.docs / "guides/git.md"
    f.write_text(f.read_text() + "\nMore.\n")
    s = t.run("status", "--format", "human")
    a = t.run("add", str(t.docs), "--format", "human")
    ok = "Stale: 1 document " in s.stdout and "Updated 1 document" in a.stderr
    return s.stdout.strip().splitlines()[-1] + "\n" + a.stderr.strip(), ok


# ---------------------------------------------------------------------------
# The third trial (issue 54): what a demanding user trips over in week two.
# Its files live in their own folder, added by the findings that need them.
# ---------------------------------------------------------------------------

P = "xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\" " \
    "xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" " \
    "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\""


def zip_bytes(parts):
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in parts:
            z.writestr(name, body)
    return buf.getvalue()


def docx(paras):
    """A Word document without a title of its own: (style, text) paragraphs."""
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    body = "".join(
        f'<w:p>{f"<w:pPr><w:pStyle w:val={chr(34)}{st}{chr(34)}/></w:pPr>" if st else ""}'
        f"<w:r><w:t>{t}</w:t></w:r></w:p>"
        for st, t in paras
    )
    return zip_bytes([
        ("[Content_Types].xml", "<?xml version='1.0'?><Types/>"),
        ("word/document.xml", f'<?xml version="1.0"?><w:document xmlns:w="{w}"><w:body>{body}</w:body></w:document>'),
        ("word/styles.xml", f'<?xml version="1.0"?><w:styles xmlns:w="{w}"><w:style w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>'),
    ])


def pptx(slides):
    """A presentation without a title of its own: (title, text, notes) slides."""
    def shape(ph, text):
        nv = f'<p:nvPr><p:ph type="{ph}"/></p:nvPr>' if ph else ""
        return f"<p:sp><p:nvSpPr>{nv}</p:nvSpPr><p:txBody><a:p><a:r><a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp>"

    parts, ids, rels = [], "", ""
    for n, (title, text, notes) in enumerate(slides, 1):
        ids += f'<p:sldId id="{255 + n}" r:id="rId{n}"/>'
        rels += f'<Relationship Id="rId{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide{n}.xml"/>'
        parts.append((f"ppt/slides/slide{n}.xml", f'<?xml version="1.0"?><p:sld {P}><p:cSld><p:spTree>{shape("title", title)}{shape(None, text)}</p:spTree></p:cSld></p:sld>'))
        parts.append((f"ppt/slides/_rels/slide{n}.xml.rels", f'<?xml version="1.0"?><Relationships><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide{n}.xml"/></Relationships>'))
        parts.append((f"ppt/notesSlides/notesSlide{n}.xml", f'<?xml version="1.0"?><p:notes {P}><p:cSld><p:spTree>{shape("body", notes)}</p:spTree></p:cSld></p:notes>'))
    parts.append(("ppt/presentation.xml", f'<?xml version="1.0"?><p:presentation {P}><p:sldIdLst>{ids}</p:sldIdLst></p:presentation>'))
    parts.append(("ppt/_rels/presentation.xml.rels", f'<?xml version="1.0"?><Relationships>{rels}</Relationships>'))
    return zip_bytes(parts)


def pdf(pages):
    """A PDF of text pages (lists of lines), in Helvetica."""
    objs = ["<< /Type /Catalog /Pages 2 0 R >>", None, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for lines in pages:
        ops = "BT /F1 10 Tf 12 TL 60 760 Td " + " ".join(
            "(" + l.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") Tj T*" for l in lines
        ) + " ET"
        objs.append(f"<< /Length {len(ops)} >>\nstream\n{ops}\nendstream")
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {len(objs)} 0 R /Resources << /Font << /F1 3 0 R >> >> >>")
        kids.append(f"{len(objs)} 0 R")
    objs[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out, offsets = b"%PDF-1.4\n", []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{o}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def cargo_toml():
    deps = "".join(
        f'{n} = {{ version = "{i % 3 + 1}.{i}", default-features = false, features = ["std"] }}\n'
        for i, n in enumerate(
            "serde tokio clap rayon chrono regex anyhow thiserror tracing reqwest url uuid rand bytes "
            "futures itertools indexmap hashbrown smallvec once_cell parking_lot crossbeam memchr log "
            "libc bitflags base64 sha2 hex flate2 zip tar walkdir tempfile glob toml csv rusqlite".split()
        )
    )
    return (
        '[package]\nname = "orbit"\nversion = "0.4.2"\nedition = "2021"\nrust-version = "1.78"\n'
        'description = "Plans satellite ground passes"\nlicense = "MIT"\n\n[dependencies]\n'
        + deps + "\n[build-dependencies]\n\n[package.metadata.docs.rs]\nall-features = true\n"
    )


API_PAGE = (
    "<html><head><title>Console | Node.js v20 Documentation</title></head><body>"
    '<div id="column2" class="interior"><ul>'
    + "".join(f'<li><a href="m{i}.html"><span class="icon"></span></a></li>' for i in range(70))
    + '</ul></div><div id="column1"><div>__JS_FLAVORED_DYNAMIC_CSS__</div>'
    '<h2>Console<span><a class="mark" href="#console" id="console">#</a></span></h2>'
    '<ul><li><a href="#t1"><code>console.time([label])</code></a></li><li><a href="#t2"><code>console.timeEnd([label])</code></a></li>'
    '<li><a href="#t3"><code>console.trace([message])</code></a></li></ul>'
    "<p>The console module provides a simple debugging console.</p>"
    + "".join(
        f'<section><h3><code>{h}</code><span><a class="mark" href="#t{i}">#</a></span></h3><p>{b}</p></section>'
        for i, (h, b) in enumerate(
            [
                ("console.time([label])", "Starts a timer that can be used to compute the duration of an operation."),
                ("console.timeEnd([label])", "Stops a timer that was previously started and prints the result."),
                ("console.trace([message])", "Prints the string Trace: followed by the message and a stack trace."),
            ],
            1,
        )
    )
    + "</div></body></html>"
)


class Week2:
    """The third trial's files, in a folder of their own, added once."""

    def __init__(self, t):
        self.t = t
        self.dir = t.home / "week2"
        d = self.dir
        (d / "reports").mkdir(parents=True)
        (d / "drafts").mkdir()
        (d / "data").mkdir()
        (d / "Cargo.toml").write_text(cargo_toml())
        (d / "data/ci.yml").write_text(
            "name: CI\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
            "    steps:\n      - uses: actions/checkout@v4\n      - name: Run the test suite\n        run: cargo test\n"
        )
        (d / "console.html").write_text(API_PAGE)
        (d / "users.md").write_text("# Users\n\n## Special `systemd` UID ranges\n\nUIDs 61184 to 65519 are dynamic.\n")
        (d / "guide.md").write_text("# Field guide\n\nA short opening.\n\n## Knots\n\nThe bowline makes a fixed loop.\n\n## Fires\n\nKeep fires small.\n")
        (d / "reports/q1-review.md").write_text("# Q1\n\nRevenue rose in the first quarter.\n")
        (d / "drafts/q1-review.md").write_text("# Q1 draft\n\nRevenue numbers to be checked.\n")
        (d / "annual-summary.md").write_text("# Annual\n\nRevenue for the year, quarter by quarter.\n")
        rows = "".join(f'City{i},Land{i},"quiet, green and {i} km from the sea"\n' for i in range(60))
        (d / "cities.csv").write_text("city,country,note\n" + rows)
        trip = "# Zanzibar trip\n\n" + "".join(
            f"## Day {day}\n\n" + f"On day {day} the xylograph workshop in Zanzibar printed another batch. " * 30 + "\n\n"
            for day in (1, 2, 3)
        )
        (d / "trip.md").write_text(trip)
        (d / "checklist.docx").write_bytes(docx([("Heading1", "Release checklist"), ("", "Tag the release.")]))
        (d / "kickoff.pptx").write_bytes(pptx([("Kickoff", "Goals for the quarter", "welcome everyone"), ("Timeline", "Milestones by month", "keep it short")]))
        (d / "paper.html").write_text("<html><head><title>Tidal Energy Outlook†</title></head><body><p>Tides turn turbines.</p></body></html>")
        long = " ".join(
            f"Sentence {i} of the long paragraph explains how the reservoir levels were measured and compared."
            for i in range(60)
        )
        words = long.split()
        lines = [" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]
        (d / "reservoir.pdf").write_bytes(pdf([lines[:55]]))
        filings = d / "filings"
        filings.mkdir()
        topics = ["revenue", "inventory", "leases", "pensions", "tax", "debt", "litigation"]
        for company in ["Alder", "Hazel", "Rowan"]:
            pages = []
            for page in range(1, 31):
                topic = topics[page % len(topics)]
                pages.append([
                    f"Item {page}. {topic}",
                    f"{company} Industries discusses {topic} in fiscal 2018 on page {page}:",
                    "what changed, what it cost and how management reviews it each quarter.",
                    f"The committee compared the {topic} results of 2018 with 2017.",
                ])
            (filings / f"{company.upper()}_2018_10K.pdf").write_bytes(pdf(pages))
        t.run("add", str(d), "-q")
        self.filings = filings

    def path(self, name):
        return str(self.dir / name)


def week2(t):
    if not hasattr(t, "week2"):
        t.week2 = Week2(t)
    return t.week2


def results(v):
    return (v or {}).get("results", [])


@finding("issue 54 item 1: kb update does not give a folder's --tags to its new and moved files")
def f35(t):
    root = t.home / "tagged"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nFirst tagged note.\n")
    t.run("add", str(root), "--tags", "project", "-q")
    (root / "b.md").write_text("# B\n\nA note written later.\n")
    (root / "sub").mkdir()
    os.rename(root / "a.md", root / "sub/a.md")
    t.run("update", "-q")
    v, p = t.json("list", "--tag", "project")
    names = sorted(Path(d["path"]).name for d in (v if isinstance(v, list) else []))
    return json.dumps(names), names == ["a.md", "b.md"]


@finding("issue 54 item 1: kb update removes documents reached through --follow-external-links")
def f36(t):
    root = t.home / "linked"
    root.mkdir()
    (t.home / "far").mkdir(exist_ok=True)
    (t.home / "far/glossary.md").write_text("# Glossary\n\nPerigee: the nearest point of an orbit.\n")
    os.symlink(t.home / "far/glossary.md", root / "glossary.md")
    t.run("add", str(root), "--follow-external-links", "-q")
    v, p = t.json("update")
    found, _ = t.json("search", "perigee nearest point", "--fts-only")
    paths = [r["source"]["path"] for r in results(found)]
    return out(p)[:200], any(x.endswith("glossary.md") for x in paths)


@finding("issue 54 item 1: a folder that is gone cannot be forgotten; doctor keeps warning")
def f37(t):
    root = t.home / "soon-gone"
    root.mkdir()
    (root / "x.md").write_text("# X\n\nTemporary.\n")
    t.run("add", str(root), "-q")
    shutil.rmtree(root)
    v, p = t.json("update", "--forget-missing")
    v2, _ = t.json("update")
    d, _ = t.json("doctor")
    roots = [c for c in (d or {}).get("checks", []) if c.get("name") == "roots"]
    gone_warned = any("soon-gone" in c.get("detail", "") for c in roots)
    ok = p.returncode == 0 and v2 is not None and not v2.get("missing_roots") and not gone_warned
    return out(p)[:300], ok


@finding("issue 54 item 2: chunks of a Cargo.toml table all cite the same lines")
def f38(t):
    w = week2(t)
    info, p = t.json("info", w.path("Cargo.toml"))
    ranges = [(c.get("line_start"), c.get("line_end")) for c in (info or {}).get("chunks", [])]
    return json.dumps(ranges), bool(ranges) and len(set(ranges)) == len(ranges)


@finding("issue 54 item 2: TOML keys are re-sorted alphabetically")
def f39(t):
    w = week2(t)
    v, p = t.json("search", "package name version edition", "--document", w.path("Cargo.toml"), "--top", "1")
    text = results(v)[0]["text"] if results(v) else ""
    keys = ["package.name", "package.version", "package.edition", "package.rust-version"]
    at = [text.find(k) for k in keys]
    return text[:200], all(a >= 0 for a in at) and at == sorted(at)


@finding("issue 54 item 3: rust-version --document Cargo.toml ranks package.rust-version 4th")
def f40(t):
    w = week2(t)
    v, p = t.json("search", "rust-version", "--document", w.path("Cargo.toml"))
    first = results(v)[0]["text"] if results(v) else ""
    return first[:200], "package.rust-version" in first


@finding("issue 54 item 4: an off-topic question on data files is no_good_match: false")
def f41(t):
    week2(t)
    v, p = t.json("search", "which dependencies does a happy family have")
    return out(p)[:200], v is not None and v.get("no_good_match") is True


@finding("issue 54 item 4: the 'No good match' line does not say what weak means")
def f42(t):
    week2(t)
    p = t.run("search", "which dependencies does a happy family have", "--format", "human")
    return p.stdout[:300], "no result holds every word of the query" in p.stdout


@finding("issue 54 item 5: web page headings keep their permalink mark (console.time([label])#)")
def f43(t):
    w = week2(t)
    v, p = t.json("outline", w.path("console.html"))
    texts = [i["text"] for i in (v or {}).get("items", [])]
    s = t.run("show", w.path("console.html"), "--section", "console.time([label])", "--format", "json")
    return json.dumps(texts)[:300], bool(texts) and not any(x.endswith("#") for x in texts) and s.returncode == 0


@finding("issue 54 item 5: web pages keep a CSS placeholder, empty navigation items and the contents")
def f44(t):
    w = week2(t)
    v, p = t.json("open", w.path("console.html"))
    text = (v or {}).get("content", "")
    empty = sum(1 for l in text.splitlines() if l.strip() in ("-", "- "))
    ok = "__JS_FLAVORED" not in text and empty == 0 and text.count("console.timeEnd([label])") == 1
    return f"placeholder: {'__JS_FLAVORED' in text}, empty items: {empty}", ok


@finding("issue 54 item 5: --section does not ignore inline code marks")
def f45(t):
    w = week2(t)
    p = t.run("show", w.path("users.md"), "--section", "Special systemd UID ranges", "--format", "json")
    return out(p)[:200], p.returncode == 0


def elsewhere(t, *args):
    cwd = tempfile.mkdtemp(prefix="kb-elsewhere-")
    e = dict(t.env)
    p = subprocess.run([t.kb, "--data-dir", str(t.data), *args, "--format", "json"], env=e, cwd=cwd,
                       capture_output=True, text=True, timeout=300)
    try:
        return json.loads(p.stdout), p
    except json.JSONDecodeError:
        return None, p


@finding("issue 54 item 6: --document FILE_NAME works only from the folder holding it")
def f46(t):
    week2(t)
    v, p = elsewhere(t, "search", "revenue", "--document", "annual-summary.md")
    a, q = elsewhere(t, "search", "revenue", "--document", "q1-review.md")
    ok = bool(results(v)) and all(r["source"]["path"].endswith("annual-summary.md") for r in results(v)) \
        and q.returncode == 1 and "drafts/q1-review.md" in q.stderr
    return out(p)[:200] + "\n" + q.stderr[:200], ok


@finding("issue 54 item 6: --path 'reports/**' works only from the folder holding it")
def f47(t):
    week2(t)
    v, p = elsewhere(t, "search", "revenue", "--path", "reports/**")
    rs = results(v)
    return out(p)[:200], bool(rs) and all("/reports/" in r["source"]["path"] for r in rs)


@finding("issue 54 item 6: over MCP, document, path and tags take only lists")
def f48(t):
    week2(t)
    r = t.mcp([
        t.call(1, "search", {"query": "revenue", "document": "annual-summary.md"}),
        t.call(2, "search", {"query": "revenue", "path": "reports/**"}),
    ])
    paths = []
    for i in (1, 2):
        res = r.get(i, {}).get("result", {})
        if res.get("isError") or not (res.get("structuredContent") or {}).get("results"):
            return json.dumps(r.get(i, {}))[:300], False
        paths.append([x["source"]["path"] for x in res["structuredContent"]["results"]])
    ok = all(x.endswith("annual-summary.md") for x in paths[0]) and all("/reports/" in x for x in paths[1])
    return json.dumps(paths)[:300], ok


@finding("issue 54 item 7: --top 10 returns 9 on a knowledge base of three long PDFs")
def f49(t):
    w = week2(t)
    v, p = t.json("search", "how does management review results in 2018", "--top", "10", "--path", str(w.filings) + "/*")
    v2, _ = t.json("search", "how does management review results in 2018", "--top", "12", "--path", str(w.filings) + "/*")
    n, n2 = len(results(v)), len(results(v2))
    return f"--top 10: {n}, --top 12: {n2}", n == 10 and n2 == 12


@finding("issue 54 item 7: --fts-only --top 3 returns 1 when the matches are in one short document")
def f50(t):
    week2(t)
    v, p = t.json("search", "xylograph", "--fts-only", "--top", "3")
    return f"{len(results(v))} results", len(results(v)) == 3


def quoted_where_open_shows(t, name):
    w = week2(t)
    info, _ = t.json("info", w.path(name))
    bad, total = [], 0
    for c in (info or {}).get("chunks", []):
        ch, _ = t.json("show", str(c["chunk_id"]))
        ch = (ch or {}).get("chunk", {})
        if ch.get("page"):
            rng = ["--pages", f"{ch['page']}:{ch.get('page_end') or ch['page']}"]
        else:
            rng = ["--lines", f"{ch['line_start']}:{ch['line_end']}"]
        o, _ = t.json("open", w.path(name), *rng, "--max-lines", "100000")
        text = ch.get("text", "")
        if name.endswith(".csv"):
            text = text.split("\n", 1)[-1]
        total += 1
        if text not in (o or {}).get("content", ""):
            bad.append(ch.get("chunk_id"))
    return bad, total


@finding("issue 54 item 8: a CSV chunk joins cells with ' | ' where kb open shows commas")
def f51(t):
    bad, total = quoted_where_open_shows(t, "cities.csv")
    return f"{len(bad)} of {total} chunks not found in kb open", total > 0 and not bad


@finding("issue 54 item 8: PDF chunks have a paragraph break where kb open --pages has a space")
def f52(t):
    bad, total = quoted_where_open_shows(t, "reservoir.pdf")
    return f"{len(bad)} of {total} chunks not found in kb open --pages", total > 1 and not bad


@finding("issue 54 item 9: DOCX/PPTX without a core title are named by the file name; footnote marks in titles")
def f53(t):
    week2(t)
    v, p = t.json("list")
    titles = [d["title"] for d in (v if isinstance(v, list) else [])]
    ok = "Release checklist" in titles and "Kickoff" in titles and "Tidal Energy Outlook" in titles
    return json.dumps([x for x in titles if x in ("checklist.docx", "kickoff.pptx") or "Tidal" in x or x in ("Release checklist", "Kickoff")]), ok


@finding("issue 54 item 9: kb show CHUNK --format human has no path:lines header; notes unmarked; \\u{c} in kb open")
def f54(t):
    w = week2(t)
    v, _ = t.json("search", "bowline fixed loop", "--top", "1")
    r = results(v)[0] if results(v) else None
    shown = t.run("show", str(r["chunk_id"]), "--format", "human").stdout if r else ""
    place = f"guide.md:{r['source'].get('line_start')}-{r['source'].get('line_end')}" if r else "?"
    deck = t.run("open", w.path("kickoff.pptx"), "--format", "human").stdout
    ok = place in shown and "Notes: welcome everyone" in deck and "\\u{c}" not in deck
    return shown[:150] + "\n" + deck[:150], ok


@finding("issue 54 item 9: a chunk running into the next section cites only the first")
def f55(t):
    week2(t)
    v, _ = t.json("search", "bowline fixed loop", "--top", "1")
    r = results(v)[0] if results(v) else {}
    return json.dumps(r.get("source", {}))[:300], r.get("source", {}).get("runs_into") == "Knots"


@finding("issue 54 item 9: the search result header does not wrap at narrow widths")
def f56(t):
    week2(t)
    cmd = f"stty cols 60; {t.kb} --data-dir {t.data} search rust-version --top 2 --format human"
    p = subprocess.run(["script", "-qec", cmd, "/dev/null"], env=t.env, capture_output=True, text=True, timeout=120)
    import re

    lines = [re.sub(r"\x1b\[[0-9;]*m", "", l.rstrip("\r")) for l in p.stdout.splitlines()]
    long = [l for l in lines if len(l) > 60 and " " in l.strip()]
    return "\n".join(long[:3]) or p.stdout[:200], bool(lines) and not long


@finding("issue 54 item 10: kb add FILE where every file failed exits 0, without failed_files")
def f57(t):
    bad = t.home / "broken.json"
    bad.write_text('{"a": [1,\n')
    v, p = t.json("add", str(bad))
    return out(p)[:300], p.returncode == 1 and bool((v or {}).get("failed_files"))


@finding("issue 54 item 10: --top abc gives Rust's parser message; the usage line after a typo names another flag")
def f58(t):
    a = t.run("search", "--top", "abc", "x", "--format", "json")
    b = t.run("search", "--tpo", "3", "x", "--format", "json")
    ok = "--top takes a whole number from 1 to 4096" in a.stderr and "Usage: kb search --top" in b.stderr
    return a.stderr[:200] + "\n" + b.stderr[:300], ok


@finding("issue 54 item 10: kb --help, add --help and outline --help do not list the 11 document types")
def f59(t):
    types = ["markdown", "note", "pdf", "doc", "slides", "html", "epub", "spreadsheet", "data", "image", "code"]
    missing = []
    for args in (["--help"], ["add", "--help"], ["outline", "--help"]):
        h = t.run(*args).stdout
        missing += [f"{args[0]}: {x}" for x in types if not any(l.strip().startswith(x + " ") for l in h.splitlines())]
    return json.dumps(missing)[:300], not missing


@finding("issue 54 item 10: SKILL.md puts the query's -- before the options")
def f60(t):
    skill = t.run("skill").stdout
    return "", "kb search --top 3 -- -v flag" in skill


@finding("issue 54 item 11: MCP schemas use uint32 formats, type arrays, occurrence without minimum, CLI wording")
def f61(t):
    r = t.mcp([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}])
    tools = r.get(1, {}).get("result", {}).get("tools", [])
    found = []

    def walk(name, v, path=""):
        if isinstance(v, dict):
            if isinstance(v.get("type"), list):
                found.append(f"{name}{path}: type array")
            if isinstance(v.get("format"), str) and v["format"].startswith(("uint", "int", "double", "float")):
                found.append(f"{name}{path}: format {v['format']}")
            if "over MCP" in str(v.get("description", "")):
                found.append(f"{name}{path}: CLI wording")
            for k, c in v.items():
                walk(name, c, f"{path}/{k}")
        elif isinstance(v, list):
            for c in v:
                walk(name, c, path)

    for x in tools:
        walk(x["name"], x.get("outputSchema", {}))
        walk(x["name"], x.get("inputSchema", {}))
    show = next((x for x in tools if x["name"] == "show"), {})
    occ = show.get("inputSchema", {}).get("properties", {}).get("occurrence", {})
    if occ.get("minimum") != 1:
        found.append("show: occurrence without minimum 1")
    return f"{len(found)} problems: " + "; ".join(found[:4]), bool(tools) and not found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kb", default="target/release/kb")
    ap.add_argument("--model-dir", default=os.environ.get("KB_MODEL_DIR_INT8"))
    ap.add_argument("--only", help="a range of findings, e.g. 1-10")
    args = ap.parse_args()
    if not args.model_dir:
        sys.exit("--model-dir (or KB_MODEL_DIR_INT8) is needed")
    lo, hi = 1, len(FINDINGS)
    if args.only:
        a, _, b = args.only.partition("-")
        lo, hi = int(a), int(b or a)
    trial = Trial(os.path.abspath(args.kb), args.model_dir)
    fixed = 0
    try:
        for n, (title, fn) in enumerate(FINDINGS, 1):
            if not lo <= n <= hi:
                continue
            try:
                shown, ok = fn(trial)
            except Exception as e:  # a crash of the replay is a finding too
                shown, ok = f"replay error: {e!r}", False
            fixed += ok
            print(f"## {n}. {title}: {'fixed' if ok else 'NOT FIXED'}")
            for line in str(shown).splitlines()[:8]:
                print(f"    {line[:160]}")
            print()
    finally:
        shutil.rmtree(trial.home, ignore_errors=True)
    print(f"{fixed} of {hi - lo + 1} fixed")


if __name__ == "__main__":
    main()
