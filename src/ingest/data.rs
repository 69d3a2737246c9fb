//! Data files: JSON, YAML and TOML. The values are flattened into one line
//! per key path (`server.tls.cert_file = /etc/kb/cert.pem`), so a setting
//! is found by its path and its value; chunks follow the top-level keys
//! (small scalar ones packed together), each cited by the lines the key
//! spans in the file, and every top-level key is a heading for `outline`
//! and `show --section`. The indexed text is the file itself.

use std::path::Path;

use serde_json::Value;

use super::verbatim::split_lines;
use super::{decode_text, file_title, Chunk, ChunkContext, IngestError, ParsedDocument};
use crate::document::Heading;

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

    fn read(self, text: &str) -> Result<Value, String> {
        match self {
            Format::Json => serde_json::from_str(text).map_err(|e| e.to_string()),
            Format::Yaml => {
                let v = super::yaml::from_str(text)?;
                serde_json::to_value(v).map_err(|e| e.to_string())
            }
            Format::Toml => text
                .parse::<toml::Table>()
                .map(|t| toml_value(toml::Value::Table(t)))
                .map_err(|e| e.to_string().trim().to_string()),
        }
    }

    /// Whether `line` starts the top-level entry `key` (an array's entries
    /// are found by their order instead).
    fn starts_key(self, line: &str, key: &str) -> bool {
        fn quoted<'l>(rest: &'l str, key: &str, q: char) -> Option<&'l str> {
            rest.strip_prefix(q)
                .and_then(|r| r.strip_prefix(key))
                .and_then(|r| r.strip_prefix(q))
        }
        match self {
            Format::Yaml => {
                let after = line
                    .strip_prefix(key)
                    .or_else(|| quoted(line, key, '"'))
                    .or_else(|| quoted(line, key, '\''));
                after.is_some_and(|r| r.trim_start().starts_with(':'))
            }
            Format::Toml => {
                let t = line.trim_start();
                let t = t.trim_start_matches('[').trim_start();
                let after = t
                    .strip_prefix(key)
                    .or_else(|| quoted(t, key, '"'))
                    .or_else(|| quoted(t, key, '\''));
                after.is_some_and(|r| {
                    let r = r.trim_start();
                    r.starts_with('=') || r.starts_with('.') || r.starts_with(']')
                })
            }
            Format::Json => false,
        }
    }
}

/// TOML as JSON values; dates and times as their TOML text.
fn toml_value(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => Value::from(f),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(toml_value).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.into_iter().map(|(k, v)| (k, toml_value(v))).collect())
        }
    }
}

/// One top-level key (or array element) and what the file says of it.
struct Entry {
    key: String,
    /// The flattened `path = value` lines.
    flat: String,
    /// 1-based lines in the file.
    line_start: usize,
    line_end: usize,
    scalar: bool,
}

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let text = decode_text(bytes, &mut doc.warnings)?;
    doc.title = file_title(path);
    let format = Format::of(path);
    let value = format
        .read(&text)
        .map_err(|e| IngestError::failed(format!("invalid {}: {e}", format.name())))?;
    let budget = text.len().saturating_mul(EXPANSION_LIMIT) + (1 << 20);
    let mut entries = entries(&value, budget)?;
    place(&mut entries, &text, format);
    entries.sort_by_key(|e| e.line_start);
    doc.meta.headings = entries
        .iter()
        .map(|e| Heading {
            level: 1,
            text: e.key.clone(),
            line: e.line_start,
        })
        .collect();
    doc.chunks = chunks(&entries, ctx);
    doc.content = text;
    if doc.chunks.is_empty() {
        return Err(IngestError::no_text(format!(
            "the {} holds no keys or values",
            format.name()
        )));
    }
    Ok(doc)
}

