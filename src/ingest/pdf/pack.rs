//! Chunks from a PDF's blocks: paragraphs packed up to the size limit
//! within a section and a page (`hierarchy`), or each page cut into token
//! windows (`fixed`). A table is a paragraph of rows: kept whole when it
//! fits, else cut between rows with its caption and header row repeated
//! at the top of each piece.

use super::block::Block;
use super::hyphens::Hyphenation;
use super::tables::CELL_SEPARATOR;
use super::text_shape;
use super::tuning::TUNING;
use crate::embed::TokenCounter;
use crate::ingest::split::{split_text, Piece};
use crate::ingest::{Chunk, ChunkContext};

/// Whether `b` continues the paragraph `prev` ends, cut by a page break:
/// `b` opens the next page, both are body text read alike (OCR or drawn),
/// and `prev` does not end a sentence. Each piece cites its own page.
fn runs_on(prev: &Block, b: &Block) -> bool {
    let prose = |x: &Block| x.level.is_none() && !x.table && !x.code && x.ocr == prev.ocr;
    prev.page + 1 == b.page && prose(prev) && prose(b) && !text_shape::ends_sentence(&prev.text)
}

/// A chunk being filled.
#[derive(Default)]
struct Pending {
    parts: Vec<String>,
    tokens: usize,
    body_tokens: usize,
    page: u32,
    page_end: u32,
    /// Body tokens per section label, in the order their text came: the
    /// chunk is cited in the section its text starts in.
    labels: Vec<(Option<String>, usize)>,
    /// The first heading after text began (its part's index and its text):
    /// the section the chunk runs into.
    runs_into: Option<(usize, String)>,
    /// The headings last pushed, no text after them yet: parts and tokens.
    open_headings: (usize, usize),
    /// Some of the text was recognised by OCR.
    ocr: bool,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The label of the section the chunk's text starts in.
    fn label(&self) -> Option<String> {
        self.labels.first().and_then(|(label, _)| label.clone())
    }

    /// Adds a block of `n` tokens; a piece continuing the last part over
    /// a page break (`joins`) is joined to it, one paragraph as written.
    fn push(&mut self, b: &Block, n: usize, joins: bool, hyphens: &Hyphenation) {
        match self.parts.last_mut() {
            Some(last) if joins => text_shape::append_line(last, &b.text, hyphens),
            _ => self.parts.push(b.text.clone()),
        }
        self.tokens += n;
        self.page_end = self.page_end.max(b.page);
        self.ocr |= b.ocr;
    }

    /// Counts `n` body tokens under `label`.
    fn count_body(&mut self, label: Option<String>, n: usize) {
        self.body_tokens += n;
        match self.labels.iter_mut().find(|(l, _)| *l == label) {
            Some(entry) => entry.1 += n,
            None => self.labels.push((label, n)),
        }
    }
}

/// `text` with its token count.
fn counted(text: String, tokens: &TokenCounter) -> Piece {
    let tokens = tokens.count(&text);
    Piece { text, tokens }
}

fn chunk(piece: Piece, section: Option<String>, (page, page_end): (u32, u32), ocr: bool) -> Chunk {
    let mut c = Chunk::new(piece.text, piece.tokens, section);
    c.meta.page = Some(page);
    c.meta.page_end = (page_end > page).then_some(page_end);
    c.meta.ocr = ocr;
    c
}

/// Hierarchy strategy: paragraphs packed up to `max` tokens within a
/// section and a page; headings start chunks and label them with their
/// chain; oversized paragraphs are split by `split_text`. A paragraph
/// running on over a page break is packed as its pieces, one per page.
pub(super) fn hierarchy(
    blocks: &[Block],
    max: usize,
    ctx: &ChunkContext,
    hyphens: &Hyphenation,
) -> Vec<Chunk> {
    let mut packer = Packer {
        hyphens,
        max,
        overlap: ctx.overlap(max),
        tokens: ctx.tokens,
        chain: Vec::new(),
        cur: Pending::default(),
        out: Vec::new(),
    };
    for (i, b) in blocks.iter().enumerate() {
        packer.add(b, i > 0 && runs_on(&blocks[i - 1], b));
    }
    packer.flush(true);
    packer.out
}

/// The hierarchy strategy's state: the heading chain above the text, the
/// chunk being filled and the chunks done.
struct Packer<'a> {
    hyphens: &'a Hyphenation,
    max: usize,
    overlap: usize,
    tokens: &'a TokenCounter,
    chain: Vec<(u8, String)>,
    cur: Pending,
    out: Vec<Chunk>,
}

