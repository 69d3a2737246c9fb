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

use super::body::most_common_size;
use super::glyphs::{compose_accents, push_char, rtl, superscript, Placed, GUESSED_BREAK, TURNS};
use super::page::{Line, Row, Span, Word};
use super::pitch::Pitch;
use super::spacing::{join_small_caps, join_spaced_letters};
use super::tables::{
    join_list_mark, join_section_number, merge_symbols, table_rows, CELL_SEPARATOR,
};
use super::tuning::TUNING;

pub(super) use super::glyphs::Glyph;
pub(super) use columns::usual_gutter;

mod columns;

/// The page's lines in reading order, and the x of the column gutter its
/// main text was read across, if it runs in columns. Text running in the
/// page's main direction comes first; text turned another way (a rotated
/// table, an axis label) follows, laid out in its own upright frame.
/// `usual` is the gutter the document's other pages show.
pub(super) fn lines_in_columns(glyphs: &[Glyph], usual: Option<f32>) -> (Vec<Line>, Option<f32>) {
    let mut counts = [0usize; TURNS as usize];
    for g in glyphs.iter().filter(|g| !g.ch.is_whitespace()) {
        counts[(g.turns % TURNS) as usize] += 1;
    }
    let main = (0..counts.len()).max_by_key(|&t| (counts[t], counts.len() - t));
    let main = main.unwrap_or(0) as u8;
    let mut out = Vec::new();
    let mut main_gutter = None;
    for turns in std::iter::once(main).chain((0..TURNS).filter(|&t| t != main)) {
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
                        ch: g.ch,
                        ..Placed::default()
                    });
                }
                continue;
            }
            current = Some(g.turns % TURNS);
            if g.turns % TURNS == turns {
                let (x0, x1, baseline) = g.upright();
                placed.push(Placed {
                    ch: g.ch,
                    x0,
                    x1,
                    baseline,
                    size: g.size,
                    bold: g.bold,
                    italic: g.italic,
                    face: g.face,
                    ink: g.ink,
                });
            }
        }
        let rows = rows(words(&compose_accents(placed)));
        let usual = usual.filter(|_| turns == main);
        let (rows, gutter) = columns::read_columns(rows, usual, 0);
        if turns == main {
            main_gutter = gutter;
        }
        // A justified line is told in its column, against the lines around it.
        out.extend(to_lines(&super::tables::join_justified(rows)));
    }
    (out, main_gutter)
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
    // Only the engine's guessed line breaks came between: glyphs that
    // touch on one baseline are one word whatever they are (`11,036`).
    let mut only_breaks = false;
    let mut bracketed = false;
    let tight = tight_spaces(glyphs);
    for (i, g) in glyphs.iter().enumerate() {
        let visible = visible(g);
        let joins = match (visible, last) {
            (true, Some(l)) => {
                let size = g.size.max(l.size);
                // After a space only glyphs that touch are one word: a
                // space is never narrower than a tenth of the size, and
                // a guessed one where there is no gap splits a word
                // ("Wo rldwide", or a word drawn a letter at a time).
                // Only where the word goes on in its case or its digits:
                // an `f` reaches over the space to a capital ("of Use").
                let goes_on = g.ch.is_lowercase() && l.ch.is_alphanumeric()
                    || g.ch.is_uppercase() && l.ch.is_uppercase()
                    || g.ch.is_numeric() && l.ch.is_numeric()
                    || only_breaks;
                let reach = match (spaced, goes_on) {
                    (false, _) => TUNING.letter_gap.0,
                    (true, true) => TUNING.letter_gap.1,
                    (true, false) => f32::NEG_INFINITY,
                };
                let forward = g.x0 - l.x1 < reach * size && g.x0 - l.x0 > -TUNING.back_reach * size;
                // Arabic and Hebrew are drawn right to left, in the order
                // they are read.
                let backward = rtl(g.ch)
                    && rtl(l.ch)
                    && l.x0 - g.x1 < reach * size
                    && l.x1 - g.x1 > -TUNING.back_reach * size;
                (g.baseline - l.baseline).abs() < TUNING.word_rise * size
                    && (forward || backward)
                    && !tight[i]
                    && !cur.as_ref().is_some_and(|w| after_mark(w, g))
            }
            _ => false,
        };
        if !visible {
            only_breaks = (only_breaks || !spaced) && g.ch == GUESSED_BREAK;
            spaced = true;
            continue;
        }
        spaced = false;
        if !joins {
            out.extend(cur.take());
        }
        let w = cur.get_or_insert_with(|| Word {
            x0: g.x0,
            x1: g.x1,
            baseline: g.baseline,
            size: g.size,
            ..Word::default()
        });
        let c = written(w, g, &mut bracketed);
        push_char(&mut w.text, c);
        w.pitch.add(g.ch, g.x1 - g.x0, g.size);
        w.x0 = w.x0.min(g.x0);
        w.x1 = w.x1.max(g.x1);
        // The word sits on its main baseline (a superscript does not move it).
        if g.size > w.size * TUNING.superscript_ratio {
            w.baseline = g.baseline;
        }
        w.size = w.size.max(g.size);
        w.style.add(g.bold, g.italic, g.face, g.ink);
        last = Some(g);
    }
    out.extend(cur);
    out
}

