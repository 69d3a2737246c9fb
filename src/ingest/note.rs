//! Plain-text notes: the whole note is one chunk unless it is longer than
//! `chunking.defaults.max_tokens`, then it splits at lines, preferring
//! blank lines (each chunk a verbatim slice of the note).

use std::path::Path;

use super::verbatim::split_lines;
use super::{decode_text, file_title, Chunk, ChunkContext, IngestError, ParsedDocument};

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let text = decode_text(bytes, &mut doc.warnings)?;
    doc.content = text.clone();
    doc.title = file_title(path);
    let max = ctx.cap(ctx.config.defaults.max_tokens);
    for p in split_lines(&text, 0..text.len(), max, ctx.overlap(max), ctx.tokens) {
        let mut chunk = Chunk::new(p.text, p.tokens, None);
        chunk.meta.line_start = Some(p.line_start as u64);
        chunk.meta.line_end = Some(p.line_end as u64);
        doc.chunks.push(chunk);
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;

    #[test]
    fn short_note_is_one_chunk_long_note_splits() {
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(Path::new("n.txt"), b"buy milk\nand eggs", &ctx).unwrap();
        assert_eq!(doc.chunks.len(), 1);
        assert_eq!(doc.title, "n.txt");
        let long = vec!["word"; 2000].join(" ");
        let doc = parse(Path::new("n.txt"), long.as_bytes(), &ctx).unwrap();
        assert!(doc.chunks.len() >= 4);
        assert!(doc.chunks.iter().all(|c| c.token_count <= 512));
    }
}
