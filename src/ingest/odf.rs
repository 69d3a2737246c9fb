//! OpenDocument text and presentations (`.odt`, `.odp`): `content.xml`
//! read as text. In a text document, `text:h` headings (by their outline
//! level) are sections, list items and table rows are lines; in a
//! presentation each `draw:page` is a page (a slide, cited by its number),
//! its title frame a heading, its speaker notes indexed with it. A
//! numbered list item starts with the number LibreOffice shows ("3.",
//! "2.1."; see `lists`), a bulleted one with `- `. The title is
//! `meta.xml`'s, else the file name.

use std::collections::HashMap;
use std::path::Path;

mod lists;

use lists::{ListStyles, Lists};

use super::container::{attr, first_text, through_bases, walk_xml, Package, Xml};
use super::extracted::{TextBuilder, NOTES_MARK};
use super::{file_title, ChunkContext, IngestError, ParsedDocument};

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let mut pkg = Package::open(bytes, "OpenDocument file")?;
    pkg.refuse_encrypted_odf()?;
    let content = pkg.require("content.xml")?;
    let mut styles = Styles::default();
    if let Some(xml) = pkg.read("styles.xml")? {
        styles.read_common(&xml)?;
    }
    let mut b = TextBuilder::default();
    read_content(&content, &mut styles, &mut b)?;
    doc.title = match pkg.read("meta.xml")? {
        Some(meta) => first_text(&meta, "meta.xml", "title")?,
        None => None,
    }
    .or_else(|| b.first_heading())
    .unwrap_or_else(|| file_title(path));
    b.finish(&mut doc, ctx)?;
    Ok(doc)
}

/// The styles text and paragraphs name, as far as they hide text
/// (`text:display="none"` in their text properties, their own or a
/// parent's), and the list styles lists name: the common ones of
/// `styles.xml` and the automatic ones of `content.xml`.
#[derive(Default)]
struct Styles {
    /// (family, name) → (parent's name, whether it hides its text, when it
    /// says).
    styles: HashMap<(String, String), (Option<String>, Option<bool>)>,
    /// The style being read.
    current: Option<(String, String)>,
    lists: ListStyles,
}

impl Styles {
    /// Reads a style's element (its start, text properties, end).
    fn event(&mut self, e: &Xml) {
        self.lists.event(e);
        match e {
            Xml::Start {
                name: "style",
                attrs,
            } => {
                let key = (
                    attr(attrs, "family").unwrap_or("").to_string(),
                    attr(attrs, "name").unwrap_or("").to_string(),
                );
                let parent = attr(attrs, "parent-style-name").map(str::to_string);
                self.styles.insert(key.clone(), (parent, None));
                self.current = Some(key);
            }
            Xml::Start {
                name: "text-properties",
                attrs,
            } => {
                if let (Some(key), Some(display)) = (&self.current, attr(attrs, "display")) {
                    if let Some(style) = self.styles.get_mut(key) {
                        style.1 = Some(display == "none");
                    }
                }
            }
            Xml::End { name: "style" } => self.current = None,
            _ => {}
        }
    }

    /// The common styles, in `styles.xml`'s `office:styles` (its
    /// automatic styles are its own parts').
    fn read_common(&mut self, xml: &[u8]) -> Result<(), IngestError> {
        let mut depth = 0usize;
        walk_xml(xml, "styles.xml", |e| {
            match e {
                Xml::Start { name: "styles", .. } if depth == 0 => depth = 1,
                Xml::Start { .. } if depth > 0 => depth += 1,
                Xml::End { .. } if depth > 0 => depth -= 1,
                _ => {}
            }
            if depth > 0 {
                self.event(&e);
            }
            Ok(())
        })?;
        self.current = None;
        Ok(())
    }