/// Whether `w` is a footnote's mark raised over the text `g` starts
/// (`¹http://…` reads `1 http://…`; a degree sign, an exponent's minus or
/// a `™` is none); run per glyph, so the word's text is read last.
fn after_mark(w: &Word, g: &Placed) -> bool {
    let mark = |c: char| c.is_ascii_digit() || super::lexicon::FOOTNOTE_MARKS.contains(c);
    g.ch.is_alphanumeric()
        && g.size > w.size * TUNING.mark_ratio
        && g.baseline - w.baseline > TUNING.mark_rise * g.size
        && w.text.chars().all(mark)
}

/// The character `g` is written as in `w`: a raised digit or sign as its
/// superscript, but inside a raised mark's brackets as printed
/// (`markets(1)`, as `notes(a)`); `bracketed` follows those.
fn written(w: &Word, g: &Placed, bracketed: &mut bool) -> char {
    let raised = raised_in(w, g);
    *bracketed = raised && (g.ch == '(' || *bracketed && g.ch != ')');
    let sup = (raised && !*bracketed).then(|| superscript(g.ch));
    sup.flatten().unwrap_or(g.ch)
}

/// Whether `g` is set smaller and raised in the word `w` it goes on: an
/// exponent (`10⁶`, `m²`) or a footnote's mark after a word (`message⁶`),
/// written as a superscript so that it is not read as another number (`106`).
fn raised_in(w: &Word, g: &Placed) -> bool {
    !w.text.is_empty()
        && w.size > g.size * TUNING.mark_ratio
        && w.baseline - g.baseline > TUNING.mark_rise * w.size
}

fn visible(g: &Placed) -> bool {
    !(g.ch.is_whitespace() || g.ch.is_control() || g.ch == '\u{fffe}')
}

/// Which glyphs start a word after a gap with no space in it, in a line set
/// tight: justified text (groff through Ghostscript) sets some of a line's
/// word spaces no wider than letters may stand apart elsewhere, and neither
/// the PDF nor the engine marks them. A line's spaces are all about as wide,
/// so a gap nearly as wide as the spaced gaps of its line (and a tenth of the
/// size) parts words; a line with fewer spaced gaps to measure is left alone.
fn tight_spaces(glyphs: &[Placed]) -> Vec<bool> {
    let mut out = vec![false; glyphs.len()];
    // Each visible glyph's index, its gap from the visible one before on its
    // line, and whether a space came between; lines end at a jump.
    let mut gaps: Vec<(usize, f32, bool)> = Vec::new();
    let mut last: Option<&Placed> = None;
    let mut spaced = false;
    let flush = |gaps: &mut Vec<(usize, f32, bool)>, out: &mut Vec<bool>| {
        mark_tight(gaps, glyphs, out);
        gaps.clear();
    };
    for (i, g) in glyphs.iter().enumerate() {
        if !visible(g) {
            spaced = true;
            continue;
        }
        match last {
            Some(l)
                if (g.baseline - l.baseline).abs() < TUNING.word_rise * g.size.max(l.size)
                    && g.x0 >= l.x0 =>
            {
                gaps.push((i, g.x0 - l.x1, spaced))
            }
            _ => flush(&mut gaps, &mut out),
        }
        spaced = false;
        last = Some(g);
    }
    flush(&mut gaps, &mut out);
    out
}

