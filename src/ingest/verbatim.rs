//! Splitting a stretch of a file's text into pieces the model can embed
//! whole, each a verbatim slice of the file, so that a chunk's text can be
//! quoted and found in the file and its `line_start`/`line_end` are exact.
//! Whole lines are packed up to the limit, cutting at a blank line (outside
//! a code fence) when one leaves the piece at least half full; a piece
//! starts on a line boundary, and carries the last lines of the one before
//! (whole lines, up to the overlap). Only a line too long for a piece of
//! its own is cut inside, at sentences, then words, then characters; the
//! pieces of such a line overlap by its parts as others do by lines.

use std::ops::Range;

use super::chunk_chars::MAX_CHARS_PER_TOKEN;
use crate::embed::TokenCounter;

/// A verbatim slice of the text, with its 1-based first and last line.
#[derive(Debug, Clone, PartialEq)]
pub struct LinePiece {
    pub text: String,
    pub tokens: usize,
    pub line_start: usize,
    pub line_end: usize,
}

/// What the packer moves: a whole line, or a part of a line too long for a
/// piece.
#[derive(Debug, Clone)]
struct Unit {
    /// Bytes of the whole text (the line without its newline, or the part).
    range: Range<usize>,
    /// 0-based line in the whole text.
    line: usize,
    tokens: usize,
    /// A blank line outside a code fence: where a piece prefers to end.
    paragraph_break: bool,
    blank: bool,
    whole_line: bool,
}

/// Splits `text[range]` into verbatim pieces of at most `max` tokens (a
/// single character over the limit is a piece of its own) with `overlap`
/// tokens of whole lines carried into the next piece. Blank lines at the
/// edges of the range and of each piece are left out.
pub fn split_lines(
    text: &str,
    range: Range<usize>,
    max: usize,
    overlap: usize,
    tokens: &TokenCounter,
) -> Vec<LinePiece> {
    let max = max.max(1);
    let range = trim(text, range);
    if range.is_empty() {
        return Vec::new();
    }
    let first_line = text[..range.start].matches('\n').count();
    let whole = &text[range.clone()];
    let n = tokens.count(whole);
    if n <= max {
        return vec![LinePiece {
            text: whole.to_string(),
            tokens: n,
            line_start: first_line + 1,
            line_end: first_line + whole.matches('\n').count() + 1,
        }];
    }
    let units = units(text, range, first_line, max, tokens);
    pack(text, &units, max, overlap, tokens)
}

/// The range without the blank lines at its start and the whitespace at
/// its end (a first line keeps its indentation).
fn trim(text: &str, range: Range<usize>) -> Range<usize> {
    let slice = &text[range.clone()];
    let mut start = 0;
    for line in slice.split_inclusive('\n') {
        if !line.trim().is_empty() || !line.ends_with('\n') {
            break;
        }
        start += line.len();
    }
    let end = slice.trim_end().len().max(start);
    range.start + start..range.start + end
}

/// The lines of `text[range]` as units; a line over `max` tokens as parts.
fn units(
    text: &str,
    range: Range<usize>,
    first_line: usize,
    max: usize,
    tokens: &TokenCounter,
) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut at = range.start;
    let mut in_fence = false;
    for (i, raw) in text[range.clone()].split_inclusive('\n').enumerate() {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let bytes = at..at + line.len();
        at += raw.len();
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
        }
        let blank = line.trim().is_empty();
        let n = if blank { 0 } else { tokens.count(line) };
        if n <= max {
            out.push(Unit {
                range: bytes,
                line: first_line + i,
                tokens: n,
                paragraph_break: blank && !in_fence,
                blank,
                whole_line: true,
            });
            continue;
        }
        for part in line_parts(line, max, tokens) {
            let piece = &line[part.clone()];
            out.push(Unit {
                range: bytes.start + part.start..bytes.start + part.end,
                line: first_line + i,
                tokens: tokens.count(piece),
                paragraph_break: false,
                blank: piece.trim().is_empty(),
                whole_line: false,
            });
        }
    }
    out
}

/// Cuts a line into consecutive ranges of at most `max` tokens each (bar a
/// single character over the limit): sentences, and a sentence too long
/// cut at words, a word too long at characters.
fn line_parts(line: &str, max: usize, tokens: &TokenCounter) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for sentence in cut_after(line, 0..line.len(), sentence_end) {
        if tokens.count(&line[sentence.clone()]) <= max {
            out.push(sentence);
            continue;
        }
        for word in cut_after(line, sentence, |s, i| {
            s[i..].starts_with(char::is_whitespace)
                && !s[i..].chars().nth(1).is_some_and(char::is_whitespace)
        }) {
            if tokens.count(&line[word.clone()]) <= max {
                out.push(word);
            } else {
                out.extend(char_ranges(line, word, max, tokens));
            }
        }
    }
    out
}

