//! Data files: JSON, YAML and TOML. The values are flattened into one line
//! per key path (`server.tls.cert_file = /etc/kb/cert.pem`), so a setting
//! is found by its path and its value. The lines keep the file's order
//! (TOML's tables too, wherever they are opened) and each knows the lines
//! of its key in the file (`spans`), so a chunk cites exactly the lines of
//! the keys it holds. Chunks follow the top-level keys (small scalar ones
//! packed together); every top-level key is a heading for `outline` and
//! `show --section`. The indexed text is the file itself.

mod spans;

use std::path::Path;

use serde_json::Value;

use super::verbatim::split_lines;
use super::{decode_text, file_title, Chunk, ChunkContext, IngestError, ParsedDocument};
use crate::document::Heading;
use spans::Spans;

/// The flattened text may be at most this many times the file's size (plus
/// a mebibyte): YAML aliases can make a small file expand without bound.
const EXPANSION_LIMIT: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    Json,
    Yaml,
    Toml,
}

impl Format {
    fn of(path: &Path) -> Format {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("yaml" | "yml") => Format::Yaml,
            Some("toml") => Format::Toml,
            _ => Format::Json,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Json => "JSON",
            Format::Yaml => "YAML",
            Format::Toml => "TOML",
        }
    }

    /// The file's values and, where they could be read, their lines.
    fn read(self, text: &str) -> Result<(Value, Option<Spans>), String> {
        match self {
            Format::Json => {
                let v = serde_json::from_str(text).map_err(|e| e.to_string())?;
                Ok((v, spans::from_yaml_events(text)))
            }
            Format::Yaml => {
                // A stream of documents reads as a list of them, the empty
                // ones left out.
                let mut docs = super::yaml::documents(text)?;
                docs.retain(|d| !d.is_null());
                let v = match docs.len() {
                    0 => serde_norway::Value::Null,
                    1 => docs.remove(0),
                    _ => serde_norway::Value::Sequence(docs),
                };
                let v = serde_json::to_value(v).map_err(|e| e.to_string())?;
                Ok((v, spans::from_yaml_events(text)))
            }
            Format::Toml => spans::toml(text).map(|(v, s)| (v, Some(s))),
        }
    }
}

/// A TOML text's values (dates and times as their TOML text), as a data
/// file's are read; Markdown's `+++` frontmatter is read so too.
pub fn toml_values(text: &str) -> Result<Value, String> {
    spans::toml(text).map(|(values, _)| values)
}

/// One flattened `path = value` line and the lines of its key in the file.
struct Leaf {
    text: String,
    lines: (usize, usize),
    /// Its top-level entry (an index into [`Top`]s).
    top: usize,
}

/// A top-level key (or array element) of the file.
struct Top {
    key: String,
    /// Its line in the file (its key, or its TOML table's header).
    line: usize,
    /// Its value is neither a mapping nor a list with entries.
    scalar: bool,
}

/// The leaves of one top-level entry that follow each other in the file
/// (a TOML table opened again further down is a second block).
struct Block {
    top: usize,
    leaves: std::ops::Range<usize>,
    /// Its first line: the entry's key, or a TOML header opening it again.
    line: usize,
}

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let text = decode_text(bytes, &mut doc.warnings)?;
    doc.title = file_title(path);
    let format = Format::of(path);
    let (value, spans) = format
        .read(&text)
        .map_err(|e| IngestError::failed(format!("invalid {}: {e}", format.name())))?;
    let budget = text.len().saturating_mul(EXPANSION_LIMIT) + (1 << 20);
    let lines: Vec<&str> = text.lines().collect();
    let whole = (1, text.trim_end().lines().count().max(1));
    let (tops, mut leaves) = flatten(&value, spans.as_ref(), whole, budget)?;
    for leaf in &mut leaves {
        leaf.lines = trimmed(leaf.lines, &lines);
    }
    // The file's order: TOML keeps a table's keys together wherever the
    // file opens it.
    leaves.sort_by_key(|l| l.lines.0);
    let blocks = blocks(&tops, &leaves, &lines);
    doc.meta.headings = blocks
        .iter()
        .filter(|b| !tops[b.top].key.is_empty())
        .map(|b| Heading {
            level: 1,
            text: tops[b.top].key.clone(),
            line: b.line,
        })
        .collect();
    doc.chunks = chunks(&tops, &leaves, &blocks, ctx);
    doc.content = text;
    if doc.chunks.is_empty() {
        return Err(IngestError::no_text(format!(
            "the {} holds no keys or values",
            format.name()
        )));
    }
    Ok(doc)
}

