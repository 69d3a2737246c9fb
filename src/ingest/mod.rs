//! Turning a file into a document and its chunks.
//!
//! `detect` decides a file's type; each format module (`markdown`, `note`,
//! `pdf`, `code`, `data`, `table`, `html`, `docx`, `odf`, `pptx`, `epub`, `image`, `sheets`) exposes the same `parse(path, bytes, ctx)` that
//! returns a [`ParsedDocument`]; `split` holds the size-bounded splitting
//! of extracted text (PDF), `verbatim` that of a file's own lines
//! (Markdown, notes); `change` tells whether a file changed since it was indexed;
//! `pipeline` walks folders and writes documents to the database.

pub mod change;
pub mod chunk_chars;
pub mod code;
pub mod container;
pub mod context;
pub mod data;
pub mod decode;
pub mod detect;
pub mod docx;
pub mod epub;
mod error;
pub use decode::{decode_legacy, decode_text};
pub mod extracted;
pub mod frontmatter;
pub mod html;
pub mod html_parse;
pub mod image;
mod list_numbers;
pub mod markdown;
#[cfg(test)]
mod nesting_tests;
pub mod note;
pub mod ocr;
pub mod odf;
pub mod pdf;
pub mod pipeline;
pub mod pptx;
pub mod readers;
pub mod sections;
pub mod sheets;
pub mod skill;
pub mod source_path;
pub mod split;
mod symbol_font;
pub mod table;
#[cfg(any(test, feature = "e2e"))]
#[doc(hidden)]
pub mod testdocs;
pub mod verbatim;
pub mod xlsx_format;
pub mod yaml;

use std::path::Path;

use crate::config::{ChunkingConfig, Config};
use crate::embed::TokenCounter;

use crate::document::{ChunkMeta, DocType, DocumentMeta, Heading};
pub use error::IngestError;

/// One piece of a document, sized for the embedding model.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    pub text: String,
    pub token_count: usize,
    /// Its place in the document (section, page, lines, symbol).
    pub meta: ChunkMeta,
    /// Lines embedded before the text but not part of it: for code, the
    /// enclosing class line and docstring, and a split definition's
    /// signature.
    pub context: Option<String>,
}

impl Chunk {
    pub fn new(text: String, token_count: usize, section: Option<String>) -> Chunk {
        Chunk {
            text,
            token_count,
            meta: ChunkMeta::in_section(section),
            context: None,
        }
    }
}

/// What a format module makes of a file.
#[derive(Debug, Clone, Default)]
pub struct ParsedDocument {
    pub title: String,
    pub doc_type: Option<DocType>,
    pub language: Option<String>,
    /// Facts about the document as a whole (headings, pages, frontmatter).
    pub meta: DocumentMeta,
    /// Tags the file declares itself (Markdown frontmatter).
    pub tags: Vec<String>,
    pub chunks: Vec<Chunk>,
    /// The full text as indexed (decoded file text, or extracted PDF text).
    pub content: String,
    /// Problems worth logging that did not stop the file from indexing.
    pub warnings: Vec<String>,
}

/// What every chunker needs: the settings, the token counter and the
/// model's limit.
pub struct ChunkContext<'a> {
    pub config: &'a ChunkingConfig,
    pub tokens: &'a TokenCounter,
    /// The most tokens a chunk may have so the model does not truncate it.
    pub model_max_tokens: Option<usize>,
    /// How PDFs are read: the engine, OCR, and the stall timeout.
    pub pdf: pdf::PdfSettings,
}

/// The most tokens a chunk holds with this model, whatever the configured
/// maximum: the model's limit, less room for the context header when
/// chunks are embedded with one.
pub fn chunk_token_limit(config: &Config, model_max_tokens: usize) -> usize {
    let reserve = if config.chunking.context_header {
        crate::text::header::HEADER_RESERVE
    } else {
        0
    };
    model_max_tokens.saturating_sub(reserve).max(8)
}

impl<'a> ChunkContext<'a> {
    /// The context of a run: the configured chunking and PDF limits, and
    /// the embedding model's token counter and limit.
    /// With context headers on, chunks leave `HEADER_RESERVE` tokens for the
    /// header under the model's limit.
    pub fn for_run(config: &'a Config, tokens: &'a TokenCounter, model_max_tokens: usize) -> Self {
        ChunkContext {
            config: &config.chunking,
            tokens,
            model_max_tokens: Some(chunk_token_limit(config, model_max_tokens)),
            pdf: pdf::PdfSettings::from_config(config),
        }
    }

    /// A configured maximum, capped by the model's limit.
    pub fn cap(&self, configured: usize) -> usize {
        match self.model_max_tokens {
            Some(m) => configured.min(m),
            None => configured,
        }
    }

    pub fn overlap(&self, max: usize) -> usize {
        self.config.defaults.overlap_tokens.min(max / 2)
    }
}

