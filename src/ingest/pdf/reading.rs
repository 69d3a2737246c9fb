//! From the characters placed on a page to lines in reading order.
//!
//! pdfium gives each character its box; the content stream's order is
//! not always the reading order (columns, tables drawn cell by cell,
//! headers drawn last). So the page is rebuilt geometrically:
//! characters → words (close on one baseline) → rows (words sharing a
//! baseline, left to right) → spans (a row cut at gaps wider than a word
//! space) → columns (a vertical gutter that most rows leave empty, with
//! prose on both sides) → tables (runs of rows with several aligned
//! spans, written as one line per row with cells joined by ` | `).

use super::glyphs::{compose_accents, push_char, rtl, Placed};
use super::monospace::Pitch;
use super::page::{Line, Row, Span, Word};
use super::spacing::join_spaced_letters;
use super::tables::{join_section_number, merge_symbols, table_rows, CELL_SEPARATOR};

pub(super) use super::glyphs::Glyph;

/// Two words further apart than this many font sizes are in different
/// spans (a column gutter or a table cell gap; a justified word space is
/// rarely over half of one).
const SPAN_GAP: f32 = 0.8;

/// Within a word, characters are at most this many font sizes apart.
const LETTER_GAP: f32 = 0.25;

/// Across a space, characters this close (in font sizes) still touch:
/// the space was guessed where the letters run on.
const TOUCHING: f32 = 0.05;

/// Rows that leave a gutter empty before it counts as a column break.
const MIN_COLUMN_ROWS: usize = 5;

/// The page's lines in reading order. Text running in the page's main
/// direction comes first; text turned another way (a rotated table, an
/// axis label) follows, laid out in its own upright frame.
pub(super) fn lines(glyphs: &[Glyph]) -> Vec<Line> {
    let mut counts = [0usize; 4];
    for g in glyphs.iter().filter(|g| !g.ch.is_whitespace()) {
        counts[(g.turns % 4) as usize] += 1;
    }
    let main = (0..4).max_by_key(|&t| (counts[t], 4 - t)).unwrap_or(0) as u8;
    let mut out = Vec::new();
    for turns in std::iter::once(main).chain((0..4).filter(|&t| t != main)) {
        if counts[turns as usize] == 0 {
            continue;
        }
        // Spaces belong to the direction of the glyph before them.
        let mut placed = Vec::new();
        let mut current = None;
        for g in glyphs {
            if g.ch.is_whitespace() {
                if current == Some(turns) {
                    placed.push(Placed {
                        ch: ' ',
                        x0: 0.0,
                        x1: 0.0,
                        baseline: 0.0,
                        size: 0.0,
                        bold: false,
                    });
                }
                continue;
            }
            current = Some(g.turns % 4);
            if g.turns % 4 == turns {
                let (x0, x1, baseline) = g.upright();
                placed.push(Placed {
                    ch: g.ch,
                    x0,
                    x1,
                    baseline,
                    size: g.size,
                    bold: g.bold,
                });
            }
        }
        let rows = rows(words(&compose_accents(placed)));
        out.extend(to_lines(&reading_order(rows, 0)));
    }
    out
}

