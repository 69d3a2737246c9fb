//! OpenDocument text and presentations (`.odt`, `.odp`): `content.xml`
//! read as text. In a text document, `text:h` headings (by their outline
//! level) are sections, list items and table rows are lines; in a
//! presentation each `draw:page` is a page (a slide, cited by its number),
//! its title frame a heading, its speaker notes indexed with it. The title
//! is `meta.xml`'s, else the file name.

use std::path::Path;

use super::container::{attr, first_text, walk_xml, Package, Xml};
use super::extracted::{TextBuilder, NOTES_MARK};
use super::{file_title, ChunkContext, IngestError, ParsedDocument};

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let mut pkg = Package::open(bytes, "OpenDocument file")?;
    pkg.refuse_encrypted_odf()?;
    let content = pkg.require("content.xml")?;
    let mut b = TextBuilder::default();
    read_content(&content, &mut b)?;
    doc.title = match pkg.read("meta.xml")? {
        Some(meta) => first_text(&meta, "meta.xml", "title")?,
        None => None,
    }
    .or_else(|| b.first_heading())
    .unwrap_or_else(|| file_title(path));
    b.finish(&mut doc, ctx)?;
    Ok(doc)
}

fn read_content(xml: &[u8], b: &mut TextBuilder) -> Result<(), IngestError> {
    // The heading being read: its level and text.
    let mut heading: Option<(u8, String)> = None;
    // Depth inside a slide's title frame, and its text.
    let mut title_frame = 0usize;
    let mut title = String::new();
    let mut tables = 0usize;
    let mut lists = 0usize;
    let mut skip = 0usize;
    // Speaker notes open with a mark, so a reader tells them from the slide.
    let mut notes_unmarked = false;
    // Inside a footnote or endnote, read in brackets where it is referenced,
    // and how many of its paragraphs were read.
    let mut in_note = 0usize;
    let mut note_paragraphs = 0usize;
    let walked = walk_xml(xml, "content.xml", |e| {
        if b.too_long() {
            return Err(TextBuilder::too_long_error());
        }
        if skip > 0 {
            match e {
                Xml::Start { .. } => skip += 1,
                Xml::End { .. } => skip -= 1,
                _ => {}
            }
            return Ok(());
        }
        if title_frame > 0 {
            match e {
                Xml::Start { name, .. } => {
                    title_frame += 1;
                    if matches!(name, "line-break" | "s" | "tab") {
                        title.push(' ');
                    }
                }
                Xml::End { name } => {
                    title_frame -= 1;
                    if name == "p" {
                        title.push(' ');
                    }
                    if title_frame == 0 {
                        b.heading(1, &std::mem::take(&mut title));
                    }
                }
                Xml::Text(t) => title.push_str(t),
            }
            return Ok(());
        }
        match e {
            // Comments and tracked deletions are not the document's text;
            // nor are a page number's field ("<number>" on a notes page) and
            // the templates an index is drawn from (its title again).
            Xml::Start {
                name:
                    "annotation"
                    | "tracked-changes"
                    | "forms"
                    | "page-number"
                    | "table-of-content-source"
                    | "alphabetical-index-source"
                    | "illustration-index-source"
                    | "table-index-source"
                    | "object-index-source"
                    | "user-index-source"
                    | "bibliography-source",
                ..
            } => skip = 1,
            Xml::Start { name: "page", .. } => {
                notes_unmarked = false;
                b.new_page()
            }
            // A note where it is referenced, apart from the words around
            // it: `counting [1: Transects were 100 m long.] along`.
            Xml::Start { name: "note", .. } => {
                in_note += 1;
                note_paragraphs = 0;
                b.push_inline(" [");
            }
            Xml::Start { name: "p", .. } if in_note > 0 => {
                if note_paragraphs > 0 {
                    b.push_inline(" ");
                }
                note_paragraphs += 1;
            }
            Xml::End {
                name: "note-citation",
            } => b.push_inline(": "),
            Xml::End { name: "note" } => {
                in_note = in_note.saturating_sub(1);
                b.push_inline("] ");
            }
            Xml::Start {
                name: "frame",
                attrs,
            } if attr(attrs, "class") == Some("title") => {
                title_frame = 1;
            }
            Xml::Start { name: "h", attrs } => {
                let level = attr(attrs, "outline-level")
                    .and_then(|l| l.parse::<u8>().ok())
                    .unwrap_or(1);
                heading = Some((level, String::new()));
            }
            Xml::End { name: "h" } => {
                if let Some((level, text)) = heading.take() {
                    if tables > 0 {
                        b.push_inline(&text);
                    } else {
                        b.heading(level, &text);
                    }
                }
            }
            Xml::Start { name: "notes", .. } => {
                b.end_block();
                notes_unmarked = true;
            }
            Xml::Text(t) => match &mut heading {
                Some((_, h)) => h.push_str(t),
                None => {
                    if notes_unmarked && !t.trim().is_empty() {
                        b.push_inline(NOTES_MARK);
                        notes_unmarked = false;
                    }
                    b.push_inline(t)
                }
            },
            Xml::Start {
                name: "s" | "tab" | "line-break",
                ..
            } => match &mut heading {
                Some((_, h)) => h.push(' '),
                None => b.push_inline(" "),
            },
            Xml::Start {
                name: "list-item", ..
            } => {
                b.end_line();
                b.push_inline("- ");
            }
            Xml::End { name: "p" } if in_note > 0 => {}
            Xml::End { name: "p" } => {
                if tables > 0 {
                    b.push_inline(" ");
                } else if lists > 0 {
                    b.end_line();
                } else {
                    b.end_block();
                }
            }
            Xml::Start { name: "list", .. } => lists += 1,
            Xml::End { name: "list" } => {
                lists = lists.saturating_sub(1);
                b.end_block();
            }
            Xml::End { name: "notes" } => {
                // Notes with no text leave no mark for the next slide's.
                notes_unmarked = false;
                if tables == 0 {
                    b.end_block();
                }
            }
            Xml::End { name: "frame" } if tables == 0 => b.end_block(),
            Xml::Start { name: "table", .. } => {
                b.end_block();
                tables += 1;
            }
            Xml::End { name: "table-cell" } => b.end_cell(),
            Xml::End { name: "table-row" } => b.end_row(),
            Xml::End { name: "table" } => {
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
    fn text_documents_headings_lists_and_tables() {
        let body = "<office:text><text:h text:outline-level=\"1\">Install</text:h>\
            <text:p>Download the<text:s/>archive.</text:p>\
            <text:list><text:list-item><text:p>unpack it</text:p></text:list-item><text:list-item><text:p>run setup</text:p></text:list-item></text:list>\
            <text:h text:outline-level=\"2\">Ports</text:h>\
            <table:table><table:table-row><table:table-cell><text:p>web</text:p></table:table-cell><table:table-cell><text:p>80</text:p></table:table-cell></table:table-row></table:table>\
            <office:annotation><text:p>reviewer note</text:p></office:annotation>\
            </office:text>";
        let bytes = odf(
            "application/vnd.oasis.opendocument.text",
            Some("Setup"),
            body,
        );
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("s.odt"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.title, "Setup");
        assert_eq!(
            doc.content,
            "Install\n\nDownload the archive.\n\n- unpack it\n- run setup\n\nPorts\n\nweb | 80"
        );
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.level, h.line))
            .collect();
        assert_eq!(hs, [(1, 1), (2, 8)]);
    }

    /// A slide without notes (LibreOffice writes an empty notes frame)
    /// leaves no notes mark for the next slide's text.
    #[test]
    fn empty_notes_mark_nothing() {
        let bytes = odp(
            None,
            &[("Plan", "Ship it", ""), ("Closing", "Questions?", "")],
        );
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("d.odp"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert!(!doc.content.contains("Notes"), "{}", doc.content);
        assert!(doc.content.contains("Questions?"));
    }

    /// A footnote stays where it is referenced, apart from the words
    /// around it; an index's title template and a page number's field
    /// are not text.
    #[test]
    fn notes_in_brackets_and_no_templates() {
        let body = "<office:text><text:table-of-content><text:table-of-content-source>\
            <text:index-title-template>Contents</text:index-title-template></text:table-of-content-source>\
            <text:index-body><text:index-title><text:p>Contents</text:p></text:index-title></text:index-body></text:table-of-content>\
            <text:p>The survey used transect counting<text:note text:note-class=\"footnote\">\
            <text:note-citation>1</text:note-citation><text:note-body><text:p>Transects were 100 m long.</text:p>\
            </text:note-body></text:note> along the river bank.</text:p>\
            <text:p>Page <text:page-number>3</text:page-number></text:p></office:text>";
        let bytes = odf("application/vnd.oasis.opendocument.text", None, body);
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("n.odt"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(
            doc.content,
            "Contents\n\nThe survey used transect counting [1: Transects were 100 m long.] along the river bank.\n\nPage"
        );
    }

    #[test]
    fn presentations_are_pages_with_titles_and_notes() {
        let bytes = odp(
            None,
            &[
                ("Roadmap", "Ship in March", "mention the budget"),
                ("Risks", "Supplier delays", "ask finance"),
            ],
        );
        let mut c = ChunkingConfig::default();
        c.document.min_tokens = 0;
        let doc = parse(
            Path::new("plan.odp"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.meta.pages, Some(2));
        let risks = doc
            .chunks
            .iter()
            .find(|c| c.text.contains("Supplier delays"))
            .unwrap();
        assert_eq!(risks.meta.page, Some(2));
        assert!(risks.text.contains("ask finance"));
        assert_eq!(risks.meta.section.as_deref(), Some("Risks"));
        let hs: Vec<_> = doc.meta.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(hs, ["Roadmap", "Risks"]);
    }
}
