//! E-books (`.epub`): the chapters in the order of the book's spine, each
//! XHTML chapter read as a web page is (headings as sections, tables as
//! rows); the title and author from the package document (OPF).

use std::path::Path;

use super::container::{attr, walk_xml, Package, Xml};
use super::extracted::TextBuilder;
use super::{file_title, html, html_parse, ChunkContext, IngestError, ParsedDocument};

/// What the package document says.
#[derive(Default)]
struct Opf {
    title: Option<String>,
    author: Option<String>,
    /// Manifest: id → (href, media type).
    items: Vec<(String, String, String)>,
    spine: Vec<String>,
}

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let mut pkg = Package::open(bytes, "EPUB e-book")?;
    let container = pkg.require("META-INF/container.xml")?;
    let mut opf_path = None;
    walk_xml(&container, "META-INF/container.xml", |e| {
        if let Xml::Start {
            name: "rootfile",
            attrs,
        } = e
        {
            if opf_path.is_none() {
                opf_path = attr(attrs, "full-path").map(str::to_string);
            }
        }
        Ok(())
    })?;
    let opf_path = opf_path.ok_or_else(|| {
        IngestError::failed("not an EPUB e-book: META-INF/container.xml names no package document")
    })?;
    let opf = read_opf(&pkg.require(&opf_path)?, &opf_path)?;
    let dir = opf_path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut b = TextBuilder::default();
    // Chapters left out because they are not text, with why.
    let mut skipped: Vec<String> = Vec::new();
    for idref in &opf.spine {
        let Some((_, href, media)) = opf.items.iter().find(|(id, _, _)| id == idref) else {
            continue;
        };
        if !media.contains("html") {
            continue;
        }
        let name = join(dir, href);
        let Some(chapter) = pkg.read(&name)? else {
            doc.warnings.push(format!(
                "the spine names {name}, which the book does not hold"
            ));
            continue;
        };
        let text = html::decode(&chapter, &mut doc.warnings);
        let page = match html_parse::parse(&text, &name) {
            Ok(page) => page,
            // A chapter that is not text fails alone: the book is the
            // rest of its chapters.
            Err(IngestError::Unsupported(why)) => {
                doc.warnings
                    .push(format!("{why}; the chapter was left out"));
                skipped.push(why);
                continue;
            }
            Err(e) => return Err(e),
        };
        html::render(&page, &mut b);
        b.end_block();
        if b.too_long() {
            return Err(TextBuilder::too_long_error());
        }
    }
    if let Some(why) = skipped.first().filter(|_| b.text().trim().is_empty()) {
        return Err(IngestError::Unsupported(match skipped.len() {
            1 => why.clone(),
            2 => format!("{why} (and one more chapter)"),
            n => format!("{why} (and {} more chapters)", n - 1),
        }));
    }
    doc.title = opf.title.unwrap_or_else(|| file_title(path));
    doc.meta.author = opf.author;
    b.finish(&mut doc, ctx)?;
    Ok(doc)
}

fn read_opf(xml: &[u8], part: &str) -> Result<Opf, IngestError> {
    let mut opf = Opf::default();
    let mut field: Option<&'static str> = None;
    let mut text = String::new();
    walk_xml(xml, part, |e| {
        match e {
            Xml::Start { name: "title", .. } if opf.title.is_none() => field = Some("title"),
            Xml::Start {
                name: "creator", ..
            } if opf.author.is_none() => field = Some("creator"),
            Xml::Text(t) if field.is_some() => text.push_str(t),
            Xml::End { name } if field == Some(name) => {
                let value = text.split_whitespace().collect::<Vec<_>>().join(" ");
                text.clear();
                let value = (!value.is_empty()).then_some(value);
                match field.take() {
                    Some("title") => opf.title = value,
                    _ => opf.author = value,
                }
            }
            Xml::Start {
                name: "item",
                attrs,
            } => {
                if let (Some(id), Some(href)) = (attr(attrs, "id"), attr(attrs, "href")) {
                    let media = attr(attrs, "media-type").unwrap_or("").to_string();
                    opf.items.push((id.to_string(), href.to_string(), media));
                }
            }
            Xml::Start {
                name: "itemref",
                attrs,
            } => {
                if let Some(id) = attr(attrs, "idref") {
                    opf.spine.push(id.to_string());
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(opf)
}

/// A manifest href (relative, maybe percent-encoded) as a part name.
fn join(dir: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or(href);
    let decoded = percent_decode(href);
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in decoded.split('/') {
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

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;
    use crate::ingest::testdocs::*;

    #[test]
    fn chapters_in_spine_order_with_title_and_author() {
        let bytes = epub(
            "The Lighthouse",
            "Ada Keeper",
            &[
                ("Arrival", "The keeper came in spring."),
                ("Storm", "The lamp failed at midnight."),
            ],
        );
        let mut c = ChunkingConfig::default();
        c.document.min_tokens = 0;
        let doc = parse(
            Path::new("l.epub"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.title, "The Lighthouse");
        assert_eq!(doc.meta.author.as_deref(), Some("Ada Keeper"));
        assert_eq!(
            doc.content,
            "Arrival\n\nThe keeper came in spring.\n\nStorm\n\nThe lamp failed at midnight."
        );
        let storm = doc.chunks.iter().find(|c| c.text.contains("lamp")).unwrap();
        assert_eq!(storm.meta.section.as_deref(), Some("Storm"));
        assert_eq!(storm.meta.line_start, Some(5));
    }

    #[test]
    fn a_chapter_that_is_not_text_is_left_out_alone() {
        // A ZIP stored as a chapter: once indexed as one chunk of `PK` bytes.
        let zip = format!(
            "PK\u{3}\u{4}\u{14}\u{0}\u{8}\u{0}{}",
            "\u{0}\u{1}PKx".repeat(50_000)
        );
        let good = "<html><body><h1>Harbour</h1><p>The ferry leaves at dawn.</p></body></html>";
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(
            Path::new("b.epub"),
            &epub_pages("Book", "A", &[zip.clone(), good.to_string()]),
            &ctx,
        )
        .unwrap();
        assert_eq!(doc.content, "Harbour\n\nThe ferry leaves at dawn.");
        assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
        assert!(
            doc.warnings[0].contains("binary content")
                && doc.warnings[0].contains("OEBPS/text/chapter 0.xhtml"),
            "{:?}",
            doc.warnings
        );
        // A book of nothing else fails, with the reason.
        let e = parse(Path::new("z.epub"), &epub_pages("Z", "A", &[zip]), &ctx).unwrap_err();
        assert!(
            matches!(&e, IngestError::Unsupported(m) if m.contains("binary content")),
            "{e}"
        );
    }

    #[test]
    fn a_doctype_with_an_internal_subset_leaks_nothing() {
        let page = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE html [\n<!ENTITY nbsp \"&#160;\">\n]>\n\
                    <html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>Tide tables.</p></body></html>";
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("t.epub"),
            &epub_pages("T", "A", &[page.to_string()]),
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.content, "Tide tables.");
    }
}
