//! Markdown: YAML frontmatter, then one chunk per heading section with the
//! parent heading chain as its section; small sections merge with a
//! neighbour, long ones split at paragraphs.

use std::path::Path;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde_json::{Map, Value};

use std::ops::Range;

use super::verbatim::split_lines;
use super::{decode_text, file_title, skill, Chunk, ChunkContext, IngestError, ParsedDocument};
use crate::config::MarkdownStrategy;
use crate::document::Heading;

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let text = decode_text(bytes, &mut doc.warnings)?;
    doc.content = text.clone();
    let is_skill = skill::is_skill_file(path);
    let (front, body, body_line) = split_frontmatter(&text);
    // Frontmatter that is not YAML is kept as ordinary text ahead of the
    // body: nothing the author wrote is lost from search, and it is not
    // handed to the Markdown parser, which would read `---` as a heading
    // underline.
    let mut unparsed_front = None;
    match front {
        Some(yaml) => match parse_frontmatter(yaml) {
            Ok(fm) => {
                doc.warnings.extend(fm.repairs);
                apply_frontmatter(&fm.map, &mut doc);
                if is_skill {
                    skill::apply(&fm.map, yaml, &mut doc);
                }
            }
            Err(e) => {
                doc.warnings.push(format!(
                    "invalid YAML frontmatter ({e}); indexed as plain Markdown{}",
                    if is_skill { ", not as a skill" } else { "" }
                ));
                unparsed_front = Some(yaml.trim());
            }
        },
        None if is_skill => doc.warnings.push(skill::missing_frontmatter(&text)),
        None => {}
    }

    // Chunks are slices of the file's text: the body is its end.
    let body_start = text.len() - body.len();
    let mut sections = sections(&text, body_start, body_line);
    doc.meta.headings = sections.iter().filter_map(|s| s.heading.clone()).collect();
    if let Some(t) = unparsed_front.filter(|t| !t.is_empty()) {
        let start = t.as_ptr() as usize - text.as_ptr() as usize;
        sections.insert(
            0,
            Section {
                heading: None,
                label: None,
                range: start..start + t.len(),
            },
        );
    }
    if doc.title.is_empty() {
        doc.title = doc
            .meta
            .headings
            .iter()
            .find(|h| h.level == 1)
            .map(|h| h.text.clone())
            .or_else(|| is_skill.then(|| skill::folder_title(path)).flatten())
            .unwrap_or_else(|| file_title(path));
    }

    let cfg = &ctx.config.markdown;
    let max = ctx.cap(cfg.max_tokens);
    let overlap = ctx.overlap(max);
    let pieces: Vec<(Range<usize>, Option<String>)> = if cfg.strategy == MarkdownStrategy::Fixed {
        let start = if unparsed_front.is_some() {
            0
        } else {
            body_start
        };
        vec![(start..text.len(), None)]
    } else {
        merge_small(&text, sections, cfg.min_tokens, max, ctx)
            .into_iter()
            .map(|m| (m.range, m.label))
            .collect()
    };
    for (range, label) in pieces {
        for p in split_lines(&text, range, max, overlap, ctx.tokens) {
            let mut chunk = Chunk::new(p.text, p.tokens, label.clone());
            chunk.meta.line_start = Some(p.line_start as u64);
            chunk.meta.line_end = Some(p.line_end as u64);
            doc.chunks.push(chunk);
        }
    }
    if doc.chunks.is_empty() {
        return Err(IngestError::failed(
            "no text to index (only frontmatter or markup)",
        ));
    }
    Ok(doc)
}

/// Splits `---`-fenced YAML frontmatter from the body. Returns the YAML, the
/// body, and the 1-based line where the body starts.
pub fn split_frontmatter(text: &str) -> (Option<&str>, &str, usize) {
    let Some(first) = text.split_inclusive('\n').next() else {
        return (None, text, 1);
    };
    if first.trim_end() != "---" || !first.ends_with('\n') {
        return (None, text, 1);
    }
    let rest = &text[first.len()..];
    let mut offset = 0;
    for (i, line) in rest.split_inclusive('\n').enumerate() {
        let t = line.trim_end();
        if t == "---" || t == "..." {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return (Some(yaml), body, i + 3);
        }
        offset += line.len();
    }
    (None, text, 1)
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
    let v: serde_norway::Value =
        serde_norway::from_str(&format!("---\n{yaml}")).map_err(|e| e.to_string())?;
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

fn apply_frontmatter(fm: &Map<String, Value>, doc: &mut ParsedDocument) {
    if let Some(t) = fm
        .get("title")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        doc.title = t.to_string();
    }
    match fm.get("tags") {
        Some(Value::Array(items)) => doc.tags.extend(items.iter().filter_map(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })),
        Some(Value::String(s)) => doc.tags.extend(s.split(',').map(|t| t.to_string())),
        _ => {}
    }
    doc.meta.frontmatter = Some(fm.clone());
}

struct Section {
    heading: Option<Heading>,
    label: Option<String>,
    /// Its bytes in the file's text.
    range: Range<usize>,
}

