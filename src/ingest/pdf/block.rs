//! The block, the unit the layout hands on: a paragraph, heading, table or
//! listing of a page, with its place, what the walk made of it and its level.

/// A paragraph or heading of a page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    /// 1-based page number.
    pub page: u32,
    /// The text on one line: wrapped lines joined, hyphenation undone.
    pub text: String,
    /// Heading level (1 = top) when the block is heading-like: given by
    /// the levels stage from the walk's roles (`layout/levels.rs`).
    pub level: Option<u8>,
    /// What the walk (or a take-back since) made of it: read by the levels.
    pub role: Role,
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
    /// Set in italics, where italics tell something (`Document::italic`).
    pub italic: bool,
    /// Set in bold, where bold tells something (not the body's weight).
    pub bold: bool,
    /// Every line set in code (`Document::code`): a heading that names code.
    pub mono: bool,
    /// The page's text was recognised by OCR.
    pub ocr: bool,
    /// A bookmark's title no printed line carries: it opens its section
    /// where the bookmark points, but is not the page's text.
    pub unprinted: bool,
}

/// What the walk made of a block: a paragraph, a heading with what its
/// level is read from, or apart (a table, a listing, a statement's units
/// under its title), which the levels pass by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Role {
    #[default]
    Text,
    Heading(Cue),
    Apart,
}

/// What a heading's level is read from: an index's letter (under the
/// heading above the letters), larger type (ranked by size), its number
/// in the body's type ("2.3": depth 2), else the body's type (under a
/// statement or a filing's item, else by emphasis), a statement's title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    Letter,
    Larger,
    Numbered(u8),
    Body,
    Statement,
}

impl Block {
    /// The walk made it a heading.
    pub fn heading(&self) -> bool {
        matches!(self.role, Role::Heading(_))
    }

    /// A block of this one's page, type and place.
    pub fn with(&self, text: String, role: Role) -> Block {
        Block {
            text,
            role,
            ..self.clone()
        }
    }
}
