//! PowerPoint presentations (`.pptx`): each slide, in the presentation's
//! order, is a page (cited by its number) with its title placeholder as a
//! heading, its text boxes and tables as text, and its speaker notes
//! indexed with it; a numbered paragraph starts with the number
//! PowerPoint shows ("3.", "b)"; see `numbers`). The title is from
//! `docProps/core.xml`, else the file name.

use std::path::Path;

mod numbers;

use numbers::Numbers;

use super::container::{attr, first_text, walk_xml, Package, Xml};
use super::extracted::{TextBuilder, NOTES_MARK};
use super::{file_title, ChunkContext, IngestError, ParsedDocument};

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let mut pkg = Package::open(bytes, "PowerPoint presentation")?;
    let slides = slide_parts(&mut pkg)?;
    if slides.is_empty() {
        // A ZIP named .pptx is no presentation, and none is empty.
        if !pkg.has("ppt/presentation.xml") {
            return Err(IngestError::Unsupported(
                "not a PowerPoint presentation: the ZIP package has no ppt/presentation.xml \
                 and no slides (a misnamed file?)"
                    .into(),
            ));
        }
        return Err(IngestError::no_text("the presentation has no slides"));
    }
    let mut b = TextBuilder::default();
    for slide in &slides {
        b.new_page();
        let xml = pkg.require(slide)?;
        read_shapes(&xml, slide, &mut b, false)?;
        if let Some(notes) = related(&mut pkg, slide, "/notesSlide")? {
            if let Some(xml) = pkg.read(&notes)? {
                read_shapes(&xml, &notes, &mut b, true)?;
            }
        }
        if b.too_long() {
            return Err(TextBuilder::too_long_error());
        }
    }
    doc.title = match pkg.read("docProps/core.xml")? {
        Some(core) => first_text(&core, "docProps/core.xml", "title")?,
        None => None,
    }
    .or_else(|| b.first_heading())
    .unwrap_or_else(|| file_title(path));
    b.finish(&mut doc, ctx)?;
    Ok(doc)
}

/// The slides' part names in the presentation's order (from
/// `ppt/presentation.xml` and its relationships); in name order when
/// those cannot tell.
fn slide_parts(pkg: &mut Package) -> Result<Vec<String>, IngestError> {
    let mut ids = Vec::new();
    if let Some(xml) = pkg.read("ppt/presentation.xml")? {
        walk_xml(&xml, "ppt/presentation.xml", |e| {
            // `id` and `r:id` share a local name: the relationship is
            // whichever names one.
            if let Xml::Start {
                name: "sldId",
                attrs,
            } = e
            {
                ids.push(
                    attrs
                        .iter()
                        .filter(|(k, _)| k == "id")
                        .map(|(_, v)| v.clone())
                        .collect::<Vec<_>>(),
                );
            }
            Ok(())
        })?;
    }
    let rels = relationships(pkg, "ppt/presentation.xml")?;
    let mut out: Vec<String> = ids
        .iter()
        .filter_map(|cands| rels.iter().find(|(i, _, _)| cands.contains(i)))
        .map(|(_, _, target)| target.clone())
        .filter(|t| pkg.has(t))
        .collect();
    if out.is_empty() {
        out = pkg
            .names()
            .into_iter()
            .filter(|n| n.starts_with("ppt/slides/slide") && n.ends_with(".xml"))
            .collect();
        let number = |n: &str| {
            n.trim_start_matches("ppt/slides/slide")
                .trim_end_matches(".xml")
                .parse::<u32>()
                .unwrap_or(u32::MAX)
        };
        out.sort_by_key(|n| number(n));
    }
    Ok(out)
}