/// Cuts the body (`text` from `body_start`, line `first_line`) at every
/// heading; each section carries its heading chain.
fn sections(text: &str, body_start: usize, first_line: usize) -> Vec<Section> {
    let body = &text[body_start..];
    let mut starts: Vec<(usize, u8, String)> = Vec::new();
    let mut current: Option<(usize, u8, String)> = None;
    let parser = Parser::new_ext(body, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH);
    for (event, range) in parser.into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                current = Some((range.start, heading_level(level), String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, text)) = current.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((start, level, text)) = current.take() {
                    starts.push((start, level, text.trim().to_string()));
                }
            }
            _ => {}
        }
    }

    let mut out = Vec::new();
    let preamble_end = starts.first().map(|s| s.0).unwrap_or(body.len());
    if !body[..preamble_end].trim().is_empty() {
        out.push(Section {
            heading: None,
            label: None,
            range: body_start..body_start + preamble_end,
        });
    }
    let mut chain: Vec<(u8, String)> = Vec::new();
    for (i, (start, level, text)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map(|s| s.0).unwrap_or(body.len());
        while chain.last().is_some_and(|(l, _)| *l >= *level) {
            chain.pop();
        }
        chain.push((*level, text.clone()));
        let label = chain
            .iter()
            .map(|(_, t)| t.as_str())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" > ");
        let line = first_line + body[..*start].matches('\n').count();
        out.push(Section {
            heading: Some(Heading {
                level: *level,
                text: text.clone(),
                line,
            }),
            label: if label.is_empty() { None } else { Some(label) },
            range: body_start + start..body_start + end,
        });
    }
    out
}

fn heading_level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

struct Merged {
    label: Option<String>,
    range: Range<usize>,
    tokens: usize,
}

/// The heading chain two labels share (`SSH keys > Rotating keys` and
/// `SSH keys > Using ssh-agent` share `SSH keys`).
fn common_chain(a: Option<&str>, b: Option<&str>) -> Option<String> {
    let (a, b) = (a?, b?);
    let shared: Vec<&str> = a
        .split(" > ")
        .zip(b.split(" > "))
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    (!shared.is_empty()).then(|| shared.join(" > "))
}

