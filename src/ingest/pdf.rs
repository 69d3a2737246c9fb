//! PDF documents: text extracted page by page (`extract`, isolated in a
//! child process), paragraphs and heading-like lines recovered from the
//! layout (`layout`), then chunks packed from paragraphs. A chunk never
//! crosses a page unless a paragraph does, so every chunk cites its page.

mod extract;
mod layout;
#[doc(hidden)]
pub mod testpdf;

use std::path::Path;

use serde_json::Value;

use super::split::split_text;
use super::{file_title, Chunk, ChunkContext, Heading, IngestError, ParsedDocument};
use crate::config::PdfStrategy;

pub use extract::{
    child_main, extract_bytes, extract_in_child_processes, Extracted, Line, Page, CHILD_COMMAND,
    MEMORY_LIMIT_BYTES,
};
pub use layout::Block;

/// The line `content` holds between two pages: a form feed.
pub const PAGE_SEPARATOR: &str = "\u{c}";

/// A heading closes the chunk before it only when that chunk has at least
/// this many tokens of text; smaller sections share a chunk (as Markdown
/// sections under `chunking.markdown.min_tokens` do).
const MIN_SECTION_TOKENS: usize = 50;

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let extracted = extract::extract(path, bytes, ctx.pdf_timeout).map_err(IngestError::Failed)?;
    build(path, &extracted, ctx)
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
        .filter(|(_, p)| p.without_text())
        .map(|(i, _)| i as u32 + 1)
        .collect();
    let failed: Vec<(usize, &str)> = ex
        .pages
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.error.as_deref().map(|e| (i + 1, e)))
        .collect();
    if without_text.len() == total {
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
            "no extractable text on {pages} (scanned PDF? OCR is not supported)"
        )));
    }

    let mut doc = ParsedDocument::default();
    let blocks = layout::blocks(&ex.pages);
    let (content, headings) = content_and_headings(&blocks, total);
    doc.content = content;
    doc.headings = headings;
    doc.title = choose_title(ex.title.as_deref(), &blocks).unwrap_or_else(|| file_title(path));

    let max = ctx.cap(ctx.config.pdf.max_tokens);
    doc.chunks = match ctx.config.pdf.strategy {
        PdfStrategy::Hierarchy => pack(&blocks, max, ctx),
        PdfStrategy::Fixed => fixed(&blocks, max, ctx),
    };
    if doc.chunks.is_empty() {
        return Err(IngestError::Failed(format!(
            "no text to index in {total} pages (only page numbers or running headers)"
        )));
    }

    doc.metadata.insert("pages".into(), Value::from(total));
    doc.metadata
        .insert("pages_without_text".into(), Value::from(without_text.len()));
    if !without_text.is_empty() {
        doc.metadata.insert(
            "pages_without_text_list".into(),
            Value::from(without_text.clone()),
        );
        doc.warnings.push(format!(
            "{} of {total} pages have no extractable text (pages {}); OCR is not supported",
            without_text.len(),
            list_pages(&without_text)
        ));
    }
    if ex.encrypted {
        doc.metadata.insert("encrypted".into(), Value::Bool(true));
    }
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
    for page in 1..=pages as u32 {
        if page > 1 {
            out.push('\n');
            out.push_str(PAGE_SEPARATOR);
            out.push('\n');
            line += 2;
        }
        let mut first = true;
        while i < blocks.len() && blocks[i].page == page {
            if !first {
                out.push_str("\n\n");
                line += 2;
            }
            first = false;
            let b = &blocks[i];
            if let Some(level) = b.level {
                headings.push(Heading {
                    level,
                    text: b.text.clone(),
                    line,
                });
            }
            out.push_str(&b.text);
            i += 1;
        }
    }
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

/// The Info title unless it is empty or a file name; else the largest
/// heading of the first page with text; else the first heading.
fn choose_title(info: Option<&str>, blocks: &[Block]) -> Option<String> {
    if let Some(t) = info {
        let t = t.trim();
        let t = t.strip_prefix("Microsoft Word - ").unwrap_or(t).trim();
        let lower = t.to_lowercase();
        let file_like = [
            ".doc", ".docx", ".tex", ".dvi", ".pdf", ".indd", ".odt", ".rtf",
        ]
        .iter()
        .any(|ext| lower.ends_with(ext));
        let placeholder = matches!(lower.as_str(), "untitled" | "title" | "no title" | "");
        if !file_like && !placeholder && t.chars().any(char::is_alphabetic) {
            return Some(t.to_string());
        }
    }
    let first_page = blocks.first()?.page;
    blocks
        .iter()
        .filter(|b| b.page == first_page && b.level.is_some())
        .max_by(|a, b| a.size.total_cmp(&b.size).then(std::cmp::Ordering::Greater))
        .or_else(|| blocks.iter().find(|b| b.level.is_some()))
        .map(|b| b.text.clone())
}

/// A paragraph for packing: blocks whose paragraph runs on over a page
/// break are joined, remembering the page where they end.
struct Para {
    page: u32,
    page_end: u32,
    text: String,
    level: Option<u8>,
}

