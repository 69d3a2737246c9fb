//! The version of kb's reader of each kind of file, recorded with every
//! document it reads.
//!
//! A kind's number goes up when its reader reads the same file into other
//! text, sections or pages (a PDF's columns, a table of contents, hidden
//! text left out): a document read by an older number is read again at the
//! next `kb add` or `kb update` that reaches its file, as if the file had
//! changed, so what a newer kb reads better reaches the files indexed
//! before. Its chunks that read as before keep their vectors, so the cost
//! is mostly the reading. A change that leaves every document as it was
//! (speed, names) keeps the number. The PDF reader's structure golden files
//! are pinned to its number (`pdf::golden`), so a change that moves them
//! cannot forget it.

use crate::document::DocType;

/// The PDF reader (text, reading order, tables, structure, pages).
pub const PDF: u32 = 38;
/// Word, OpenDocument text and RTF documents.
pub const DOC: u32 = 2;
/// Presentations (PowerPoint, OpenDocument).
pub const SLIDES: u32 = 1;
/// Spreadsheets and their sheets' tables.
pub const SPREADSHEET: u32 = 1;
/// Web pages.
pub const HTML: u32 = 1;
/// E-books.
pub const EPUB: u32 = 1;
/// Images (OCR).
pub const IMAGE: u32 = 1;
/// Markdown.
pub const MARKDOWN: u32 = 1;
/// Notes (plain text).
pub const NOTE: u32 = 1;
/// Source code (tree-sitter symbols).
pub const CODE: u32 = 1;
/// Data files (JSON, YAML, TOML, CSV).
pub const DATA: u32 = 1;

/// Whether a document of `doc_type` read by reader `version` was read by
/// an older reader than this kb's: the next add or update reads it again.
pub fn read_by_older(doc_type: DocType, version: u32) -> bool {
    version < self::version(doc_type)
}

/// The version of this kb's reader of `doc_type`.
pub fn version(doc_type: DocType) -> u32 {
    match doc_type {
        DocType::Pdf => PDF,
        DocType::Doc => DOC,
        DocType::Slides => SLIDES,
        DocType::Spreadsheet => SPREADSHEET,
        DocType::Html => HTML,
        DocType::Epub => EPUB,
        DocType::Image => IMAGE,
        DocType::Markdown => MARKDOWN,
        DocType::Note => NOTE,
        DocType::Code => CODE,
        DocType::Data => DATA,
    }
}
