//! Reading YAML (data files, Markdown frontmatter) in time linear in its
//! size. The YAML reader refuses nesting past 128 levels, but only after
//! scanning the flow collections (`[...]`, `{...}`) it is given, and inside
//! a mapping that scan costs time growing with the square of their depth
//! (200,000 nested `[` after `title: ` took 80 s). The flow nesting is
//! therefore measured first, in one pass, and a file past the reader's own
//! limit fails at once with the same reason.
//!
//! Merge keys (`<<: *defaults`) are applied as YAML tools read them: the
//! merged keys are the mapping's own, not a key named `<<`.

/// The deepest nesting the YAML reader accepts.
pub const MAX_DEPTH: usize = 128;

/// Parses YAML text holding one document.
pub fn from_str(text: &str) -> Result<serde_norway::Value, String> {
    check_depth(text)?;
    serde_norway::from_str(text)
        .map(|v| merged(text, v))
        .map_err(|e| e.to_string())
}

/// Parses a YAML stream: every document of it (`---` parts them, as in a
/// Kubernetes manifest), none for an empty file.
pub fn documents(text: &str) -> Result<Vec<serde_norway::Value>, String> {
    use serde::Deserialize;
    check_depth(text)?;
    serde_norway::Deserializer::from_str(text)
        .map(|doc| {
            serde_norway::Value::deserialize(doc)
                .map(|v| merged(text, v))
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// The value with its merge keys applied (a mapping's own keys win, the
/// first of several merged mappings before the later). A merge of
/// anything but mappings (`<<: 3`) is kept as written: its text is still
/// indexed.
fn merged(text: &str, mut value: serde_norway::Value) -> serde_norway::Value {
    use serde_norway::Value;
    if !text.contains("<<") {
        return value;
    }
    let mut stack = vec![&mut value];
    while let Some(node) = stack.pop() {
        match node {
            Value::Mapping(mapping) => {
                if let Some(merge) = mapping.remove("<<") {
                    match merge {
                        Value::Mapping(from) => from.into_iter().for_each(|(k, v)| {
                            mapping.entry(k).or_insert(v);
                        }),
                        Value::Sequence(from) if from.iter().all(Value::is_mapping) => {
                            for (k, v) in from
                                .into_iter()
                                .filter_map(|m| match m {
                                    Value::Mapping(m) => Some(m),
                                    _ => None,
                                })
                                .flatten()
                            {
                                mapping.entry(k).or_insert(v);
                            }
                        }
                        other => {
                            mapping.insert(Value::from("<<"), other);
                        }
                    }
                }
                stack.extend(mapping.values_mut());
            }
            Value::Sequence(items) => stack.extend(items.iter_mut()),
            Value::Tagged(tagged) => stack.push(&mut tagged.value),
            _ => {}
        }
    }
    value
}

fn check_depth(text: &str) -> Result<(), String> {
    match flow_too_deep(text) {
        Some(line) => Err(format!(
            "recursion limit exceeded: flow collections ([...] and {{...}}) nested more than \
             {MAX_DEPTH} levels deep at line {line}"
        )),
        None => Ok(()),
    }
}

/// The 1-based line where `[` and `{` outside quoted scalars and comments
/// first nest deeper than [`MAX_DEPTH`], if they do. A bracket inside a
/// plain scalar (`a[1]`) is counted too: the count can only be too high,
/// and a file that many brackets deep inside its scalars is no real file.
fn flow_too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut line = 1;
    let mut quote: Option<char> = None;
    // Whether the last character outside a scalar may precede one: a
    // quote there opens a quoted scalar (`it's` holds no quote).
    let mut scalar_may_start = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        }
        match quote {
            Some('\'') if c == '\'' => {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                } else {
                    quote = None;
                }
                continue;
            }
            Some('"') if c == '\\' => {
                if chars.next() == Some('\n') {
                    line += 1;
                }
                continue;
            }
            Some(q) if c == q => {
                quote = None;
                continue;
            }
            Some(_) => continue,
            None => {}
        }
        match c {
            '\'' | '"' if scalar_may_start => quote = Some(c),
            '#' if scalar_may_start => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '[' | '{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(line);
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        scalar_may_start = c.is_whitespace() || matches!(c, ':' | '-' | '?' | ',' | '[' | '{');
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn deep_flow_collections_fail_at_once() {
        for levels in [40_000, 200_000] {
            for prefix in ["", "title: ", "a:\n  b: ", "x: {a: "] {
                let text = format!("{prefix}{}1{}", "[".repeat(levels), "]".repeat(levels));
                let started = Instant::now();
                let e = from_str(&text).unwrap_err();
                assert!(e.contains("recursion limit"), "{e}");
                assert!(started.elapsed() < Duration::from_secs(5), "{prefix:?}");
            }
        }
    }

    #[test]
    fn merge_keys_are_applied() {
        let text = "base: &base\n  host: db\n  port: 5432\n\
                    dev:\n  <<: *base\n  port: 6543\n\
                    bad:\n  <<: 3\n";
        let v = &documents(text).unwrap()[0];
        assert_eq!(v["dev"]["host"], serde_norway::Value::from("db"));
        assert_eq!(v["dev"]["port"], serde_norway::Value::from(6543));
        assert!(v["dev"].get("<<").is_none());
        // A merge the reader refuses is kept as written.
        assert_eq!(v["bad"]["<<"], serde_norway::Value::from(3));
        let fm = from_str("a: &a {x: 1}\nb: {<<: *a, y: 2}").unwrap();
        assert_eq!(fm["b"]["x"], serde_norway::Value::from(1));
    }

    #[test]
    fn brackets_in_quotes_and_comments_do_not_count() {
        let open = "[".repeat(MAX_DEPTH + 5);
        let text = format!(
            "a: '{open}'\nb: \"{open}\\\"{open}\"\nc: [1, 2] # {open}\nd: 'it''s {open}'\ne: it's\n"
        );
        let v = from_str(&text).unwrap();
        assert_eq!(v["c"][1], serde_norway::Value::from(2));
        // Nesting within the limit is the reader's to judge.
        let ok = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        assert!(from_str(&ok).is_ok());
    }
}
