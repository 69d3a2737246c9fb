//! The block, the unit the layout hands on: a paragraph, heading, table
//! or listing of a page, with its place and level.

/// A paragraph or heading of a page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    /// 1-based page number.
    pub page: u32,
    /// The text on one line: wrapped lines joined, hyphenation undone.
    pub text: String,
    /// Heading level (1 = top) when the block is heading-like.
    pub level: Option<u8>,
    /// Font size in points.
    pub size: f32,
    /// Baseline of its first line, in points from the top of the page.
    pub top: f32,
    /// Left edge of its first line, in points from the left of the page.
    pub x: f32,
    /// A table: one row per line (cells joined by ` | `), its caption first.
    pub table: bool,
    /// A listing in a monospaced font: one line per line, indented.
    pub code: bool,
    /// The page's text was recognised by OCR.
    pub ocr: bool,
}
