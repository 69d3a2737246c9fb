//! PDF documents: pages read with pdfium (`read`: characters and their
//! boxes put in reading order by `reading`, tables kept as rows; pages
//! without a usable text layer recognised by Tesseract in `ingest::ocr`),
//! isolated in a child process (`extract`); paragraphs and heading-like lines
//! recovered from the layout (`layout`), the document's own bookmarks
//! taking the place of inferred headings (`outline`), then chunks packed from
//! paragraphs (`pack`). A chunk never crosses a page unless a paragraph
//! does, so every chunk cites its page.

mod block;
mod body;
mod class;
mod contents;
pub mod engine;
mod extract;
mod filing;
mod furniture;
mod glyphs;
#[cfg(test)]
mod golden;
mod grouping;
mod hyphens;
#[cfg(test)]
mod imports;
mod labels;
mod layout;
mod lexicon;
#[cfg(test)]
mod literals;
mod monospace;
mod numbering;
mod outline;
mod overlays;
mod pack;
pub(super) mod page;
pub mod page_cache;
mod pitch;
mod read;
mod reading;
mod settings;
#[cfg(test)]
mod shape;
mod spacing;
mod statement;
mod tables;
#[cfg(any(test, feature = "e2e"))]
#[doc(hidden)]
pub mod testpdf;
mod text_shape;
#[cfg(test)]
mod thresholds;
mod title;
mod tuning;
mod wrapped_cells;

use std::path::Path;

use super::{file_title, ChunkContext, IngestError, ParsedDocument};
use crate::config::PdfStrategy;
use crate::document::Heading;

pub use block::Block;
pub use class::DocumentClass;
pub use extract::{child_main, extract_in_child_processes, CHILD_COMMAND, MEMORY_LIMIT_BYTES};
pub use glyphs::Glyph;
pub use layout::Decision as HeadingDecision;
pub use page::{Extracted, Line, OutlineEntry, Page};
pub use settings::{ImageOcr, PageReport, PdfSettings, ReadOptions};
pub use tables::CELL_SEPARATOR;

/// The line `content` holds between two pages: a form feed.
pub const PAGE_SEPARATOR: &str = "\u{c}";

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let extracted = extract::extract(path, bytes, &ctx.pdf).map_err(IngestError::Failed)?;
    build(path, &extracted, ctx)
}

/// What the heading rules made of each group of lines of a PDF, and the
/// bookmarks that stand for its hierarchy (none when too thin): for
/// `kb-eval pdf-structure --explain` and `cargo dev fit-pdf-rules`.
pub fn heading_decisions(
    path: &Path,
    bytes: &[u8],
    settings: &PdfSettings,
) -> Result<(Vec<HeadingDecision>, Vec<OutlineEntry>), IngestError> {
    let ex = extract::extract(path, bytes, settings).map_err(IngestError::Failed)?;
    let bookmarks = outline::usable(&ex.outline, ex.pages.len() as u32);
    let bookmarks = bookmarks.into_iter().cloned().collect();
    Ok((layout::decisions(&ex.pages), bookmarks))
}

/// The heading rules as rows, the bias first.
pub fn heading_rules() -> Vec<HeadingRule> {
    let weights = &*layout::WEIGHTS;
    let bias = HeadingRule {
        name: "bias",
        classes: String::new(),
        weights: weights[0],
        example: "",
    };
    let rows = layout::RULES.iter().zip(&weights[1..]).map(|(r, w)| {
        let classes: Vec<String> = r.classes.iter().map(|c| format!("{c:?}")).collect();
        HeadingRule {
            name: r.name,
            classes: classes.join(" "),
            weights: *w,
            example: r.example,
        }
    });
    std::iter::once(bias).chain(rows).collect()
}

/// A heading rule as `kb-eval` and `kb-dev` show and fit it.
pub struct HeadingRule {
    pub name: &'static str,
    /// The document classes it runs on, by name.
    pub classes: String,
    /// Its weight in each class, in `DocumentClass` order.
    pub weights: [f32; 4],
    pub example: &'static str,
}

