#!/usr/bin/env python3
"""Replays the defects a new-user and agent trial found, against one kb binary.

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
