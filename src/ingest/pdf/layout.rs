//! From laid-out lines to paragraphs and headings: running headers and
//! page numbers dropped, lines grouped into blocks at vertical gaps, font
//! changes, short sentence-ending lines, first-line indents and bullets;
//! wrapped lines joined and words hyphenated at line ends rejoined; short
//! standalone blocks that look like headings (larger font, bold, numbered
//! like `2.3 Results`, ALL CAPS or Title Case) given a level. Table rows
//! stay one line each, in a block of their own with the caption above
//! them.

use std::collections::{HashMap, HashSet};

use super::page::{Line, Page};

/// A paragraph or heading of a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// 1-based page number.
    pub page: u32,
    /// The text on one line: wrapped lines joined, hyphenation undone.
    pub text: String,
    /// Heading level (1 = top) when the block is heading-like.
    pub level: Option<u8>,
    /// Font size in points.
    pub size: f32,
    /// A table: one row per line (cells joined by ` | `), its caption first.
    pub table: bool,
    /// The page's text was recognised by OCR.
    pub ocr: bool,
}

/// Blocks of every page, in reading order.
pub(super) fn blocks(pages: &[Page]) -> Vec<Block> {
    let mut lines: Vec<Vec<Line>> = pages.iter().map(|p| p.lines.clone()).collect();
    let body = body_size(&lines);
    strip_running_lines(&mut lines, body);
    let mut raw: Vec<(u32, Vec<&Line>)> = Vec::new();
    for (i, page) in lines.iter().enumerate() {
        for group in group_lines(page) {
            raw.push((i as u32 + 1, group));
        }
    }
    let big = |size: f32| size >= body * 1.12 && size >= body + 1.0;
    // Heading font sizes, largest first: their rank is the heading level.
    let mut heading_sizes: Vec<f32> = Vec::new();
    for (_, g) in &raw {
        let size = mean_size(g);
        if big(size) && g.len() <= 2 && !g[0].table && heading_text(&join_lines(g)) {
            heading_sizes.push(size);
        }
    }
    heading_sizes.sort_by(|a, b| b.total_cmp(a));
    heading_sizes.dedup_by(|a, b| (*a - *b).abs() < 0.6);
    let below_fonts = heading_sizes.len().min(5) as u8 + 1;

    let mut out: Vec<Block> = Vec::with_capacity(raw.len());
    for (page, g) in raw {
        let ocr = pages[page as usize - 1].ocr;
        let size = mean_size(&g);
        if g.first().is_some_and(|l| l.table) {
            let rows: Vec<&str> = g.iter().map(|l| l.text.as_str()).collect();
            let mut text = rows.join("\n");
            // The caption right above the table goes with it.
            if let Some(prev) = out
                .last_mut()
                .filter(|b| b.page == page && !b.table && caption(&b.text))
            {
                text = format!("{}\n{text}", prev.text);
                out.pop();
            }
            out.push(Block {
                page,
                text,
                level: None,
                size,
                table: true,
                ocr,
            });
            continue;
        }
        let text = join_lines(&g);
        let bold = g.iter().all(|l| l.bold);
        let level = if g.len() > 2 || !heading_text(&text) {
            None
        } else if big(size) {
            // The font size ranks headings; it wins over numbering,
            // which documents often restart or flatten.
            let rank = heading_sizes
                .iter()
                .position(|s| (s - size).abs() < 0.6)
                .unwrap_or(0);
            Some(rank as u8 + 1)
        } else if g.len() > 1 {
            None
        } else if let Some(d) = numbered_depth(&text) {
            // Below every larger-font heading, nested by its numbering.
            Some(below_fonts - 1 + d)
        } else if text.starts_with(char::is_alphabetic)
            && (all_caps(&text) || title_case(&text) || (bold && short_line(&text)))
        {
            Some(below_fonts)
        } else {
            None
        };
        out.push(Block {
            page,
            text,
            level: level.map(|l| l.clamp(1, 6)),
            size,
            table: false,
            ocr,
        });
    }
    out
}

/// A table's caption: `Table 3`, `TABLE 3.1:`, `Table A-2.`.
fn caption(t: &str) -> bool {
    let mut w = t.split_whitespace();
    let first = w.next().unwrap_or("").trim_end_matches([':', '.']);
    let second = w.next().unwrap_or("");
    first.eq_ignore_ascii_case("table")
        && second
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
        && t.chars().count() <= 200
}

/// A bold line short enough to be a heading rather than a bold sentence.
fn short_line(t: &str) -> bool {
    t.split_whitespace().count() <= 8
}

