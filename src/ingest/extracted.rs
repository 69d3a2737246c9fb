//! Text extracted from a structured document (a web page, an office
//! document, an e-book): blocks become lines, headings are recorded where
//! they start, table rows are their cells joined by ` | `. The result is
//! the document's indexed text (what `kb open` shows) and is chunked by
//! its sections as Markdown is (`chunking.document`).

use super::sections::{chain, chunk};
use super::{ChunkContext, IngestError, ParsedDocument};

/// What opens a slide's speaker notes in the text.
pub const NOTES_MARK: &str = "Notes: ";

/// The most text a document may extract to: a container (ZIP) of
/// compressed XML can hold far more text than its size suggests.
pub const MAX_TEXT_BYTES: usize = 64 << 20;

#[derive(Default)]
pub struct TextBuilder {
    text: String,
    /// (byte, level, text) of each heading.
    headings: Vec<(usize, u8, String)>,
    /// The words of the block being read.
    inline: String,
    /// The cells of the table row being read.
    cells: Vec<String>,
    /// The tables open by [`TextBuilder::start_table`], each with the rows
    /// begun in it: a table in a cell is read inside that cell.
    tables: Vec<usize>,
    /// Whether a row of the outermost table is being read: a line or
    /// block ending in one of its cells (a `<br>`, a paragraph) leaves a
    /// space in the cell, so the row stays one line.
    in_row: bool,
    /// Form feeds between pages (slides).
    pages: usize,
    /// Custom XML entities the text referred to, left out (never expanded).
    unexpanded: Vec<String>,
}

impl TextBuilder {
    /// Words of the current block; runs of whitespace become one space.
    pub fn push_inline(&mut self, s: &str) {
        for (i, part) in s.split(char::is_whitespace).enumerate() {
            if i > 0 && !self.inline.ends_with(' ') && !self.inline.is_empty() {
                self.inline.push(' ');
            }
            self.inline.push_str(part);
        }
    }

    /// Ends the current line (a list item, a line of a block).
    pub fn end_line(&mut self) {
        if self.in_row {
            self.push_inline(" ");
            return;
        }
        let line = self.inline.trim().to_string();
        self.inline.clear();
        if !line.is_empty() {
            self.text.push_str(&line);
            self.text.push('\n');
        }
    }

    /// Ends a list item's line; an item with nothing after its mark (an
    /// icon, an emptied menu entry) leaves no line.
    pub fn end_item(&mut self) {
        if matches!(self.inline.trim(), "-" | "*" | "•") {
            self.inline.clear();
        }
        self.end_line();
    }

    /// Ends the current block: its line, then a blank line.
    pub fn end_block(&mut self) {
        self.end_line();
        if self.in_row {
            return;
        }
        if !self.text.is_empty() && !self.text.ends_with("\n\n") {
            self.text.push('\n');
        }
    }

    /// Starts a table: a block of its own, or, inside a table's cell, the
    /// cell's words (its cells apart by spaces, its rows by ` / `), so the
    /// row around it stays one line.
    pub fn start_table(&mut self) {
        if self.tables.is_empty() {
            self.end_block();
        }
        self.tables.push(0);
    }

    /// Ends a table started by [`TextBuilder::start_table`].
    pub fn end_table(&mut self) {
        if self.tables.len() == 1 && self.in_row {
            self.end_row();
        }
        self.tables.pop();
        if self.tables.is_empty() {
            self.end_block();
        }
    }

    /// Starts a table row: what is read until its end is its cells'.
    pub fn start_row(&mut self) {
        let nested = self.tables.len() > 1;
        if !nested && !self.tables.is_empty() {
            self.end_line();
            self.in_row = true;
        }
        if let Some(rows) = self.tables.last_mut() {
            *rows += 1;
            if nested && *rows > 1 {
                self.push_inline(" / ");
            }
        }
    }

    /// Ends a table cell.
    pub fn end_cell(&mut self) {
        if self.tables.len() > 1 {
            self.push_inline(" ");
            return;
        }
        let cell = self.inline.trim().to_string();
        self.inline.clear();
        self.cells.push(cell);
    }

    /// Ends a table row: its cells on one line (a row with none is left out).
    pub fn end_row(&mut self) {
        if self.tables.len() > 1 {
            return;
        }
        self.end_cell_if_open();
        self.in_row = false;
        let cells = std::mem::take(&mut self.cells);
        if cells.iter().any(|c| !c.is_empty()) {
            self.text.push_str(&cells.join(" | "));
            self.text.push('\n');
        }
    }

    fn end_cell_if_open(&mut self) {
        if !self.inline.trim().is_empty() {
            self.end_cell();
        }
    }