/// The relationships of a part: (id, type, resolved target part name).
fn relationships(
    pkg: &mut Package,
    part: &str,
) -> Result<Vec<(String, String, String)>, IngestError> {
    let (dir, file) = part.rsplit_once('/').unwrap_or(("", part));
    let rels_name = format!("{dir}/_rels/{file}.rels");
    let Some(xml) = pkg.read(&rels_name)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    walk_xml(&xml, &rels_name, |e| {
        if let Xml::Start {
            name: "Relationship",
            attrs,
        } = e
        {
            if let (Some(id), Some(target)) = (attr(attrs, "Id"), attr(attrs, "Target")) {
                let ty = attr(attrs, "Type").unwrap_or("").to_string();
                out.push((id.to_string(), ty, resolve(dir, target)));
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// The part a relationship of this type (its URI's end) points at.
fn related(pkg: &mut Package, part: &str, ty: &str) -> Result<Option<String>, IngestError> {
    Ok(relationships(pkg, part)?
        .into_iter()
        .find(|(_, t, _)| t.ends_with(ty))
        .map(|(_, _, target)| target))
}

/// A relationship's target, relative to the folder of its source part.
fn resolve(dir: &str, target: &str) -> String {
    if let Some(abs) = target.strip_prefix('/') {
        return abs.to_string();
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in target.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// A slide's (or its notes') shapes: a title placeholder becomes the
/// slide's heading, other text its paragraphs, tables rows. In notes only
/// the body placeholder is text (not the slide image or number).
fn read_shapes(
    xml: &[u8],
    part: &str,
    b: &mut TextBuilder,
    notes: bool,
) -> Result<(), IngestError> {
    let mut placeholder: Option<String> = None;
    let mut in_shape = false;
    let mut para = String::new();
    let mut shape_text = String::new();
    let mut in_text = false;
    let mut in_table = false;
    let mut numbers = Numbers::default();
    let walked = walk_xml(xml, part, |e| {
        numbers.event(&e);
        match e {
            Xml::Start { name: "sp", .. } => {
                in_shape = true;
                placeholder = None;
                shape_text.clear();
            }
            Xml::Start { name: "ph", attrs } if in_shape => {
                placeholder = Some(attr(attrs, "type").unwrap_or("body").to_string());
            }
            Xml::Start { name: "t", .. } => in_text = true,
            Xml::End { name: "t" } => in_text = false,
            Xml::Text(t) if in_text => para.push_str(t),
            Xml::Start { name: "br", .. } => para.push(' '),
            Xml::End { name: "p" } => {
                let mut p = std::mem::take(&mut para);
                if let Some(label) = numbers.end_paragraph(p.trim().is_empty()) {
                    p = format!("{label} {}", p.trim());
                }
                if in_table {
                    b.push_inline(&p);
                    b.push_inline(" ");
                } else if !p.trim().is_empty() {
                    shape_text.push_str(p.trim());
                    shape_text.push('\n');
                }
            }
            Xml::Start { name: "tbl", .. } => {
                b.end_block();
                in_table = true;
            }
            Xml::End { name: "tc" } if in_table => b.end_cell(),
            Xml::End { name: "tr" } if in_table => b.end_row(),
            Xml::End { name: "tbl" } => {
                in_table = false;
                b.end_block();
            }
            Xml::End { name: "sp" } => {
                in_shape = false;
                let kind = placeholder.take();
                let text = std::mem::take(&mut shape_text);
                let is_title = matches!(kind.as_deref(), Some("title" | "ctrTitle"));
                let wanted = !notes || matches!(kind.as_deref(), Some("body"));
                if is_title && !notes {
                    b.heading(1, &text);
                } else if wanted {
                    for (i, line) in text.lines().enumerate() {
                        // Speaker notes open with a mark, so a reader
                        // tells them from the slide.
                        if notes && i == 0 {
                            b.push_inline(NOTES_MARK);
                        }
                        b.push_inline(line);
                        b.end_line();
                    }
                    b.end_block();
                }
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
    fn slides_in_order_with_titles_and_notes() {
        let bytes = pptx(
            Some("Quarterly review"),
            &[
                ("Revenue", "Up twelve percent", "thank the sales team"),
                ("Hiring", "Four engineers joined", "mention the onboarding"),
                (
                    "Next steps",
                    "Open the Berlin office",
                    "dates are not final",
                ),
            ],
        );
        let mut c = ChunkingConfig::default();
        c.document.min_tokens = 0;
        let doc = parse(
            Path::new("q.pptx"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.title, "Quarterly review");
        assert_eq!(doc.meta.pages, Some(3));
        let hs: Vec<_> = doc.meta.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(hs, ["Revenue", "Hiring", "Next steps"]);
        let hiring = doc
            .chunks
            .iter()
            .find(|c| c.text.contains("Four engineers"))
            .unwrap();
        assert_eq!(hiring.meta.page, Some(2));
        assert!(
            hiring.text.contains("mention the onboarding"),
            "{}",
            hiring.text
        );
        assert!(!doc.content.contains("sldImg"));
    }

    #[test]
    fn targets_resolve_against_their_folder() {
        assert_eq!(
            resolve("ppt/slides", "../notesSlides/n1.xml"),
            "ppt/notesSlides/n1.xml"
        );
        assert_eq!(resolve("ppt", "slides/slide1.xml"), "ppt/slides/slide1.xml");
        assert_eq!(resolve("ppt", "/ppt/x.xml"), "ppt/x.xml");
    }

    #[test]
    fn a_zip_that_is_no_presentation_says_so() {
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let zip = test_zip(&[("readme.txt", "just a zip")]);
        let e = parse(Path::new("z.pptx"), &zip, &ctx).unwrap_err();
        assert!(
            matches!(&e, IngestError::Unsupported(m) if m.contains("not a PowerPoint presentation")),
            "{e}"
        );
        let none = test_zip(&[(
            "ppt/presentation.xml",
            "<p:presentation xmlns:p=\"p\"><p:sldIdLst/></p:presentation>",
        )]);
        let e = parse(Path::new("n.pptx"), &none, &ctx).unwrap_err();
        assert_eq!(
            e.to_string(),
            "nothing to index: the presentation has no slides"
        );
        assert!(e.is_empty());
    }
}