fn mean_size(g: &[&Line]) -> f32 {
    let (mut sum, mut n) = (0.0f32, 0usize);
    for l in g {
        let c = l.text.chars().filter(|c| !c.is_whitespace()).count();
        sum += l.size * c as f32;
        n += c;
    }
    if n == 0 {
        g.first().map(|l| l.size).unwrap_or(0.0)
    } else {
        sum / n as f32
    }
}

/// The most common font size, weighted by characters.
pub(super) fn body_size(pages: &[Vec<Line>]) -> f32 {
    let mut hist: HashMap<i32, usize> = HashMap::new();
    for l in pages.iter().flatten() {
        let n = l.text.chars().filter(|c| !c.is_whitespace()).count();
        *hist.entry((l.size * 2.0).round() as i32).or_default() += n;
    }
    hist.into_iter()
        .max_by_key(|&(size, n)| (n, -size))
        .map(|(size, _)| size as f32 / 2.0)
        .filter(|s| *s > 0.0)
        .unwrap_or(10.0)
}

/// Drops running headers and footers (the same text, digits aside, at the
/// top or bottom of at least half the pages) and bare page numbers.
fn strip_running_lines(pages: &mut [Vec<Line>], body: f32) {
    fn key(t: &str) -> String {
        t.chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .flat_map(char::to_lowercase)
            .collect()
    }
    fn edge(i: usize, n: usize) -> bool {
        i < 2 || i + 2 >= n
    }
    let with_text = pages.iter().filter(|p| !p.is_empty()).count();
    let mut counts: HashMap<String, usize> = HashMap::new();
    for p in pages.iter() {
        let mut seen = HashSet::new();
        for (i, l) in p.iter().enumerate() {
            if edge(i, p.len()) && seen.insert(key(&l.text)) {
                *counts.entry(key(&l.text)).or_default() += 1;
            }
        }
    }
    for p in pages.iter_mut() {
        let n = p.len();
        let mut i = 0;
        p.retain(|l| {
            let at_edge = edge(i, n);
            i += 1;
            if !at_edge || l.size >= body * 1.12 {
                return true;
            }
            let repeated = with_text >= 3 && {
                let c = counts.get(&key(&l.text)).copied().unwrap_or(0);
                c >= 3 && c * 2 >= with_text
            };
            !(repeated || page_number(&l.text))
        });
    }
}

/// "12", "xii", "- 12 -", "Page 12", "12 / 40", "Page 12 of 40".
fn page_number(t: &str) -> bool {
    let t = t.trim().to_lowercase();
    let words: String = t
        .chars()
        .filter(|c| c.is_alphabetic())
        .collect::<String>()
        .replace("page", "")
        .replace("of", "");
    let digits = t.chars().filter(char::is_ascii_digit).count();
    if digits > 0 && digits <= 8 && words.is_empty() && t.chars().count() <= 20 {
        return true;
    }
    let roman = !t.is_empty() && t.len() <= 6 && t.chars().all(|c| "ivxlcdm".contains(c));
    roman
}

/// Splits a page's lines into blocks.
fn group_lines(lines: &[Line]) -> Vec<Vec<&Line>> {
    let rights = right_edges(lines);
    let mut out: Vec<Vec<&Line>> = Vec::new();
    let mut cur: Vec<&Line> = Vec::new();
    let mut left = f32::MAX;
    for (i, l) in lines.iter().enumerate() {
        if let Some(prev) = cur.last() {
            let right = rights[i - 1];
            let size_change = (prev.size - l.size).abs() > 0.8f32.max(0.12 * prev.size.min(l.size));
            let ended = ends_sentence(&prev.text)
                && (prev.end < right - 2.0 * prev.size || l.x > left + 0.8 * l.size);
            let table_edge = prev.table != l.table;
            if table_edge
                || (!l.table && (l.gap || size_change || ended || starts_with_bullet(&l.text)))
            {
                out.push(std::mem::take(&mut cur));
                left = f32::MAX;
            }
        }
        left = left.min(l.x);
        cur.push(l);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Where full lines end, for each line: the 90th percentile of the right
/// edges of the lines long enough to be body text that start where it
/// does (within two font sizes), so each column of a page has its own.
fn right_edges(lines: &[Line]) -> Vec<f32> {
    let page_max = lines.iter().map(|l| l.end).fold(0.0, f32::max);
    lines
        .iter()
        .map(|l| {
            let reach = 2.0 * l.size.max(1.0);
            let mut ends: Vec<f32> = lines
                .iter()
                .filter(|o| (o.x - l.x).abs() <= reach && o.text.chars().count() >= 30)
                .map(|o| o.end)
                .collect();
            if ends.is_empty() {
                return page_max;
            }
            ends.sort_by(f32::total_cmp);
            ends[(ends.len() * 9 / 10).min(ends.len() - 1)]
        })
        .collect()
}

fn starts_with_bullet(t: &str) -> bool {
    let mut cs = t.chars();
    match cs.next() {
        Some('•' | '◦' | '▪' | '▸' | '►' | '‣' | '∙' | '·') => true,
        Some('-' | '*' | '–') => cs.next() == Some(' '),
        _ => false,
    }
}

/// Ends with `.`, `!`, `?`, `:` or `…`, closing quotes and brackets aside.
pub(super) fn ends_sentence(t: &str) -> bool {
    let t = t.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, ')' | ']' | '"' | '\'' | '”' | '’' | '»')
    });
    matches!(t.chars().last(), Some('.' | '!' | '?' | ':' | '…'))
}