    /// A heading of `level` (1 to 6): a block of its own, recorded.
    /// In a table's cell it is the cell's words.
    pub fn heading(&mut self, level: u8, text: &str) {
        if self.in_row {
            self.push_inline(&format!(" {text} "));
            return;
        }
        self.end_block();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            return;
        }
        self.headings
            .push((self.text.len(), level.clamp(1, 6), text.clone()));
        self.text.push_str(&text);
        self.text.push_str("\n\n");
    }

    /// Text whose lines are kept as they are (`<pre>`); in a table's cell,
    /// the cell's words.
    pub fn preformatted(&mut self, s: &str) {
        if self.in_row {
            self.push_inline(&format!(" {s} "));
            return;
        }
        self.end_block();
        let s = s.trim_matches('\n').trim_end();
        if !s.trim().is_empty() {
            self.text.push_str(s);
            self.text.push_str("\n\n");
        }
    }

    /// Starts a new page (a slide): what follows is cited by its number.
    pub fn new_page(&mut self) {
        self.end_block();
        if self.pages > 0 || !self.text.is_empty() {
            while self.text.ends_with('\n') {
                self.text.pop();
            }
            self.text.push('\n');
            self.text.push_str(super::pdf::PAGE_SEPARATOR);
            self.text.push_str("\n\n");
        }
        self.pages += 1;
    }

    /// Notes custom XML entities left out of the text (a walk's
    /// `unexpanded`): named in a warning, or as the reason for a document
    /// without other text.
    pub fn left_out(&mut self, entities: &[String]) {
        for e in entities {
            if self.unexpanded.len() < super::container::MAX_NAMED && !self.unexpanded.contains(e) {
                self.unexpanded.push(e.clone());
            }
        }
    }

    /// Why a document has nothing to index.
    fn no_text(&self) -> IngestError {
        match self.unexpanded.as_slice() {
            [] => IngestError::no_text("the document holds no text"),
            names => IngestError::no_text(format!(
                "its only text is in {}, which kb leaves out (custom XML entities are never \
                 expanded)",
                entity_list(names)
            )),
        }
    }

    /// Whether the text has grown past [`MAX_TEXT_BYTES`].
    pub fn too_long(&self) -> bool {
        self.text.len() + self.inline.len() > MAX_TEXT_BYTES
    }

    /// The failure for a document whose text is too long.
    pub fn too_long_error() -> IngestError {
        IngestError::failed(format!(
            "its text runs past {} MB (a decompression bomb?)",
            MAX_TEXT_BYTES >> 20
        ))
    }

    /// The text and its headings, into the document: its content,
    /// headings and chunks (by section).
    pub fn finish(
        mut self,
        doc: &mut ParsedDocument,
        ctx: &ChunkContext,
    ) -> Result<(), IngestError> {
        // Tables a malformed document leaves open end with it.
        while !self.tables.is_empty() {
            self.end_table();
        }
        self.end_block();
        let text = self.text.trim_end().to_string();
        if text.trim().is_empty() {
            return Err(self.no_text());
        }
        if !self.unexpanded.is_empty() {
            doc.warnings.push(format!(
                "{} left out of the text: kb never expands custom XML entities",
                entity_list(&self.unexpanded)
            ));
        }
        let cfg = &ctx.config.document;
        let limits = (cfg.min_tokens, cfg.max_tokens);
        // Pages (slides) are chunked one by one, so no chunk spans two: a
        // prefix of the text ending with the page keeps offsets and lines.
        let separator = format!("\n{}\n", super::pdf::PAGE_SEPARATOR);
        let mut page_ends: Vec<usize> = text.match_indices(&separator).map(|(i, _)| i).collect();
        page_ends.push(text.len());
        let mut start = 0;
        let mut headings = self.headings.into_iter().peekable();
        for end in page_ends {
            let mut starts = Vec::new();
            while let Some(h) = headings.next_if(|h| h.0 < end) {
                starts.push(h);
            }
            let first_line = 1 + text[..start].matches('\n').count();
            let page = &text[..end];
            let sections = chain(page, start, first_line, starts);
            doc.meta
                .headings
                .extend(sections.iter().filter_map(|s| s.heading.clone()));
            doc.chunks.extend(chunk(page, sections, limits, ctx));
            start = (end + separator.len()).min(text.len());
        }
        if self.pages > 0 {
            // Each chunk cites its slide or page; the separators are not
            // text to search.
            let index = super::pdf::PageIndex::new(&text);
            for c in &mut doc.chunks {
                c.meta.page = c.meta.line_start.map(|l| index.page(l as usize));
            }
            doc.meta.pages = Some(self.pages as u32);
        }
        doc.content = text;
        if doc.chunks.is_empty() {
            return Err(IngestError::no_text("the document holds no text"));
        }
        Ok(())
    }

    /// The first heading (a document without a title of its own is
    /// named by it; a presentation's, its first slide's title).
    pub fn first_heading(&self) -> Option<String> {
        self.headings.first().map(|h| h.2.clone())
    }

    /// The text so far (for a title found in it).
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// `the custom entity &a;` or `the custom entities &a; and &b;`.
fn entity_list(names: &[String]) -> String {
    let refs: Vec<String> = names.iter().map(|n| format!("&{n};")).collect();
    match refs.as_slice() {
        [one] => format!("the custom entity {one}"),
        [init @ .., last] => format!("the custom entities {} and {last}", init.join(", ")),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;

    #[test]
    fn blocks_rows_and_headings_become_lines() {
        let mut b = TextBuilder::default();
        b.heading(1, "  Guide ");
        b.push_inline("Some   words\n and");
        b.push_inline(" more.");
        b.end_block();
        b.push_inline("a");
        b.end_cell();
        b.push_inline("b");
        b.end_row();
        b.heading(2, "Next");
        b.push_inline("last");
        let c = ChunkingConfig::default();
        let mut doc = ParsedDocument::default();
        b.finish(&mut doc, &crate::ingest::test_support::ctx(&c))
            .unwrap();
        assert_eq!(
            doc.content,
            "Guide\n\nSome words and more.\n\na | b\n\nNext\n\nlast"
        );
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.level, h.line))
            .collect();
        assert_eq!(hs, [(1, 1), (2, 7)]);
    }
}
