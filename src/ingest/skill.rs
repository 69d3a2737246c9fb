//! SKILL.md files: the skill registry's facts (`name`, `description`,
//! `version`, `capabilities`) read from their YAML frontmatter into
//! `metadata.skill`. The Markdown module parses the file; this module only
//! interprets the frontmatter it found.

use std::path::Path;

use serde_json::{Map, Value};

use super::ParsedDocument;
use crate::document::SkillInfo;

/// A file named `SKILL.md`, in any letter case.
pub fn is_skill_file(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.eq_ignore_ascii_case("SKILL.md"))
}

/// The title of a SKILL.md without a name or heading: its folder, which by
/// convention is the skill's name (every such file has the same file name).
pub fn folder_title(path: &Path) -> Option<String> {
    let dir = path.parent()?.file_name()?.to_string_lossy();
    Some(format!("{dir}/{}", path.file_name()?.to_string_lossy()))
}

/// The warning for a SKILL.md with no frontmatter block.
pub fn missing_frontmatter(text: &str) -> String {
    if text.starts_with("---") {
        "SKILL.md frontmatter opens with --- but is never closed by a --- line; \
         indexed as plain Markdown, not as a skill"
            .into()
    } else {
        "SKILL.md has no YAML frontmatter (name, description between --- lines at the top); \
         indexed as plain Markdown, not as a skill"
            .into()
    }
}

/// Records the skill's facts from parsed frontmatter: `name` becomes the
/// title. `version` and `capabilities` may also sit under `metadata:`, where
/// the Agent Skills format puts extra fields. Values of the wrong shape are
/// left out with a warning; the document still indexes.
pub fn apply(fm: &Map<String, Value>, yaml: &str, doc: &mut ParsedDocument) {
    let nested = fm.get("metadata").and_then(Value::as_object);
    let field = |key: &str| {
        fm.get(key)
            .filter(|v| !v.is_null())
            .or_else(|| nested.and_then(|m| m.get(key)).filter(|v| !v.is_null()))
    };
    let w = &mut doc.warnings;
    let name = text_field(fm.get("name"), "name", w);
    let description = text_field(fm.get("description"), "description", w);
    let version = match field("version") {
        // YAML reads `version: 1.10` as the number 1.1; a version is a
        // label, so the text as written is kept.
        Some(Value::Number(n)) => {
            Some(raw_scalar(yaml, "version").unwrap_or_else(|| n.to_string()))
        }
        other => text_field(other, "version", w),
    };
    let capabilities = capability_list(field("capabilities"), w);
    if name.is_none() {
        w.push("SKILL.md frontmatter has no `name`; the title comes from the first heading or the folder".into());
    }
    if description.is_none() {
        w.push("SKILL.md frontmatter has no `description`".into());
    }
    if let Some(n) = &name {
        doc.title = n.clone();
    }
    doc.meta.skill = Some(SkillInfo {
        name,
        description,
        version,
        capabilities,
    });
}

/// A scalar as trimmed text; absent, null or empty is None; a list or
/// mapping is None with a warning.
fn text_field(v: Option<&Value>, key: &str, warnings: &mut Vec<String>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => {
            warnings.push(format!(
                "SKILL.md frontmatter `{key}` is a list or mapping, not text; left out"
            ));
            None
        }
    }
}

/// Capabilities as a YAML list (block or `[a, b]`) or a comma-separated
/// string; trimmed, empty ones dropped, duplicates once, order kept.
fn capability_list(v: Option<&Value>, warnings: &mut Vec<String>) -> Vec<String> {
    let items: Vec<String> = match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s.split(',').map(str::to_string).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                other => {
                    warnings.push(format!(
                        "SKILL.md capability {other} is not text; left out (quote it if it holds ': ')"
                    ));
                    None
                }
            })
            .collect(),
        Some(other) => {
            warnings.push(format!(
                "SKILL.md `capabilities` must be a list or a comma-separated string, not {other}; left out"
            ));
            Vec::new()
        }
    };
    let mut out: Vec<String> = Vec::new();
    for c in items {
        let c = c.trim();
        if !c.is_empty() && !out.iter().any(|o| o == c) {
            out.push(c.to_string());
        }
    }
    out
}