/// Lines without the blank ones a span may end with (a block scalar's).
fn trimmed((start, mut end): (usize, usize), lines: &[&str]) -> (usize, usize) {
    while end > start && lines.get(end - 1).is_none_or(|l| l.trim().is_empty()) {
        end -= 1;
    }
    (start, end)
}

/// A value still to flatten: its key path, its spans and the lines it covers.
type Pending<'a> = (String, &'a Value, Option<&'a Spans>, (usize, usize));

/// The top-level entries and every `path = value` line, depth first in
/// the tree's order (a scalar document is one entry without a key); an
/// array of short scalars stays on one line. A value whose lines are not
/// known takes its parent's. Iterative: nesting depth costs no stack.
fn flatten(
    value: &Value,
    spans: Option<&Spans>,
    whole: (usize, usize),
    budget: usize,
) -> Result<(Vec<Top>, Vec<Leaf>), IngestError> {
    let top: Vec<(String, &Value, Option<&Spans>)> = match value {
        Value::Object(m) => m
            .iter()
            .enumerate()
            .map(|(i, (k, v))| (k.clone(), v, child(children(spans), i, Some(k), m.len())))
            .collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| {
                (
                    format!("[{i}]"),
                    v,
                    child(children(spans), i, None, a.len()),
                )
            })
            .collect(),
        v => vec![(String::new(), v, spans)],
    };
    let mut tops = Vec::with_capacity(top.len());
    let mut leaves = Vec::new();
    let mut used = 0;
    for (t, (key, v, s)) in top.into_iter().enumerate() {
        let lines = s.map_or(whole, |s| s.lines);
        tops.push(Top {
            key: one_line(&key),
            line: lines.0,
            scalar: !matches!(v, Value::Object(m) if !m.is_empty())
                && !matches!(v, Value::Array(a) if !a.is_empty()),
        });
        let mut stack: Vec<Pending> = vec![(one_line(&key), v, s, lines)];
        while let Some((path, v, s, lines)) = stack.pop() {
            let value = match v {
                Value::Object(m) if !m.is_empty() => {
                    for (i, (k, c)) in m.iter().enumerate().rev() {
                        let cs = child(children(s), i, Some(k), m.len());
                        let p = if path.is_empty() {
                            one_line(k)
                        } else {
                            format!("{path}.{}", one_line(k))
                        };
                        stack.push((p, c, cs, cs.map_or(lines, |c| c.lines)));
                    }
                    continue;
                }
                Value::Array(a) if !a.is_empty() => {
                    let joined = (a.iter().all(|x| !x.is_object() && !x.is_array()))
                        .then(|| a.iter().map(scalar).collect::<Vec<_>>().join(", "))
                        .filter(|j| j.len() <= 200);
                    match joined {
                        Some(j) => format!("[{j}]"),
                        None => {
                            for (i, c) in a.iter().enumerate().rev() {
                                let cs = child(children(s), i, None, a.len());
                                stack.push((
                                    format!("{path}[{i}]"),
                                    c,
                                    cs,
                                    cs.map_or(lines, |c| c.lines),
                                ));
                            }
                            continue;
                        }
                    }
                }
                v => scalar(v),
            };
            let text = if path.is_empty() {
                value
            } else {
                format!("{path} = {value}")
            };
            used += text.len() + 1;
            if used > budget {
                return Err(IngestError::failed(format!(
                    "its values expand to more than {budget} bytes of text (aliases repeated too often?)"
                )));
            }
            leaves.push(Leaf {
                text,
                lines,
                top: t,
            });
        }
    }
    Ok((tops, leaves))
}

/// The spans of a value's entries or items (none when its lines are not
/// known).
fn children(s: Option<&Spans>) -> &[(Option<String>, Spans)] {
    s.map(|s| s.children.as_slice()).unwrap_or_default()
}

/// The spans of entry `i` of `len`, when the parser's events and the
/// values agree on the entries (and, for a mapping, on the key).
fn child<'s>(
    children: &'s [(Option<String>, Spans)],
    i: usize,
    key: Option<&String>,
    len: usize,
) -> Option<&'s Spans> {
    if children.len() != len {
        return None;
    }
    let (name, s) = children.get(i)?;
    match (name, key) {
        (Some(n), Some(k)) if n != k => None,
        _ => Some(s),
    }
}