/// Characters joined into words: a space, a jump to another baseline or a
/// gap ends a word.
fn words(glyphs: &[Placed]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur: Option<Word> = None;
    let mut last: Option<&Placed> = None;
    // A space came between `last` and this glyph: the engine's own (it
    // adds them where it guesses a word ends) or the PDF's.
    let mut spaced = false;
    for g in glyphs {
        let visible = !(g.ch.is_whitespace() || g.ch.is_control() || g.ch == '\u{fffe}');
        let joins = match (visible, last) {
            (true, Some(l)) => {
                let size = g.size.max(l.size);
                // After a space only letters that touch are one word: a
                // space is never narrower than a tenth of the size, and
                // a guessed one where there is no gap splits a word
                // ("Wo rldwide").
                // Only inside a word of letters going on in lower case:
                // math's one-letter variables sit as close.
                let mid_word = cur
                    .as_ref()
                    .is_some_and(|w| w.text.chars().filter(|c| c.is_alphabetic()).count() >= 2)
                    && l.ch.is_alphabetic()
                    && g.ch.is_lowercase();
                let reach = match (spaced, mid_word) {
                    (false, _) => LETTER_GAP,
                    (true, true) => TOUCHING,
                    (true, false) => f32::NEG_INFINITY,
                };
                let forward = g.x0 - l.x1 < reach * size && g.x0 - l.x0 > -0.3 * size;
                // Arabic and Hebrew are drawn right to left, in the order
                // they are read.
                let backward = rtl(g.ch)
                    && rtl(l.ch)
                    && l.x0 - g.x1 < reach * size
                    && l.x1 - g.x1 > -0.3 * size;
                (g.baseline - l.baseline).abs() < 0.4 * size && (forward || backward)
            }
            _ => false,
        };
        if !visible {
            spaced = true;
            continue;
        }
        spaced = false;
        if !joins {
            if let Some(w) = cur.take() {
                out.push(w);
            }
        }
        let w = cur.get_or_insert_with(|| Word {
            text: String::new(),
            x0: g.x0,
            x1: g.x1,
            baseline: g.baseline,
            size: g.size,
            bold: 0,
            chars: 0,
            pitch: Pitch::default(),
        });
        push_char(&mut w.text, g.ch);
        w.pitch.add(g.ch, g.x1 - g.x0, g.size);
        w.x0 = w.x0.min(g.x0);
        w.x1 = w.x1.max(g.x1);
        // The word sits on its main baseline (a superscript does not move it).
        if g.size > w.size * 1.1 {
            w.baseline = g.baseline;
        }
        w.size = w.size.max(g.size);
        w.bold += usize::from(g.bold);
        w.chars += 1;
        last = Some(g);
    }
    out.extend(cur);
    out
}

/// Words grouped into rows by baseline, each row cut into spans at wide
/// gaps.
fn rows(mut words: Vec<Word>) -> Vec<Row> {
    words.sort_by(|a, b| a.baseline.total_cmp(&b.baseline));
    let mut groups: Vec<Vec<Word>> = Vec::new();
    let mut anchor = f32::MIN;
    let mut anchor_size = 0.0f32;
    for w in words {
        let tolerance = 0.45 * w.size.max(anchor_size);
        match groups.last_mut() {
            Some(g) if (w.baseline - anchor).abs() <= tolerance => g.push(w),
            _ => {
                anchor = w.baseline;
                anchor_size = w.size;
                groups.push(vec![w]);
            }
        }
    }
    groups.into_iter().map(row_of).collect()
}

fn row_of(mut words: Vec<Word>) -> Row {
    words.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    let words = join_spaced_letters(words);
    let (mut right_to_left, mut left_to_right) = (0usize, 0usize);
    for c in words.iter().flat_map(|w| w.text.chars()) {
        if rtl(c) {
            right_to_left += 1;
        } else if c.is_alphabetic() {
            left_to_right += 1;
        }
    }
    let is_rtl = right_to_left > left_to_right;
    let mut pitch = Pitch::default();
    for w in &words {
        pitch.merge(&w.pitch);
    }
    if !is_rtl && pitch.fixed() {
        return Row {
            spans: vec![monospaced(words, pitch)],
            rtl: false,
        };
    }
    let mut spans: Vec<(Span, usize, usize)> = Vec::new();
    for w in words {
        let gap_ok = spans.last().is_some_and(|(s, _, _)| {
            let size = s.size.max(w.size);
            w.x0 - s.x1 <= SPAN_GAP * size
        });
        match spans.last_mut() {
            Some((s, bold, chars)) if gap_ok => {
                if is_rtl {
                    // The word to the left is read after.
                    s.text = format!("{} {}", w.text, s.text);
                } else {
                    s.text.push(' ');
                    s.text.push_str(&w.text);
                }
                s.x1 = s.x1.max(w.x1);
                s.baseline = s.baseline.max(w.baseline);
                s.size = s.size.max(w.size);
                s.pitch.merge(&w.pitch);
                *bold += w.bold;
                *chars += w.chars;
            }
            _ => spans.push((
                Span {
                    text: w.text,
                    x0: w.x0,
                    x1: w.x1,
                    baseline: w.baseline,
                    size: w.size,
                    bold: false,
                    pitch: w.pitch,
                },
                w.bold,
                w.chars,
            )),
        }
    }
    let spans = spans
        .into_iter()
        .map(|(mut s, bold, chars)| {
            s.bold = chars > 0 && bold * 10 >= chars * 8;
            s
        })
        .collect();
    let spans = if is_rtl {
        spans
    } else {
        join_section_number(merge_symbols(spans))
    };
    Row { spans, rtl: is_rtl }
}