/// Merges sections smaller than `min` tokens with a neighbour, as long as the
/// result fits in `max` and the two share a heading chain (or one is the
/// text before the first heading). A merged chunk is labelled with the
/// chain its sections share, so a citation (and `kb show --section`) names a
/// section that holds all of its text.
fn merge_small(
    text: &str,
    sections: Vec<Section>,
    min: usize,
    max: usize,
    ctx: &ChunkContext,
) -> Vec<Merged> {
    let mut out: Vec<Merged> = Vec::new();
    for s in sections {
        let own = text[s.range.clone()].trim();
        if own.is_empty() {
            continue;
        }
        let n = ctx.tokens.count(own);
        if let Some(last) = out.last_mut() {
            let shared = match (&last.label, &s.label) {
                (Some(a), Some(b)) => common_chain(Some(a), Some(b)).map(Some),
                // The text before the first heading belongs to no section.
                _ => Some(None),
            };
            if let Some(label) = shared {
                if (last.tokens < min || n < min) && last.tokens + n <= max {
                    // Sections follow one another: the merged text is the
                    // file's, whatever lies between them.
                    last.range.end = s.range.end;
                    last.tokens += n;
                    last.label = label;
                    continue;
                }
            }
        }
        out.push(Merged {
            label: s.label,
            range: s.range,
            tokens: n,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;

    use crate::ingest::test_support::{ctx, words};
    #[test]
    fn sections_carry_heading_chain() {
        let md = format!(
            "# Config\n\n{}\n\n## Advanced\n\n{}\n\n### Deep\n\n{}\n\n## Other\n\n{}\n",
            words(60, "intro"),
            words(60, "adv"),
            words(60, "deep"),
            words(60, "other")
        );
        let mut c = ChunkingConfig::default();
        c.markdown.min_tokens = 10;
        let doc = parse(Path::new("x.md"), md.as_bytes(), &ctx(&c)).unwrap();
        let labels: Vec<_> = doc
            .chunks
            .iter()
            .map(|c| c.meta.section.clone().unwrap())
            .collect();
        assert_eq!(
            labels,
            vec![
                "Config",
                "Config > Advanced",
                "Config > Advanced > Deep",
                "Config > Other"
            ]
        );
        assert_eq!(doc.title, "Config");
        assert_eq!(doc.meta.headings.len(), 4);
        assert_eq!(doc.meta.headings[1].line, 5);
    }

    #[test]
    fn merged_sections_are_labelled_by_the_heading_they_share() {
        let md = "# SSH keys\n\n## Generating a key\n\nRun ssh-keygen -t ed25519.\n\n\
                  ## Rotating keys\n\nReplace keys yearly.\n\n## Using ssh-agent\n\n\
                  Start the agent and add the key.\n";
        let mut c = ChunkingConfig::default();
        c.markdown.min_tokens = 50;
        let doc = parse(Path::new("ssh.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert_eq!(doc.chunks.len(), 1);
        assert!(doc.chunks[0].text.contains("ssh-agent"));
        assert_eq!(doc.chunks[0].meta.section.as_deref(), Some("SSH keys"));
    }

    #[test]
    fn small_sections_merge_and_large_split() {
        let md = format!(
            "# A\n\ntiny\n\n# B\n\n{}\n\n# C\n\n{}\n\n{}\n",
            words(80, "bee"),
            words(300, "sea"),
            words(300, "sky")
        );
        let mut c = ChunkingConfig::default();
        c.markdown.min_tokens = 20;
        c.markdown.max_tokens = 400;
        let doc = parse(Path::new("x.md"), md.as_bytes(), &ctx(&c)).unwrap();
        // A and B share no heading: tiny A stays alone rather than letting
        // B's text be cited as A (or A's as B).
        assert_eq!(doc.chunks[0].text, "# A\n\ntiny");
        assert_eq!(doc.chunks[0].meta.section.as_deref(), Some("A"));
        assert_eq!(doc.chunks[1].meta.section.as_deref(), Some("B"));
        // C is split, every piece within the limit and labelled C.
        let c_chunks: Vec<_> = doc
            .chunks
            .iter()
            .filter(|c| c.meta.section.as_deref() == Some("C"))
            .collect();
        assert!(c_chunks.len() >= 2);
        assert!(doc.chunks.iter().all(|c| c.token_count <= 400));
    }

    #[test]
    fn frontmatter_sets_title_and_tags_and_is_not_indexed() {
        let md = "---\ntitle: My Guide\ntags: [Git, admin]\n---\n# Heading\n\nBody text here.\n";
        let c = ChunkingConfig::default();
        let doc = parse(Path::new("g.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert_eq!(doc.title, "My Guide");
        assert_eq!(doc.tags, vec!["Git", "admin"]);
        assert!(doc.chunks.iter().all(|c| !c.text.contains("title:")));
        assert_eq!(doc.meta.headings[0].line, 5);
    }

    #[test]
    fn bad_frontmatter_is_plain_markdown_with_warning() {
        let md = "---\ntitle: [unclosed\n---\nBody words.\n";
        let c = ChunkingConfig::default();
        let doc = parse(Path::new("g.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert_eq!(doc.warnings.len(), 1);
        assert!(doc.chunks[0].text.contains("Body words"));
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

    #[test]
    fn skill_files_record_their_frontmatter() {
        let md =
            "---\nname: pdf-tools\ntitle: Ignored\ndescription: >\n  Fill and\n  merge PDFs.\n\
                  capabilities: [pdf, forms]\n---\n# PDF tools\n\nBody.\n";
        let c = ChunkingConfig::default();
        let doc = parse(Path::new("/s/pdf/SKILL.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert_eq!(doc.title, "pdf-tools");
        let skill = doc.meta.skill.as_ref().unwrap();
        assert_eq!(skill.description.as_deref(), Some("Fill and merge PDFs."));
        assert_eq!(skill.capabilities, ["pdf", "forms"]);
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
        // The same frontmatter in another file is not a skill.
        let doc = parse(Path::new("/s/pdf/README.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert_eq!(doc.title, "Ignored");
        assert!(doc.meta.skill.is_none());
    }

    #[test]
    fn broken_skill_frontmatter_stays_as_text_not_as_a_heading() {
        let md = "---\nname: broken\ndescription: \"unclosed\n---\nBody words.\n";
        let c = ChunkingConfig::default();
        let doc = parse(Path::new("/s/broken/SKILL.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert!(doc.meta.skill.is_none());
        assert_eq!(doc.title, "broken/SKILL.md");
        assert!(doc.meta.headings.is_empty(), "{:?}", doc.meta.headings);
        assert!(doc.chunks[0].text.contains("name: broken"));
        assert!(doc.chunks[0].text.contains("Body words"));
        assert!(
            doc.warnings[0].contains("not as a skill"),
            "{:?}",
            doc.warnings
        );
        let doc = parse(
            Path::new("/s/x/SKILL.md"),
            b"# Plain\n\nNo frontmatter.\n",
            &ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.title, "Plain");
        assert!(
            doc.warnings[0].contains("no YAML frontmatter"),
            "{:?}",
            doc.warnings
        );
    }

    #[test]
    fn heading_in_code_fence_is_not_a_section() {
        let md = "# Real\n\n```\n# not a heading\n```\n";
        let c = ChunkingConfig::default();
        let doc = parse(Path::new("g.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert_eq!(doc.meta.headings.len(), 1);
    }

    #[test]
    fn empty_and_binary_are_errors() {
        let c = ChunkingConfig::default();
        assert!(parse(Path::new("e.md"), b"  \n", &ctx(&c)).is_err());
        assert!(parse(Path::new("b.md"), b"\x00\x01PNG", &ctx(&c)).is_err());
    }
}