/// Turns extracted pages into a document: content, headings, title,
/// chunks and page counts.
pub fn build(
    path: &Path,
    ex: &Extracted,
    ctx: &ChunkContext,
) -> Result<ParsedDocument, IngestError> {
    let total = ex.pages.len();
    let without_text: Vec<u32> = ex
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| p.text_missing())
        .map(|(i, _)| i as u32 + 1)
        .collect();
    let blank = ex.pages.iter().filter(|p| p.blank).count();
    let failed: Vec<(usize, &str)> = ex
        .pages
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.error.as_deref().map(|e| (i + 1, e)))
        .collect();
    if blank == total {
        return Err(IngestError::Failed(format!(
            "no text to index: {} blank",
            if total == 1 {
                "its only page is".to_string()
            } else {
                format!("all {total} pages are")
            }
        )));
    }
    if without_text.len() + blank == total {
        if let Some((page, e)) = failed.first().filter(|_| failed.len() == total) {
            return Err(IngestError::Failed(format!(
                "could not extract text from any of {total} pages (page {page}: {e})"
            )));
        }
        let pages = if total == 1 {
            "its only page".to_string()
        } else {
            format!("any of {total} pages")
        };
        return Err(IngestError::Failed(format!(
            "no extractable text on {pages} ({})",
            why_no_text(ex, ctx)
        )));
    }

    let mut doc = ParsedDocument::default();
    // The title is the document's name, not its first section: kept as
    // a heading, it would open every section chain (so would its author).
    // Bookmarks, where usable, head the text instead.
    let bookmarked = !outline::usable(&ex.outline, total as u32).is_empty();
    let info = ex.title.as_deref();
    let hyphens = hyphens::Hyphenation::of(&ex.pages);
    let (blocks, title, _) = layout::structure(
        &ex.pages,
        &hyphens,
        None,
        &|roles| title::choose_title(info, roles),
        !bookmarked,
    );
    let blocks = outline::apply(blocks, &ex.outline, total as u32);
    let (content, headings) = content_and_headings(&blocks, total);
    doc.content = content;
    doc.meta.headings = headings;
    doc.title = title.unwrap_or_else(|| file_title(path));

    let max = ctx.cap(ctx.config.pdf.max_tokens);
    doc.chunks = match ctx.config.pdf.strategy {
        PdfStrategy::Hierarchy => pack::hierarchy(&blocks, max, ctx, &hyphens),
        PdfStrategy::Fixed => pack::fixed(&blocks, max, ctx),
    };
    if doc.chunks.is_empty() {
        return Err(IngestError::Failed(format!(
            "no text to index in {total} pages (only page numbers or running headers)"
        )));
    }

    doc.meta.pages = Some(total as u32);
    doc.meta.pages_without_text = Some(without_text.len() as u32);
    doc.meta.pages_without_text_list = without_text.clone();
    if !without_text.is_empty() {
        doc.warnings.push(format!(
            "{} of {total} pages have no extractable text (pages {}; {})",
            without_text.len(),
            list_pages(&without_text),
            why_no_text(ex, ctx)
        ));
    }
    let ocr: Vec<u32> = ex
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| p.ocr)
        .map(|(i, _)| i as u32 + 1)
        .collect();
    doc.meta.pages_ocr = Some(ocr.len() as u32);
    doc.meta.pages_ocr_list = ocr;
    // Garbage text layers kept because OCR could not run.
    let unread: Vec<(usize, &str)> = ex
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.without_text())
        .filter_map(|(i, p)| p.ocr_error.as_deref().map(|e| (i + 1, e)))
        .collect();
    if let Some((_, e)) = unread.first() {
        let pages: Vec<u32> = unread.iter().map(|(p, _)| *p as u32).collect();
        doc.warnings.push(format!(
            "{} of {total} pages have an unreadable text layer and were not OCR'd (pages {}; {e})",
            unread.len(),
            list_pages(&pages)
        ));
    }
    doc.meta.encrypted = ex.encrypted;
    if !failed.is_empty() {
        let shown: Vec<String> = failed
            .iter()
            .take(5)
            .map(|(p, e)| format!("page {p}: {e}"))
            .collect();
        doc.warnings.push(format!(
            "{} of {total} pages could not be fully read ({}{})",
            failed.len(),
            shown.join("; "),
            if failed.len() > 5 { "; ..." } else { "" }
        ));
    }
    Ok(doc)
}

/// Why pages have no text: OCR is off, could not run (its reason), or
/// found nothing on them.
fn why_no_text(ex: &Extracted, ctx: &ChunkContext) -> String {
    let never = ctx
        .pdf
        .engine
        .as_ref()
        .is_ok_and(|o| o.ocr == crate::config::OcrMode::Never);
    if never {
        return "scanned? OCR is off: ingestion.enable_ocr is never".into();
    }
    match ex.pages.iter().find_map(|p| p.ocr_error.as_deref()) {
        Some(e) => format!("scanned? OCR could not run: {e}"),
        None => "OCR found no text on them either".into(),
    }
}

fn list_pages(pages: &[u32]) -> String {
    let mut s: Vec<String> = pages.iter().take(20).map(u32::to_string).collect();
    if pages.len() > 20 {
        s.push("...".into());
    }
    s.join(", ")
}

/// The indexed text: each block on its own line, blank lines between
/// blocks, a form-feed line between pages (so the page of a line is one
/// plus the form feeds above it). Headings point at their line.
fn content_and_headings(blocks: &[Block], pages: usize) -> (String, Vec<Heading>) {
    let mut out = String::new();
    let mut headings = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Bookmarks' titles no printed line carries, waiting for their text.
    let mut unprinted: Vec<(u8, String)> = Vec::new();
    for page in 1..=pages as u32 {
        if page > 1 {
            out.push('\n');
            out.push_str(PAGE_SEPARATOR);
            out.push('\n');
            line += 2;
        }
        let mut first = true;
        while i < blocks.len() && blocks[i].page == page {
            let b = &blocks[i];
            if b.unprinted {
                // Its section opens at the next printed line.
                unprinted.extend(b.level.map(|level| (level, b.text.clone())));
                i += 1;
                continue;
            }
            if !first {
                out.push_str("\n\n");
                line += 2;
            }
            first = false;
            let opened = unprinted
                .drain(..)
                .map(|(level, text)| Heading { level, text, line });
            headings.extend(opened);
            if let Some(level) = b.level {
                headings.push(Heading {
                    level,
                    text: b.text.clone(),
                    line,
                });
            }
            out.push_str(&b.text);
            // A table block holds one line per row.
            line += b.text.matches('\n').count();
            i += 1;
        }
    }
    let opened = unprinted
        .drain(..)
        .map(|(level, text)| Heading { level, text, line });
    headings.extend(opened);
    (out, headings)
}

/// Finds the page of a line of a PDF's indexed text.
pub struct PageIndex {
    /// 1-based lines holding a page separator, in order.
    separators: Vec<usize>,
}

impl PageIndex {
    pub fn new(content: &str) -> PageIndex {
        PageIndex {
            separators: content
                .lines()
                .enumerate()
                .filter(|(_, l)| *l == PAGE_SEPARATOR)
                .map(|(i, _)| i + 1)
                .collect(),
        }
    }

    /// The 1-based page of a 1-based line.
    pub fn page(&self, line: usize) -> u32 {
        1 + self.separators.partition_point(|&s| s < line) as u32
    }
}

#[cfg(test)]
mod tests;