/// A row of monospaced words as one span: the space between two words
/// is as many spaces as glyphs would fit in it (aligned comments and
/// columns of a listing keep their places), never a cell break.
fn monospaced(words: Vec<Word>, pitch: Pitch) -> Span {
    let width = pitch.even();
    let mut span = Span {
        text: String::new(),
        x0: words.first().map_or(0.0, |w| w.x0),
        x1: 0.0,
        baseline: 0.0,
        size: 0.0,
        bold: false,
        pitch,
    };
    let (mut bold, mut chars) = (0, 0);
    for w in words {
        if !span.text.is_empty() {
            let n = ((w.x0 - span.x1) / width).round().clamp(1.0, 200.0) as usize;
            span.text.extend(std::iter::repeat_n(' ', n));
        }
        span.text.push_str(&w.text);
        span.x1 = span.x1.max(w.x1);
        span.baseline = span.baseline.max(w.baseline);
        span.size = span.size.max(w.size);
        bold += w.bold;
        chars += w.chars;
    }
    span.bold = chars > 0 && bold * 10 >= chars * 8;
    span
}

/// The x of a column gutter in these rows: a position most rows with
/// text on both sides leave empty, with prose (wide spans) on both sides.
fn gutter(rows: &[Row]) -> Option<f32> {
    let left = rows
        .iter()
        .flat_map(|r| &r.spans)
        .map(|s| s.x0)
        .fold(f32::MAX, f32::min);
    let right = rows
        .iter()
        .flat_map(|r| &r.spans)
        .map(|s| s.x1)
        .fold(f32::MIN, f32::max);
    let width = right - left;
    if width <= 0.0 {
        return None;
    }
    let mut candidates: Vec<f32> = rows
        .iter()
        .flat_map(|r| r.spans.windows(2).map(|p| (p[0].x1 + p[1].x0) / 2.0))
        .collect();
    candidates.sort_by(f32::total_cmp);
    candidates.dedup_by(|a, b| (*a - *b).abs() < 2.0);
    let mut best: Option<(usize, f32)> = None;
    for &g in &candidates {
        let mut split = 0;
        let mut cross = 0;
        let mut lefts = Vec::new();
        let mut rights = Vec::new();
        for r in rows {
            if r.covers(g) {
                cross += 1;
                continue;
            }
            let l: Vec<&Span> = r.spans.iter().filter(|s| s.x1 <= g).collect();
            let rt: Vec<&Span> = r.spans.iter().filter(|s| s.x0 >= g).collect();
            if !l.is_empty() && !rt.is_empty() {
                split += 1;
            }
            lefts.extend(l.iter().map(|s| s.x1 - s.x0));
            rights.extend(rt.iter().map(|s| s.x1 - s.x0));
        }
        if split < MIN_COLUMN_ROWS || split < cross {
            continue;
        }
        // Prose on both sides: a typical span of each side spans a good
        // part of the page (table cells are short).
        let prose = |v: &mut Vec<f32>| {
            if v.is_empty() {
                return false;
            }
            v.sort_by(f32::total_cmp);
            v[v.len() / 2] >= 0.25 * width
        };
        if !prose(&mut lefts) || !prose(&mut rights) {
            continue;
        }
        if best.is_none_or(|(n, _)| split > n) {
            best = Some((split, g));
        }
    }
    best.map(|(_, g)| g)
}

