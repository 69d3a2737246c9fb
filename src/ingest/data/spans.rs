//! Where each value of a data file stands: the lines from an entry's key
//! (or a list item's start) to its value's last line, for every entry of
//! the tree. YAML and JSON (a subset of YAML 1.2) are read a second time
//! as marked events (serde_norway and serde_json keep no positions); TOML
//! is read once, with spans, and turned into values here.

use serde_json::Value;

/// The lines a value spans, with those of its entries or items in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Spans {
    /// 1-based first and last line.
    pub lines: (usize, usize),
    /// A mapping's entries (with their keys when they are plain text) or
    /// a sequence's items (no key).
    pub children: Vec<(Option<String>, Spans)>,
}

impl Spans {
    fn leaf(lines: (usize, usize)) -> Spans {
        Spans {
            lines,
            children: Vec::new(),
        }
    }

    /// The spans of a container's entries and items, closed: its lines
    /// run from `start` to its last entry's end (or `end` when empty).
    fn container(start: usize, end: usize, children: Vec<(Option<String>, Spans)>) -> Spans {
        let last = children.iter().map(|(_, s)| s.lines.1).max().unwrap_or(end);
        Spans {
            lines: (start, last.max(start)),
            children,
        }
    }
}

/// The spans of a YAML (or JSON) file's document, from the parser's marked
/// events (a stream of several documents spans as a list of them); `None`
/// when the events cannot be read or hold a key that is itself a mapping
/// or a sequence (the caller then cites the whole file).
pub(super) fn from_yaml_events(text: &str) -> Option<Spans> {
    use saphyr_parser::{Event, Parser};
    enum Frame {
        Map {
            start: usize,
            entries: Vec<(Option<String>, Spans)>,
            /// The key read, waiting for its value: (text, line).
            key: Option<(Option<String>, usize)>,
        },
        Seq {
            start: usize,
            items: Vec<(Option<String>, Spans)>,
        },
    }
    let expects_key = |stack: &[Frame]| matches!(stack.last(), Some(Frame::Map { key: None, .. }));
    let mut stack: Vec<Frame> = Vec::new();
    let mut documents: Vec<(Option<String>, Spans)> = Vec::new();
    let mut parser = Parser::new_from_str(text);
    while let Some(next) = parser.next_event() {
        let (event, span) = next.ok()?;
        let start = span.start.line();
        let end = end_line(span.start.line(), span.end.line(), span.end.col());
        // A document that is null (empty, `~`) is no item, as it is no
        // value (`data::Format::read` leaves such documents out).
        let null = matches!(&event, Event::Scalar(v, saphyr_parser::ScalarStyle::Plain, _, None)
            if matches!(v.as_ref(), "" | "~" | "null" | "Null" | "NULL"));
        let done = match event {
            Event::Scalar(v, ..) => {
                if let Some(Frame::Map {
                    key: key @ None, ..
                }) = stack.last_mut()
                {
                    *key = Some((Some(v.into_owned()), start));
                    continue;
                }
                Spans::leaf((start, end))
            }
            Event::Alias(_) => {
                if let Some(Frame::Map {
                    key: key @ None, ..
                }) = stack.last_mut()
                {
                    *key = Some((None, start));
                    continue;
                }
                Spans::leaf((start, end))
            }
            Event::MappingStart(..) | Event::SequenceStart(..) if expects_key(&stack) => {
                // A mapping or a sequence as a key: no path names it.
                return None;
            }
            Event::MappingStart(..) => {
                stack.push(Frame::Map {
                    start,
                    entries: Vec::new(),
                    key: None,
                });
                continue;
            }
            Event::SequenceStart(..) => {
                stack.push(Frame::Seq {
                    start,
                    items: Vec::new(),
                });
                continue;
            }
            Event::MappingEnd => match stack.pop()? {
                Frame::Map {
                    start: s,
                    entries,
                    key: None,
                } => Spans::container(s, end, entries),
                _ => return None,
            },
            Event::SequenceEnd => match stack.pop()? {
                Frame::Seq { start: s, items } => Spans::container(s, end, items),
                Frame::Map { .. } => return None,
            },
            Event::StreamEnd => break,
            Event::DocumentEnd if !stack.is_empty() => return None,
            _ => continue,
        };
        match stack.last_mut() {
            None if null => {}
            None => documents.push((None, done)),
            Some(Frame::Map { entries, key, .. }) => {
                let (name, line) = key.take()?;
                let mut done = done;
                done.lines.0 = done.lines.0.min(line);
                entries.push((name, done));
            }
            Some(Frame::Seq { items, .. }) => items.push((None, done)),
        }
    }
    match documents.len() {
        0 => None,
        1 => documents.pop().map(|(_, s)| s),
        _ => {
            let start = documents[0].1.lines.0;
            Some(Spans::container(start, start, documents))
        }
    }
}