/// Joins wrapped lines with spaces; a word hyphenated at a line end
/// (`infor-` + `mation`) is joined back.
pub(super) fn join_lines(lines: &[&Line]) -> String {
    let mut s = String::new();
    for l in lines {
        append_line(&mut s, &l.text);
    }
    collapse_leaders(&s)
}

/// Replaces dot leaders (`Results . . . . . 12`, four dots or more) with
/// ` … `, so tables of contents do not fill chunks with dots.
fn collapse_leaders(s: &str) -> String {
    if !s.contains("....") && !s.contains(". . . .") {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '.' {
            let mut j = i;
            let mut dots = 0;
            while j < chars.len() && (chars[j] == '.' || chars[j] == ' ') {
                dots += usize::from(chars[j] == '.');
                j += 1;
            }
            if dots >= 4 {
                let trimmed = out.trim_end().len();
                out.truncate(trimmed);
                out.push_str(" … ");
                i = j;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Appends `next` to a paragraph as the following line.
pub(super) fn append_line(s: &mut String, next: &str) {
    let next = next.trim();
    if next.is_empty() {
        return;
    }
    if s.is_empty() {
        s.push_str(next);
        return;
    }
    if s.ends_with('\u{ad}') {
        s.pop();
        s.push_str(next);
        return;
    }
    let next_lower = next.chars().next().is_some_and(char::is_lowercase);
    if s.ends_with('-') && next_lower {
        let before = s[..s.len() - 1].chars().last();
        if before.is_some_and(char::is_alphabetic) {
            s.pop();
            s.push_str(next);
            return;
        }
    }
    s.push(' ');
    s.push_str(next);
}

/// Whether a block's text could be a heading: short, starts with a capital
/// or a number, no final period, mostly letters, not a caption or a table
/// of contents entry.
pub(super) fn heading_text(t: &str) -> bool {
    let t = t.trim();
    let n = t.chars().count();
    if !(2..=120).contains(&n) || t.split_whitespace().count() > 16 {
        return false;
    }
    let first = t.chars().next().unwrap_or(' ');
    if first.is_lowercase() || !(first.is_alphanumeric() || first == '§') {
        return false;
    }
    if matches!(t.chars().last(), Some('.' | ',' | ';' | ':' | '-')) {
        return false;
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let visible = t.chars().filter(|c| !c.is_whitespace()).count();
    if letters < 2 || letters * 2 < visible {
        return false;
    }
    if t.contains("...") || t.contains(" … ") || t.contains('@') || t.contains("://") {
        return false;
    }
    // Code, markup and formulas are not headings.
    if t.contains(['\\', '{', '}', '<', '>', '=', '$', '|', '%', ';']) {
        return false;
    }
    // A numbered line ending in a number is a table of contents entry.
    let numbered_start = t
        .split_whitespace()
        .next()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.'));
    let number_end = t
        .split_whitespace()
        .last()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()));
    if numbered_start && number_end {
        return false;
    }
    let mut words = t.split_whitespace();
    let w0 = words.next().unwrap_or("").to_lowercase();
    let w1 = words.next().unwrap_or("");
    let caption = matches!(
        w0.trim_end_matches(['.', ':']),
        "figure" | "fig" | "table" | "listing" | "algorithm" | "equation"
    ) && w1.chars().next().is_some_and(|c| c.is_ascii_digit());
    !caption
}

/// The depth of a numbered heading: `2` → 1, `2.3` → 2, `2.3.1.` → 3,
/// `A.` / `IV.` / `Chapter 3` → 1. A number at the end (a table of
/// contents entry) disqualifies.
pub(super) fn numbered_depth(t: &str) -> Option<u8> {
    let t = t.trim();
    let (num, rest) = t.split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    let lower = num.to_lowercase();
    if matches!(lower.as_str(), "chapter" | "part" | "appendix" | "section") {
        let next = rest.split_whitespace().next()?;
        let next = next.trim_end_matches(['.', ':']);
        let ok = next.chars().all(|c| c.is_ascii_digit())
            || next.chars().all(|c| "IVXLC".contains(c))
            || (next.len() == 1 && next.chars().all(|c| c.is_ascii_uppercase()));
        return (ok && !next.is_empty()).then_some(1);
    }
    if !rest.chars().next().is_some_and(char::is_uppercase) {
        return None;
    }
    if rest.chars().last().is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    let stem = num.trim_end_matches('.');
    if stem.is_empty() {
        return None;
    }
    let parts: Vec<&str> = stem.split('.').collect();
    if parts
        .iter()
        .all(|p| (1..=2).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()))
    {
        return Some(parts.len().min(6) as u8);
    }
    let dotted = num.ends_with('.');
    let letter = stem.len() == 1 && stem.chars().all(|c| c.is_ascii_uppercase());
    let roman = stem.len() <= 5 && stem.chars().all(|c| "IVXLC".contains(c));
    ((letter || roman) && dotted).then_some(1)
}

/// Every letter upper-case, at least four of them.
pub(super) fn all_caps(t: &str) -> bool {
    let letters: Vec<char> = t.chars().filter(|c| c.is_alphabetic()).collect();
    letters.len() >= 4
        && letters.iter().all(|c| !c.is_lowercase())
        && t.split_whitespace().count() <= 10
}

/// Every significant word capitalised ("Results and Discussion").
pub(super) fn title_case(t: &str) -> bool {
    const SMALL: &[&str] = &[
        "a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "of", "on", "or",
        "per", "the", "to", "vs", "via", "with", "without", "over", "under", "is", "are",
    ];
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() || words.len() > 10 {
        return false;
    }
    let mut significant = 0;
    for w in words {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        let Some(first) = w.chars().next() else {
            continue;
        };
        if !first.is_alphabetic() || SMALL.contains(&w.to_lowercase().as_str()) {
            continue;
        }
        if first.is_lowercase() {
            return false;
        }
        significant += 1;
    }
    significant >= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, size: f32, x: f32, end: f32, y: f32, gap: bool) -> Line {
        Line {
            text: text.into(),
            size,
            x,
            end,
            y,
            gap,
            ..Line::default()
        }
    }

    /// Body lines 11 pt, full width to x=540.
    fn body(text: &str, y: f32, gap: bool) -> Line {
        line(text, 11.0, 72.0, 540.0, y, gap)
    }

    #[test]
    fn heading_detection_rules() {
        for h in [
            "2.3 Results",
            "1 Introduction",
            "INSTALLATION NOTES",
            "Results and Discussion",
            "Chapter 3",
            "A. Proofs",
            "IV. Evaluation",
            "Why Search?",
        ] {
            assert!(heading_text(h), "{h}");
            assert!(
                numbered_depth(h).is_some() || all_caps(h) || title_case(h),
                "{h}"
            );
        }
        for not in [
            "This sentence ends with a period.",
            "the lower-case start of a line",
            "Figure 3 Distribution of latencies",
            "Table 2 Results",
            "1.2 Results . . . . . . 14",
            "12345 67890",
            "see http://example.com",
            "18 \\RecordChanges",
            "1 Introduction 2",
            "x = f(y)",
        ] {
            let h = heading_text(not) && (numbered_depth(not).is_some() || title_case(not));
            assert!(!h, "{not}");
        }
        assert_eq!(numbered_depth("2.3 Results"), Some(2));
        assert_eq!(numbered_depth("2.3.1. Fine Print"), Some(3));
        assert_eq!(numbered_depth("3 Methods"), Some(1));
        assert_eq!(numbered_depth("1.2 Results 14"), None, "a TOC entry");
        assert_eq!(numbered_depth("A Study of Things"), None);
        assert!(!title_case("Results were good"));
        assert!(title_case("Installing the Tools"));
        assert!(!all_caps("USA"), "too short to be a heading by case alone");
    }

    #[test]
    fn wrapped_lines_join_and_hyphens_are_undone() {
        let a = body("The quick extrac-", 100.0, false);
        let b = body("tion of text and a well-", 114.0, false);
        let c = body("Known name.", 128.0, false);
        assert_eq!(
            join_lines(&[&a, &b, &c]),
            "The quick extraction of text and a well- Known name."
        );
        let toc = body("3.1 Package Options . . . . . . . . 3", 100.0, false);
        assert_eq!(join_lines(&[&toc]), "3.1 Package Options … 3");
        let mut s = "soft\u{ad}".to_string();
        append_line(&mut s, "hyphen");
        assert_eq!(s, "softhyphen");
    }

    #[test]
    fn paragraphs_split_at_gaps_short_lines_and_indents() {
        let lines = vec![
            body(
                "First paragraph runs across the full width of the text column here",
                100.0,
                false,
            ),
            line("and ends on a short line.", 11.0, 72.0, 200.0, 114.0, false),
            body(
                "Second paragraph starts right below without any gap at all and",
                128.0,
                false,
            ),
            body("ends at the margin with a full stop.", 142.0, false),
            line(
                "Third paragraph is indented by a few points as its first line",
                11.0,
                90.0,
                540.0,
                156.0,
                false,
            ),
            body("goes on here.", 170.0, false),
            body("Fourth after a gap.", 200.0, true),
            body("• a bullet item", 214.0, false),
        ];
        let groups: Vec<String> = group_lines(&lines).iter().map(|g| join_lines(g)).collect();
        assert_eq!(groups.len(), 5, "{groups:#?}");
        assert!(groups[0].ends_with("short line."));
        assert!(groups[1].starts_with("Second") && groups[1].ends_with("full stop."));
        assert!(groups[2].starts_with("Third"));
        assert_eq!(groups[3], "Fourth after a gap.");
        assert_eq!(groups[4], "• a bullet item");
    }

    #[test]
    fn headings_get_levels_from_font_size_and_numbering() {
        let page = Page {
            lines: vec![
                line("A Study of Search", 20.0, 72.0, 300.0, 80.0, false),
                line("1 Introduction", 14.0, 72.0, 200.0, 120.0, true),
                body(
                    "Body text that is long enough to look like a paragraph of prose.",
                    140.0,
                    true,
                ),
                line("1.1 Motivation", 12.0, 72.0, 180.0, 170.0, true),
                body(
                    "More body text that is long enough to look like a paragraph too.",
                    190.0,
                    true,
                ),
                body("Related Work", 220.0, true),
                body(
                    "Another paragraph of body text, long enough to be prose, ends.",
                    240.0,
                    true,
                ),
            ],
            ..Page::default()
        };
        let b = blocks(&[page]);
        let levels: Vec<(String, Option<u8>)> =
            b.iter().map(|b| (b.text.clone(), b.level)).collect();
        assert_eq!(
            levels,
            vec![
                ("A Study of Search".into(), Some(1)),
                ("1 Introduction".into(), Some(2)),
                (
                    "Body text that is long enough to look like a paragraph of prose.".into(),
                    None
                ),
                ("1.1 Motivation".into(), Some(4)),
                (
                    "More body text that is long enough to look like a paragraph too.".into(),
                    None
                ),
                ("Related Work".into(), Some(3)),
                (
                    "Another paragraph of body text, long enough to be prose, ends.".into(),
                    None
                ),
            ]
        );
    }

    #[test]
    fn running_headers_and_page_numbers_are_dropped() {
        let topics = ["apples", "bridges", "clocks", "dunes"];
        let pages: Vec<Page> = (1..=4)
            .map(|i| Page {
                lines: vec![
                    line("ACME Handbook", 9.0, 72.0, 150.0, 30.0, false),
                    body(
                        &format!("Page {i} opens with {}.", topics[i - 1]),
                        100.0,
                        true,
                    ),
                    body(
                        &format!("Then {} again, in the middle.", topics[i - 1]),
                        114.0,
                        false,
                    ),
                    body(
                        &format!("Still about {} here.", topics[i - 1]),
                        128.0,
                        false,
                    ),
                    body(&format!("And {} to close.", topics[i - 1]), 142.0, false),
                    line(&format!("{i}"), 9.0, 300.0, 306.0, 760.0, true),
                ],
                ..Page::default()
            })
            .collect();
        let b = blocks(&pages);
        assert!(b.iter().all(|b| !b.text.contains("ACME")), "{b:#?}");
        assert!(b.iter().all(|b| b.text.parse::<u32>().is_err()), "{b:#?}");
        assert_eq!(b.len(), 4);
        assert_eq!(b[3].page, 4);
        assert!(page_number("Page 3 of 10") && page_number("- 4 -") && page_number("xii"));
        assert!(!page_number("Chapter 2") && !page_number("Version 2.0 notes"));
    }
}