/// A key on one line.
fn one_line(key: &str) -> String {
    if key.contains(['\n', '\r']) {
        key.replace(['\n', '\r'], " ")
    } else {
        key.to_string()
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.replace('\n', " "),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        v => v.to_string(),
    }
}

/// The runs of leaves of one top-level entry, in the file's order. A
/// block's line is its entry's key for the entry's first block; a later
/// one (a TOML table opened again under another header) starts at the
/// header lines right above its first key.
fn blocks(tops: &[Top], leaves: &[Leaf], lines: &[&str]) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut seen = vec![false; tops.len()];
    let mut prev_end = 0;
    for (i, leaf) in leaves.iter().enumerate() {
        match out.last_mut() {
            Some(b) if b.top == leaf.top => b.leaves.end = i + 1,
            _ => {
                let first = leaf.lines.0;
                let line = if seen[leaf.top] {
                    let mut l = first;
                    while l > prev_end + 1
                        && lines
                            .get(l - 2)
                            .is_some_and(|t| t.trim_start().starts_with('['))
                    {
                        l -= 1;
                    }
                    l
                } else {
                    tops[leaf.top]
                        .line
                        .clamp(prev_end + 1, first.max(prev_end + 1))
                };
                seen[leaf.top] = true;
                out.push(Block {
                    top: leaf.top,
                    leaves: i..i + 1,
                    line,
                });
            }
        }
        prev_end = prev_end.max(leaf.lines.1);
    }
    out
}

