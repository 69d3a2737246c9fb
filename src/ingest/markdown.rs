//! Markdown: YAML frontmatter, then one chunk per heading section with the
//! parent heading chain as its section; small sections merge with a
//! neighbour, long ones split at paragraphs.

use std::path::Path;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde_json::{Map, Value};

use super::split::split_text;
use super::{decode_text, file_title, Chunk, ChunkContext, Heading, ParsedDocument};
use crate::config::MarkdownStrategy;

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, String> {
    let mut doc = ParsedDocument::default();
    let text = decode_text(bytes, &mut doc.warnings)?;
    doc.content = text.clone();
    let (front, body, body_line) = split_frontmatter(&text);
    let mut body = body;
    let mut body_line = body_line;
    if let Some(yaml) = front {
        match parse_frontmatter(yaml) {
            Ok(fm) => apply_frontmatter(&fm, path, &mut doc),
            Err(e) => {
                doc.warnings.push(format!(
                    "invalid YAML frontmatter ({e}); indexed as plain Markdown"
                ));
                body = &text;
                body_line = 1;
            }
        }
    }

    let sections = sections(body, body_line);
    doc.headings = sections.iter().filter_map(|s| s.heading.clone()).collect();
    if doc.title.is_empty() {
        doc.title = doc
            .headings
            .iter()
            .find(|h| h.level == 1)
            .map(|h| h.text.clone())
            .unwrap_or_else(|| file_title(path));
    }

    let cfg = &ctx.config.markdown;
    let max = ctx.cap(cfg.max_tokens);
    let overlap = ctx.overlap(max);
    if cfg.strategy == MarkdownStrategy::Fixed {
        for p in split_text(body, max, overlap, ctx.tokens) {
            doc.chunks.push(Chunk::new(p.text, p.tokens, None));
        }
    } else {
        for s in merge_small(sections, cfg.min_tokens, max, ctx) {
            for p in split_text(&s.text, max, overlap, ctx.tokens) {
                doc.chunks
                    .push(Chunk::new(p.text, p.tokens, s.label.clone()));
            }
        }
    }
    if doc.chunks.is_empty() {
        return Err("no text to index (only frontmatter or markup)".into());
    }
    Ok(doc)
}

/// Splits `---`-fenced YAML frontmatter from the body. Returns the YAML, the
/// body, and the 1-based line where the body starts.
pub fn split_frontmatter(text: &str) -> (Option<&str>, &str, usize) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return (None, text, 1);
    };
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

pub fn parse_frontmatter(yaml: &str) -> Result<Map<String, Value>, String> {
    let v: serde_yaml::Value = serde_yaml::from_str(yaml).map_err(|e| e.to_string())?;
    match v {
        serde_yaml::Value::Null => Ok(Map::new()),
        serde_yaml::Value::Mapping(_) => match serde_json::to_value(v) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err("frontmatter is not a mapping".into()),
            Err(e) => Err(e.to_string()),
        },
        _ => Err("frontmatter is not a mapping of keys".into()),
    }
}

fn apply_frontmatter(fm: &Map<String, Value>, path: &Path, doc: &mut ParsedDocument) {
    let is_skill = path
        .file_name()
        .map(|n| n.eq_ignore_ascii_case("SKILL.md"))
        .unwrap_or(false);
    let string = |key: &str| fm.get(key).and_then(Value::as_str).map(str::trim);
    if let Some(t) = string("title").filter(|t| !t.is_empty()) {
        doc.title = t.to_string();
    } else if let Some(n) = string("name").filter(|n| is_skill && !n.is_empty()) {
        doc.title = n.to_string();
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
    doc.metadata
        .insert("frontmatter".into(), Value::Object(fm.clone()));
}

struct Section {
    heading: Option<Heading>,
    label: Option<String>,
    text: String,
}

/// Cuts the body at every heading; each section carries its heading chain.
fn sections(body: &str, first_line: usize) -> Vec<Section> {
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
    let preamble = body[..preamble_end].trim();
    if !preamble.is_empty() {
        out.push(Section {
            heading: None,
            label: None,
            text: preamble.to_string(),
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
            text: body[*start..end].trim().to_string(),
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
    text: String,
    tokens: usize,
    /// Tokens of the section whose label the merged chunk carries.
    label_tokens: usize,
}

/// Merges sections smaller than `min` tokens with a neighbour, as long as the
/// result fits in `max`. A merged chunk is labelled by its largest section.
fn merge_small(sections: Vec<Section>, min: usize, max: usize, ctx: &ChunkContext) -> Vec<Merged> {
    let mut out: Vec<Merged> = Vec::new();
    for s in sections {
        if s.text.is_empty() {
            continue;
        }
        let n = ctx.tokens.count(&s.text);
        if let Some(last) = out.last_mut() {
            if (last.tokens < min || n < min) && last.tokens + n <= max {
                last.text.push_str("\n\n");
                last.text.push_str(&s.text);
                last.tokens += n;
                if n > last.label_tokens {
                    last.label = s.label;
                    last.label_tokens = n;
                }
                continue;
            }
        }
        out.push(Merged {
            label: s.label,
            text: s.text,
            tokens: n,
            label_tokens: n,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;
    use crate::embed::TokenCounter;

    fn ctx(config: &ChunkingConfig) -> ChunkContext<'_> {
        ChunkContext {
            config,
            tokens: &TokenCounter::Whitespace,
            model_max_tokens: None,
        }
    }

    fn words(n: usize, w: &str) -> String {
        vec![w; n].join(" ")
    }

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
            .map(|c| c.section.clone().unwrap())
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
        assert_eq!(doc.headings.len(), 4);
        assert_eq!(doc.headings[1].line, 5);
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
        // A merges into B (B is larger so the chunk is labelled B).
        assert!(doc.chunks[0].text.contains("tiny") && doc.chunks[0].text.contains("bee"));
        assert_eq!(doc.chunks[0].section.as_deref(), Some("B"));
        // C is split, every piece within the limit and labelled C.
        let c_chunks: Vec<_> = doc
            .chunks
            .iter()
            .filter(|c| c.section.as_deref() == Some("C"))
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
        assert_eq!(doc.headings[0].line, 5);
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
    fn heading_in_code_fence_is_not_a_section() {
        let md = "# Real\n\n```\n# not a heading\n```\n";
        let c = ChunkingConfig::default();
        let doc = parse(Path::new("g.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert_eq!(doc.headings.len(), 1);
    }

    #[test]
    fn empty_and_binary_are_errors() {
        let c = ChunkingConfig::default();
        assert!(parse(Path::new("e.md"), b"  \n", &ctx(&c)).is_err());
        assert!(parse(Path::new("b.md"), b"\x00\x01PNG", &ctx(&c)).is_err());
    }
}
