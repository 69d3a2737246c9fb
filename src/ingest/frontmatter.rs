//! Frontmatter of Markdown files: where it ends, and reading it: YAML
//! (`---` fences) with the one repair real SKILL.md files need, or TOML
//! (`+++` fences, as Hugo writes it).

use serde_json::{Map, Value};

/// The language of a frontmatter block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontKind {
    Yaml,
    Toml,
}

/// Splits fenced frontmatter (`---` YAML, `+++` TOML) from the body.
/// Returns the frontmatter and its language, the body, and the 1-based
/// line where the body starts.
pub fn split_frontmatter(text: &str) -> (Option<(FrontKind, &str)>, &str, usize) {
    let Some(first) = text.split_inclusive('\n').next() else {
        return (None, text, 1);
    };
    let (kind, closings): (_, &[&str]) = match first.trim_end() {
        "---" => (FrontKind::Yaml, &["---", "..."]),
        "+++" => (FrontKind::Toml, &["+++"]),
        _ => return (None, text, 1),
    };
    if !first.ends_with('\n') {
        return (None, text, 1);
    }
    let rest = &text[first.len()..];
    let mut offset = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        if closings.contains(&line.trim_end()) {
            let front = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return (Some((kind, front)), body, i + 3);
        }
        offset += line.len();
    }
    (None, text, 1)
}

/// Parses TOML frontmatter into the keys YAML frontmatter gives (dates as
/// their text), read as TOML data files are.
pub fn parse_toml_frontmatter(toml: &str) -> Result<Map<String, Value>, String> {
    match super::data::toml_values(toml)? {
        Value::Object(map) => Ok(map),
        _ => Err("frontmatter is not a table of keys".into()),
    }
}

/// Parsed frontmatter, and what had to be repaired to read it.
#[derive(Debug, Default)]
pub struct Frontmatter {
    pub map: Map<String, Value>,
    /// Warnings: each repair made before the YAML parsed.
    pub repairs: Vec<String>,
}

/// Parses frontmatter as YAML. The one repair: when the parser stops at a
/// `key: value` line whose unquoted value contains `: ` (invalid YAML, and
/// the most common mistake in real SKILL.md descriptions), such values are
/// quoted and the text parsed again, with a warning saying so. Nothing else
/// is relaxed: tabs used for indentation, unclosed quotes and bad
/// indentation stay errors, as in any YAML parser.
pub fn parse_frontmatter(yaml: &str) -> Result<Frontmatter, String> {
    let first = match yaml_mapping(yaml) {
        Ok(map) => {
            return Ok(Frontmatter {
                map,
                repairs: Vec::new(),
            })
        }
        Err(e) => e,
    };
    if first.starts_with("mapping values are not allowed") {
        if let Some((fixed, lines)) = quote_colon_values(yaml) {
            if let Ok(map) = yaml_mapping(&fixed) {
                let lines = lines
                    .iter()
                    .map(|(line, key)| format!("`{key}` (line {line})"))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Ok(Frontmatter {
                    map,
                    repairs: vec![format!(
                        "frontmatter is not valid YAML ({first}); read it after quoting the \
                         value of {lines}, which contains ': '; quote it in the file"
                    )],
                });
            }
        }
        return Err(format!(
            "{first}; a value containing ': ' must be quoted, and the keys of one mapping \
             indented alike"
        ));
    }
    if yaml
        .lines()
        .any(|l| l.trim_start_matches(' ').starts_with('\t'))
    {
        return Err(format!("{first}; YAML does not allow tabs for indentation"));
    }
    Err(first)
}

/// Parses YAML that must be a mapping (or empty).
fn yaml_mapping(yaml: &str) -> Result<Map<String, Value>, String> {
    // The opening fence goes in too, as YAML's document marker, so that the
    // parser's line numbers are the file's.
    let v = super::yaml::from_str(&format!("---\n{yaml}"))?;
    match v {
        serde_norway::Value::Null => Ok(Map::new()),
        serde_norway::Value::Mapping(_) => match serde_json::to_value(v) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err("frontmatter is not a mapping".into()),
            Err(e) => Err(e.to_string()),
        },
        _ => Err("frontmatter is not a mapping of keys".into()),
    }
}