/// Rows in reading order: where a gutter splits a run of rows into
/// columns, the left column is read down, then the right one (each
/// recursively, for three columns); a row that crosses the gutter (a
/// title, a wide figure caption) is read in its place.
fn reading_order(rows: Vec<Row>, depth: u8) -> Vec<Row> {
    let Some(g) = (depth < 2).then(|| gutter(&rows)).flatten() else {
        return rows;
    };
    let mut out = Vec::new();
    let mut region: Vec<Row> = Vec::new();
    let flush = |region: &mut Vec<Row>, out: &mut Vec<Row>| {
        if region.is_empty() {
            return;
        }
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for r in region.drain(..) {
            let (l, rt): (Vec<Span>, Vec<Span>) = r.spans.into_iter().partition(|s| s.x1 <= g);
            if !l.is_empty() {
                left.push(Row {
                    spans: l,
                    rtl: r.rtl,
                });
            }
            if !rt.is_empty() {
                right.push(Row {
                    spans: rt,
                    rtl: r.rtl,
                });
            }
        }
        out.extend(reading_order(left, depth + 1));
        out.extend(reading_order(right, depth + 1));
    };
    for r in rows {
        if r.covers(g) {
            flush(&mut region, &mut out);
            out.push(r);
        } else {
            region.push(r);
        }
    }
    flush(&mut region, &mut out);
    out
}

/// The page's usual distance from one baseline to the next (the median
/// over rows that follow each other closely), 0 when too few say. A
/// double-spaced page (a thesis, a form) has a gap before every line by
/// the font size alone; a gap is measured against this instead.
fn line_pitch(rows: &[Row]) -> f32 {
    let mut steps: Vec<f32> = rows
        .windows(2)
        .filter_map(|w| {
            let (size, step) = (w[1].size(), w[1].baseline() - w[0].baseline());
            (step > 0.9 * size && step < 3.0 * size).then_some(step)
        })
        .collect();
    if steps.len() < 5 {
        return 0.0;
    }
    steps.sort_by(f32::total_cmp);
    steps[steps.len() / 2]
}

