//! Markdown: YAML frontmatter, then one chunk per heading section with the
//! parent heading chain as its section; small sections merge with a
//! neighbour, long ones split at paragraphs.

use std::path::Path;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde_json::{Map, Value};

use super::frontmatter::{parse_frontmatter, parse_toml_frontmatter, split_frontmatter, FrontKind};
use super::sections::{chain, chunk, Section};
use super::{decode_text, file_title, skill, ChunkContext, IngestError, ParsedDocument};
use crate::config::MarkdownStrategy;

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
        Some((FrontKind::Toml, toml)) => match parse_toml_frontmatter(toml) {
            Ok(map) => {
                apply_frontmatter(&map, &mut doc);
                if is_skill {
                    doc.warnings
                        .push("a skill's frontmatter is YAML between --- lines, not TOML".into());
                }
            }
            Err(e) => {
                doc.warnings.push(format!(
                    "invalid TOML frontmatter ({e}); indexed as plain Markdown"
                ));
                unparsed_front = Some(toml.trim());
            }
        },
        Some((FrontKind::Yaml, yaml)) => match parse_frontmatter(yaml) {
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
    if cfg.strategy == MarkdownStrategy::Fixed {
        let start = if unparsed_front.is_some() {
            0
        } else {
            body_start
        };
        sections = vec![Section {
            heading: None,
            label: None,
            range: start..text.len(),
        }];
    }
    doc.chunks = chunk(&text, sections, (cfg.min_tokens, cfg.max_tokens), ctx);
    if doc.chunks.is_empty() {
        return Err(IngestError::failed(
            "no text to index (only frontmatter or markup)",
        ));
    }
    Ok(doc)
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

    let starts = starts
        .into_iter()
        .map(|(start, level, text)| (body_start + start, level, text))
        .collect();
    chain(text, body_start, first_line, starts)
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
        // Hugo's TOML frontmatter, the same.
        let md = "+++\ntitle = \"My Guide\"\ntags = [\"Git\"]\n+++\n# Heading\n\nBody text here.\n";
        let doc = parse(Path::new("h.md"), md.as_bytes(), &ctx(&c)).unwrap();
        assert_eq!(
            (doc.title.as_str(), doc.tags.clone()),
            ("My Guide", vec!["Git".to_string()])
        );
        assert!(doc.chunks.iter().all(|c| !c.text.contains("+++")));
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