/// Chunks: each block of an entry with nested values its own (split at
/// its lines when over the limit), runs of scalar entries packed together.
/// A chunk cites the lines of the keys it holds; a block's first chunk
/// starts at the block's line (its key, or its table's header).
fn chunks(tops: &[Top], leaves: &[Leaf], blocks: &[Block], ctx: &ChunkContext) -> Vec<Chunk> {
    let max = ctx.cap(ctx.config.data.max_tokens);
    let mut out = Vec::new();
    let mut run: Vec<&Block> = Vec::new();
    let mut run_tokens = 0;
    let emit = |group: &[&Block], section: Option<String>, out: &mut Vec<Chunk>| {
        let Some(first) = group.first() else {
            return;
        };
        let range = first.leaves.start..group.last().map_or(first.leaves.end, |b| b.leaves.end);
        let held = &leaves[range];
        let text = held
            .iter()
            .map(|l| l.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let overlap = if group.len() == 1 {
            ctx.overlap(max)
        } else {
            0
        };
        for (n, p) in split_lines(&text, 0..text.len(), max, overlap, ctx.tokens)
            .into_iter()
            .enumerate()
        {
            let part = &held[p.line_start - 1..p.line_end.min(held.len())];
            let start = part.iter().map(|l| l.lines.0).min().unwrap_or(first.line);
            let end = part.iter().map(|l| l.lines.1).max().unwrap_or(start);
            let start = if n == 0 { first.line.min(start) } else { start };
            let mut c = Chunk::new(p.text, p.tokens, section.clone());
            c.meta.line_start = Some(start as u64);
            c.meta.line_end = Some(end.max(start) as u64);
            out.push(c);
        }
    };
    let flush = |run: &mut Vec<&Block>, out: &mut Vec<Chunk>| {
        let section = match run.as_slice() {
            [one] if !tops[one.top].key.is_empty() => Some(tops[one.top].key.clone()),
            _ => None,
        };
        emit(run, section, out);
        run.clear();
    };
    for b in blocks {
        let n: usize = leaves[b.leaves.clone()]
            .iter()
            .map(|l| ctx.tokens.count(&l.text))
            .sum();
        if tops[b.top].scalar && n <= max {
            if run_tokens + n > max {
                flush(&mut run, &mut out);
                run_tokens = 0;
            }
            run.push(b);
            run_tokens += n;
            continue;
        }
        flush(&mut run, &mut out);
        run_tokens = 0;
        let section = (!tops[b.top].key.is_empty()).then(|| tops[b.top].key.clone());
        emit(&[b], section, &mut out);
    }
    flush(&mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;

    /// Each heading's text and line.
    fn headings(doc: &ParsedDocument) -> Vec<(&str, usize)> {
        doc.meta
            .headings
            .iter()
            .map(|h| (h.text.as_str(), h.line))
            .collect()
    }

    fn run(name: &str, src: &str) -> ParsedDocument {
        let c = ChunkingConfig::default();
        parse(
            Path::new(name),
            src.as_bytes(),
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap()
    }

    fn lines(c: &Chunk) -> (u64, u64) {
        (c.meta.line_start.unwrap(), c.meta.line_end.unwrap())
    }

    #[test]
    fn yaml_keys_flatten_and_are_cited_by_line() {
        let src = "name: kb\nversion: 3\n\nserver:\n  port: 8080\n  tls:\n    cert_file: /etc/kb/cert.pem\n    ciphers: [a, b]\n\nusers:\n  - name: ann\n    role: admin\n";
        let doc = run("app.yaml", src);
        let texts: Vec<&str> = doc.chunks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "name = kb\nversion = 3",
                "server.port = 8080\nserver.tls.cert_file = /etc/kb/cert.pem\nserver.tls.ciphers = [a, b]",
                "users[0].name = ann\nusers[0].role = admin"
            ]
        );
        assert_eq!(lines(&doc.chunks[0]), (1, 2));
        assert_eq!(lines(&doc.chunks[1]), (4, 8));
        assert_eq!(lines(&doc.chunks[2]), (10, 12));
        assert_eq!(doc.chunks[1].meta.section.as_deref(), Some("server"));
        let hs = headings(&doc);
        assert_eq!(
            hs,
            [("name", 1), ("version", 2), ("server", 4), ("users", 10)]
        );
        assert_eq!(doc.content, src);
    }

    #[test]
    fn a_yaml_stream_reads_each_document_with_its_lines() {
        // A Kubernetes manifest: documents parted by `---`, each an item.
        let src = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: backend-worker\n---\n";
        let doc = run("k8s.yaml", src);
        let texts: Vec<&str> = doc.chunks.iter().map(|c| c.text.as_str()).collect();
        assert!(
            texts
                .iter()
                .any(|t| t.contains("[1].metadata.name = backend-worker")),
            "{texts:?}"
        );
        let hs = headings(&doc);
        assert_eq!(hs, [("[0]", 1), ("[1]", 6)], "{texts:?}");
        let second = doc
            .chunks
            .iter()
            .find(|c| c.text.contains("backend-worker"))
            .unwrap();
        assert_eq!(lines(second), (6, 9));
        // Empty and null documents are no items, wherever they stand.
        let src = "a: 1\n---\n---\n# only a comment\n---\n~\n...\n---\nname: third\nkind: x\n";
        let doc = run("gaps.yaml", src);
        let third = doc
            .chunks
            .iter()
            .find(|c| c.text.contains("third"))
            .unwrap();
        assert_eq!(lines(third), (9, 10), "{}", third.text);
        assert_eq!(headings(&doc), [("[0]", 1), ("[1]", 9)]);
        // One document, with or without its `---`, is read as before.
        let one = run("one.yaml", "---\nname: kb\n");
        assert_eq!(one.chunks[0].text, "name = kb");
    }

    #[test]
    fn json_and_toml() {
        let src = "{\n  \"a\": 1,\n  \"db\": {\n    \"host\": \"x\",\n    \"port\": 5432\n  },\n  \"s\": \"}\\\"{\"\n}\n";
        let doc = run("c.json", src);
        let hs = headings(&doc);
        assert_eq!(hs, [("a", 2), ("db", 3), ("s", 7)]);
        assert_eq!(doc.chunks[1].text, "db.host = x\ndb.port = 5432");
        // Its keys' lines, not the closing brace.
        assert_eq!(lines(&doc.chunks[1]), (3, 5));
        let arr = run("l.json", "[\n {\"k\": 1},\n {\"k\": 2}\n]\n");
        let hs = headings(&arr);
        assert_eq!(hs, [("[0]", 2), ("[1]", 3)]);

        let src = "title = \"kb\"\nwhen = 2024-01-02\n\n[server]\nport = 80\n\n[server.tls]\ncert_file = \"/etc/c.pem\"\n";
        let doc = run("Cargo.toml", src);
        let server = doc
            .chunks
            .iter()
            .find(|c| c.meta.section.as_deref() == Some("server"))
            .unwrap();
        assert_eq!(
            server.text,
            "server.port = 80\nserver.tls.cert_file = /etc/c.pem"
        );
        assert_eq!(lines(server), (4, 8));
        assert!(doc.chunks[0].text.contains("when = 2024-01-02"));
    }

    /// A long table split into several chunks: each cites the lines of
    /// its own keys, and keys keep the file's order (TOML too, with a table
    /// opened again further down).
    #[test]
    fn split_tables_cite_their_own_keys_in_file_order() {
        let mut src = String::from("[package]\nname = \"kb\"\nversion = \"0.1.0\"\nrust-version = \"1.85\"\nedition = \"2021\"\n\n[dependencies]\n");
        for i in 0..120 {
            src.push_str(&format!(
                "crate-number-{i} = {{ version = \"{i}.0\", features = [\"feature-{i}\"] }}\n"
            ));
        }
        src.push_str("\n[package.metadata.docs]\nall-features = true\n");
        let doc = run("Cargo.toml", &src);
        let package: Vec<&Chunk> = doc
            .chunks
            .iter()
            .filter(|c| c.meta.section.as_deref() == Some("package"))
            .collect();
        assert_eq!(package.len(), 2, "the table and its later part");
        assert_eq!(
            package[0].text,
            "package.name = kb\npackage.version = 0.1.0\npackage.rust-version = 1.85\npackage.edition = 2021"
        );
        assert_eq!(lines(package[0]), (1, 5));
        assert_eq!(package[1].text, "package.metadata.docs.all-features = true");
        assert_eq!(lines(package[1]), (129, 130));
        let deps: Vec<&Chunk> = doc
            .chunks
            .iter()
            .filter(|c| c.meta.section.as_deref() == Some("dependencies"))
            .collect();
        assert!(deps.len() >= 2, "{}", deps.len());
        assert_eq!(
            deps[0].meta.line_start,
            Some(7),
            "the header opens the first"
        );
        let mut ranges: Vec<(u64, u64)> = deps.iter().map(|c| lines(c)).collect();
        ranges.dedup();
        assert_eq!(
            ranges.len(),
            deps.len(),
            "no two pieces cite the same lines: {ranges:?}"
        );
        for c in &deps {
            // Every key a piece holds lies in its lines, and no other.
            let (a, b) = lines(c);
            for line in c.text.lines() {
                let n: u64 = line["dependencies.crate-number-".len()..]
                    .split('.')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert!((a..=b).contains(&(n + 8)), "{line} outside {a}-{b}");
            }
            assert!(b - a <= c.text.lines().count() as u64 + 1, "{a}-{b}");
        }
        let hs = headings(&doc);
        assert_eq!(hs, [("package", 1), ("dependencies", 7), ("package", 129)]);
    }

    #[test]
    fn yaml_workflow_steps_are_cited_by_their_lines() {
        let src = "name: CI\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Run the tests\n        run: |\n          cargo test --locked\n          cargo clippy\n\n      - name: Upload\n        uses: actions/upload-artifact@v4\n";
        let doc = run("ci.yml", src);
        let jobs = doc
            .chunks
            .iter()
            .find(|c| c.meta.section.as_deref() == Some("jobs"))
            .unwrap();
        assert_eq!(lines(jobs), (5, 16));
        assert!(
            jobs.text
                .starts_with("jobs.test.runs-on = ubuntu-latest\njobs.test.steps[0].uses"),
            "{}",
            jobs.text
        );
        let on = doc
            .chunks
            .iter()
            .find(|c| c.meta.section.as_deref() == Some("on"))
            .unwrap();
        assert_eq!(
            (on.text.as_str(), lines(on)),
            ("on.push.branches = [main]", (2, 4))
        );
    }

    #[test]
    fn invalid_and_explosive_files_fail_alone() {
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let e = parse(Path::new("x.json"), b"{\"a\": [1, 2", &ctx).unwrap_err();
        assert!(e.to_string().starts_with("invalid JSON"), "{e}");
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(Path::new("d.json"), deep.as_bytes(), &ctx).is_err());
        // Billion laughs in YAML: refused by the parser or by the budget.
        let mut bomb = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for i in 1..9 {
            let p = (b'a' + i - 1) as char;
            let n = (b'a' + i) as char;
            bomb.push_str(&format!(
                "{n}: &{n} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
            ));
        }
        assert!(parse(Path::new("bomb.yaml"), bomb.as_bytes(), &ctx).is_err());
    }
}