/// The top-level entries, flattened; a scalar document is one entry.
fn entries(value: &Value, budget: usize) -> Result<Vec<Entry>, IngestError> {
    let top: Vec<(String, &Value)> = match value {
        Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("[{i}]"), v))
            .collect(),
        v => vec![(String::new(), v)],
    };
    let mut used = 0;
    let mut out = Vec::with_capacity(top.len());
    for (key, v) in top {
        let flat = flatten(&key, v, budget - used)?;
        used += flat.len();
        out.push(Entry {
            scalar: !matches!(v, Value::Object(m) if !m.is_empty())
                && !matches!(v, Value::Array(a) if !a.is_empty()),
            key,
            flat,
            line_start: 1,
            line_end: 1,
        });
    }
    Ok(out)
}

/// `path = value` lines under `prefix`, depth first in the file's order;
/// an array of short scalars stays on one line. Iterative: nesting depth
/// costs no stack.
fn flatten(prefix: &str, value: &Value, budget: usize) -> Result<String, IngestError> {
    let mut out = String::new();
    let mut stack: Vec<(String, &Value)> = vec![(prefix.to_string(), value)];
    while let Some((path, v)) = stack.pop() {
        let line = match v {
            Value::Object(m) if !m.is_empty() => {
                for (k, child) in m.iter().rev() {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    stack.push((p, child));
                }
                continue;
            }
            Value::Array(a) if !a.is_empty() => {
                if a.iter().all(|x| !x.is_object() && !x.is_array()) {
                    let items: Vec<String> = a.iter().map(scalar).collect();
                    let joined = items.join(", ");
                    if joined.len() <= 200 {
                        Some(format!("[{joined}]"))
                    } else {
                        for (i, child) in a.iter().enumerate().rev() {
                            stack.push((format!("{path}[{i}]"), child));
                        }
                        None
                    }
                } else {
                    for (i, child) in a.iter().enumerate().rev() {
                        stack.push((format!("{path}[{i}]"), child));
                    }
                    None
                }
            }
            v => Some(scalar(v)),
        };
        if let Some(value) = line {
            if path.is_empty() {
                out.push_str(&value);
            } else {
                out.push_str(&path);
                out.push_str(" = ");
                out.push_str(&value);
            }
            out.push('\n');
            if out.len() > budget {
                return Err(IngestError::failed(format!(
                    "its values expand to more than {} bytes of text (aliases repeated too often?)",
                    budget
                )));
            }
        }
    }
    Ok(out)
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.replace('\n', " "),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        v => v.to_string(),
    }
}

/// Finds each entry's lines in the file: keys by the line that starts them
/// (JSON by a scan of its structure), each spanning to the next entry.
fn place(entries: &mut [Entry], text: &str, format: Format) {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<Option<usize>> = match format {
        Format::Json => {
            let found = json_entry_lines(text);
            (0..entries.len()).map(|i| found.get(i).copied()).collect()
        }
        _ => {
            let is_seq = entries.first().is_some_and(|e| e.key.starts_with('['));
            let mut seq_lines = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.starts_with("- ") || **l == "-")
                .map(|(i, _)| i + 1);
            entries
                .iter()
                .map(|e| {
                    if is_seq && format == Format::Yaml {
                        return seq_lines.next();
                    }
                    lines
                        .iter()
                        .position(|l| format.starts_key(l, &e.key))
                        .map(|i| i + 1)
                })
                .collect()
        }
    };
    let last_line = text.trim_end().lines().count().max(1);
    let mut prev = 1;
    let mut starts_fixed = Vec::with_capacity(entries.len());
    for s in &starts {
        let s = s.unwrap_or(prev);
        starts_fixed.push(s);
        prev = s;
    }
    // Each entry ends where the next one (in the file) starts.
    let mut sorted = starts_fixed.clone();
    sorted.sort_unstable();
    sorted.dedup();
    for (e, &s) in entries.iter_mut().zip(&starts_fixed) {
        let next = sorted.iter().find(|&&n| n > s).copied();
        let mut end = next.map_or(last_line, |n| n - 1).max(s);
        while end > s && lines.get(end - 1).is_some_and(|l| l.trim().is_empty()) {
            end -= 1;
        }
        e.line_start = s;
        e.line_end = end;
    }
}

