//! Size-bounded splitting shared by the chunkers: paragraphs first, then
//! lines or sentences, then word windows, packed up to `max` tokens with
//! `overlap` tokens carried from one piece into the next.

use super::chunk_chars::MAX_CHARS_PER_TOKEN;
use crate::embed::TokenCounter;

/// A piece of text with its token count.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub text: String,
    pub tokens: usize,
}

/// Splits `text` into pieces of at most `max` tokens. Text that fits is
/// returned whole.
pub fn split_text(text: &str, max: usize, overlap: usize, tokens: &TokenCounter) -> Vec<Piece> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let total = tokens.count(text);
    if total <= max {
        return vec![Piece {
            text: text.to_string(),
            tokens: total,
        }];
    }
    let mut units = Vec::new();
    for block in paragraphs(text) {
        let first = units.len();
        push_units(&block, max, tokens, &mut units);
        if let Some(u) = units.get_mut(first) {
            u.1 = PARAGRAPH;
        }
    }
    pack_units(units, max, overlap, tokens)
}

/// What stands between two paragraphs.
const PARAGRAPH: &str = "\n\n";

/// A unit to pack, with what stood before it in the text: pieces rejoin
/// as the text had them, so a chunk quotes its file (a sentence cut into
/// word windows is rejoined with a space, not a paragraph break).
type Unit = (Piece, &'static str);

/// Breaks a block into units of at most `max` tokens.
fn push_units(block: &str, max: usize, tokens: &TokenCounter, out: &mut Vec<Unit>) {
    let n = tokens.count(block);
    if n <= max {
        out.push((
            Piece {
                text: block.to_string(),
                tokens: n,
            },
            PARAGRAPH,
        ));
        return;
    }
    // Code and lists break at lines, prose at sentences.
    let parts: Vec<String> = if block.lines().count() > 1 {
        block.lines().map(str::to_string).collect()
    } else {
        sentences(block)
    };
    if parts.len() > 1 {
        // Re-pack the parts without overlap so each unit stays as large as fits.
        let mut sub = Vec::new();
        for p in parts {
            let pn = tokens.count(&p);
            if pn <= max {
                sub.push(Piece {
                    text: p,
                    tokens: pn,
                });
            } else {
                word_windows(&p, max, tokens, &mut sub);
            }
        }
        let sep = if block.lines().count() > 1 { "\n" } else { " " };
        out.extend(
            pack_with(sub, max, 0, tokens, sep)
                .into_iter()
                .map(|p| (p, sep)),
        );
    } else {
        let mut words = Vec::new();
        word_windows(block, max, tokens, &mut words);
        out.extend(words.into_iter().map(|p| (p, " ")));
    }
}

/// A window of whole lines, with the 0-based indexes of its first and last
/// line in the text it was cut from.
#[derive(Debug, Clone, PartialEq)]
pub struct LineWindow {
    pub text: String,
    pub tokens: usize,
    pub first_line: usize,
    pub last_line: usize,
}

/// Cuts `text` into windows of whole lines of at most `max` tokens, each
/// window starting with the last lines of the previous one that add up to
/// at most `overlap` tokens. Lines keep their indentation (code); a single
/// line longer than `max` falls back to word windows. Blank lines at the
/// edges of a window are dropped, and so are windows with nothing else.
pub fn line_windows(
    text: &str,
    max: usize,
    overlap: usize,
    tokens: &TokenCounter,
) -> Vec<LineWindow> {
    let max = max.max(1);
    let lines: Vec<&str> = text.split('\n').collect();
    let counts: Vec<usize> = lines.iter().map(|l| tokens.count(l)).collect();
    let blank = |i: usize| lines[i].trim().is_empty();
    let mut out = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        while start < lines.len() && blank(start) {
            start += 1;
        }
        if start == lines.len() {
            break;
        }
        if counts[start] > max {
            let mut pieces = Vec::new();
            word_windows(lines[start], max, tokens, &mut pieces);
            out.extend(pieces.into_iter().map(|p| LineWindow {
                text: p.text,
                tokens: p.tokens,
                first_line: start,
                last_line: start,
            }));
            start += 1;
            continue;
        }
        let mut end = start;
        let mut n = 0;
        while end < lines.len() && n + counts[end] <= max {
            n += counts[end];
            end += 1;
        }
        let mut last = end - 1;
        while blank(last) {
            last -= 1;
        }
        let window = lines[start..=last].join("\n");
        out.push(LineWindow {
            tokens: tokens.count(&window),
            text: window,
            first_line: start,
            last_line: last,
        });
        if end == lines.len() {
            break;
        }
        // Step back over the trailing lines that fit the overlap, always
        // moving forward, and only when the next line still fits after them.
        let mut next = end;
        let mut carried = 0;
        while next > start + 1 && carried + counts[next - 1] <= overlap {
            carried += counts[next - 1];
            next -= 1;
        }
        if carried + counts[end] > max {
            next = end;
        }
        start = next;
    }
    out
}

