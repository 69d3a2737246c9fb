//! Chunks from a PDF's blocks: paragraphs packed up to the size limit
//! within a section and a page (`hierarchy`), or each page cut into token
//! windows (`fixed`). A table is a paragraph of rows: kept whole when it
//! fits, else cut between rows with its caption and header row repeated
//! at the top of each piece.

use super::block::Block;
use super::tables::CELL_SEPARATOR;
use super::text_shape;
use crate::embed::TokenCounter;
use crate::ingest::split::{split_text, Piece};
use crate::ingest::{Chunk, ChunkContext};

/// A heading closes the chunk before it only when that chunk has at least
/// this many tokens of text; smaller sections share a chunk (as Markdown
/// sections under `chunking.markdown.min_tokens` do).
const MIN_SECTION_TOKENS: usize = 50;

/// A paragraph for packing: blocks whose paragraph runs on over a page
/// break are joined, remembering the page where they end.
struct Para {
    page: u32,
    page_end: u32,
    text: String,
    level: Option<u8>,
    table: bool,
    code: bool,
    ocr: bool,
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
                && !b.table
                && !prev.table
                && !b.code
                && !prev.code
                && prev.page_end + 1 == b.page
                && !text_shape::ends_sentence(&prev.text);
            if continues {
                text_shape::append_line(&mut prev.text, &b.text);
                prev.page_end = b.page;
                prev.ocr |= b.ocr;
                continue;
            }
        }
        out.push(Para {
            page: b.page,
            page_end: b.page,
            text: b.text.clone(),
            level: b.level,
            table: b.table,
            code: b.code,
            ocr: b.ocr,
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
    /// Some of the text was recognised by OCR.
    ocr: bool,
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

fn chunk(
    text: String,
    tokens: usize,
    section: Option<String>,
    (page, page_end): (u32, u32),
    ocr: bool,
) -> Chunk {
    let mut c = Chunk::new(text, tokens, section);
    c.meta.page = Some(page);
    c.meta.page_end = (page_end > page).then_some(page_end);
    c.meta.ocr = ocr;
    c
}

/// Hierarchy strategy: paragraphs packed up to `max` tokens within a
/// section and a page; headings start chunks and label them with their
/// chain; oversized paragraphs are split by `split_text`.
pub(super) fn hierarchy(blocks: &[Block], max: usize, ctx: &ChunkContext) -> Vec<Chunk> {
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
        out.push(chunk(
            text,
            n,
            cur.label(),
            (cur.page, cur.page_end),
            cur.ocr,
        ));
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
            cur.ocr |= p.ocr;
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
            let pieces = if p.table {
                split_table(&text, &p.text, max, tokens)
            } else {
                text.push_str(&p.text);
                split_text(&text, max, overlap, tokens)
                    .into_iter()
                    .map(|piece| (piece, None))
                    .collect()
            };
            for (piece, context) in pieces {
                let mut c = chunk(
                    piece.text,
                    piece.tokens,
                    label.clone(),
                    (p.page, p.page_end),
                    p.ocr || cur.ocr,
                );
                c.context = context;
                out.push(c);
            }
            cur = Pending::default();
            continue;
        }
        cur.ocr |= p.ocr;
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
pub(super) fn fixed(blocks: &[Block], max: usize, ctx: &ChunkContext) -> Vec<Chunk> {
    let overlap = ctx.overlap(max);
    let mut out = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let page = blocks[i].page;
        let ocr = blocks[i].ocr;
        let mut text = String::new();
        while i < blocks.len() && blocks[i].page == page {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&blocks[i].text);
            i += 1;
        }
        for piece in split_text(&text, max, overlap, ctx.tokens) {
            out.push(chunk(piece.text, piece.tokens, None, (page, page), ocr));
        }
    }
    out
}

/// A table too big for one chunk, cut between rows. The first piece is the
/// table's start as on the page (`lead`, the headings waiting for their
/// text, then the caption and the header row); every later piece holds
/// only its own rows, with the caption and header row as its context,
/// embedded and keyword-indexed with it, so each piece says what its
/// numbers are while its text stays the page's own. A row too big alone is
/// split like prose.
fn split_table(
    lead: &str,
    table: &str,
    max: usize,
    tokens: &TokenCounter,
) -> Vec<(Piece, Option<String>)> {
    let rows: Vec<&str> = table.lines().filter(|r| !r.trim().is_empty()).collect();
    let header_at = rows.iter().position(|r| r.contains(CELL_SEPARATOR));
    let head_end = header_at.map_or(0, |h| h + 1);
    // The lead is a paragraph of its own, as on the page.
    let mut head_text = rows[..head_end].join("\n");
    if !lead.trim().is_empty() {
        head_text = if head_text.is_empty() {
            lead.trim().to_string()
        } else {
            format!("{}\n\n{head_text}", lead.trim())
        };
    }
    if tokens.count(&head_text) * 2 > max {
        // A header as big as the table: no room to repeat it.
        head_text.clear();
    }
    // What later pieces are embedded with: the caption and header row.
    let context = (!head_text.is_empty()).then(|| rows[..head_end].join("\n"));
    let head_tokens = tokens.count(&head_text);
    let mut out: Vec<(Piece, Option<String>)> = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut cur_tokens = head_tokens;
    let emit = |cur: &mut Vec<&str>, out: &mut Vec<(Piece, Option<String>)>| {
        if cur.is_empty() {
            return;
        }
        // The first piece starts as the table does on the page.
        let first = out.is_empty();
        let mut text = if first {
            head_text.clone()
        } else {
            String::new()
        };
        for r in cur.drain(..) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(r);
        }
        let n = tokens.count(&text);
        let ctx = if first { None } else { context.clone() };
        out.push((Piece { text, tokens: n }, ctx));
    };
    let body = if head_text.is_empty() {
        &rows[..]
    } else {
        &rows[head_end..]
    };
    for row in body {
        let n = tokens.count(row) + 1;
        if head_tokens + n > max {
            emit(&mut cur, &mut out);
            cur_tokens = head_tokens;
            for piece in split_text(row, max, 0, tokens) {
                out.push((piece, context.clone()));
            }
            continue;
        }
        if cur_tokens + n > max {
            emit(&mut cur, &mut out);
            cur_tokens = head_tokens;
        }
        cur.push(row);
        cur_tokens += n;
    }
    emit(&mut cur, &mut out);
    if out.is_empty() && !head_text.is_empty() {
        let n = tokens.count(&head_text);
        out.push((
            Piece {
                text: head_text,
                tokens: n,
            },
            None,
        ));
    }
    out
}
