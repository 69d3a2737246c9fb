//! Word documents (`.docx`): the paragraphs of `word/document.xml`, with
//! headings from their paragraph style's outline level (or a style named
//! "Heading N", or the paragraph's own outline level), numbered
//! paragraphs with the number Word shows ("3.", "b)"; see `numbering`) and
//! bulleted ones as `- ` items, tables as rows of ` | `-joined
//! cells; the title from `docProps/core.xml`, else the first heading, else
//! the file name.

use std::path::Path;

mod numbering;
mod styles;

use numbering::Numbering;
use styles::{read_styles, ListItem, Styles};

use super::container::{attr, first_text, walk_xml, Package, Xml};
use super::extracted::TextBuilder;
use super::list_numbers::roman;
use super::symbol_font::symbol;
use super::{file_title, ChunkContext, IngestError, ParsedDocument};

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let mut pkg = Package::open(bytes, "Word document")?;
    let styles = match pkg.read("word/styles.xml")? {
        Some(xml) => read_styles(&xml)?,
        None => Styles::default(),
    };
    let mut numbering = match pkg.read("word/numbering.xml")? {
        Some(xml) => Numbering::read(&xml)?,
        None => Numbering::default(),
    };
    let body = pkg.require("word/document.xml")?;
    let mut b = TextBuilder::default();
    let mut refs = NoteRefs::default();
    read_body(&body, &styles, &mut numbering, &mut refs, &mut b)?;
    doc.title = match pkg.read("docProps/core.xml")? {
        Some(core) => first_text(&core, "docProps/core.xml", "title")?,
        None => None,
    }
    .or_else(|| b.first_heading())
    .unwrap_or_else(|| file_title(path));
    for (part, heading, endnote) in [
        ("word/footnotes.xml", "Footnotes", false),
        ("word/endnotes.xml", "Endnotes", true),
    ] {
        if let Some(xml) = pkg.read(part)? {
            let mut notes = read_notes(&xml, part)?;
            // Numbered as Word numbers them: by their first reference.
            notes.sort_by_key(|(id, _)| refs.number(endnote, id).unwrap_or(usize::MAX));
            if !notes.is_empty() {
                b.heading(1, heading);
            }
            for (id, note) in &notes {
                b.push_inline(&format!("{} {note}", refs.mark(endnote, id)));
                b.end_block();
            }
        }
    }
    b.finish(&mut doc, ctx)?;
    Ok(doc)
}

/// The text of each footnote (or endnote) with any, in the order of the
/// part, which is the order Word numbers them in; its paragraphs joined.
/// The separators Word keeps among them hold no text.
fn read_notes(xml: &[u8], part: &str) -> Result<Vec<(String, String)>, IngestError> {
    let mut notes = Vec::new();
    let mut note: Option<(String, String)> = None;
    let mut in_text = false;
    walk_xml(xml, part, |e| {
        match e {
            Xml::Start {
                name: "footnote" | "endnote",
                attrs,
            } => note = Some((attr(attrs, "id").unwrap_or("").to_string(), String::new())),
            Xml::End {
                name: "footnote" | "endnote",
            } => {
                if let Some((id, n)) = note.take().filter(|(_, n)| !n.trim().is_empty()) {
                    notes.push((id, n.split_whitespace().collect::<Vec<_>>().join(" ")));
                }
            }
            Xml::Start { name: "t", .. } => in_text = true,
            Xml::End { name: "t" } => in_text = false,
            Xml::Text(t) if in_text => {
                if let Some((_, n)) = &mut note {
                    n.push_str(t);
                }
            }
            Xml::End { name: "p" } | Xml::Start { name: "tab", .. } => {
                if let Some((_, n)) = &mut note {
                    n.push(' ');
                }
            }
            _ => {}
        }
        if notes.len() > 100_000 {
            return Err(TextBuilder::too_long_error());
        }
        Ok(())
    })?;
    Ok(notes)
}

/// The notes the text refers to: each kind's ids in the order of their
/// first reference, which is how Word numbers them.
#[derive(Default)]
struct NoteRefs {
    footnotes: Vec<String>,
    endnotes: Vec<String>,
}