/// Whether the character at byte `i` ends a sentence: `.`, `!` or `?`
/// before whitespace (the whitespace goes with it), or a full stop of
/// Chinese or Japanese.
fn sentence_end(s: &str, i: usize) -> bool {
    let mut chars = s[i..].chars();
    match chars.next() {
        Some('。' | '！' | '？') => true,
        Some(c) if c.is_whitespace() => {
            s[..i].ends_with(['.', '!', '?']) && !chars.next().is_some_and(char::is_whitespace)
        }
        _ => false,
    }
}

/// Consecutive ranges covering `range`, each ending after a character
/// `ends` accepts.
fn cut_after(
    s: &str,
    range: Range<usize>,
    ends: impl Fn(&str, usize) -> bool,
) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    for (i, c) in s[range.clone()].char_indices() {
        let i = range.start + i;
        if ends(s, i) {
            let end = i + c.len_utf8();
            out.push(start..end);
            start = end;
        }
    }
    if start < range.end {
        out.push(start..range.end);
    }
    out
}

/// A word over the limit cut at characters, each piece as long as fits (a
/// binary search over its length, at most `MAX_CHARS_PER_TOKEN` characters
/// per token).
fn char_ranges(
    s: &str,
    range: Range<usize>,
    max: usize,
    tokens: &TokenCounter,
) -> Vec<Range<usize>> {
    let bounds: Vec<usize> = s[range.clone()]
        .char_indices()
        .map(|(i, _)| range.start + i)
        .chain(std::iter::once(range.end))
        .collect();
    let chars = bounds.len() - 1;
    let mut out = Vec::new();
    let mut start = 0;
    while start < chars {
        let fits = |end: usize| tokens.count(&s[bounds[start]..bounds[end]]) <= max;
        let (mut lo, mut hi) = (start + 1, chars.min(start + MAX_CHARS_PER_TOKEN * max));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        out.push(bounds[start]..bounds[lo]);
        start = lo;
    }
    out
}

/// Packs units into pieces (see the module's comment).
fn pack(
    text: &str,
    units: &[Unit],
    max: usize,
    overlap: usize,
    tokens: &TokenCounter,
) -> Vec<LinePiece> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < units.len() {
        while start < units.len() && units[start].blank {
            start += 1;
        }
        if start == units.len() {
            break;
        }
        let mut end = start;
        let mut n = 0;
        while end < units.len() && n + units[end].tokens <= max {
            n += units[end].tokens;
            end += 1;
        }
        end = end.max(start + 1);
        if end < units.len() {
            end = better_end(units, start, end, max);
        }
        let mut last = end - 1;
        while units[last].blank {
            last -= 1;
        }
        let slice = text[units[start].range.start..units[last].range.end].trim_end();
        out.push(LinePiece {
            tokens: tokens.count(slice),
            text: slice.to_string(),
            line_start: units[start].line + 1,
            line_end: units[last].line + 1,
        });
        if end == units.len() {
            break;
        }
        // Step back over whole lines that fit the overlap (or, inside a
        // line too long for one piece, its sentences before the cut),
        // always moving forward, and only when the next unit still fits
        // after them.
        let mut next = end;
        let mut carried = 0;
        while next > start + 1
            && (units[next - 1].whole_line || units[next - 1].line == units[end].line)
            && carried + units[next - 1].tokens <= overlap
        {
            carried += units[next - 1].tokens;
            next -= 1;
        }
        if carried + units[end].tokens > max {
            next = end;
        }
        start = next;
    }
    out
}