impl Packer<'_> {
    /// Packs one block; `continued` when it runs on from the block before
    /// over a page break, and may then share its chunk.
    fn add(&mut self, b: &Block, continued: bool) {
        let cur = &self.cur;
        if !continued && !cur.is_empty() && cur.page != b.page && cur.body_tokens > 0 {
            self.flush_before_headings();
        }
        let n = self.tokens.count(&b.text);
        match b.level {
            Some(level) => self.heading(b, level, n),
            None => self.body(b, n, continued),
        }
    }

    fn heading(&mut self, b: &Block, level: u8, n: usize) {
        if self.cur.body_tokens >= TUNING.section_tokens {
            self.flush(false);
        }
        while self.chain.last().is_some_and(|(l, _)| *l >= level) {
            self.chain.pop();
        }
        self.chain.push((level, b.text.clone()));
        // The part it is (or, unprinted, the one after it).
        if self.cur.body_tokens > 0 && self.cur.runs_into.is_none() {
            self.cur.runs_into = Some((self.cur.parts.len(), b.text.clone()));
        }
        if b.unprinted {
            // Names the section of the text after it; no text of its own.
            return;
        }
        if self.cur.is_empty() {
            self.cur.page = b.page;
        }
        self.cur.push(b, n, false, self.hyphens);
        self.cur.open_headings.0 += 1;
        self.cur.open_headings.1 += n;
    }

    fn body(&mut self, b: &Block, n: usize, continued: bool) {
        let names: Vec<&str> = self.chain.iter().map(|(_, t)| t.as_str()).collect();
        let label = Some(names.join(" > ")).filter(|s| !s.is_empty());
        if self.cur.body_tokens > 0 && self.cur.tokens + n > self.max {
            self.flush(false);
        }
        if self.cur.body_tokens == 0 {
            // Headings carried from an earlier page are cited at the page
            // of the text they introduce.
            self.cur.page = b.page;
        }
        if self.cur.tokens + n > self.max {
            return self.split(b, label);
        }
        self.cur.push(b, n, continued, self.hyphens);
        self.cur.count_body(label, n);
        self.cur.open_headings = (0, 0);
    }

    /// Emits the pending chunk but for the headings at its end, which open
    /// the next page's chunk (cited at their page until text comes).
    fn flush_before_headings(&mut self) {
        let (parts, tokens) = std::mem::take(&mut self.cur.open_headings);
        let headings = self.cur.parts.split_off(self.cur.parts.len() - parts);
        let kept = self.cur.parts.len();
        self.cur.runs_into.take_if(|(at, _)| *at >= kept);
        let page = self.cur.page_end;
        self.cur.tokens -= tokens;
        self.flush(false);
        (self.cur.page, self.cur.page_end) = (page, page);
        self.cur.parts = headings;
        self.cur.tokens = tokens;
        self.cur.open_headings = (parts, tokens);
    }

    /// Cuts a block too big for a chunk even alone into pieces, the
    /// pending headings in front.
    fn split(&mut self, b: &Block, label: Option<String>) {
        let cur = std::mem::take(&mut self.cur);
        let mut text = cur.parts.join("\n\n");
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let pieces = if b.table {
            split_table(&text, &b.text, self.max, self.tokens)
        } else {
            text.push_str(&b.text);
            split_text(&text, self.max, self.overlap, self.tokens)
                .into_iter()
                .map(|piece| (piece, None))
                .collect()
        };
        for (piece, context) in pieces {
            let mut c = chunk(piece, label.clone(), (b.page, b.page), b.ocr || cur.ocr);
            c.context = context;
            self.out.push(c);
        }
    }

    /// Emits the pending chunk; headings with no text after them yet are
    /// kept to open the next chunk unless `force`.
    fn flush(&mut self, force: bool) {
        if self.cur.is_empty() || (self.cur.body_tokens == 0 && !force) {
            return;
        }
        let cur = std::mem::take(&mut self.cur);
        let piece = counted(cur.parts.join("\n\n"), self.tokens);
        let pages = (cur.page, cur.page_end);
        let mut c = chunk(piece, cur.label(), pages, cur.ocr);
        c.meta.runs_into = cur.runs_into.map(|(_, heading)| heading);
        self.out.push(c);
    }
}