/// Marks the unspaced gaps of one line as wide as its spaced ones.
fn mark_tight(gaps: &[(usize, f32, bool)], glyphs: &[Placed], out: &mut [bool]) {
    let mut spaced: Vec<f32> = gaps
        .iter()
        .filter(|g| g.2 && g.1 > 0.0)
        .map(|g| g.1)
        .collect();
    if spaced.len() < TUNING.tight_space_samples {
        return;
    }
    spaced.sort_by(f32::total_cmp);
    let usual = spaced[spaced.len() / 2];
    let (least, share) = TUNING.tight_space;
    for &(i, gap, was_spaced) in gaps {
        let size = glyphs[i].size;
        out[i] = !was_spaced && gap >= least * size && gap >= share * usual;
    }
}

/// Words grouped into rows by baseline, each row cut into spans at wide gaps.
fn rows(mut words: Vec<Word>) -> Vec<Row> {
    words.sort_by(|a, b| a.baseline.total_cmp(&b.baseline));
    let mut groups: Vec<Vec<Word>> = Vec::new();
    let mut anchor = f32::MIN;
    let mut anchor_size = 0.0f32;
    for w in words {
        let tolerance = TUNING.row_baseline * w.size.max(anchor_size);
        match groups.last_mut() {
            Some(g) if (w.baseline - anchor).abs() <= tolerance => {
                // A raised footnote mark may open the row ("expenses (a)");
                // the row lies on its larger text's baseline.
                if w.size > anchor_size {
                    (anchor, anchor_size) = (w.baseline, w.size);
                }
                g.push(w)
            }
            _ => {
                anchor = w.baseline;
                anchor_size = w.size;
                groups.push(vec![w]);
            }
        }
    }
    groups.into_iter().map(row_of).collect()
}

/// A row's words, left to right, as its spans: a monospaced row is one
/// span, any other is cut where the gap between words is wide.
fn row_of(mut words: Vec<Word>) -> Row {
    words.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    let words = join_small_caps(join_spaced_letters(words));
    let is_rtl = mostly_rtl(&words);
    let pitch = row_pitch(&words, is_rtl);
    if !is_rtl && pitch.fixed() {
        return Row {
            spans: vec![monospaced(words, pitch)],
            rtl: false,
        };
    }
    let mut spans = spans_of(words, is_rtl);
    if !is_rtl {
        spans = join_list_mark(join_section_number(merge_symbols(spans)));
    }
    Row { spans, rtl: is_rtl }
}

/// More letters of right-to-left scripts than of others.
fn mostly_rtl(words: &[Word]) -> bool {
    let chars = || words.iter().flat_map(|w| w.text.chars());
    chars().filter(|&c| rtl(c)).count() > chars().filter(|&c| !rtl(c) && c.is_alphabetic()).count()
}

/// The pitch of a row's glyphs.
fn row_pitch(words: &[Word], is_rtl: bool) -> Pitch {
    let merged = |words: &[Word]| {
        let mut pitch = Pitch::default();
        words.iter().for_each(|w| pitch.merge(&w.pitch));
        pitch
    };
    let pitch = merged(words);
    // A listing's line number, set in the text font beside the code
    // ("377 \\fi"), says nothing of the code's pitch.
    let numbered = words.len() > 1 && words[0].text.chars().all(|c| c.is_ascii_digit());
    let code = (!is_rtl && !pitch.fixed() && numbered).then(|| merged(&words[1..]));
    code.filter(Pitch::fixed).unwrap_or(pitch)
}

/// Words joined into spans where the gap between them is narrow.
fn spans_of(words: Vec<Word>, is_rtl: bool) -> Vec<Span> {
    let mut spans: Vec<Word> = Vec::new();
    for w in words {
        match spans.last_mut() {
            Some(s) if w.x0 - s.x1 <= TUNING.span_gap * s.size.max(w.size) => {
                join(s, w, " ", is_rtl)
            }
            _ => spans.push(w),
        }
    }
    spans.into_iter().map(span).collect()
}