impl NoteRefs {
    fn ids(&mut self, endnote: bool) -> &mut Vec<String> {
        if endnote {
            &mut self.endnotes
        } else {
            &mut self.footnotes
        }
    }

    fn number(&mut self, endnote: bool, id: &str) -> Option<usize> {
        self.ids(endnote)
            .iter()
            .position(|i| i == id)
            .map(|i| i + 1)
    }

    /// A note's mark, `[2]` (endnotes `[ii]`, as Word numbers them),
    /// numbering it at its first reference.
    fn mark(&mut self, endnote: bool, id: &str) -> String {
        let n = self.number(endnote, id).unwrap_or_else(|| {
            self.ids(endnote).push(id.to_string());
            self.ids(endnote).len()
        });
        if endnote {
            format!("[{}]", roman(n))
        } else {
            format!("[{n}]")
        }
    }
}

/// A paragraph being read.
#[derive(Default)]
struct Para {
    text: String,
    level: Option<u8>,
    /// Its list, when it is an item of one (list `"0"`: numbering removed).
    list: Option<ListItem>,
    /// Whether its style hides its text, when the style says.
    hidden: Option<bool>,
}

impl Para {
    /// Its list and level when it is a list item (list `"0"` removes the
    /// numbering a style gave it).
    fn list_item(&self) -> Option<(&str, usize)> {
        let item = self.list.as_ref()?;
        let list = item.list.as_deref().filter(|l| *l != "0")?;
        Some((list, item.level.unwrap_or(0)))
    }
}

