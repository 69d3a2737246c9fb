//! Word documents (`.docx`): the paragraphs of `word/document.xml`, with
//! headings from their paragraph style's outline level (or a style named
//! "Heading N", or the paragraph's own outline level), numbered and
//! bulleted paragraphs as list items, tables as rows of ` | `-joined
//! cells; the title from `docProps/core.xml`, else the first heading, else
//! the file name.

use std::collections::HashMap;
use std::path::Path;

use super::container::{attr, first_text, walk_xml, Package, Xml};
use super::extracted::TextBuilder;
use super::{file_title, ChunkContext, IngestError, ParsedDocument};

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let mut pkg = Package::open(bytes, "Word document")?;
    let styles = match pkg.read("word/styles.xml")? {
        Some(xml) => heading_styles(&xml)?,
        None => HashMap::new(),
    };
    let body = pkg.require("word/document.xml")?;
    let mut b = TextBuilder::default();
    read_body(&body, &styles, &mut b)?;
    doc.title = match pkg.read("docProps/core.xml")? {
        Some(core) => first_text(&core, "docProps/core.xml", "title")?,
        None => None,
    }
    .or_else(|| b.first_heading())
    .unwrap_or_else(|| file_title(path));
    b.finish(&mut doc, ctx)?;
    Ok(doc)
}

/// Style id → heading level (1-based), for the styles that are headings.
fn heading_styles(xml: &[u8]) -> Result<HashMap<String, u8>, IngestError> {
    let mut out = HashMap::new();
    let mut id: Option<String> = None;
    walk_xml(xml, "word/styles.xml", |e| {
        match e {
            Xml::Start {
                name: "style",
                attrs,
            } => {
                id = attr(attrs, "styleId").map(str::to_string);
            }
            Xml::Start {
                name: "name",
                attrs,
            } => {
                if let (Some(id), Some(n)) = (&id, attr(attrs, "val")) {
                    let lower = n.to_ascii_lowercase();
                    if let Some(level) = lower
                        .strip_prefix("heading ")
                        .and_then(|l| l.trim().parse::<u8>().ok())
                    {
                        out.entry(id.clone()).or_insert(level);
                    } else if lower == "title" {
                        out.entry(id.clone()).or_insert(1);
                    }
                }
            }
            Xml::Start {
                name: "outlineLvl",
                attrs,
            } => {
                if let (Some(id), Some(l)) =
                    (&id, attr(attrs, "val").and_then(|v| v.parse::<u8>().ok()))
                {
                    if l < 9 {
                        out.insert(id.clone(), l + 1);
                    }
                }
            }
            Xml::End { name: "style" } => id = None,
            _ => {}
        }
        Ok(())
    })?;
    Ok(out)
}

/// A paragraph being read.
#[derive(Default)]
struct Para {
    text: String,
    level: Option<u8>,
    list: bool,
}

fn read_body(
    xml: &[u8],
    styles: &HashMap<String, u8>,
    b: &mut TextBuilder,
) -> Result<(), IngestError> {
    let mut para: Option<Para> = None;
    let mut in_text = false;
    let mut tables = 0usize;
    let mut in_ppr = false;
    let walked = walk_xml(xml, "word/document.xml", |e| {
        if b.too_long() {
            return Err(TextBuilder::too_long_error());
        }
        match e {
            Xml::Start { name: "p", .. } => para = Some(Para::default()),
            Xml::Start { name: "pPr", .. } => in_ppr = true,
            Xml::End { name: "pPr" } => in_ppr = false,
            Xml::Start {
                name: "pStyle",
                attrs,
            } if in_ppr => {
                if let (Some(p), Some(level)) =
                    (&mut para, attr(attrs, "val").and_then(|s| styles.get(s)))
                {
                    p.level = Some(*level);
                }
            }
            Xml::Start {
                name: "outlineLvl",
                attrs,
            } if in_ppr => {
                if let (Some(p), Some(l)) = (
                    &mut para,
                    attr(attrs, "val").and_then(|v| v.parse::<u8>().ok()),
                ) {
                    p.level = (l < 9).then_some(l + 1);
                }
            }
            Xml::Start { name: "numPr", .. } if in_ppr => {
                if let Some(p) = &mut para {
                    p.list = true;
                }
            }
            Xml::Start { name: "t", .. } => in_text = true,
            Xml::End { name: "t" } => in_text = false,
            Xml::Text(t) if in_text => {
                if let Some(p) = &mut para {
                    p.text.push_str(t);
                }
            }
            Xml::Start {
                name: "tab" | "br" | "cr",
                ..
            } if !in_ppr => {
                if let Some(p) = &mut para {
                    p.text.push(' ');
                }
            }
            Xml::End { name: "p" } => {
                if let Some(p) = para.take() {
                    if tables > 0 {
                        b.push_inline(&p.text);
                        b.push_inline(" ");
                    } else if let Some(level) = p.level {
                        b.heading(level, &p.text);
                    } else if p.list {
                        b.push_inline("- ");
                        b.push_inline(&p.text);
                        b.end_line();
                    } else {
                        b.push_inline(&p.text);
                        b.end_block();
                    }
                }
            }
            Xml::Start { name: "tbl", .. } => {
                b.end_block();
                tables += 1;
            }
            Xml::End { name: "tc" } => b.end_cell(),
            Xml::End { name: "tr" } => b.end_row(),
            Xml::End { name: "tbl" } => {
                tables = tables.saturating_sub(1);
                b.end_block();
            }
            _ => {}
        }
        Ok(())
    })?;
    b.left_out(&walked.unexpanded);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;
    use crate::ingest::testdocs::*;

    #[test]
    fn headings_lists_tables_and_title() {
        let bytes = docx(
            Some("Runbook"),
            &[
                ("Heading1", "Restarting the cache"),
                ("", "Drain the node first &amp; wait."),
                ("list", "Stop redis"),
                ("list", "Start redis"),
                ("berschrift2", "Ports"),
                ("table", "Service|Port\nredis|6379"),
            ],
        );
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("r.docx"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.title, "Runbook");
        assert_eq!(
            doc.content,
            "Restarting the cache\n\nDrain the node first & wait.\n\n- Stop redis\n- Start redis\n\nPorts\n\nService | Port\nredis | 6379"
        );
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str(), h.line))
            .collect();
        assert_eq!(hs, [(1, "Restarting the cache", 1), (2, "Ports", 8)]);
        let no_title = docx(None, &[("", "words")]);
        let doc = parse(
            Path::new("n.docx"),
            &no_title,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.title, "n.docx");
    }

    #[test]
    fn text_only_in_an_unexpanded_entity_is_named_as_the_reason() {
        let body = |text: &str| {
            format!(
                "<?xml version=\"1.0\"?><!DOCTYPE w:document [<!ENTITY product \"Quokka Pro\">]>\
                 <w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:body></w:document>"
            )
        };
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let only = test_zip(&[("word/document.xml", &body("&product;"))]);
        let e = parse(Path::new("e.docx"), &only, &ctx).unwrap_err();
        assert!(e.is_empty(), "{e}");
        assert!(
            e.to_string().contains("the custom entity &product;")
                && !e.to_string().contains("empty file"),
            "{e}"
        );
        // Beside other text the entity is left out with a warning.
        let mixed = test_zip(&[("word/document.xml", &body("Install &product; today"))]);
        let doc = parse(Path::new("m.docx"), &mixed, &ctx).unwrap();
        assert_eq!(doc.content, "Install today");
        assert!(
            doc.warnings.iter().any(|w| w.contains("&product;")),
            "{:?}",
            doc.warnings
        );
    }
}