/// A row of monospaced words as one span: the space between two words
/// is as many spaces as glyphs would fit in it (aligned comments and
/// columns of a listing keep their places), never a cell break.
fn monospaced(words: Vec<Word>, pitch: Pitch) -> Span {
    let width = pitch.even();
    let mut joined = Word {
        x0: words.first().map_or(0.0, |w| w.x0),
        ..Word::default()
    };
    for w in words {
        let spaces = ((w.x0 - joined.x1) / width).round();
        let n = spaces.clamp(1.0, TUNING.max_spaces) as usize;
        let gap = if joined.text.is_empty() { 0 } else { n };
        join(&mut joined, w, &" ".repeat(gap), false);
    }
    Span {
        pitch,
        ..span(joined)
    }
}

/// Joins `w` to the words `s` after `gap` (before them in right-to-left
/// text, where the word to the left is read after).
fn join(s: &mut Word, w: Word, gap: &str, rtl: bool) {
    s.text = if rtl {
        format!("{}{gap}{}", w.text, s.text)
    } else {
        format!("{}{gap}{}", s.text, w.text)
    };
    s.x1 = s.x1.max(w.x1);
    s.baseline = s.baseline.max(w.baseline);
    s.size = s.size.max(w.size);
    s.pitch.merge(&w.pitch);
    s.style.merge(&w.style);
}

/// Words joined as a span, bold (italic) when most of their characters are.
fn span(w: Word) -> Span {
    let (bold, italic) = w.style.most();
    Span {
        bold,
        italic,
        face: w.style.face.winner(w.style.chars),
        ink: w.style.ink.winner(w.style.chars),
        text: w.text,
        x0: w.x0,
        x1: w.x1,
        baseline: w.baseline,
        size: w.size,
        pitch: w.pitch,
    }
}

/// The page's usual distance from one baseline to the next, 0 when too few
/// rows say. A double-spaced page (a thesis, a form) has a gap before every
/// line by the font size alone; a gap is measured against this instead.
/// Where lines wrap their steps are the paragraphs' own pitch and decide
/// it: on a page of short blocks (a filing's items, a manual's paragraphs
/// of a line or two, each with space around them) the steps between blocks
/// outnumber those inside them. Lines that run to their column's end on a
/// word say so first; else lines ending in a word over one going on in
/// lower case (which a title over a name in code fits too); else the
/// median step over rows that follow each other closely.
fn line_pitch(rows: &[Row]) -> f32 {
    let extents: Vec<Extent> = rows.iter().map(Extent::of_row).collect();
    // A margin several full lines show, not a lone line's own end; in the
    // page's text type, not a title's.
    let rights = right_edges(&extents, TUNING.pitch_samples.0);
    let spans = rows.iter().flat_map(|r| &r.spans);
    let text_size = most_common_size(spans.map(|s| (s.size, s.text.as_str())));
    let mut steps: Vec<f32> = Vec::new();
    // Steps under full lines, and over lines going on in lower case.
    let mut wrapped: [Vec<f32>; 2] = Default::default();
    for (i, w) in rows.windows(2).enumerate() {
        let (size, step) = (w[1].size(), w[1].baseline() - w[0].baseline());
        let (fewest, most) = TUNING.pitch_steps;
        if !(step > fewest * size && step < most * size) {
            continue;
        }
        steps.push(step);
        // In one type: a label in the margin ("verse" beside its
        // paragraph, under the heading "Verse") is smaller.
        let (Some(end), Some(start)) = (w[0].spans.last(), w[1].spans.first()) else {
            continue;
        };
        let last_text = end.text.trim_end();
        let ends_in_a_word = last_text.ends_with(|c: char| c.is_alphabetic() || c == ',');
        if !ends_in_a_word || (end.size - start.size).abs() >= TUNING.same_type_points {
            continue;
        }
        // One span: a table's row runs to its last column's end; an entry
        // of an index or contents, to its page number.
        let full = w[0].spans.len() == 1
            && (end.size - text_size).abs() < TUNING.same_type_points
            && extents[i].chars >= TUNING.full_line_chars
            && rights[i].is_some_and(|right| end.x1 >= right - TUNING.short_of_margin * end.size);
        if full {
            wrapped[0].push(step);
        }
        if start.text.starts_with(char::is_lowercase) {
            wrapped[1].push(step);
        }
    }
    let median = |mut v: Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    if let Some(wrapped) = wrapped
        .into_iter()
        .find(|w| w.len() >= TUNING.pitch_samples.0)
    {
        median(wrapped)
    } else if steps.len() >= TUNING.pitch_samples.1 {
        median(steps)
    } else {
        0.0
    }
}