/// Where a full piece `start..end` had better end: before a line it would
/// cut when what comes before fills at least half the piece (a title line
/// stays with the start of a long paragraph line: alone it would be a
/// chunk of its own that says nothing), else at its last paragraph break
/// when that leaves it at least half full.
fn better_end(units: &[Unit], start: usize, end: usize, max: usize) -> usize {
    let line = units[end].line;
    if units[end - 1].line == line && units[start].line < line {
        let first = (start + 1..end)
            .find(|&k| units[k].line == line)
            .unwrap_or(end);
        let before: usize = units[start..first].iter().map(|u| u.tokens).sum();
        if before * 2 >= max {
            return first;
        }
    }
    let mut filled = 0;
    let mut best = None;
    for (k, u) in units.iter().enumerate().take(end).skip(start) {
        if u.paragraph_break && k > start && filled * 2 >= max {
            best = Some(k);
        }
        filled += u.tokens;
    }
    best.unwrap_or(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: TokenCounter = TokenCounter::Whitespace;

    fn split(text: &str, max: usize, overlap: usize) -> Vec<LinePiece> {
        split_lines(text, 0..text.len(), max, overlap, &W)
    }

    /// Every piece is in the text verbatim at the lines it names.
    fn check_verbatim(text: &str, pieces: &[LinePiece], max: usize) {
        let lines: Vec<&str> = text.split('\n').collect();
        for p in pieces {
            assert!(text.contains(&p.text), "not verbatim: {:?}", p.text);
            assert!(p.tokens <= max, "{} tokens: {:?}", p.tokens, p.text);
            let span = lines[p.line_start - 1..p.line_end].join("\n");
            assert!(span.contains(&p.text), "{p:?} is not at its lines");
            let first = p.text.lines().next().unwrap();
            assert!(
                lines[p.line_start - 1].contains(first),
                "{p:?} does not start on line {}",
                p.line_start
            );
        }
    }

    #[test]
    fn a_short_text_is_one_piece_with_its_lines() {
        let text = "\n\n# Title\n\nbody  \n\n";
        let p = split(text, 10, 2);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].text, "# Title\n\nbody");
        assert_eq!((p[0].line_start, p[0].line_end), (3, 5));
    }

    #[test]
    fn lists_split_at_lines_keep_newlines_and_overlap_whole_lines() {
        // A tldr page: the second piece must not glue lines with " - ".
        let mut text = String::from("# git reset\n\n> Undo commits.\n\n");
        for i in 0..30 {
            text.push_str(&format!(
                "- Step {i} does a thing:\n\n`git reset --opt{i} ref`\n\n"
            ));
        }
        let pieces = split(&text, 40, 8);
        assert!(pieces.len() >= 3, "{pieces:?}");
        check_verbatim(&text, &pieces, 40);
        for p in &pieces[1..] {
            assert!(p.text.contains('\n'), "{p:?}");
            assert!(!p.text.contains(" - "), "{p:?}");
        }
        // Overlap: a piece starts on a line the previous one ended with.
        for pair in pieces.windows(2) {
            assert!(pair[1].line_start <= pair[0].line_end, "{pair:?}");
            assert!(pair[1].line_start > pair[0].line_start, "{pair:?}");
        }
        assert_eq!(
            pieces.last().unwrap().line_end,
            text.trim_end().lines().count()
        );
    }

    #[test]
    fn pieces_prefer_paragraph_breaks_outside_fences() {
        let para = |w: &str| [w; 12].join(" ");
        let text = format!(
            "{}\n{}\n\n{}\n\n```\n{}\n\n{}\n```\n",
            para("a"),
            para("b"),
            para("c"),
            para("d"),
            para("e")
        );
        let pieces = split(&text, 40, 0);
        check_verbatim(&text, &pieces, 40);
        // The last break outside the fence, not the one inside it.
        assert_eq!(
            pieces[0].text,
            format!("{}\n{}\n\n{}", para("a"), para("b"), para("c"))
        );
        assert_eq!(
            pieces[1].text,
            format!("```\n{}\n\n{}\n```", para("d"), para("e"))
        );
    }

    #[test]
    fn a_long_line_is_cut_at_sentences_then_words_verbatim() {
        let sentence = "This   sentence has\tten words in it, more or less. ";
        let line = sentence.repeat(12);
        let text = format!("short line\n{line}\nafter\n");
        let pieces = split(&text, 30, 5);
        check_verbatim(&text, &pieces, 30);
        // A short line before the long one stays with its start.
        assert!(
            pieces[0].text.starts_with("short line\nThis   sentence"),
            "{pieces:?}"
        );
        assert!(pieces[1].text.starts_with("This   sentence"), "{pieces:?}");
        assert!(pieces.iter().all(|p| p.tokens <= 30));
        let words = "w ".repeat(100);
        let pieces = split(&words, 7, 2);
        check_verbatim(&words, &pieces, 7);
        // Every word is in a piece; the pieces overlap by at most 2 words.
        let total = pieces.iter().map(|p| p.tokens).sum::<usize>();
        assert!(
            total >= 100 && total <= 100 + 2 * (pieces.len() - 1),
            "{total}"
        );
        assert!(words.trim_end().ends_with(&pieces[pieces.len() - 1].text));
        let blob = "春".repeat(100);
        let pieces = split(&blob, 7, 0);
        check_verbatim(&blob, &pieces, 7);
        assert_eq!(
            pieces.iter().map(|p| p.text.as_str()).collect::<String>(),
            blob
        );
        // The pieces of a long line overlap by its sentences.
        let pieces = split(&line, 30, 12);
        check_verbatim(&line, &pieces, 30);
        assert!(pieces[1].text.starts_with("This   sentence"), "{pieces:?}");
        let first_end = pieces[0].text.rfind("This").unwrap();
        assert!(
            pieces[1].text.starts_with(&pieces[0].text[first_end..]),
            "{pieces:?}"
        );
    }
}