/// Last resort: consecutive words up to `max` tokens.
fn word_windows(text: &str, max: usize, tokens: &TokenCounter, out: &mut Vec<Piece>) {
    let mut cur = String::new();
    let mut cur_n = 0;
    let words = text.split_whitespace().flat_map(|word| {
        let wn = tokens.count(word);
        if wn > max {
            // A "word" over the limit (Chinese or Japanese text, which has no
            // spaces, a base64 blob, a URL list): cut at characters, every
            // character kept.
            char_windows(word, max, tokens)
        } else {
            vec![Piece {
                text: word.to_string(),
                tokens: wn,
            }]
        }
    });
    for Piece {
        text: word,
        tokens: wn,
    } in words
    {
        if cur_n + wn > max && !cur.is_empty() {
            out.push(Piece {
                text: std::mem::take(&mut cur),
                tokens: cur_n,
            });
            cur_n = 0;
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&word);
        cur_n += wn;
    }
    if !cur.is_empty() {
        out.push(Piece {
            text: cur,
            tokens: cur_n,
        });
    }
}

/// Cuts `word` into consecutive pieces of at most `max` tokens at
/// character boundaries, each as long as fits (a binary search over its
/// length: a few token counts per piece), and at most `MAX_CHARS_PER_TOKEN` characters per
/// allowed token, so a huge word costs time in proportion to its length.
/// A single character over the limit is a piece of its own; nothing is
/// dropped.
fn char_windows(word: &str, max: usize, tokens: &TokenCounter) -> Vec<Piece> {
    let bounds: Vec<usize> = word
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(word.len()))
        .collect();
    let chars = bounds.len() - 1;
    let mut out = Vec::new();
    let mut start = 0;
    while start < chars {
        let count = |end: usize| tokens.count(&word[bounds[start]..bounds[end]]);
        // `lo` always fits (or is the one character that cannot be cut).
        let (mut lo, mut hi) = (
            start + 1,
            chars.min(start + MAX_CHARS_PER_TOKEN * max.max(1)),
        );
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if count(mid) <= max {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        out.push(Piece {
            text: word[bounds[start]..bounds[lo]].to_string(),
            tokens: count(lo),
        });
        start = lo;
    }
    out
}

/// Greedily packs units into pieces of at most `max` tokens, all
/// separated by `sep`.
fn pack_with(
    units: Vec<Piece>,
    max: usize,
    overlap: usize,
    tokens: &TokenCounter,
    sep: &'static str,
) -> Vec<Piece> {
    pack_units(
        units.into_iter().map(|u| (u, sep)).collect(),
        max,
        overlap,
        tokens,
    )
}