/// The last line of a span whose end (exclusive) is at `end_line`,
/// `end_col`: a span ending at the start of a line ends on the line before.
fn end_line(start_line: usize, end_line: usize, end_col: usize) -> usize {
    if end_col == 0 && end_line > start_line {
        end_line - 1
    } else {
        end_line
    }
}

/// Byte offsets to 1-based lines.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        Lines(memchr::memchr_iter(b'\n', text.as_bytes()).collect())
    }

    fn of(&self, offset: usize) -> usize {
        self.0.partition_point(|&nl| nl < offset) + 1
    }

    /// The lines of a byte range (its end exclusive).
    fn span(&self, r: &std::ops::Range<usize>) -> (usize, usize) {
        let start = self.of(r.start);
        (start, self.of(r.end.saturating_sub(1).max(r.start)))
    }
}

/// The most levels of tables a TOML file may nest (headers such as
/// `[a.b.c...]` nest without brackets).
const TOML_MAX_DEPTH: usize = 128;

/// A TOML file's values (as JSON values; dates and times as their TOML
/// text) and their spans, keys in the order the parser keeps them.
pub(super) fn toml(text: &str) -> Result<(Value, Spans), String> {
    let doc = toml_edit::ImDocument::parse(text).map_err(|e| e.to_string().trim().to_string())?;
    let lines = Lines::new(text);
    toml_table(doc.as_table(), None, &lines, 0)
}

fn toml_table(
    t: &dyn toml_edit::TableLike,
    span: Option<std::ops::Range<usize>>,
    lines: &Lines,
    depth: usize,
) -> Result<(Value, Spans), String> {
    if depth > TOML_MAX_DEPTH {
        return Err(format!(
            "recursion limit exceeded: tables nested more than {TOML_MAX_DEPTH} levels deep"
        ));
    }
    let mut values = serde_json::Map::new();
    let mut children = Vec::new();
    for (k, item) in t.iter() {
        let (v, mut s) = toml_item(item, lines, depth + 1)?;
        if let Some(key_line) = t
            .key(k)
            .and_then(|key| key.span())
            .map(|r| lines.of(r.start))
        {
            if s.lines == (0, 0) {
                s.lines = (key_line, key_line);
            }
            s.lines.0 = s.lines.0.min(key_line);
        }
        values.insert(k.to_string(), v);
        children.push((Some(k.to_string()), s));
    }
    let own = span.map(|r| lines.span(&r));
    let start = own
        .map(|l| l.0)
        .into_iter()
        .chain(children.iter().map(|(_, s)| s.lines.0).filter(|&l| l > 0))
        .min()
        .unwrap_or(0);
    let end = own.map_or(start, |l| l.1);
    Ok((
        Value::Object(values),
        Spans::container(start, end, children),
    ))
}

fn toml_item(
    item: &toml_edit::Item,
    lines: &Lines,
    depth: usize,
) -> Result<(Value, Spans), String> {
    use toml_edit::Item;
    match item {
        Item::None => Ok((Value::Null, Spans::default())),
        Item::Value(v) => toml_value(v, lines, depth),
        Item::Table(t) => toml_table(t, t.span(), lines, depth),
        Item::ArrayOfTables(a) => {
            let mut values = Vec::new();
            let mut children = Vec::new();
            for t in a.iter() {
                let (v, s) = toml_table(t, t.span(), lines, depth + 1)?;
                values.push(v);
                children.push((None, s));
            }
            let start = children.iter().map(|(_, s)| s.lines.0).min().unwrap_or(0);
            Ok((
                Value::Array(values),
                Spans::container(start, start, children),
            ))
        }
    }
}