/// Where a line lies across the page, for finding where full lines end.
pub(super) struct Extent {
    x: f32,
    end: f32,
    size: f32,
    chars: usize,
}

impl Extent {
    pub(super) fn of_line(l: &Line) -> Extent {
        let chars = l.text.chars().count();
        Extent {
            x: l.x,
            end: l.end,
            size: l.size,
            chars,
        }
    }

    fn of_row(r: &Row) -> Extent {
        Extent {
            x: r.spans.first().map_or(0.0, |s| s.x0),
            end: r.spans.last().map_or(0.0, |s| s.x1),
            size: r.size(),
            chars: r.spans.iter().map(|s| s.text.chars().count()).sum(),
        }
    }
}

/// Where full lines end, for each line: the 90th percentile of the right
/// edges of the lines long enough to be body text that start where it
/// does (within two font sizes), so each column of a page has its own;
/// `None` where fewer than `least` such lines end there (a page of short
/// paragraphs that never reach a margin).
pub(super) fn right_edges(lines: &[Extent], least: usize) -> Vec<Option<f32>> {
    lines
        .iter()
        .map(|l| {
            let reach = TUNING.column_reach * l.size.max(1.0);
            let mut ends: Vec<f32> = lines
                .iter()
                .filter(|o| (o.x - l.x).abs() <= reach && o.chars >= TUNING.full_line_chars)
                .map(|o| o.end)
                .collect();
            ends.sort_by(f32::total_cmp);
            let share = ends.len() * TUNING.full_line_share.0 / TUNING.full_line_share.1;
            let edge = *ends.get(share.min(ends.len().saturating_sub(1)))?;
            let at_edge = ends
                .iter()
                .filter(|&&e| e >= edge - TUNING.short_of_margin * l.size);
            (at_edge.count() >= least).then_some(edge)
        })
        .collect()
}

fn to_lines(rows: &[Row]) -> Vec<Line> {
    let table = table_rows(rows);
    let pitch = line_pitch(rows);
    let mut out: Vec<Line> = Vec::new();
    let mut prev_baseline: Option<f32> = None;
    for (r, in_table) in rows.iter().zip(table) {
        let (baseline, size) = (r.baseline(), r.size());
        let gap = prev_baseline
            .is_some_and(|p| baseline - p > (TUNING.gap.0 * size).max(TUNING.gap.1 * pitch));
        prev_baseline = Some(baseline);
        let mut spans: Vec<&Span> = r.spans.iter().collect();
        if r.rtl {
            spans.reverse();
        }
        if in_table {
            let cells: Vec<&str> = spans.iter().map(|s| s.text.as_str()).collect();
            out.push(Line {
                text: cells.join(CELL_SEPARATOR),
                size,
                x: spans.first().map_or(0.0, |s| s.x0),
                end: spans.last().map_or(0.0, |s| s.x1),
                y: baseline,
                gap,
                bold: spans.iter().all(|s| s.bold),
                italic: spans.iter().all(|s| s.italic),
                table: true,
                // A right-to-left row's cells stand in the other order.
                cells: if r.rtl {
                    Vec::new()
                } else {
                    spans.iter().map(|s| [s.x0, s.x1]).collect()
                },
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
                italic: s.italic,
                table: false,
                pitch: s.pitch.even(),
                mono: s.pitch.fixed(),
                face: s.face,
                ink: s.ink,
                ..Line::default()
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