/// Greedily packs units into pieces of at most `max` tokens, each joined
/// to the one before by what stood between them; each new piece starts
/// with the last `overlap` tokens of the previous one when they fit.
fn pack_units(units: Vec<Unit>, max: usize, overlap: usize, tokens: &TokenCounter) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    let mut cur: Vec<Unit> = Vec::new();
    let mut cur_n = 0usize;
    let mut cur_has_new = false;
    for (u, sep) in units {
        if cur_n + u.tokens > max && cur_has_new {
            let text = join(&cur);
            let n = tokens.count(&text);
            let tail = if overlap > 0 {
                overlap_tail(&text, overlap, tokens)
            } else {
                None
            };
            out.push(Piece { text, tokens: n });
            cur.clear();
            cur_n = 0;
            if let Some(t) = tail {
                if t.tokens + u.tokens <= max {
                    cur_n = t.tokens;
                    cur.push((t, PARAGRAPH));
                }
            }
        }
        cur_n += u.tokens;
        cur.push((u, sep));
        cur_has_new = true;
    }
    if cur_has_new {
        let text = join(&cur);
        let n = tokens.count(&text);
        out.push(Piece { text, tokens: n });
    }
    out
}

/// Joins units each with what stood before it, except that sentences of
/// Chinese or Japanese, which have no space between them, are put back
/// together without one.
fn join(parts: &[Unit]) -> String {
    let mut out = String::new();
    for (i, (p, sep)) in parts.iter().enumerate() {
        let glued = *sep == " " && out.ends_with(['。', '！', '？']);
        if i > 0 && !glued {
            out.push_str(sep);
        }
        out.push_str(&p.text);
    }
    out
}

/// The trailing words of `text` that add up to at most `overlap` tokens,
/// as the text has them (its line and paragraph breaks kept).
fn overlap_tail(text: &str, overlap: usize, tokens: &TokenCounter) -> Option<Piece> {
    let words: Vec<(usize, &str)> = text
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect();
    let mut n = 0;
    let mut start = words.len();
    while start > 0 {
        let wn = tokens.count(words[start - 1].1);
        if n + wn > overlap {
            break;
        }
        n += wn;
        start -= 1;
    }
    let at = words.get(start)?.0;
    Some(Piece {
        text: text[at..].to_string(),
        tokens: n,
    })
}

/// Blocks separated by blank lines; a fenced code block is never cut by
/// the blank lines inside it.
pub fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if line.trim().is_empty() && !in_fence {
            if !cur.is_empty() {
                out.push(cur.join("\n"));
                cur.clear();
            }
        } else {
            cur.push(line);
        }
    }
    if !cur.is_empty() {
        out.push(cur.join("\n"));
    }
    out
}