fn to_lines(rows: &[Row]) -> Vec<Line> {
    let table = table_rows(rows);
    let pitch = line_pitch(rows);
    let mut out: Vec<Line> = Vec::new();
    let mut prev_baseline: Option<f32> = None;
    for (r, in_table) in rows.iter().zip(table) {
        let baseline = r.baseline();
        let size = r.size();
        let gap = prev_baseline.is_some_and(|p| baseline - p > (1.5 * size).max(1.25 * pitch));
        prev_baseline = Some(baseline);
        let mut spans: Vec<&Span> = r.spans.iter().collect();
        if r.rtl {
            spans.reverse();
        }
        if in_table {
            out.push(Line {
                text: spans
                    .iter()
                    .map(|s| s.text.as_str())
                    .collect::<Vec<_>>()
                    .join(CELL_SEPARATOR),
                size,
                x: spans.first().map_or(0.0, |s| s.x0),
                end: spans.last().map_or(0.0, |s| s.x1),
                y: baseline,
                gap,
                bold: spans.iter().all(|s| s.bold),
                table: true,
                ..Line::default()
            });
            continue;
        }
        for (k, s) in spans.iter().enumerate() {
            out.push(Line {
                text: s.text.clone(),
                size: s.size,
                x: s.x0,
                end: s.x1,
                y: s.baseline,
                gap: gap && k == 0,
                bold: s.bold,
                table: false,
                pitch: s.pitch.even(),
                mono: s.pitch.fixed(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glyphs of `text` from x at a baseline, 0.5 em per character.
    /// Glyphs of a proportional font, placed half the size apart: `i`,
    /// `l`, `.` and their kind are drawn narrower than the others.
    fn text_at(text: &str, x: f32, baseline: f32, size: f32) -> Vec<Glyph> {
        let step = 0.5 * size;
        text.chars()
            .enumerate()
            .map(|(i, ch)| {
                let left = x + i as f32 * step;
                let w = if "iljtfrI.,:;'!|()[]{}".contains(ch) {
                    0.3 * size
                } else {
                    step
                };
                Glyph {
                    ch,
                    left,
                    right: left + w,
                    top: baseline - 0.8 * size,
                    bottom: baseline + 0.2 * size,
                    origin: (left, baseline),
                    size,
                    bold: false,
                    turns: 0,
                }
            })
            .collect()
    }

    /// The same text turned a quarter counter-clockwise (reading upwards,
    /// as on a landscape slide), its baseline at `x`, starting at `y`.
    fn text_up(text: &str, x: f32, y: f32, size: f32) -> Vec<Glyph> {
        let w = 0.5 * size;
        text.chars()
            .enumerate()
            .map(|(i, ch)| {
                let bottom = y - i as f32 * w;
                Glyph {
                    ch,
                    left: x - 0.8 * size,
                    right: x + 0.2 * size,
                    top: bottom - w,
                    bottom,
                    origin: (x, bottom),
                    size,
                    bold: false,
                    turns: 1,
                }
            })
            .collect()
    }

    #[test]
    fn accents_set_apart_are_composed_with_their_letters() {
        // TeX's "m\'ecanique": the accent glyph, then the e under it.
        let mut g = text_at("m", 72.0, 100.0, 10.0);
        g.extend(text_at("\u{b4}", 77.5, 100.0, 10.0));
        g.extend(text_at("ecanique ao", 77.0, 100.0, 10.0));
        // "ao\^ut": the accent before the u it sits over.
        g.extend(text_at("\u{2c6}", 132.0, 100.0, 10.0));
        g.extend(text_at("ut", 132.0, 100.0, 10.0));
        // "na\"\i ve": the dotless i first, then the accent over it.
        g.extend(text_at("na\u{131}", 145.0, 100.0, 10.0));
        g.extend(text_at("\u{a8}", 155.0, 100.0, 10.0));
        g.extend(text_at("ve", 160.0, 100.0, 10.0));
        assert_eq!(texts(&lines(&g)), vec!["mécanique août naïve"]);
    }

    #[test]
    fn right_to_left_lines_are_read_in_their_order() {
        // "שלום עולם" drawn right to left: each letter left of the one
        // before, the second word left of the first.
        let mut g = Vec::new();
        let mut x = 300.0;
        for word in ["שלום", "עולם"] {
            for c in word.chars() {
                let mut one = text_at(&c.to_string(), x - 5.0, 100.0, 10.0);
                g.append(&mut one);
                x -= 5.0;
            }
            g.push(Glyph::space());
            x -= 4.0;
        }
        assert_eq!(texts(&lines(&g)), vec!["שלום עולם"]);
    }

    #[test]
    fn turned_text_is_read_upright() {
        // Two lines reading upwards; the second to the right of the first.
        let mut g = text_up("Seminar slides", 100.0, 700.0, 12.0);
        g.extend(text_up("second line", 115.0, 700.0, 12.0));
        // A short label the normal way up, after the turned text.
        g.extend(text_at("p. 1", 500.0, 750.0, 9.0));
        let l = lines(&g);
        assert_eq!(texts(&l), vec!["Seminar slides", "second line", "p. 1"]);
    }

    fn texts(lines: &[Line]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn words_and_lines_from_glyphs() {
        let mut g = text_at("Hello world", 72.0, 100.0, 10.0);
        g.extend(text_at("second line", 72.0, 112.0, 10.0));
        let l = lines(&g);
        assert_eq!(texts(&l), vec!["Hello world", "second line"]);
        assert!(!l[1].gap);
        // Characters drawn without spaces but apart are separate words.
        let mut g = text_at("alpha", 72.0, 100.0, 10.0);
        g.extend(text_at("beta", 72.0 + 5.0 * 5.0 + 3.0, 100.0, 10.0));
        assert_eq!(texts(&lines(&g)), vec!["alpha beta"]);
        // Ligatures are spelled out.
        let g = text_at("\u{fb01}ne", 72.0, 100.0, 10.0);
        assert_eq!(texts(&lines(&g)), vec!["fine"]);
    }

    #[test]
    fn a_monospaced_row_is_one_line_with_its_spaces() {
        // Courier-like: every glyph 6 points wide, narrow ones too; an
        // aligned comment far to the right stays on the line, its spaces
        // counted in glyph widths.
        let mono = |text: &str, x: f32, y: f32| -> Vec<Glyph> {
            text.chars()
                .enumerate()
                .filter(|(_, c)| *c != ' ')
                .map(|(i, ch)| {
                    let left = x + 6.0 * i as f32;
                    Glyph {
                        ch,
                        left,
                        right: left + 6.0,
                        top: y - 8.0,
                        bottom: y + 2.0,
                        origin: (left, y),
                        size: 10.0,
                        bold: false,
                        turns: 0,
                    }
                })
                .collect()
        };
        let mut g = mono("x = f(1)", 72.0, 100.0);
        g.extend(mono("# the first", 72.0 + 6.0 * 20.0, 100.0));
        g.extend(mono("    print(x)", 72.0, 112.0));
        let l = lines(&g);
        assert_eq!(
            texts(&l),
            vec!["x = f(1)            # the first", "print(x)"]
        );
        assert!(l.iter().all(|l| l.mono && (l.pitch - 6.0).abs() < 1e-3));
        assert!(!l[0].table);
        assert!((l[1].x - (72.0 + 24.0)).abs() < 1e-3);
    }

    #[test]
    fn a_double_spaced_page_has_gaps_only_between_paragraphs() {
        // Ten-point text on a 20-point pitch; one paragraph break of 36.
        let mut g = Vec::new();
        let mut y = 100.0;
        for i in 0..8 {
            y += if i == 4 { 36.0 } else { 20.0 };
            g.extend(text_at(&format!("line number {i}"), 72.0, y, 10.0));
        }
        let gaps: Vec<bool> = lines(&g).iter().map(|l| l.gap).collect();
        assert_eq!(
            gaps,
            [false, false, false, false, true, false, false, false]
        );
    }

    #[test]
    fn drawing_order_does_not_matter() {
        let mut g = text_at("second line", 72.0, 112.0, 10.0);
        g.extend(text_at("first line", 72.0, 100.0, 10.0));
        g.extend(text_at("far below", 72.0, 160.0, 10.0));
        let l = lines(&g);
        assert_eq!(texts(&l), vec!["first line", "second line", "far below"]);
        assert!(l[2].gap, "a gap of several lines is marked");
    }

    #[test]
    fn two_columns_are_read_one_after_the_other() {
        let mut g = text_at(
            "A Two Column Paper Title Spanning Everything",
            72.0,
            60.0,
            14.0,
        );
        for i in 0..8 {
            let y = 100.0 + i as f32 * 12.0;
            g.extend(text_at(
                &format!("left column line {i} of prose"),
                72.0,
                y,
                10.0,
            ));
            g.extend(text_at(
                &format!("right column line {i} of text"),
                320.0,
                y,
                10.0,
            ));
        }
        let l = lines(&g);
        let t = texts(&l);
        assert_eq!(t[0], "A Two Column Paper Title Spanning Everything");
        assert_eq!(t[1], "left column line 0 of prose");
        assert_eq!(t[8], "left column line 7 of prose");
        assert_eq!(t[9], "right column line 0 of text");
        assert_eq!(t.len(), 17);
        assert!(l.iter().all(|l| !l.table), "{t:?}");
    }

    #[test]
    fn table_rows_keep_their_label_with_their_numbers() {
        let mut g = text_at("Revenue by segment was as follows.", 72.0, 80.0, 10.0);
        let rows = [
            ("Segment", "2023", "2022"),
            ("Consumer", "1,234", "1,100"),
            ("Industrial", "987", "1,020"),
            ("Total", "2,221", "2,120"),
        ];
        for (i, (a, b, c)) in rows.iter().enumerate() {
            let y = 100.0 + i as f32 * 12.0;
            g.extend(text_at(a, 72.0, y, 10.0));
            // Numbers right-aligned at 300 and 380.
            g.extend(text_at(b, 300.0 - b.len() as f32 * 5.0, y, 10.0));
            g.extend(text_at(c, 380.0 - c.len() as f32 * 5.0, y, 10.0));
        }
        g.extend(text_at("The next paragraph of prose.", 72.0, 160.0, 10.0));
        let l = lines(&g);
        assert_eq!(
            texts(&l),
            vec![
                "Revenue by segment was as follows.",
                "Segment | 2023 | 2022",
                "Consumer | 1,234 | 1,100",
                "Industrial | 987 | 1,020",
                "Total | 2,221 | 2,120",
                "The next paragraph of prose.",
            ]
        );
        assert!(l[1..5].iter().all(|l| l.table));
        assert!(!l[0].table && !l[5].table);
    }

    #[test]
    fn currency_signs_join_their_amounts() {
        let mut g = Vec::new();
        for (i, (a, b)) in [("Cash", "1,234"), ("Debt", "(56")].iter().enumerate() {
            let y = 100.0 + i as f32 * 12.0;
            g.extend(text_at(a, 72.0, y, 10.0));
            g.extend(text_at("$", 250.0, y, 10.0));
            g.extend(text_at(b, 300.0 - b.len() as f32 * 5.0, y, 10.0));
            if i == 1 {
                g.extend(text_at(")", 310.0, y, 10.0));
            }
        }
        let l = lines(&g);
        assert_eq!(texts(&l), vec!["Cash | $1,234", "Debt | $(56)"]);
    }

    #[test]
    fn a_wide_word_space_in_prose_is_not_a_table() {
        let mut g = Vec::new();
        g.extend(text_at("Justified prose with", 72.0, 100.0, 10.0));
        g.extend(text_at("a wide gap here.", 200.0, 100.0, 10.0));
        g.extend(text_at("The next line has", 72.0, 112.0, 10.0));
        g.extend(text_at("its gap elsewhere.", 250.0, 112.0, 10.0));
        let l = lines(&g);
        assert!(l.iter().all(|l| !l.table), "{:?}", texts(&l));
        // Justified lines end at the same margin; after a sentence's wide
        // space the rest of the line is long prose, not a cell.
        let mut g = Vec::new();
        let rest = [
            "Longtable's automatic doubling of rules is",
            "in the documentation of that package itself",
        ];
        for (i, (a, b)) in [
            ("But the rules do not.", rest[0]),
            ("questionable, even according", rest[1]),
        ]
        .iter()
        .enumerate()
        {
            let y = 100.0 + 12.0 * i as f32;
            g.extend(text_at(a, 72.0, y, 10.0));
            // Both lines end at x = 540.
            g.extend(text_at(b, 540.0 - 5.0 * b.chars().count() as f32, y, 10.0));
        }
        let l = lines(&g);
        assert!(l.iter().all(|l| !l.table), "{:?}", texts(&l));
    }

    #[test]
    fn section_numbers_a_quad_from_their_titles_are_headings() {
        let mut g = text_at("6", 72.0, 100.0, 14.0);
        g.extend(text_at(
            "Booktabs and colortbl",
            72.0 + 7.0 + 14.0,
            100.0,
            14.0,
        ));
        g.extend(text_at(
            "Booktabs is now compatible with the colortbl package.",
            72.0,
            120.0,
            10.0,
        ));
        g.extend(text_at("7", 72.0, 150.0, 14.0));
        g.extend(text_at("Technical summary", 72.0 + 7.0 + 14.0, 150.0, 14.0));
        let l = lines(&g);
        assert_eq!(
            texts(&l),
            vec![
                "6 Booktabs and colortbl",
                "Booktabs is now compatible with the colortbl package.",
                "7 Technical summary"
            ]
        );
        assert!(l.iter().all(|l| !l.table));
    }

    #[test]
    fn a_label_in_the_margin_beside_prose_is_not_a_table() {
        let mut g = Vec::new();
        let prose = [
            "In the simplest of cases a table begins with a rule,",
            "has a single row of column headings, then a rule;",
            "after the columns of data we finish with a rule.",
        ];
        for (i, (label, p)) in ["\\toprule", "\\midrule", "\\bottomrule"]
            .iter()
            .zip(prose)
            .enumerate()
        {
            let y = 100.0 + 12.0 * i as f32;
            g.extend(text_at(label, 20.0, y, 10.0));
            g.extend(text_at(p, 120.0, y, 10.0));
        }
        let l = lines(&g);
        assert!(l.iter().all(|l| !l.table), "{:?}", texts(&l));
    }
}
