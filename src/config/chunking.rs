//! How files are cut into chunks: `chunking.*`, per format, with their
//! defaults (the doc comments are `docs/configuration.md`'s).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ChunkingConfig {
    /// Embed each chunk after a short header naming its document (title, or
    /// the file name as words) and section, so a chunk deep inside a
    /// document is found by a question that names the document; the stored
    /// and quoted text stays the file's own. Applies to files indexed
    /// afterwards.
    pub context_header: bool,
    /// What every format shares.
    pub defaults: ChunkDefaults,
    /// PDFs.
    pub pdf: PdfChunking,
    /// Markdown files.
    pub markdown: MarkdownChunking,
    /// Source code.
    pub code: CodeChunking,
    /// Plain-text notes.
    pub note: NoteChunking,
    /// Web pages, Word and OpenDocument documents, slides and e-books:
    /// their extracted text cut at its headings, as Markdown is.
    pub document: DocumentChunking,
    /// CSV and TSV files and spreadsheet sheets: whole rows under their
    /// header row.
    pub table: TableChunking,
    /// JSON, YAML and TOML files: their flattened key paths by top-level
    /// key.
    pub data: DataChunking,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DocumentChunking {
    /// Sections smaller than this merge with a neighbour.
    pub min_tokens: usize,
    /// Most tokens in a chunk.
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TableChunking {
    /// Most tokens in a chunk, the repeated header row included.
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DataChunking {
    /// Most tokens in a chunk; a top-level key longer than this is split.
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ChunkDefaults {
    /// Most tokens in a chunk where a format sets none (every limit is
    /// also capped at the model's maximum sequence length, so no chunk is
    /// truncated by the model).
    pub max_tokens: usize,
    /// Tokens repeated between neighbouring windows of a split text.
    pub overlap_tokens: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PdfStrategy {
    /// Paragraphs packed within a section and a page.
    Hierarchy,
    /// Each page cut into token windows.
    Fixed,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PdfChunking {
    /// hierarchy (paragraphs within sections and pages) or fixed (token
    /// windows per page).
    pub strategy: PdfStrategy,
    /// Most tokens in a chunk.
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MarkdownStrategy {
    /// One chunk per heading section.
    Header,
    /// Token windows.
    Fixed,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MarkdownChunking {
    /// header (one chunk per section) or fixed (token windows).
    pub strategy: MarkdownStrategy,
    /// Sections smaller than this merge with a neighbour.
    pub min_tokens: usize,
    /// Most tokens in a chunk.
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CodeStrategy {
    /// One chunk per definition (tree-sitter).
    Ast,
    /// Line windows.
    Fixed,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CodeChunking {
    /// ast (one chunk per definition, with tree-sitter: Python, Bash, Go,
    /// JavaScript, TypeScript, Rust) or fixed (line windows).
    pub strategy: CodeStrategy,
    /// Methods are embedded with their class line and docstring.
    pub include_context: bool,
    /// Most tokens in a chunk.
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NoteStrategy {
    /// The whole note, split into windows only when it is too long.
    Whole,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NoteChunking {
    /// whole (the note, in windows when too long).
    pub strategy: NoteStrategy,
}

impl Default for ChunkingConfig {
    fn default() -> Self {
        ChunkingConfig {
            context_header: true,
            defaults: ChunkDefaults {
                max_tokens: 512,
                overlap_tokens: 50,
            },
            pdf: PdfChunking {
                strategy: PdfStrategy::Hierarchy,
                max_tokens: 1024,
            },
            markdown: MarkdownChunking {
                strategy: MarkdownStrategy::Header,
                min_tokens: 50,
                max_tokens: 1024,
            },
            code: CodeChunking {
                strategy: CodeStrategy::Ast,
                include_context: true,
                max_tokens: 1024,
            },
            note: NoteChunking {
                strategy: NoteStrategy::Whole,
            },
            document: DocumentChunking {
                min_tokens: 50,
                max_tokens: 1024,
            },
            table: TableChunking { max_tokens: 512 },
            data: DataChunking { max_tokens: 512 },
        }
    }
}

impl Default for ChunkDefaults {
    fn default() -> Self {
        ChunkingConfig::default().defaults
    }
}
impl Default for PdfChunking {
    fn default() -> Self {
        ChunkingConfig::default().pdf
    }
}
impl Default for MarkdownChunking {
    fn default() -> Self {
        ChunkingConfig::default().markdown
    }
}
impl Default for CodeChunking {
    fn default() -> Self {
        ChunkingConfig::default().code
    }
}
impl Default for NoteChunking {
    fn default() -> Self {
        ChunkingConfig::default().note
    }
}
impl Default for DocumentChunking {
    fn default() -> Self {
        ChunkingConfig::default().document
    }
}
impl Default for TableChunking {
    fn default() -> Self {
        ChunkingConfig::default().table
    }
}
impl Default for DataChunking {
    fn default() -> Self {
        ChunkingConfig::default().data
    }
}