/// Parses a file of a known type.
pub fn parse(
    doc_type: DocType,
    path: &Path,
    bytes: &[u8],
    ctx: &ChunkContext,
) -> Result<ParsedDocument, IngestError> {
    let mut doc = match doc_type {
        DocType::Markdown => markdown::parse(path, bytes, ctx)?,
        DocType::Note => note::parse(path, bytes, ctx)?,
        DocType::Pdf => pdf::parse(path, bytes, ctx)?,
        DocType::Code => code::parse(path, bytes, ctx)?,
        DocType::Data => data::parse(path, bytes, ctx)?,
        DocType::Html => html::parse(path, bytes, ctx)?,
        DocType::Epub => epub::parse(path, bytes, ctx)?,
        DocType::Image => image::parse(path, bytes, ctx)?,
        DocType::Doc | DocType::Slides => {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            match ext.as_deref() {
                Some("docx") => docx::parse(path, bytes, ctx)?,
                Some("pptx") => pptx::parse(path, bytes, ctx)?,
                _ => odf::parse(path, bytes, ctx)?,
            }
        }
        DocType::Spreadsheet => {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            match ext.as_deref() {
                Some("xlsx" | "ods") => sheets::parse(path, bytes, ctx)?,
                _ => table::parse(path, bytes, ctx)?,
            }
        }
    };
    doc.doc_type = Some(doc_type);
    doc.chunks = chunk_chars::cap(
        std::mem::take(&mut doc.chunks),
        chunk_chars::max_chars(ctx),
        ctx.tokens,
    );
    if !matches!(doc_type, DocType::Data | DocType::Code) {
        drop_soft_hyphens(&mut doc);
        mark_runs_into(&mut doc);
    }
    Ok(doc)
}

/// A soft hyphen (U+00AD) only marks where a word may break, unseen: left
/// in, it cut words for the keyword index (`co\u{ad}operate` was not found
/// as `cooperate`). Code and data files keep their bytes.
fn drop_soft_hyphens(doc: &mut ParsedDocument) {
    const SOFT: char = '\u{ad}';
    let strip = |s: &mut String| s.retain(|c| c != SOFT);
    if !doc.content.contains(SOFT) && !doc.title.contains(SOFT) {
        return;
    }
    strip(&mut doc.content);
    strip(&mut doc.title);
    doc.meta
        .headings
        .iter_mut()
        .for_each(|h| strip(&mut h.text));
    for c in &mut doc.chunks {
        strip(&mut c.text);
        c.context
            .iter_mut()
            .chain(c.meta.section.iter_mut())
            .for_each(strip);
    }
}

/// A chunk that starts in one section and runs into the next names the
/// first heading inside it (`runs_into`), so its citation names both
/// places its text comes from. A chunk of small sections merged under the
/// heading they share (`Guide`) names the first of them, also when it
/// opens the chunk (`## Install` on its first line).
fn mark_runs_into(doc: &mut ParsedDocument) {
    let headings = &doc.meta.headings;
    for c in &mut doc.chunks {
        let (Some(a), Some(b)) = (c.meta.line_start, c.meta.line_end) else {
            continue;
        };
        let own = |h: &Heading| {
            h.line as u64 == a
                && c.meta
                    .section
                    .as_deref()
                    .is_none_or(|s| s == h.text || s.ends_with(&format!(" > {}", h.text)))
        };
        c.meta.runs_into = headings
            .iter()
            .find(|h| (a..=b).contains(&(h.line as u64)) && !own(h))
            .map(|h| h.text.clone());
    }
}

/// A title without the footnote marks set after it (`Attention Is All You
/// Need∗`, `Annual Report²`): signs and superscripts; and, when the title
/// was read off a page (`from_page`: a PDF, where a superscript comes out
/// as a plain digit, `A Study of Loss1`), one or two digits stuck to the
/// last word of a title of three words or more when that word is in lower
/// case. A title someone typed keeps its digits (`How to use base64`).
pub fn without_footnote_marks(title: &str, from_page: bool) -> String {
    const MARKS: &[char] = &['*', '∗', '†', '‡', '§', '¶', '‖', '⁎'];
    let superscript = |c: char| matches!(c, '¹' | '²' | '³' | '⁰'..='⁹');
    let mut t = title.trim_end();
    loop {
        let cut = t.trim_end_matches(|c: char| MARKS.contains(&c) || superscript(c));
        let cut = cut.trim_end();
        if cut.len() == t.len() || cut.is_empty() {
            break;
        }
        t = cut;
    }
    let words = t.split_whitespace().count();
    let digits = t.len() - t.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if from_page && words >= 3 && (1..=2).contains(&digits) {
        let stem = &t[..t.len() - digits];
        // A mark is written against its word ("search1"); "number 1" is a number.
        let attached = !stem.ends_with(char::is_whitespace);
        let last = stem.split_whitespace().last().unwrap_or("");
        if attached && last.chars().count() >= 3 && last.chars().all(char::is_lowercase) {
            t = stem;
        }
    }
    t.to_string()
}

