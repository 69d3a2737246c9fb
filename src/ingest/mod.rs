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
pub mod detect;
pub mod docx;
pub mod epub;
mod error;
pub mod extracted;
pub mod frontmatter;
pub mod html;
pub mod html_parse;
pub mod image;
pub mod markdown;
#[cfg(test)]
mod nesting_tests;
pub mod note;
pub mod ocr;
pub mod odf;
pub mod pdf;
pub mod pipeline;
pub mod pptx;
pub mod sections;
pub mod sheets;
pub mod skill;
pub mod source_path;
pub mod split;
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

use crate::document::{ChunkMeta, DocType, DocumentMeta};
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
/// places its text comes from.
fn mark_runs_into(doc: &mut ParsedDocument) {
    let headings = &doc.meta.headings;
    for c in &mut doc.chunks {
        let (Some(a), Some(b)) = (c.meta.line_start, c.meta.line_end) else {
            continue;
        };
        c.meta.runs_into = headings
            .iter()
            .find(|h| (a + 1..=b).contains(&(h.line as u64)))
            .map(|h| h.text.clone());
    }
}

/// Decodes a text file: UTF-16 with its byte-order mark (what Windows
/// editors save as "Unicode") is decoded; other binary content is refused;
/// invalid UTF-8 is replaced and reported as a warning rather than losing
/// the file.
pub fn decode_text(bytes: &[u8], warnings: &mut Vec<String>) -> Result<String, IngestError> {
    if let Some(text) = decode_utf32(bytes, warnings).or_else(|| decode_utf16(bytes, warnings)) {
        if text.contains('\0') {
            return Err(IngestError::Unsupported(
                "binary content (NUL characters) after a byte-order mark".into(),
            ));
        }
        let text = text.replace("\r\n", "\n");
        if text.trim().is_empty() {
            return Err(IngestError::Empty);
        }
        return Ok(text);
    }
    if detect::looks_binary(bytes) {
        return Err(IngestError::Unsupported(
            "binary content (NUL bytes) in a text file".into(),
        ));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => decode_legacy(bytes, warnings),
    };
    let text = text
        .strip_prefix('\u{feff}')
        .unwrap_or(&text)
        .replace("\r\n", "\n");
    if text.trim().is_empty() {
        return Err(IngestError::Empty);
    }
    Ok(text)
}

/// Whether more characters outside ASCII are valid UTF-8 than not: a
/// legacy encoding's letters are one byte each, which UTF-8 rarely accepts.
fn mostly_utf8(bytes: &[u8]) -> bool {
    let (mut valid, mut invalid) = (0usize, 0usize);
    for chunk in bytes.utf8_chunks() {
        valid += chunk.valid().chars().filter(|c| !c.is_ascii()).count();
        invalid += usize::from(!chunk.invalid().is_empty());
    }
    valid > invalid
}

/// The fewest bytes outside ASCII from which a legacy encoding is guessed.
const LEGACY_EVIDENCE: usize = 8;

/// The text of bytes that are not UTF-8 and say nothing of their charset
/// (an old CSV saved by Excel in Windows-1252, a Shift_JIS note): decoded
/// in the legacy encoding they most likely are, guessed as Firefox guesses
/// (chardetng), with a warning naming it. UTF-8 with a few bad bytes stays
/// UTF-8, the bad bytes replaced with U+FFFD.
pub fn decode_legacy(bytes: &[u8], warnings: &mut Vec<String>) -> String {
    use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
    let encoding = if bytes.starts_with(b"\xEF\xBB\xBF") || mostly_utf8(bytes) {
        // Its byte-order mark says UTF-8, or its letters are UTF-8 but for
        // a few bad bytes (a file cut mid-character, one stray byte).
        encoding_rs::UTF_8
    } else if bytes.iter().filter(|b| !b.is_ascii()).count() < LEGACY_EVIDENCE {
        // Too few to tell legacy encodings apart (`na\xefve` reads as
        // Baltic): the commonest, as browsers assume for Western pages.
        encoding_rs::WINDOWS_1252
    } else {
        let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
        detector.feed(bytes, true);
        detector.guess(None, Utf8Detection::Allow)
    };
    let (text, bad) = encoding.decode_without_bom_handling(bytes);
    warnings.push(if encoding == encoding_rs::UTF_8 {
        let at = std::str::from_utf8(bytes)
            .err()
            .map_or(0, |e| e.valid_up_to());
        format!("invalid UTF-8 at byte {at}; undecodable bytes were replaced with U+FFFD")
    } else {
        format!(
            "not UTF-8: read as {} (the likeliest encoding){}",
            encoding.name(),
            if bad {
                ", bytes invalid in it replaced with U+FFFD"
            } else {
                ""
            }
        )
    });
    text.into_owned()
}

