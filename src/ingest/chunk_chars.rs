//! A chunk's size in characters. The chunkers size chunks by tokens, but
//! the tokenizer reads a run it does not know (a base64 blob, a word of
//! over 100 characters, a script it has no pieces for) as one `[UNK]`
//! token however long it is: a chunk of 175 tokens could hold 300,000
//! characters. So every chunk is cut, after its format's chunker, to at
//! most [`MAX_CHARS_PER_TOKEN`] characters per token the model reads;
//! prose runs 4-5 characters a token, so only such runs are ever cut.
//! The pieces are slices of the chunk, cut at a line end, else at a
//! space, else between characters, and keep its place in the document.

use std::ops::Range;

use super::{Chunk, ChunkContext};
use crate::embed::TokenCounter;

/// The most characters a chunk may hold per token of the model's limit.
pub const MAX_CHARS_PER_TOKEN: usize = 16;

/// The most characters a chunk may hold in this run.
pub fn max_chars(ctx: &ChunkContext) -> usize {
    let tokens = ctx
        .model_max_tokens
        .unwrap_or(ctx.config.defaults.max_tokens);
    MAX_CHARS_PER_TOKEN * tokens.max(1)
}

/// The chunks, each longer than `max` characters cut into pieces that
/// are not.
pub fn cap(chunks: Vec<Chunk>, max: usize, tokens: &TokenCounter) -> Vec<Chunk> {
    let mut out = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        if chunk.text.chars().count() <= max {
            out.push(chunk);
            continue;
        }
        for range in cut(&chunk.text, max) {
            let (skipped, piece) = trimmed(&chunk.text[range.clone()]);
            if piece.trim().is_empty() {
                continue;
            }
            let before = &chunk.text[..range.start + skipped];
            let mut meta = chunk.meta.clone();
            if let Some(first) = chunk.meta.line_start {
                let start = first + before.matches('\n').count() as u64;
                meta.line_start = Some(start);
                meta.line_end = Some(start + piece.matches('\n').count() as u64);
            }
            out.push(Chunk {
                text: piece.to_string(),
                token_count: tokens.count(piece),
                meta,
                context: chunk.context.clone(),
            });
        }
    }
    out
}

/// The piece without its blank first lines and trailing whitespace, and
/// how many bytes went before it.
fn trimmed(piece: &str) -> (usize, &str) {
    let mut start = 0;
    for line in piece.split_inclusive('\n') {
        if !line.ends_with('\n') || !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    (start, piece[start..].trim_end())
}

/// Consecutive ranges of at most `max` characters covering `text`, each
/// ending at a line end or a space in its second half when it has one.
fn cut(text: &str, max: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let rest = &text[start..];
        let Some((limit, _)) = rest.char_indices().nth(max) else {
            out.push(start..text.len());
            break;
        };
        let window = &rest[..limit];
        let half = window
            .char_indices()
            .nth(max / 2)
            .map_or(window.len(), |(i, _)| i);
        let after = |i: usize| i + window[i..].chars().next().map_or(1, char::len_utf8);
        let end = window
            .rfind('\n')
            .filter(|i| *i >= half)
            .or_else(|| window.rfind(char::is_whitespace).filter(|i| *i >= half))
            .map_or(limit, after);
        out.push(start..start + end);
        start += end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::ChunkMeta;

    fn chunk(text: &str, line: u64) -> Chunk {
        let mut c = Chunk::new(text.to_string(), 3, Some("Section".into()));
        c.meta.line_start = Some(line);
        c.meta.line_end = Some(line + text.matches('\n').count() as u64);
        c
    }

    #[test]
    fn a_run_the_tokenizer_reads_as_one_token_is_cut_and_kept_whole() {
        // 300,000 characters without a space: one token to a word-piece
        // tokenizer, once one chunk.
        let blob: String = "PK3a9Zq".chars().cycle().take(300_000).collect();
        let text = format!("intro line\n{blob}\nlast line");
        let pieces = cap(vec![chunk(&text, 10)], 1000, &TokenCounter::Whitespace);
        assert!(pieces.len() >= 300, "{}", pieces.len());
        assert!(pieces.iter().all(|p| p.text.chars().count() <= 1000));
        let joined: String = pieces.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            joined.replace('\n', ""),
            text.replace('\n', ""),
            "every character kept, in order"
        );
        let (first, last) = (&pieces[0], pieces.last().unwrap());
        assert!(
            first.text.starts_with("intro line\nPK3a9"),
            "{:?}",
            &first.text[..20]
        );
        assert_eq!(
            (first.meta.line_start, first.meta.line_end),
            (Some(10), Some(11))
        );
        assert_eq!(pieces[1].meta.line_start, Some(11));
        assert!(last.text.ends_with("\nlast line") || last.text == "last line");
        assert_eq!(last.meta.line_end, Some(12));
        assert!(pieces
            .iter()
            .all(|p| p.meta.section.as_deref() == Some("Section")));
    }

    #[test]
    fn pieces_end_at_lines_then_spaces_and_short_chunks_stay() {
        let lines: Vec<String> = (0..100).map(|i| format!("line {i} of words")).collect();
        let text = lines.join("\n");
        let pieces = cap(vec![chunk(&text, 1)], 200, &TokenCounter::Whitespace);
        for p in &pieces {
            assert!(p.text.chars().count() <= 200);
            assert!(
                p.text.starts_with("line ") && p.text.ends_with("words"),
                "{:?}",
                p.text
            );
            let first = p.meta.line_start.unwrap() as usize;
            assert_eq!(p.text.lines().next().unwrap(), lines[first - 1]);
            assert_eq!(
                p.meta.line_end.unwrap() as usize - first + 1,
                p.text.lines().count()
            );
        }
        let words = "word ".repeat(100);
        let pieces = cap(vec![chunk(&words, 1)], 64, &TokenCounter::Whitespace);
        assert!(pieces.iter().all(|p| p.text.ends_with("word")));
        let short = Chunk {
            meta: ChunkMeta::default(),
            ..chunk("short", 1)
        };
        assert_eq!(
            cap(vec![short.clone()], 64, &TokenCounter::Whitespace),
            [short]
        );
    }
}