/// The file name, as a fallback title.
pub fn file_title(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// What the format modules' unit tests share: a context that counts
/// whitespace-separated words, and filler text.
#[cfg(test)]
pub(crate) mod test_support {
    use super::ChunkContext;
    use crate::config::ChunkingConfig;
    use crate::embed::TokenCounter;

    pub(crate) fn ctx(config: &ChunkingConfig) -> ChunkContext<'_> {
        ChunkContext {
            config,
            tokens: &TokenCounter::Whitespace,
            model_max_tokens: None,
            pdf: crate::ingest::pdf::PdfSettings::from_config(&crate::config::Config::default()),
        }
    }

    pub(crate) fn words(n: usize, w: &str) -> String {
        vec![w; n].join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footnote_marks_are_no_part_of_a_title() {
        for (given, title) in [
            ("Attention Is All You Need∗", "Attention Is All You Need"),
            ("Annual Report 2023†‡", "Annual Report 2023"),
            ("Deep learning for search1", "Deep learning for search"),
            ("Market Review²", "Market Review"),
            ("Form 10-K", "Form 10-K"),
            ("Windows 10", "Windows 10"),
            ("Python3", "Python3"),
            ("Upgrading to Version 2", "Upgrading to Version 2"),
            ("Note number 1", "Note number 1"),
            ("Meeting notes week 12", "Meeting notes week 12"),
            ("C++", "C++"),
        ] {
            assert_eq!(without_footnote_marks(given, true), title, "{given}");
        }
        for (given, title) in [
            ("How to use base64", "How to use base64"),
            ("Upgrading to python3", "Upgrading to python3"),
            ("Market Review²", "Market Review"),
        ] {
            assert_eq!(without_footnote_marks(given, false), title, "{given}");
        }
    }

    #[test]
    fn a_chunk_of_merged_sections_names_the_first_even_on_its_first_line() {
        let c = crate::config::ChunkingConfig::default();
        let ctx = test_support::ctx(&c);
        let intro = test_support::words(200, "intro");
        let install = test_support::words(60, "install");
        let text = format!(
            "# Guide\n\n{intro}\n\n## Install\n\n{install}\n\n## Verify\n\nRun verify.\n\n## Cleanup\n\nDelete the files.\n"
        );
        let doc = parse(DocType::Markdown, Path::new("g.md"), text.as_bytes(), &ctx).unwrap();
        let merged = doc
            .chunks
            .iter()
            .find(|k| k.text.starts_with("## Install"))
            .unwrap();
        assert_eq!(merged.meta.section.as_deref(), Some("Guide"));
        assert_eq!(merged.meta.runs_into.as_deref(), Some("Install"));
        // A chunk opening with its own section's heading runs into none.
        let first = &doc.chunks[0];
        assert!(first.text.starts_with("# Guide"), "{:?}", first.text);
        assert_eq!(first.meta.runs_into, None);
    }

    #[test]
    fn soft_hyphens_leave_the_words_they_could_break() {
        let c = crate::config::ChunkingConfig::default();
        let ctx = test_support::ctx(&c);
        let text = "# Co\u{ad}operation\n\nWe co\u{ad}operate in Donau\u{ad}dampf\u{ad}schiff\u{ad}fahrt.\n";
        let doc = parse(DocType::Markdown, Path::new("n.md"), text.as_bytes(), &ctx).unwrap();
        assert!(
            doc.content
                .contains("We cooperate in Donaudampfschifffahrt."),
            "{}",
            doc.content
        );
        assert_eq!(doc.meta.headings[0].text, "Cooperation");
        assert!(doc.chunks.iter().all(|k| !k.text.contains('\u{ad}')));
        assert_eq!(doc.chunks[0].meta.section.as_deref(), Some("Cooperation"));
    }

    #[test]
    fn utf32_is_read_and_nul_characters_are_binary() {
        let mut warnings = Vec::new();
        let mut le = vec![0xFF, 0xFE, 0, 0];
        let mut be = vec![0, 0, 0xFE, 0xFF];
        for c in "Grüße 知识".chars() {
            le.extend((c as u32).to_le_bytes());
            be.extend((c as u32).to_be_bytes());
        }
        assert_eq!(decode_text(&le, &mut warnings).unwrap(), "Grüße 知识");
        assert_eq!(decode_text(&be, &mut warnings).unwrap(), "Grüße 知识");
        assert!(warnings.is_empty(), "{warnings:?}");
        // UTF-16 whose units hold NULs is binary, as NUL bytes are in UTF-8.
        let utf16_nul = [0xFF, 0xFE, b'a', 0, 0, 0, b'b', 0];
        assert!(matches!(
            decode_text(&utf16_nul, &mut warnings),
            Err(IngestError::Unsupported(_))
        ));
    }
}