    /// Whether the style of this family and name hides its text.
    fn hides(&self, family: &str, name: &str) -> bool {
        let style = |name: &str| self.styles.get(&(family.to_string(), name.to_string()));
        through_bases(name.to_string(), |n| style(n)?.1, |n| style(n)?.0.clone()).unwrap_or(false)
    }
}

fn read_content(xml: &[u8], styles: &mut Styles, b: &mut TextBuilder) -> Result<(), IngestError> {
    // The heading being read: its level and text.
    let mut heading: Option<(u8, String)> = None;
    // Depth inside a slide's title frame, and its text.
    let mut title_frame = 0usize;
    let mut title = String::new();
    let mut tables = 0usize;
    let mut lists = Lists::default();
    let mut skip = 0usize;
    // Speaker notes open with a mark, so a reader tells them from the slide.
    let mut notes_unmarked = false;
    // Inside a footnote or endnote, read in brackets where it is referenced,
    // and how many of its paragraphs were read.
    let mut in_note = 0usize;
    let mut note_paragraphs = 0usize;
    // Depth inside the automatic styles: read as styles, not text.
    let mut in_styles = 0usize;
    let walked = walk_xml(xml, "content.xml", |e| {
        if b.too_long() {
            return Err(TextBuilder::too_long_error());
        }
        if in_styles > 0 {
            match e {
                Xml::Start { .. } => in_styles += 1,
                Xml::End { .. } => in_styles -= 1,
                _ => {}
            }
            styles.event(&e);
            return Ok(());
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
        let hidden_by_style = |family: &str, attrs: &[(String, String)]| {
            attr(attrs, "style-name").is_some_and(|n| styles.hides(family, n))
        };
        match e {
            Xml::Start {
                name: "automatic-styles",
                ..
            } => in_styles = 1,
            // Hidden text: a section shown as none, a span or paragraph
            // whose style hides it, a hidden-text field hiding its text.
            Xml::Start {
                name: "section",
                attrs,
            } if attr(attrs, "display") == Some("none") => skip = 1,
            Xml::Start {
                name: "span",
                attrs,
            } if hidden_by_style("text", attrs) => skip = 1,
            Xml::Start {
                name: "p" | "h",
                attrs,
            } if hidden_by_style("paragraph", attrs) => skip = 1,
            Xml::Start {
                name: "hidden-text",
                attrs,
            } if attr(attrs, "is-hidden") == Some("true") => skip = 1,
            // A list item's number as its writer last drew it: kb draws
            // it itself.
            Xml::Start { name: "number", .. } if lists.depth() > 0 => skip = 1,
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
                // A heading in a list counts as an item and keeps its
                // text, as Word's do.
                lists.number(&styles.lists);
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
                name: "list-item",
                attrs,
            } => {
                b.end_line();
                lists.start_item(attrs);
            }
            // An item's number, or its bullet, before its first paragraph.
            Xml::Start { name: "p", .. } => {
                if let Some(label) = lists.number(&styles.lists) {
                    b.push_inline(&label);
                    b.push_inline(" ");
                }
            }
            Xml::End { name: "p" } if in_note > 0 => {}
            Xml::End { name: "p" } => {
                if tables > 0 {
                    b.push_inline(" ");
                } else if lists.depth() > 0 {
                    b.end_line();
                } else {
                    b.end_block();
                }
            }
            Xml::Start {
                name: "list",
                attrs,
            } => lists.start_list(attrs),
            // A nested list ends a line of its outer list, not its block.
            Xml::End { name: "list" } => {
                lists.end_list();
                if lists.depth() == 0 {
                    b.end_block();
                } else {
                    b.end_line();
                }
            }
            Xml::End { name: "notes" } => {
                // Notes with no text leave no mark for the next slide's.
                notes_unmarked = false;
                if tables == 0 {
                    b.end_block();
                }
            }
            Xml::End { name: "frame" } if tables == 0 => b.end_block(),
            // A table in a cell is read inside that cell.
            Xml::Start { name: "table", .. } => {
                b.start_table();
                tables += 1;
            }
            Xml::Start {
                name: "table-row", ..
            } => b.start_row(),
            Xml::End { name: "table-cell" } => b.end_cell(),
            Xml::End { name: "table-row" } => b.end_row(),
            Xml::End { name: "table" } => {
                tables = tables.saturating_sub(1);
                b.end_table();
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
            <table:table><table:table-row><table:table-cell><text:p>web</text:p></table:table-cell><table:table-cell><text:p>80</text:p></table:table-cell></table:table-row>\
            <table:table-row><table:table-cell><text:p>mail</text:p><table:table><table:table-row><table:table-cell><text:p>smtp</text:p></table:table-cell><table:table-cell><text:p>imap</text:p></table:table-cell></table:table-row></table:table></table:table-cell><table:table-cell><text:p>25</text:p></table:table-cell></table:table-row></table:table>\
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
            "Install\n\nDownload the archive.\n\n- unpack it\n- run setup\n\nPorts\n\nweb | 80\nmail smtp imap | 25"
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

    /// Text LibreOffice hides (a section shown as none, a span or
    /// paragraph with a hiding style, its own or its parent's, common or
    /// automatic) is left out, as Word's hidden text is.
    #[test]
    fn hidden_sections_spans_and_paragraphs_are_left_out() {
        let content = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content {NS}>\
            <office:automatic-styles>\
            <style:style style:name=\"T1\" style:family=\"text\"><style:text-properties text:display=\"none\"/></style:style>\
            <style:style style:name=\"T2\" style:family=\"text\" style:parent-style-name=\"Secret\"><style:text-properties fo:font-weight=\"bold\"/></style:style>\
            <style:style style:name=\"T3\" style:family=\"text\" style:parent-style-name=\"Secret\"><style:text-properties text:display=\"true\"/></style:style>\
            <style:style style:name=\"P1\" style:family=\"paragraph\" style:parent-style-name=\"Standard\"><style:text-properties text:display=\"none\"/></style:style>\
            <number:date-style style:name=\"N1\"><number:day/><number:text>/</number:text></number:date-style>\
            </office:automatic-styles><office:body><office:text>\
            <text:p>Hidden: shown <text:span text:style-name=\"T1\">ODTHIDDENSPAN</text:span> shown2 \
            <text:span text:style-name=\"T2\">INHERITED</text:span><text:span text:style-name=\"T3\">shown3</text:span>.</text:p>\
            <text:p text:style-name=\"P1\">HIDDENPARA</text:p>\
            <text:p>Field <text:hidden-text text:condition=\"ooow:1\" text:string-value=\"HIDDENFIELD\" text:is-hidden=\"true\">HIDDENFIELD</text:hidden-text>end.</text:p>\
            <text:section text:name=\"S1\" text:display=\"none\"><text:p>HIDDENSECTIONTEXT</text:p></text:section>\
            <text:section text:name=\"S2\"><text:p>Shown section.</text:p></text:section>\
            </office:text></office:body></office:document-content>",
            NS = "xmlns:office=\"o\" xmlns:text=\"t\" xmlns:style=\"s\" xmlns:fo=\"f\" xmlns:number=\"n\""
        );
        let styles = "<?xml version=\"1.0\"?><office:document-styles xmlns:office=\"o\" xmlns:style=\"s\" xmlns:text=\"t\">\
            <office:styles><style:style style:name=\"Secret\" style:family=\"text\"><style:text-properties text:display=\"none\"/></style:style></office:styles>\
            <office:automatic-styles><style:style style:name=\"T3\" style:family=\"text\"><style:text-properties text:display=\"none\"/></style:style></office:automatic-styles>\
            </office:document-styles>";
        let bytes = test_zip(&[("content.xml", &content), ("styles.xml", styles)]);
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("h.odt"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(
            doc.content,
            "Hidden: shown shown2 shown3.\n\nField end.\n\nShown section."
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