/// Fixed strategy: each page's text cut into windows of `max` tokens with
/// `overlap`, no sections.
pub(super) fn fixed(blocks: &[Block], max: usize, ctx: &ChunkContext) -> Vec<Chunk> {
    let overlap = ctx.overlap(max);
    let mut out = Vec::new();
    for on_page in blocks.chunk_by(|a, b| a.page == b.page) {
        let printed = on_page.iter().filter(|b| !b.unprinted);
        let texts: Vec<&str> = printed.map(|b| b.text.as_str()).collect();
        if texts.is_empty() {
            continue;
        }
        let (page, ocr) = (on_page[0].page, on_page[0].ocr);
        for piece in split_text(&texts.join("\n\n"), max, overlap, ctx.tokens) {
            out.push(chunk(piece, None, (page, page), ocr));
        }
    }
    out
}

/// A table too big for one chunk, cut between rows. The first piece is the
/// table's start as on the page (`lead`, the headings waiting for their text,
/// then the caption and header row); every later piece holds only its own
/// rows, with the caption and header row as its context (embedded and
/// keyword-indexed with it), so each says what its numbers are while its text
/// stays the page's own. A row too big alone is split like prose.
fn split_table(
    lead: &str,
    table: &str,
    max: usize,
    tokens: &TokenCounter,
) -> Vec<(Piece, Option<String>)> {
    let rows: Vec<&str> = table.lines().filter(|r| !r.trim().is_empty()).collect();
    let head = TableHead::of(lead, &rows, max, tokens);
    let mut out: Vec<(Piece, Option<String>)> = Vec::new();
    for group in group_rows(&rows[head.body_from..], head.tokens, max, tokens) {
        match group {
            Rows::Alone(row) => {
                let pieces = split_text(row, max, 0, tokens).into_iter();
                out.extend(pieces.map(|piece| (piece, head.context.clone())));
            }
            Rows::Fit(rows) => {
                // The first piece starts as the table does on the page.
                let first = out.is_empty();
                let lead = Some(head.text.as_str()).filter(|t| first && !t.is_empty());
                let text = lead.into_iter().chain(rows).collect::<Vec<_>>().join("\n");
                let ctx = if first { None } else { head.context.clone() };
                out.push((counted(text, tokens), ctx));
            }
        }
    }
    if out.is_empty() && !head.text.is_empty() {
        out.push((counted(head.text, tokens), None));
    }
    out
}

/// What a cut table's pieces start with: the first piece's text before
/// its rows, and what later pieces are embedded with.
struct TableHead {
    /// The lead, caption and header row; empty when as big as the table.
    text: String,
    tokens: usize,
    /// The caption and header row, for the later pieces.
    context: Option<String>,
    /// The first row after the head.
    body_from: usize,
}

impl TableHead {
    fn of(lead: &str, rows: &[&str], max: usize, tokens: &TokenCounter) -> TableHead {
        let header_at = rows.iter().position(|r| r.contains(CELL_SEPARATOR));
        let head_end = header_at.map_or(0, |h| h + 1);
        let header = rows[..head_end].join("\n");
        // The lead is a paragraph of its own, as on the page.
        let parts = [lead.trim(), header.as_str()]
            .into_iter()
            .filter(|s| !s.is_empty());
        let mut text = parts.collect::<Vec<_>>().join("\n\n");
        if tokens.count(&text) * 2 > max {
            // A header as big as the table: no room to repeat it.
            text.clear();
        }
        let context = (!text.is_empty()).then_some(header);
        TableHead {
            tokens: tokens.count(&text),
            body_from: if text.is_empty() { 0 } else { head_end },
            text,
            context,
        }
    }
}

/// A table's rows for one piece: those that fit beside the head, or one
/// row too big for that, split like prose.
enum Rows<'a> {
    Fit(Vec<&'a str>),
    Alone(&'a str),
}

/// A table's body rows grouped into pieces of at most `max` tokens with
/// the head's `head_tokens`.
fn group_rows<'a>(
    body: &[&'a str],
    head_tokens: usize,
    max: usize,
    tokens: &TokenCounter,
) -> Vec<Rows<'a>> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut cur_tokens = head_tokens;
    for &row in body {
        let n = tokens.count(row) + 1;
        let alone = head_tokens + n > max;
        if alone || cur_tokens + n > max {
            if !cur.is_empty() {
                out.push(Rows::Fit(std::mem::take(&mut cur)));
            }
            cur_tokens = head_tokens;
        }
        if alone {
            out.push(Rows::Alone(row));
            continue;
        }
        cur.push(row);
        cur_tokens += n;
    }
    if !cur.is_empty() {
        out.push(Rows::Fit(cur));
    }
    out
}