fn read_body(
    xml: &[u8],
    styles: &Styles,
    numbering: &mut Numbering,
    refs: &mut NoteRefs,
    b: &mut TextBuilder,
) -> Result<(), IngestError> {
    // Paragraphs open: a text box's paragraphs sit inside the paragraph
    // that anchors the box, and end before it.
    let mut open: Vec<Para> = Vec::new();
    let mut in_text = false;
    let mut tables = 0usize;
    let mut in_ppr = false;
    // A run marked hidden (`w:vanish`), or not, directly and by its
    // character style: Word does not show or print hidden text. What the
    // run says wins over its style, and that over the paragraph's style.
    let mut vanish: Option<bool> = None;
    let mut style_vanish: Option<bool> = None;
    // Inside a tracked move's old place (`w:moveFrom`): text no longer there.
    let mut moved_away = 0usize;
    // Inside `mc:Fallback`: the same content again for older readers (a
    // text box as VML), read once already from `mc:Choice`.
    let mut fallback = 0usize;
    // Inside a tracked change's record of earlier properties
    // (`w:pPrChange`, `w:rPrChange`, …): what the paragraph or run was
    // before, not what Word shows now.
    let mut earlier = 0usize;
    let walked = walk_xml(xml, "word/document.xml", |e| {
        if b.too_long() {
            return Err(TextBuilder::too_long_error());
        }
        match e {
            Xml::Start {
                name: "Fallback", ..
            } => fallback += 1,
            Xml::End { name: "Fallback" } => fallback = fallback.saturating_sub(1),
            _ if fallback > 0 => {}
            Xml::Start { name, .. } if name.ends_with("PrChange") => earlier += 1,
            Xml::End { name } if name.ends_with("PrChange") => earlier = earlier.saturating_sub(1),
            _ if earlier > 0 => {}
            Xml::Start { name: "p", .. } => open.push(Para::default()),
            Xml::Start { name: "pPr", .. } => in_ppr = true,
            Xml::End { name: "pPr" } => in_ppr = false,
            Xml::Start {
                name: "pStyle",
                attrs,
            } if in_ppr => {
                if let (Some(p), Some(id)) = (open.last_mut(), attr(attrs, "val")) {
                    if let Some(level) = styles.headings.get(id) {
                        p.level = Some(*level);
                    }
                    p.hidden = styles.hidden(id);
                    if let Some(item) = styles.lists.get(id) {
                        p.list.get_or_insert_with(|| item.clone());
                    }
                }
            }
            Xml::Start {
                name: "rStyle",
                attrs,
            } if !in_ppr => style_vanish = attr(attrs, "val").and_then(|id| styles.hidden(id)),
            Xml::Start {
                name: "outlineLvl",
                attrs,
            } if in_ppr => {
                if let (Some(p), Some(l)) = (
                    open.last_mut(),
                    attr(attrs, "val").and_then(|v| v.parse::<u8>().ok()),
                ) {
                    p.level = (l < 9).then_some(l + 1);
                }
            }
            Xml::Start {
                name: name @ ("numId" | "ilvl"),
                attrs,
            } if in_ppr => {
                if let (Some(p), Some(val)) = (open.last_mut(), attr(attrs, "val")) {
                    p.list.get_or_insert_with(ListItem::default).set(name, val);
                }
            }
            Xml::Start { name: "r", .. } => {
                vanish = None;
                style_vanish = None;
            }
            Xml::Start {
                name: "moveFrom", ..
            } => moved_away += 1,
            Xml::End { name: "moveFrom" } => moved_away = moved_away.saturating_sub(1),
            // In `pPr` it hides the paragraph mark only, not the text.
            Xml::Start {
                name: "vanish",
                attrs,
            } if !in_ppr => {
                vanish = Some(!matches!(attr(attrs, "val"), Some("0" | "false" | "off")))
            }
            Xml::Start { name: "t", .. } => in_text = true,
            Xml::End { name: "t" } => in_text = false,
            Xml::Text(t) if in_text && moved_away == 0 => {
                if let Some(p) = open.last_mut() {
                    if !vanish.or(style_vanish).or(p.hidden).unwrap_or(false) {
                        p.text.push_str(t);
                    }
                }
            }
            Xml::Start {
                name: name @ ("footnoteReference" | "endnoteReference"),
                attrs,
            } => {
                if let (Some(p), Some(id)) = (open.last_mut(), attr(attrs, "id")) {
                    p.text.push_str(&refs.mark(name == "endnoteReference", id));
                }
            }
            // A symbol inserted from a font (`Insert > Symbol`): a symbol
            // font's codes read as the characters they draw.
            Xml::Start { name: "sym", attrs } if moved_away == 0 => {
                if let Some(p) = open.last_mut() {
                    let c = attr(attrs, "char").and_then(|c| symbol(attr(attrs, "font"), c));
                    if let Some(c) =
                        c.filter(|_| !vanish.or(style_vanish).or(p.hidden).unwrap_or(false))
                    {
                        p.text.push(c);
                    }
                }
            }
            Xml::Start {
                name: "noBreakHyphen",
                ..
            } => {
                if let Some(p) = open.last_mut() {
                    p.text.push('-');
                }
            }
            Xml::Start {
                name: "tab" | "br" | "cr",
                ..
            } if !in_ppr => {
                if let Some(p) = open.last_mut() {
                    p.text.push(' ');
                }
            }
            Xml::End { name: "p" } => {
                if let Some(p) = open.pop() {
                    if tables > 0 {
                        b.push_inline(&p.text);
                        b.push_inline(" ");
                    } else if let Some(level) = p.level {
                        b.heading(level, &p.text);
                    } else if let Some((list, level)) = p.list_item() {
                        let label = numbering.label(list, level);
                        b.push_inline(label.as_deref().unwrap_or("-"));
                        b.push_inline(" ");
                        b.push_inline(&p.text);
                        b.end_line();
                    } else {
                        b.push_inline(&p.text);
                        b.end_block();
                    }
                }
            }
            // A table in a cell is read inside that cell.
            Xml::Start { name: "tbl", .. } => {
                b.start_table();
                tables += 1;
            }
            Xml::Start { name: "tr", .. } => b.start_row(),
            Xml::End { name: "tc" } => b.end_cell(),
            Xml::End { name: "tr" } => b.end_row(),
            Xml::End { name: "tbl" } => {
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

    /// A table in a cell is read inside that cell: the row around it
    /// stays one line.
    #[test]
    fn a_nested_table_stays_in_its_cell() {
        let cell = |inner: &str| format!("<w:tc>{inner}</w:tc>");
        let p = |t: &str| format!("<w:p><w:r><w:t>{t}</w:t></w:r></w:p>");
        let row = |cells: &[String]| format!("<w:tr>{}</w:tr>", cells.concat());
        let inner = format!(
            "<w:tbl>{}{}</w:tbl>",
            row(&[cell(&p("InnerA")), cell(&p("InnerB"))]),
            row(&[cell(&p("InnerC")), cell(&p("InnerD"))]),
        );
        let body = format!(
            "<?xml version=\"1.0\"?><w:document xmlns:w=\"w\"><w:body><w:tbl>{}{}</w:tbl>{}</w:body></w:document>",
            row(&[cell(&p("Region")), cell(&p("Q1")), cell(&p("Q2"))]),
            row(&[cell(&format!("{}{inner}", p("North"))), cell(&p("100")), cell(&p("200"))]),
            p("After."),
        );
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(
            Path::new("n.docx"),
            &test_zip(&[("word/document.xml", &body)]),
            &ctx,
        )
        .unwrap();
        assert_eq!(
            doc.content,
            "Region | Q1 | Q2\nNorth InnerA InnerB / InnerC InnerD | 100 | 200\n\nAfter."
        );
    }

    #[test]
    fn a_text_box_is_read_once_and_keeps_the_paragraph_around_it() {
        let text_box = |p: &str| {
            format!(
                "<w:r><w:txbx><w:txbxContent><w:p><w:r><w:t>{p}</w:t></w:r></w:p>\
                 </w:txbxContent></w:txbx></w:r>"
            )
        };
        let body = format!(
            "<?xml version=\"1.0\"?><w:document xmlns:w=\"w\" xmlns:mc=\"mc\"><w:body><w:p>\
             <w:r><w:t>Before the box.</w:t></w:r><mc:AlternateContent><mc:Choice Requires=\"wps\">{}\
             </mc:Choice><mc:Fallback>{}</mc:Fallback></mc:AlternateContent>\
             <w:r><w:t> After the box, on </w:t><w:t>2023</w:t><w:noBreakHyphen/><w:t>07.</w:t></w:r></w:p></w:body></w:document>",
            text_box("Call-out text"),
            text_box("Call-out text"),
        );
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(
            Path::new("t.docx"),
            &test_zip(&[("word/document.xml", &body)]),
            &ctx,
        )
        .unwrap();
        assert_eq!(
            doc.content,
            "Call-out text\n\nBefore the box. After the box, on 2023-07."
        );
    }

    /// A tracked move: Word shows the text at its new place only.
    #[test]
    fn text_moved_away_is_read_at_its_new_place_only() {
        let body = "<?xml version=\"1.0\"?><w:document xmlns:w=\"w\"><w:body>\
             <w:p><w:moveFrom w:id=\"1\"><w:r><w:t>Moved sentence.</w:t></w:r></w:moveFrom>\
             <w:r><w:t> Staying sentence.</w:t></w:r>\
             <w:moveTo w:id=\"2\"><w:r><w:t> Moved sentence.</w:t></w:r></w:moveTo></w:p></w:body></w:document>";
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(
            Path::new("m.docx"),
            &test_zip(&[("word/document.xml", body)]),
            &ctx,
        )
        .unwrap();
        assert_eq!(doc.content, "Staying sentence. Moved sentence.");
    }

    /// A tracked change keeps what a paragraph or run was before (a heading,
    /// a list item, hidden): Word shows what it is now.
    #[test]
    fn properties_before_a_tracked_change_are_not_read() {
        let body = "<?xml version=\"1.0\"?><w:document xmlns:w=\"w\"><w:body>\
             <w:p><w:pPr><w:pPrChange w:id=\"1\"><w:pPr><w:outlineLvl w:val=\"0\"/>\
             <w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"1\"/></w:numPr></w:pPr></w:pPrChange></w:pPr>\
             <w:r><w:t>Once a heading.</w:t></w:r></w:p>\
             <w:p><w:r><w:rPr><w:rPrChange w:id=\"2\"><w:rPr><w:vanish/></w:rPr></w:rPrChange></w:rPr>\
             <w:t>Hidden no more.</w:t></w:r></w:p></w:body></w:document>";
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(
            Path::new("c.docx"),
            &test_zip(&[("word/document.xml", body)]),
            &ctx,
        )
        .unwrap();
        assert_eq!(doc.content, "Once a heading.\n\nHidden no more.");
        assert!(doc.meta.headings.is_empty());
    }

    #[test]
    fn hidden_text_is_left_out() {
        let body = "<?xml version=\"1.0\"?><w:document xmlns:w=\"w\"><w:body>\
             <w:p><w:pPr><w:rPr><w:vanish/></w:rPr></w:pPr><w:r><w:t>Shown,</w:t></w:r>\
             <w:r><w:rPr><w:vanish/></w:rPr><w:t> secret draft</w:t></w:r>\
             <w:r><w:rPr><w:vanish w:val=\"0\"/></w:rPr><w:t> and shown</w:t></w:r>\
             <w:r><w:t> again.</w:t></w:r></w:p></w:body></w:document>";
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(
            Path::new("h.docx"),
            &test_zip(&[("word/document.xml", body)]),
            &ctx,
        )
        .unwrap();
        assert_eq!(doc.content, "Shown, and shown again.");
    }

    /// Text hidden by its character style, by a style based on that, or
    /// by its paragraph's style is left out as directly hidden text is;
    /// a run or style saying "not hidden" shows it again.
    #[test]
    fn text_hidden_by_a_style_is_left_out() {
        let styles = "<?xml version=\"1.0\"?><w:styles xmlns:w=\"w\">\
            <w:style w:type=\"character\" w:styleId=\"HiddenChar\"><w:name w:val=\"HiddenChar\"/><w:rPr><w:vanish/></w:rPr></w:style>\
            <w:style w:type=\"character\" w:styleId=\"Based\"><w:basedOn w:val=\"HiddenChar\"/><w:rPr><w:b/></w:rPr></w:style>\
            <w:style w:type=\"character\" w:styleId=\"Unhidden\"><w:basedOn w:val=\"HiddenChar\"/><w:rPr><w:vanish w:val=\"false\"/></w:rPr></w:style>\
            <w:style w:type=\"paragraph\" w:styleId=\"MarkOnly\"><w:pPr><w:rPr><w:vanish/></w:rPr></w:pPr></w:style>\
            <w:style w:type=\"paragraph\" w:styleId=\"Secret\"><w:rPr><w:vanish/></w:rPr></w:style>\
            <w:style w:type=\"table\" w:styleId=\"Grid\"><w:tblStylePr w:type=\"firstRow\"><w:rPr><w:vanish/></w:rPr></w:tblStylePr></w:style>\
            <w:style w:type=\"character\" w:styleId=\"Loop\"><w:basedOn w:val=\"Loop\"/></w:style>\
            </w:styles>";
        let run = |style: &str, text: &str| {
            format!("<w:r><w:rPr><w:rStyle w:val=\"{style}\"/></w:rPr><w:t xml:space=\"preserve\">{text}</w:t></w:r>")
        };
        let body = format!(
            "<?xml version=\"1.0\"?><w:document xmlns:w=\"w\"><w:body>\
             <w:p><w:r><w:t xml:space=\"preserve\">Style hidden:</w:t></w:r>{}{}{}{}{}{}<w:r><w:t xml:space=\"preserve\"> end.</w:t></w:r></w:p>\
             <w:p><w:pPr><w:pStyle w:val=\"MarkOnly\"/></w:pPr><w:r><w:t>Mark only.</w:t></w:r></w:p>\
             <w:p><w:pPr><w:pStyle w:val=\"Secret\"/></w:pPr><w:r><w:t>SECRETPARA</w:t></w:r>\
             <w:r><w:rPr><w:vanish w:val=\"0\"/></w:rPr><w:t>Unhidden run.</w:t></w:r></w:p>\
             </w:body></w:document>",
            run("HiddenChar", " STYLEHIDDENRUN"),
            run("Based", " BASEDHIDDEN"),
            run("Unhidden", " shown"),
            run("Grid", " and"),
            run("Loop", " looped"),
            run("Missing", " kept"),
        );
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let bytes = test_zip(&[("word/document.xml", &body), ("word/styles.xml", styles)]);
        let doc = parse(Path::new("s.docx"), &bytes, &ctx).unwrap();
        assert_eq!(
            doc.content,
            "Style hidden: shown and looped kept end.\n\nMark only.\n\nUnhidden run."
        );
    }

    /// A symbol inserted from the Symbol font reads as the character it
    /// draws, and so does a Wingdings mark (its check mark); a plain
    /// font's code is the character; Symbol's pieces of large brackets are
    /// left out.
    #[test]
    fn symbols_read_as_their_characters() {
        let sym = |font: &str, code: &str| format!("<w:sym w:font=\"{font}\" w:char=\"{code}\"/>");
        let body = format!(
            "<?xml version=\"1.0\"?><w:document xmlns:w=\"w\"><w:body>\
             <w:p><w:r><w:t xml:space=\"preserve\">Temperature 20</w:t>{}<w:t>C, </w:t>{}{}<w:t> = 0.5 </w:t>{}\
             <w:t xml:space=\"preserve\"> mA</w:t>{}{}<w:t> done</w:t>{}</w:r></w:p></w:body></w:document>",
            sym("Symbol", "F0B0"),
            sym("Symbol", "F044"),
            sym("Symbol", "F06C"),
            sym("Symbol", "00B1"),
            sym("Wingdings", "F0FC"),
            sym("Times New Roman", "2192"),
            sym("Symbol", "F0E6"),
        );
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(
            Path::new("y.docx"),
            &test_zip(&[("word/document.xml", &body)]),
            &ctx,
        )
        .unwrap();
        assert_eq!(doc.content, "Temperature 20°C, Δλ = 0.5 ± mA✓→ done");
    }

    #[test]
    fn a_style_based_on_a_heading_is_a_heading() {
        let styles = br#"<w:styles xmlns:w="w">
            <w:style w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
            <w:style w:styleId="ChapterTitle"><w:name w:val="Chapter Title"/><w:basedOn w:val="Heading2"/></w:style>
            <w:style w:styleId="Fancy"><w:name w:val="Fancy"/><w:basedOn w:val="ChapterTitle"/></w:style>
            <w:style w:styleId="Quote"><w:name w:val="Quote"/><w:basedOn w:val="Normal"/></w:style>
            <w:style w:styleId="Plain"><w:name w:val="Plain"/><w:basedOn w:val="Heading2"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>
            <w:style w:styleId="A"><w:name w:val="A"/><w:basedOn w:val="B"/></w:style>
            <w:style w:styleId="B"><w:name w:val="B"/><w:basedOn w:val="A"/></w:style>
            </w:styles>"#;
        let levels = read_styles(styles).unwrap().headings;
        assert_eq!(levels.get("ChapterTitle"), Some(&2));
        assert_eq!(levels.get("Fancy"), Some(&2));
        assert_eq!(levels.get("Quote"), None);
        assert_eq!(levels.get("Plain"), None);
        assert_eq!(levels.get("A"), None);
    }

    #[test]
    fn footnotes_follow_the_text_under_a_heading_of_their_own() {
        let body = "<?xml version=\"1.0\"?><w:document xmlns:w=\"w\"><w:body><w:p><w:r>\
                    <w:t>Revenue grew.</w:t></w:r><w:r><w:footnoteReference w:id=\"2\"/></w:r>\
                    <w:r><w:t> Costs fell.</w:t></w:r><w:r><w:footnoteReference w:id=\"1\"/></w:r></w:p>\
                    </w:body></w:document>";
        let notes = "<?xml version=\"1.0\"?><w:footnotes xmlns:w=\"w\">\
                     <w:footnote w:type=\"separator\" w:id=\"-1\"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>\
                     <w:footnote w:id=\"1\"><w:p><w:r><w:t>Source: annual report,</w:t></w:r></w:p>\
                     <w:p><w:r><w:t>page 12.</w:t></w:r></w:p></w:footnote>\
                     <w:footnote w:id=\"2\"><w:p><w:r><w:t>Restated.</w:t></w:r></w:p></w:footnote></w:footnotes>";
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let bytes = test_zip(&[("word/document.xml", body), ("word/footnotes.xml", notes)]);
        let doc = parse(Path::new("f.docx"), &bytes, &ctx).unwrap();
        assert_eq!(
            doc.content,
            "Revenue grew.[1] Costs fell.[2]\n\nFootnotes\n\n[1] Restated.\n\n[2] Source: annual report, page 12."
        );
        assert_eq!(doc.title, "f.docx");
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