/// Sentences: cut after `.`, `!` or `?` followed by whitespace, and after
/// the full stops of Chinese and Japanese (`。！？`), which none follows.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for i in 0..chars.len() {
        let (pos, c) = chars[i];
        if matches!(c, '。' | '！' | '？') {
            let end = pos + c.len_utf8();
            let s = text[start..end].trim();
            if !s.is_empty() {
                out.push(s.to_string());
            }
            start = end;
        } else if matches!(c, '.' | '!' | '?') {
            if let Some(&(next_pos, next)) = chars.get(i + 1) {
                if next.is_whitespace() {
                    let s = text[start..next_pos].trim();
                    if !s.is_empty() {
                        out.push(s.to_string());
                    }
                    start = next_pos;
                }
            } else {
                let _ = pos;
            }
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: TokenCounter = TokenCounter::Whitespace;

    #[test]
    fn short_text_is_one_piece() {
        let p = split_text("hello world", 10, 2, &W);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].tokens, 2);
    }

    #[test]
    fn paragraphs_pack_and_overlap() {
        let para = |w: &str| vec![w; 30].join(" ");
        let text = format!("{}\n\n{}\n\n{}", para("a"), para("b"), para("c"));
        let pieces = split_text(&text, 70, 5, &W);
        assert!(pieces.len() >= 2, "{pieces:?}");
        for p in &pieces {
            assert!(p.tokens <= 70, "{} tokens", p.tokens);
            assert_eq!(p.tokens, W.count(&p.text));
        }
        // The second piece starts with the tail of the first.
        assert!(pieces[1].text.starts_with("b b b b b") || pieces[1].text.starts_with("a a"));
        let all: String = pieces
            .iter()
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(all.contains('c'));
    }

    #[test]
    fn long_sentence_falls_back_to_word_windows() {
        let text = vec!["word"; 1000].join(" ");
        let pieces = split_text(&text, 100, 10, &W);
        assert!(pieces.iter().all(|p| p.tokens <= 100));
        let words: usize = pieces.iter().map(|p| p.tokens).sum();
        assert!(words >= 1000, "no word lost: {words}");
    }

    #[test]
    fn sentences_split_prose() {
        let s = sentences("One two. Three four! Five? Six");
        assert_eq!(s, vec!["One two.", "Three four!", "Five?", "Six"]);
    }

    #[test]
    fn fences_keep_blank_lines() {
        let p = paragraphs("text\n\n```\ncode\n\nmore code\n```\n\nafter");
        assert_eq!(p.len(), 3);
        assert!(p[1].contains("more code"));
    }

    #[test]
    fn line_windows_keep_lines_and_overlap() {
        let text = (1..=40)
            .map(|i| format!("    line{i} a b"))
            .collect::<Vec<_>>()
            .join("\n");
        let w = line_windows(&text, 30, 6, &W);
        assert!(w.len() >= 5, "{w:?}");
        for win in &w {
            assert!(win.tokens <= 30);
            assert!(win.text.starts_with("    line"), "indentation kept");
        }
        assert_eq!(w[0].first_line, 0);
        assert_eq!(w[0].last_line, 9);
        // Two lines (6 tokens) carried into the next window.
        assert_eq!(w[1].first_line, 8);
        assert_eq!(w.last().unwrap().last_line, 39);
        // Without overlap the windows tile the text.
        let w = line_windows(&text, 30, 0, &W);
        for pair in w.windows(2) {
            assert_eq!(pair[1].first_line, pair[0].last_line + 1);
        }
    }

    #[test]
    fn line_windows_cut_a_long_line_and_skip_blanks() {
        let text = format!("\n\nshort\n\n{}\n\n\n", vec!["w"; 25].join(" "));
        let w = line_windows(&text, 10, 3, &W);
        assert_eq!(w[0].text, "short");
        assert_eq!(w[0].first_line, 2);
        assert!(w[1..].iter().all(|p| p.first_line == 4 && p.tokens <= 10));
        assert_eq!(w.iter().map(|p| p.tokens).sum::<usize>(), 26);
        assert!(line_windows(" \n\n", 10, 3, &W).is_empty());
    }

    #[test]
    fn text_without_spaces_is_cut_at_characters_never_truncated() {
        // 809 characters of Japanese without a sentence end, and the same
        // with sentence ends: every character is kept, in order.
        let run: String = "春の京都では桜の花が咲き誇り多くの人々が川沿いを散歩する"
            .chars()
            .cycle()
            .take(809)
            .collect();
        for text in [run.clone(), run.replace("散歩する", "散歩する。")] {
            let pieces = split_text(&text, 254, 20, &W);
            assert!(pieces.len() >= 4, "{} pieces", pieces.len());
            for p in &pieces {
                assert!(p.tokens <= 254, "{} tokens", p.tokens);
                assert_eq!(p.tokens, W.count(&p.text));
            }
            let joined: String = pieces.iter().map(|p| p.text.as_str()).collect();
            assert!(
                joined.ends_with(&text[text.len() - 30..]),
                "the end survives"
            );
            if !text.contains('。') {
                assert_eq!(joined, text, "cut at characters, nothing added or lost");
            }
        }
        // Sentences of Chinese are packed back without spaces between them.
        let zh = "今天天气很好。我们去公园散步。".repeat(40);
        let pieces = split_text(&zh, 100, 0, &W);
        assert!(pieces.iter().all(|p| !p.text.contains(' ')), "{pieces:?}");
        assert_eq!(
            pieces.iter().map(|p| p.text.as_str()).collect::<String>(),
            zh
        );
    }

    #[test]
    fn giant_word_is_cut() {
        let text = "x".repeat(10_000);
        let pieces = split_text(&format!("{text} {text}"), 50, 5, &W);
        assert!(!pieces.is_empty());
        assert!(pieces.iter().all(|p| p.tokens <= 50));
    }
}