/// The 1-based lines where the entries of a JSON document's top-level
/// object or array start (a key's line, or an element's first line).
fn json_entry_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut line = 1;
    let mut in_string = false;
    let mut escaped = false;
    // At depth 1: whether the next value starts an entry (after `[` or `,`
    // in an array; in an object the key starts it).
    let mut top_array = false;
    let mut expect_entry = false;
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if c.is_whitespace() {
            continue;
        }
        if depth == 1 && expect_entry && c != ']' && c != '}' {
            out.push(line);
            expect_entry = false;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                depth += 1;
                if depth == 1 {
                    top_array = c == '[';
                    expect_entry = true;
                }
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect_entry = true,
            ':' if depth == 1 && !top_array => {}
            _ => {}
        }
    }
    out
}

/// Chunks: each entry with nested values its own (split when over the
/// limit), runs of scalar entries packed together.
fn chunks(entries: &[Entry], ctx: &ChunkContext) -> Vec<Chunk> {
    let max = ctx.cap(ctx.config.data.max_tokens);
    let mut out = Vec::new();
    let mut run: Vec<&Entry> = Vec::new();
    let mut run_tokens = 0;
    let flush = |run: &mut Vec<&Entry>, out: &mut Vec<Chunk>| {
        if run.is_empty() {
            return;
        }
        let text: String = run.iter().map(|e| e.flat.as_str()).collect();
        let text = text.trim_end().to_string();
        let section = (run.len() == 1 && !run[0].key.is_empty()).then(|| run[0].key.clone());
        let mut c = Chunk::new(text.clone(), ctx.tokens.count(&text), section);
        c.meta.line_start = Some(run[0].line_start as u64);
        c.meta.line_end = Some(run.iter().map(|e| e.line_end).max().unwrap_or(1) as u64);
        out.push(c);
        run.clear();
    };
    for e in entries {
        let n = ctx.tokens.count(&e.flat);
        if e.scalar && n <= max {
            if run_tokens + n > max {
                flush(&mut run, &mut out);
                run_tokens = 0;
            }
            run.push(e);
            run_tokens += n;
            continue;
        }
        flush(&mut run, &mut out);
        run_tokens = 0;
        let section = (!e.key.is_empty()).then(|| e.key.clone());
        for p in split_lines(&e.flat, 0..e.flat.len(), max, ctx.overlap(max), ctx.tokens) {
            let mut c = Chunk::new(p.text, p.tokens, section.clone());
            c.meta.line_start = Some(e.line_start as u64);
            c.meta.line_end = Some(e.line_end as u64);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;

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
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.text.as_str(), h.line))
            .collect();
        assert_eq!(
            hs,
            [("name", 1), ("version", 2), ("server", 4), ("users", 10)]
        );
        assert_eq!(doc.content, src);
    }

    #[test]
    fn json_and_toml() {
        let src = "{\n  \"a\": 1,\n  \"db\": {\n    \"host\": \"x\",\n    \"port\": 5432\n  },\n  \"s\": \"}\\\"{\"\n}\n";
        let doc = run("c.json", src);
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.text.as_str(), h.line))
            .collect();
        assert_eq!(hs, [("a", 2), ("db", 3), ("s", 7)]);
        assert_eq!(doc.chunks[1].text, "db.host = x\ndb.port = 5432");
        assert_eq!(lines(&doc.chunks[1]), (3, 6));
        let arr = run("l.json", "[\n {\"k\": 1},\n {\"k\": 2}\n]\n");
        let hs: Vec<_> = arr
            .meta
            .headings
            .iter()
            .map(|h| (h.text.as_str(), h.line))
            .collect();
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