fn toml_value(v: &toml_edit::Value, lines: &Lines, depth: usize) -> Result<(Value, Spans), String> {
    use toml_edit::Value as T;
    let own = v.span().map(|r| lines.span(&r)).unwrap_or_default();
    let leaf = |value: Value| Ok((value, Spans::leaf(own)));
    match v {
        T::String(s) => leaf(Value::String(s.value().clone())),
        T::Integer(i) => leaf(Value::from(*i.value())),
        T::Float(f) => leaf(Value::from(*f.value())),
        T::Boolean(b) => leaf(Value::Bool(*b.value())),
        T::Datetime(d) => leaf(Value::String(d.value().to_string())),
        T::Array(a) => {
            if depth > TOML_MAX_DEPTH {
                return Err(format!(
                    "recursion limit exceeded: values nested more than {TOML_MAX_DEPTH} levels deep"
                ));
            }
            let mut values = Vec::new();
            let mut children = Vec::new();
            for item in a.iter() {
                let (v, s) = toml_value(item, lines, depth + 1)?;
                values.push(v);
                children.push((None, s));
            }
            Ok((
                Value::Array(values),
                Spans::container(own.0, own.1, children),
            ))
        }
        T::InlineTable(t) => {
            let (value, mut s) = toml_table(t, None, lines, depth + 1)?;
            s.lines = (own.0, own.1.max(s.lines.1));
            Ok((value, s))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(s: &Spans) -> Vec<(Option<&str>, (usize, usize))> {
        s.children
            .iter()
            .map(|(k, c)| (k.as_deref(), c.lines))
            .collect()
    }

    #[test]
    fn yaml_entries_span_their_key_to_their_value() {
        let src = "name: kb\nserver:\n  port: 8080\n  run: |\n    one\n    two\n\nusers:\n  - name: ann\n    role: admin\n";
        let s = from_yaml_events(src).unwrap();
        assert_eq!(
            lines_of(&s),
            [
                (Some("name"), (1, 1)),
                // A block scalar runs to the next key (the blank line
                // after it is trimmed where chunks are cited).
                (Some("server"), (2, 7)),
                (Some("users"), (8, 10))
            ]
        );
        assert_eq!(
            lines_of(&s.children[1].1),
            [(Some("port"), (3, 3)), (Some("run"), (4, 7))]
        );
        let users = &s.children[2].1;
        assert_eq!(users.children[0].1.lines, (9, 10));
        assert_eq!(
            lines_of(&users.children[0].1),
            [(Some("name"), (9, 9)), (Some("role"), (10, 10))]
        );
    }

    #[test]
    fn json_is_read_as_yaml_events() {
        let src = "{\n  \"a\": 1,\n  \"db\": {\n    \"host\": \"x\",\n    \"port\": 5432\n  },\n  \"list\": [\n    1,\n    2\n  ]\n}\n";
        let s = from_yaml_events(src).unwrap();
        assert_eq!(
            lines_of(&s),
            [
                (Some("a"), (2, 2)),
                (Some("db"), (3, 5)),
                (Some("list"), (7, 9))
            ]
        );
        assert!(from_yaml_events("? [a, b]\n: c\n").is_none());
    }

    #[test]
    fn toml_keys_keep_the_files_order_and_lines() {
        let src = "[package]\nname = \"kb\"\nrust-version = \"1.85\"\nauthors = [\n  \"a\",\n  \"b\",\n]\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n\n[package.metadata.docs]\nall = true\n";
        let (v, s) = toml(src).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap()["package"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["name", "rust-version", "authors", "metadata"]);
        let package = &s.children[0].1;
        assert_eq!(
            lines_of(package),
            [
                (Some("name"), (2, 2)),
                (Some("rust-version"), (3, 3)),
                // The values, not the closing bracket.
                (Some("authors"), (4, 6)),
                (Some("metadata"), (12, 13))
            ]
        );
        assert_eq!(package.lines.0, 1);
        let deps = &s.children[1].1;
        assert_eq!(deps.lines, (9, 10));
        assert_eq!(
            lines_of(&deps.children[0].1),
            [(Some("version"), (10, 10)), (Some("features"), (10, 10))]
        );
    }

    #[test]
    fn toml_headers_nested_too_deep_fail() {
        let header = vec!["a"; 300].join(".");
        let e = toml(&format!("[{header}]\nx = 1\n")).unwrap_err();
        assert!(e.contains("recursion limit"), "{e}");
    }
}