/// The text of a file that starts with a UTF-32 byte-order mark (little or
/// big endian), without the mark; `None` for any other file. Its mark
/// begins with UTF-16's, so it is looked for first. A value that is no
/// character, or a short last unit, becomes U+FFFD, with a warning.
fn decode_utf32(bytes: &[u8], warnings: &mut Vec<String>) -> Option<String> {
    let (body, little) = match bytes {
        [0xFF, 0xFE, 0, 0, rest @ ..] => (rest, true),
        [0, 0, 0xFE, 0xFF, rest @ ..] => (rest, false),
        _ => return None,
    };
    let mut bad = usize::from(body.len() % 4 != 0);
    let mut text: String = body
        .chunks_exact(4)
        .map(|p| {
            let unit = [p[0], p[1], p[2], p[3]];
            let value = if little {
                u32::from_le_bytes(unit)
            } else {
                u32::from_be_bytes(unit)
            };
            char::from_u32(value).unwrap_or_else(|| {
                bad += 1;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    if body.len() % 4 != 0 {
        text.push(char::REPLACEMENT_CHARACTER);
    }
    if bad > 0 {
        warnings.push(format!(
            "invalid UTF-32 ({bad} undecodable units); they were replaced with U+FFFD"
        ));
    }
    Some(text)
}

/// The text of a file that starts with a UTF-16 byte-order mark (little or
/// big endian), without the mark; `None` for any other file. A lone
/// surrogate or an odd last byte becomes U+FFFD, with a warning.
fn decode_utf16(bytes: &[u8], warnings: &mut Vec<String>) -> Option<String> {
    let (body, little) = match bytes {
        [0xFF, 0xFE, rest @ ..] => (rest, true),
        [0xFE, 0xFF, rest @ ..] => (rest, false),
        _ => return None,
    };
    let units = body.chunks_exact(2).map(|p| {
        if little {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    let mut bad = body.len() % 2;
    let mut text: String = char::decode_utf16(units)
        .map(|c| {
            c.unwrap_or_else(|_| {
                bad += 1;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    if body.len() % 2 == 1 {
        text.push(char::REPLACEMENT_CHARACTER);
    }
    if bad > 0 {
        warnings.push(format!(
            "invalid UTF-16 ({bad} undecodable units); they were replaced with U+FFFD"
        ));
    }
    Some(text)
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

    #[test]
    fn decoding_tells_empty_from_binary() {
        let mut warnings = Vec::new();
        assert_eq!(
            decode_text(b" \n\t\n", &mut warnings),
            Err(IngestError::Empty)
        );
        assert!(matches!(
            decode_text(b"\x89PNG\r\n\x1a\n\x00\x00", &mut warnings),
            Err(IngestError::Unsupported(m)) if m.contains("binary")
        ));
        assert_eq!(
            decode_text(b"\xef\xbb\xbfcaf\xe9\r\n", &mut warnings).unwrap(),
            "caf\u{fffd}\n"
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        // Without a mark, bytes that are not UTF-8 are read in the legacy
        // encoding they most likely are.
        for (bytes, text, encoding) in [
            (
                &b"Caf\xe9 cr\xe8me br\xfbl\xe9e, ni\xf1o and jalape\xf1o \x96 the recipe notes\n"
                    [..],
                "Café crème brûlée, niño and jalapeño – the recipe notes\n",
                "windows-1252",
            ),
            (
                &b"\x93\xfa\x96{\x8c\xea\x82\xcc\x83e\x83L\x83X\x83g\x82\xc5\x82\xb7\x81B\n"[..],
                "日本語のテキストです。\n",
                "Shift_JIS",
            ),
        ] {
            let mut warnings = Vec::new();
            assert_eq!(decode_text(bytes, &mut warnings).unwrap(), text);
            assert!(warnings[0].contains(encoding), "{warnings:?}");
        }
        // UTF-8 with a stray byte or cut mid-character stays UTF-8.
        for bytes in [
            &b"R\xc3\xa9union du comit\xc3\xa9 \xe9 fin"[..],
            &"日本語のテキストです".as_bytes()[..29],
        ] {
            let mut warnings = Vec::new();
            let text = decode_text(bytes, &mut warnings).unwrap();
            assert!(text.contains('\u{fffd}'), "{text}");
            assert!(
                text.starts_with("Réunion") || text.starts_with("日本語"),
                "{text}"
            );
            assert!(warnings[0].contains("invalid UTF-8"), "{warnings:?}");
        }
        // UTF-16 with its byte-order mark, both byte orders.
        let text = "Café notes\r\n日本語 ok\r\n";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [le, be] {
            assert_eq!(
                decode_text(&bytes, &mut warnings).unwrap(),
                "Café notes\n日本語 ok\n"
            );
        }
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(
            decode_text(&[0xFF, 0xFE, 0x20, 0x00], &mut warnings),
            Err(IngestError::Empty)
        );
        assert_eq!(
            IngestError::Empty.to_string(),
            "empty file: nothing to index"
        );
    }
}