/// Joins a paragraph cut by a page break: the last block of a page does
/// not end a sentence and the next page's first block is body text.
fn paragraphs(blocks: &[Block]) -> Vec<Para> {
    let mut out: Vec<Para> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let first_on_page = i == 0 || blocks[i - 1].page != b.page;
        if let Some(prev) = out.last_mut() {
            let continues = first_on_page
                && b.level.is_none()
                && prev.level.is_none()
                && prev.page_end + 1 == b.page
                && !layout::ends_sentence(&prev.text);
            if continues {
                layout::append_line(&mut prev.text, &b.text);
                prev.page_end = b.page;
                continue;
            }
        }
        out.push(Para {
            page: b.page,
            page_end: b.page,
            text: b.text.clone(),
            level: b.level,
        });
    }
    out
}

/// A chunk being filled.
#[derive(Default)]
struct Pending {
    parts: Vec<String>,
    tokens: usize,
    body_tokens: usize,
    page: u32,
    page_end: u32,
    /// Body tokens per section label, to label the chunk by its largest.
    labels: Vec<(Option<String>, usize)>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    fn label(&self) -> Option<String> {
        let mut best: Option<&(Option<String>, usize)> = None;
        for l in &self.labels {
            if best.is_none_or(|b| l.1 > b.1) {
                best = Some(l);
            }
        }
        best.and_then(|b| b.0.clone())
    }
}

fn chunk(text: String, tokens: usize, section: Option<String>, page: u32, page_end: u32) -> Chunk {
    let mut c = Chunk::new(text, tokens, section);
    c.page = Some(page);
    if page_end > page {
        c.extra.insert("page_end".into(), Value::from(page_end));
    }
    c
}

/// Hierarchy strategy: paragraphs packed up to `max` tokens within a
/// section and a page; headings start chunks and label them with their
/// chain; oversized paragraphs are split by `split_text`.
fn pack(blocks: &[Block], max: usize, ctx: &ChunkContext) -> Vec<Chunk> {
    let overlap = ctx.overlap(max);
    let tokens = ctx.tokens;
    let mut out = Vec::new();
    let mut chain: Vec<(u8, String)> = Vec::new();
    let mut cur = Pending::default();

    // Emits the pending chunk; headings with no text after them yet are
    // kept to open the next chunk.
    let flush = |cur: &mut Pending, out: &mut Vec<Chunk>, force: bool| {
        if cur.is_empty() || (cur.body_tokens == 0 && !force) {
            return;
        }
        let text = cur.parts.join("\n\n");
        let n = tokens.count(&text);
        out.push(chunk(text, n, cur.label(), cur.page, cur.page_end));
        *cur = Pending::default();
    };

    for p in paragraphs(blocks) {
        if !cur.is_empty() && cur.page != p.page && cur.body_tokens > 0 {
            flush(&mut cur, &mut out, false);
        }
        let n = tokens.count(&p.text);
        if let Some(level) = p.level {
            if cur.body_tokens >= MIN_SECTION_TOKENS {
                flush(&mut cur, &mut out, false);
            }
            while chain.last().is_some_and(|(l, _)| *l >= level) {
                chain.pop();
            }
            chain.push((level, p.text.clone()));
            if cur.is_empty() {
                cur.page = p.page;
            }
            cur.page_end = cur.page_end.max(p.page_end);
            cur.parts.push(p.text);
            cur.tokens += n;
            continue;
        }
        let label = Some(
            chain
                .iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join(" > "),
        )
        .filter(|s| !s.is_empty());
        if cur.body_tokens > 0 && cur.tokens + n > max {
            flush(&mut cur, &mut out, false);
        }
        if cur.body_tokens == 0 {
            // Headings carried from an earlier page are cited at the page
            // of the text they introduce.
            cur.page = p.page;
        }
        if cur.tokens + n > max {
            // Too big even alone: split it, pending headings in front.
            let mut text = cur.parts.join("\n\n");
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&p.text);
            for piece in split_text(&text, max, overlap, tokens) {
                out.push(chunk(
                    piece.text,
                    piece.tokens,
                    label.clone(),
                    p.page,
                    p.page_end,
                ));
            }
            cur = Pending::default();
            continue;
        }
        cur.parts.push(p.text);
        cur.tokens += n;
        cur.body_tokens += n;
        cur.page_end = cur.page_end.max(p.page_end);
        match cur.labels.iter_mut().find(|(l, _)| *l == label) {
            Some(entry) => entry.1 += n,
            None => cur.labels.push((label, n)),
        }
        if p.page_end > p.page {
            // The paragraph ran onto the next page: end the chunk with it
            // so what follows is cited at its own page.
            flush(&mut cur, &mut out, false);
        }
    }
    flush(&mut cur, &mut out, true);
    out
}

/// Fixed strategy: each page's text cut into windows of `max` tokens with
/// `overlap`, no sections.
fn fixed(blocks: &[Block], max: usize, ctx: &ChunkContext) -> Vec<Chunk> {
    let overlap = ctx.overlap(max);
    let mut out = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let page = blocks[i].page;
        let mut text = String::new();
        while i < blocks.len() && blocks[i].page == page {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&blocks[i].text);
            i += 1;
        }
        for piece in split_text(&text, max, overlap, ctx.tokens) {
            out.push(chunk(piece.text, piece.tokens, None, page, page));
        }
    }
    out
}

#[cfg(test)]
mod tests;