/// The text of a top-level `key: value` line as written (comment dropped).
fn raw_scalar(yaml: &str, key: &str) -> Option<String> {
    yaml.lines().find_map(|l| {
        let v = l.strip_prefix(key)?.strip_prefix(':')?;
        let v = v.split(" #").next().unwrap_or("").trim();
        (!v.is_empty()).then(|| v.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::frontmatter;

    fn skill(yaml: &str) -> (SkillInfo, Vec<String>) {
        let fm = frontmatter::parse_frontmatter(yaml).unwrap();
        let mut doc = ParsedDocument::default();
        apply(&fm.map, yaml, &mut doc);
        let info = doc.meta.skill.clone().unwrap();
        let mut w = fm.repairs;
        w.extend(doc.warnings);
        (info, w)
    }

    #[test]
    fn capabilities_in_every_shape() {
        let (s, w) =
            skill("name: a\ndescription: d\ncapabilities:\n  - read\n  - ' write '\n  - read\n");
        assert_eq!(s.capabilities, ["read", "write"]);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            skill("name: a\ncapabilities: [x, y]\n").0.capabilities,
            ["x", "y"]
        );
        assert_eq!(
            skill("name: a\ncapabilities: 'x, y,, z'\n").0.capabilities,
            ["x", "y", "z"]
        );
        assert_eq!(
            skill("name: a\ncapabilities: [1, true]\n").0.capabilities,
            ["1", "true"]
        );
        let (s, w) = skill("name: a\ncapabilities: [ok, {b: c}]\n");
        assert_eq!(s.capabilities, ["ok"]);
        assert!(w.iter().any(|w| w.contains("not text")), "{w:?}");
        let (s, w) = skill("name: a\ncapabilities: {a: b}\n");
        assert!(s.capabilities.is_empty());
        assert!(w.iter().any(|w| w.contains("must be a list")), "{w:?}");
    }

    #[test]
    fn version_keeps_its_text_and_metadata_is_a_fallback() {
        assert_eq!(
            skill("name: a\nversion: 1.10\n").0.version.as_deref(),
            Some("1.10")
        );
        assert_eq!(
            skill("name: a\nversion: 2 # major\n").0.version.as_deref(),
            Some("2")
        );
        assert_eq!(
            skill("name: a\nversion: '1.2.3'\n").0.version.as_deref(),
            Some("1.2.3")
        );
        let (s, _) = skill("name: a\nmetadata:\n  version: \"0.3\"\n  capabilities: a, b\n");
        assert_eq!(s.version.as_deref(), Some("0.3"));
        assert_eq!(s.capabilities, ["a", "b"]);
    }

    #[test]
    fn block_scalars_are_read_as_yaml_reads_them() {
        let (s, _) = skill("name: a\ndescription: |\n  line one\n  line two\n");
        assert_eq!(s.description.as_deref(), Some("line one\nline two"));
        let (s, _) = skill("name: a\ndescription: >\n  folded one\n  folded two\n");
        assert_eq!(s.description.as_deref(), Some("folded one folded two"));
    }

    #[test]
    fn missing_name_and_description_are_warned() {
        let (s, w) = skill("version: 1\n");
        assert_eq!(s.name, None);
        assert_eq!(w.len(), 2, "{w:?}");
    }

    #[test]
    fn skill_file_names_in_any_case() {
        assert!(is_skill_file(Path::new("/x/pdf/skill.md")));
        assert!(is_skill_file(Path::new("Skill.MD")));
        assert!(!is_skill_file(Path::new("/x/SKILL.md.bak")));
        assert_eq!(
            folder_title(Path::new("/x/pdf-tools/SKILL.md")).as_deref(),
            Some("pdf-tools/SKILL.md")
        );
    }
}