/// Quotes the plain values that contain `: ` (or end in `:`), which YAML
/// rejects in a block mapping: `description: Use when: asked` becomes
/// `description: 'Use when: asked'`. A YAML comment (` #...`) after the
/// value is dropped, as YAML would drop it. Returns the new text and the
/// (file line, key) of each quoted value, or None when no line qualifies.
fn quote_colon_values(yaml: &str) -> Option<(String, Vec<(usize, String)>)> {
    let mut out = String::with_capacity(yaml.len() + 16);
    let mut changed = Vec::new();
    for (i, line) in yaml.split_inclusive('\n').enumerate() {
        match colon_value(line) {
            Some((indent, key, value)) => {
                out.push_str(&format!("{indent}{key}: '{}'\n", value.replace('\'', "''")));
                // +2: the file's line numbers start at the opening fence.
                changed.push((i + 2, key.to_string()));
            }
            None => out.push_str(line),
        }
    }
    (!changed.is_empty()).then_some((out, changed))
}

/// Splits `  key: value` when the value is a plain scalar YAML cannot read
/// because of a colon in it.
fn colon_value(line: &str) -> Option<(&str, &str, &str)> {
    let body = line.trim_start_matches(' ');
    let indent = &line[..line.len() - body.len()];
    let key_len = body
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(body.len());
    let (key, rest) = body.split_at(key_len);
    if key.is_empty() || key.starts_with('-') {
        return None;
    }
    let rest = rest.strip_prefix(':')?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let mut value = rest.trim();
    if let Some(c) = value.find(" #").or_else(|| value.find("\t#")) {
        value = value[..c].trim_end();
    }
    let plain = value
        .chars()
        .next()
        .is_some_and(|c| !"'\"[]{}|>&*!%@`#,?-".contains(c));
    let bad_colon = value.contains(": ") || value.contains(":\t") || value.ends_with(':');
    (plain && bad_colon).then_some((indent, key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_frontmatter_between_plus_fences() {
        let text = "+++\ntitle = \"Deploying\"\ndate = 2023-01-02\ntags = [\"ops\", \"k8s\"]\n+++\n# Body\n";
        let (front, body, line) = split_frontmatter(text);
        let (kind, toml) = front.unwrap();
        assert_eq!((kind, body, line), (FrontKind::Toml, "# Body\n", 6));
        let map = parse_toml_frontmatter(toml).unwrap();
        assert_eq!(map["title"], "Deploying");
        assert_eq!(map["date"], "2023-01-02");
        assert_eq!(map["tags"][1], "k8s");
        assert!(parse_toml_frontmatter("title = ").is_err());
        // A YAML fence is not closed by TOML's.
        assert_eq!(split_frontmatter("---\na: 1\n+++\n").0, None);
    }

    #[test]
    fn unquoted_colon_values_are_quoted_with_a_warning() {
        let fm =
            parse_frontmatter("name: x\ndescription: Use when: the user asks # why\n").unwrap();
        assert_eq!(fm.map["description"], "Use when: the user asks");
        assert_eq!(fm.repairs.len(), 1);
        assert!(
            fm.repairs[0].contains("`description` (line 3)")
                && fm.repairs[0].contains("mapping values are not allowed"),
            "{:?}",
            fm.repairs
        );
        let fm = parse_frontmatter("description: it's ok: really\n").unwrap();
        assert_eq!(fm.map["description"], "it's ok: really");
        // Valid YAML is never touched.
        let fm = parse_frontmatter("description: 'quoted: fine'\nurl: http://x\n").unwrap();
        assert!(fm.repairs.is_empty());
        assert_eq!(fm.map["description"], "quoted: fine");
    }

    #[test]
    fn what_yaml_rejects_stays_rejected() {
        for bad in [
            "capabilities:\n\t- a\n",             // tab indentation
            "description: \"unclosed\nname: x\n", // unclosed quote
            "name: bad\n description: x\n",       // bad indentation
            "description: Use when:\n  the user asks\n",
            "a: 1\na: 2\n",
            "- a list\n",
        ] {
            assert!(parse_frontmatter(bad).is_err(), "{bad:?}");
        }
        // Error line numbers are the file's (the opening --- is line 1).
        let e = parse_frontmatter("name: x\ncapabilities:\n\t- a\n").unwrap_err();
        assert!(
            e.contains("line 4") && e.contains("tabs for indentation"),
            "{e}"
        );
        // A tab after the colon is a separator, which YAML allows.
        assert_eq!(parse_frontmatter("name:\tx\n").unwrap().map["name"], "x");
    }
}
