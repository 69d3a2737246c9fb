//! From a page's lines to blocks of lines: a block ends at a vertical
//! gap, a change of font size, a bold numbered line, a sentence that ends
//! short of the margin or before an indent, and a bullet. Also the
//! measures the grouping and the headings need: how much of the text is
//! bold, where wrapped lines start.

use std::collections::HashMap;

use super::contents::{page_ref, same_row};
use super::filing::is_part;
use super::numbering::{item_heading, numbered_depth};
use super::page::Line;
use super::reading::{self, Extent};
use super::text_shape::{
    ends_sentence, heading_text, index_group, index_letter, leader_run, leaders,
    starts_with_bullet, starts_with_enumerator,
};
use super::tuning::TUNING;
use crate::text::cjk::is_cjk;

/// The share of the characters set in lines that are `set` so (bold, say).
pub(super) fn share(pages: &[Vec<Line>], set: fn(&Line) -> bool) -> f32 {
    let chars = |l: &Line| l.text.chars().filter(|c| !c.is_whitespace()).count();
    let so: usize = pages.iter().flatten().filter(|l| set(l)).map(chars).sum();
    let all: usize = pages.iter().flatten().map(chars).sum();
    so as f32 / all.max(1) as f32
}

pub(super) fn mean_size(g: &[&Line]) -> f32 {
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

/// A block kept apart from the prose and the heading rules: a table's
/// rows, a listing. A lone bold line in a monospaced font is no listing:
/// an API reference heads its entries so (`worker.isMainThread`).
pub(super) fn apart(g: &[&Line]) -> bool {
    g[0].table || (g[0].mono && !(g.len() == 1 && g[0].bold))
}

/// Where wrapped lines of prose start, on odd pages and on even ones (a
/// two-sided layout moves the margin): the most common left edge of the
/// lines after a paragraph's first, listings and tables aside.
pub(super) fn wrap_margins(groups: &[(u32, Vec<&Line>)]) -> [Option<f32>; 2] {
    let mut hist: [HashMap<i32, usize>; 2] = Default::default();
    for (page, g) in groups {
        if apart(g) {
            continue;
        }
        let side = &mut hist[(*page % 2) as usize];
        for l in &g[1..] {
            *side.entry((l.x * 2.0).round() as i32).or_default() += 1;
        }
    }
    hist.map(|h| {
        h.into_iter()
            .max_by_key(|&(x, n)| (n, -x))
            .map(|(x, _)| x as f32 / 2.0)
    })
}

/// The first line of a paragraph in Chinese, indented two characters from
/// where its wrapped lines start: a one-line paragraph (a note between two
/// parts of a listing) looks like a heading, but a heading is set flush or
/// centred, never at the indent; a bold line there is a heading run in.
pub(super) fn indented_cjk_paragraph(line: &Line, margin: Option<f32>) -> bool {
    let Some(margin) = margin.filter(|_| !line.bold) else {
        return false;
    };
    let letters = line.text.chars().filter(|c| c.is_alphanumeric()).count();
    let cjk = line.text.chars().filter(|&c| is_cjk(c)).count();
    2 * cjk > letters
        && (line.x - margin - TUNING.cjk_indent.0 * line.size).abs()
            <= TUNING.cjk_indent.1 * line.size
}

/// The spans right of a line on its baseline, in its column (where a
/// gutter splits the page).
fn beside<'a>(
    page: &'a [Line],
    gutter: Option<f32>,
    line: &'a Line,
) -> impl Iterator<Item = &'a Line> {
    let side = move |x: f32| gutter.map(|g| x >= g);
    page.iter().filter(move |o| {
        !std::ptr::eq(*o, line)
            && (o.y - line.y).abs() < TUNING.same_baseline_points
            && o.x >= line.end
            && side(o.x) == side(line.x)
    })
}

/// How many cells of figures (three words at most, with a digit) stand
/// right of a line on its baseline, in its column: a table's row the
/// reader left apart (an exhibit's number and title, then its form,
/// date and file number). A heading stands alone on its line, after
/// its number or a line's number in the margin; the other column's line
/// beside it, where no gutter was found, is prose.
pub(super) fn cells_beside(page: &[Line], gutter: Option<f32>, line: &Line) -> usize {
    beside(page, gutter, line)
        .filter(|o| {
            o.text.split_whitespace().count() <= TUNING.cell_words
                && o.text.chars().any(|c| c.is_ascii_digit())
        })
        .count()
}

/// Whether a mark ("X", "✓") stands right of a line on its baseline, in
/// its column: an index of exhibits ticks its "filed herewith" column
/// beside an exhibit's number and title.
pub(super) fn mark_beside(page: &[Line], gutter: Option<f32>, line: &Line) -> bool {
    beside(page, gutter, line).any(|o| super::lexicon::CHECK_MARKS.contains(&o.text.trim()))
}

/// Splits a page's lines into blocks.
pub(super) fn group_lines(lines: &[Line]) -> Vec<Vec<&Line>> {
    let rights = right_edges(lines);
    let mut out: Vec<Vec<&Line>> = Vec::new();
    let mut cur: Vec<&Line> = Vec::new();
    // The leftmost start among the lines of the block being grouped.
    let mut left = f32::MAX;
    for (i, l) in lines.iter().enumerate() {
        let starts = match (cur.first(), cur.last()) {
            (Some(first), Some(prev)) if first.mono || l.mono => {
                !in_listing(first, prev, l, lines.get(i + 1))
            }
            (Some(_), Some(_)) => starts_paragraph(&cur, l, rights[i - 1], left),
            _ => false,
        };
        if starts {
            out.push(std::mem::take(&mut cur));
            left = f32::MAX;
        }
        left = left.min(l.x);
        cur.push(l);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether `l` goes on the listing `first` opens after `prev`: a
/// listing's lines at its pitch, blank lines and all. A bold line after
/// one in the listing's weight, at its left edge, starts a block: an
/// entry's name in bold code type heads the text under it (a keyword set
/// bold is indented in its listing, or shares its line), and so does a
/// line that names an entry in a colour of its own (`names_entry`).
fn in_listing(first: &Line, prev: &Line, l: &Line, next: Option<&Line>) -> bool {
    let pitch = first.pitch;
    let heads = (l.bold && !prev.bold || names_entry(first, l, next)) && l.x < first.x + pitch;
    first.mono
        && !l.table
        && !heads
        && l.pitch > 0.0
        && (l.pitch - pitch).abs() <= TUNING.listing_pitch_share * pitch
        && l.y > prev.y
        && l.y - prev.y <= TUNING.blank_line_step.1 * prev.size.max(1.0)
}

/// A line shown to be code, starting on a name, in a colour (not black)
/// other than the listing's first line's, after a blank line, over text:
/// an API reference's entry (`channel.publish(message)` in its headings'
/// blue) after the listing that ends the entry before. A comment in a
/// listing goes on into code, and so does a session's output label.
fn names_entry(first: &Line, l: &Line, next: Option<&Line>) -> bool {
    let named = l.mono && l.text.starts_with(char::is_alphabetic);
    named && l.ink != 0 && l.ink != first.ink && l.gap && next.is_some_and(|n| !n.mono)
}

/// Whether `l` starts a block after the lines of `cur`, whose last line
/// ends short of `right` (where its full lines end) and whose lines start
/// no further left than `left`.
fn starts_paragraph(cur: &[&Line], l: &Line, right: f32, left: f32) -> bool {
    let prev = cur[cur.len() - 1];
    // A contents entry's page number, set apart at the right of its row,
    // ends the entry it follows, not starts the next.
    if let Some(number) = leader_entry(cur, l) {
        return !number;
    }
    let (points, share) = TUNING.size_change;
    let size_change = (prev.size - l.size).abs() > points.max(share * prev.size.min(l.size));
    let ended = ends_sentence(&prev.text)
        && (prev.end < right - TUNING.short_of_margin * prev.size
            || l.x > left + TUNING.indent * l.size);
    // A filing's item, or a list's numbered item, after a sentence's end,
    // set without space above it and as far left as the item before.
    let item_start =
        ends_sentence(&prev.text) && (item_heading(&l.text) || starts_with_enumerator(&l.text));
    let table_edge = prev.table != l.table;
    table_edge
        || (!l.table
            && (l.gap
                || size_change
                || (weight_change(prev, l) && !run_in_label(prev, l, right))
                || (cur.len() == 1 && (heads_text(prev, l, right) || face_change(prev, l, right)))
                || item_start
                || ended
                || starts_with_bullet(&l.text)))
}

/// Whether `l` goes on the contents entry `cur` ends with, on its row
/// after its words: its dot leaders (set as a span of their own or not),
/// then its page number, after the leaders or after a numbered title
/// (a chapter's entry, often set without leaders) (`Some(true)`); whether
/// it is the line after such a number, the next entry (`Some(false)`);
/// `None` otherwise.
fn leader_entry(cur: &[&Line], l: &Line) -> Option<bool> {
    let on_row = |a: &Line, b: &Line| same_row(a, b) && b.x > a.end;
    let goes_on = |a: &Line, b: &Line| {
        on_row(a, b)
            && (leaders(&b.text)
                || (leader_run(a.text.chars().rev()) || numbered_depth(&a.text).is_some())
                    && page_ref(b.text.trim()))
    };
    let prev = cur[cur.len() - 1];
    if goes_on(prev, l) {
        return Some(true);
    }
    let entry = cur.len().checked_sub(2).map(|i| cur[i]);
    let numbered = entry.is_some_and(|e| goes_on(e, prev) && page_ref(prev.text.trim()));
    numbered.then_some(false)
}

/// A bold numbered line, or one over an indented paragraph, and the
/// regular text under it: a heading set without space around it (a
/// thesis's double-spaced pages). A bold label over its text ("Deposits"
/// in a filing's tables) stays with it.
fn weight_change(prev: &Line, l: &Line) -> bool {
    let numbered_bold = |l: &Line| l.bold && numbered_depth(&l.text).is_some();
    let indented = prev.bold && l.x > prev.x + TUNING.indent * l.size;
    // Bold and a little larger than the text under it (11pt over 10pt): a
    // heading too close in size for the size alone.
    let larger_bold = prev.bold && prev.size >= TUNING.slightly_larger_ratio * l.size;
    prev.bold != l.bold && (numbered_bold(prev) || numbered_bold(l) || indented || larger_bold)
}

/// A bold label with its text on its row, a quad or two after it, running
/// on to the column's end: a description list's `Shift` before what it
/// does, one block; so is a list's mark (`•`, `1.1`, `(F)`: no word of its
/// own) before a sentence of any length. A table's label has its next
/// column further off; a heading's title ends short of the margin.
fn run_in_label(prev: &Line, l: &Line, right: f32) -> bool {
    let mark = || prev.text.chars().filter(|c| c.is_alphabetic()).count() < 2;
    same_row(prev, l)
        && l.x > prev.end
        && l.x - prev.end <= TUNING.run_in_gap * l.size
        && (l.end >= right - TUNING.short_of_margin * l.size || ends_sentence(&l.text) && mark())
}

/// A line alone in another face than the line under it, ending short of
/// the column's end: a heading set in the text's size and weight, but in
/// its own face ("Transports Hierarchy" in sans over a serif "class …"), or
/// in bold and its own colour (a filing's blue "Capital actions" over its
/// black text).
fn face_change(prev: &Line, l: &Line, right: f32) -> bool {
    let known = |l: &Line| l.face != 0 && !l.mono;
    let face = known(prev) && known(l) && prev.face != l.face;
    // In bold over regular text: a link's colour marks no heading.
    let ink = prev.ink != l.ink && prev.bold && !l.bold && !prev.mono && !l.mono;
    (face || ink) && l.y > prev.y && prev.end < right - TUNING.short_of_margin * prev.size
}

/// Whether a block's one line `prev` heads the text `l` starts, a
/// heading set in the body's font.
fn heads_text(prev: &Line, l: &Line, right: f32) -> bool {
    // A short numbered line of its own ("3.1.2 洪家楼校区") over text that runs
    // further, which no sentence end separates from its paragraph. A list of
    // numbered lines (an exhibit index) and a wrapped entry stay together.
    let numbered_title = prev.end < right - TUNING.short_of_margin * prev.size
        && l.end > prev.end + TUNING.runs_further * prev.size
        && numbered_depth(&prev.text).is_some()
        && (numbered_depth(&l.text).is_none() || is_part(&prev.text))
        && heading_text(&prev.text);
    // A part over its first item ("PART I" over "ITEM 1. Business"), however set.
    let part_over_item = is_part(&prev.text) && numbered_depth(&l.text).is_some();
    // An index's letter or group over its first entry.
    let letter = index_letter(prev, Some(l)) || (prev.bold && index_group(&prev.text));
    numbered_title || part_over_item || letter
}

/// Where full lines end, for each line (`reading::right_edges`); where no
/// line of its column is long enough to say, the page's rightmost end.
fn right_edges(lines: &[Line]) -> Vec<f32> {
    let page_max = lines.iter().map(|l| l.end).fold(0.0, f32::max);
    let extents: Vec<Extent> = lines.iter().map(Extent::of_line).collect();
    let edges = reading::right_edges(&extents, 1).into_iter();
    edges.map(|edge| edge.unwrap_or(page_max)).collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::hyphens::Hyphenation;
    use super::super::text_shape::join_lines;
    use super::*;

    /// A line of `size` points from `x` to `end`, its baseline at `y`.
    pub(in super::super) fn line(
        text: &str,
        size: f32,
        x: f32,
        end: f32,
        y: f32,
        gap: bool,
    ) -> Line {
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
    pub(in super::super) fn body(text: &str, y: f32, gap: bool) -> Line {
        line(text, 11.0, 72.0, 540.0, y, gap)
    }

    /// Each block's text, its lines joined.
    fn grouped(lines: &[Line]) -> Vec<String> {
        group_lines(lines)
            .iter()
            .map(|g| join_lines(g, &Hyphenation::default()))
            .collect()
    }

    /// A contents page's rows, each an entry's words, its dot leaders (in
    /// its words' span or one of their own) and its page number apart at
    /// the right, or a chapter's numbered title and its number without
    /// leaders: each row is a block, its number at its end, not at the
    /// start of the next entry.
    #[test]
    fn a_contents_entrys_page_number_ends_its_entry() {
        let lines = vec![
            line("1 Password management", 12.0, 72.0, 184.0, 100.0, false),
            line("1", 12.0, 535.0, 540.0, 100.0, false),
            line(
                "1.1 Changing your password . . . . . . . .",
                10.0,
                87.0,
                518.0,
                112.0,
                false,
            ),
            line("1", 10.0, 535.0, 540.0, 112.0, false),
            line(
                "1.2 Obtaining tickets with kinit",
                10.0,
                87.0,
                222.0,
                124.0,
                false,
            ),
            line(". . . . . . . . . . . .", 10.0, 231.0, 518.0, 124.0, false),
            line("4", 10.0, 535.0, 540.0, 124.0, false),
            line(
                "1.3 Viewing tickets . . . . . . . . . . .",
                10.0,
                87.0,
                518.0,
                136.0,
                false,
            ),
            line("5", 10.0, 535.0, 540.0, 136.0, false),
        ];
        let g = grouped(&lines);
        assert_eq!(g.len(), 4, "{g:?}");
        assert_eq!(g[0], "1 Password management 1");
        assert!(
            g[1].starts_with("1.1 Changing your password") && g[1].ends_with(" 1"),
            "{g:?}"
        );
        assert!(
            g[2].starts_with("1.2 Obtaining") && g[2].ends_with(" 4"),
            "{g:?}"
        );
        assert!(
            g[3].starts_with("1.3 Viewing") && g[3].ends_with(" 5"),
            "{g:?}"
        );
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
        let groups = grouped(&lines);
        assert_eq!(groups.len(), 5, "{groups:#?}");
        assert!(groups[0].ends_with("short line."));
        assert!(groups[1].starts_with("Second") && groups[1].ends_with("full stop."));
        assert!(groups[2].starts_with("Third"));
        assert_eq!(groups[3], "Fourth after a gap.");
        assert_eq!(groups[4], "• a bullet item");
    }

    /// A heading in the text's size and weight but another face (sans
    /// over a serif text), set right over its text, is a block of its own;
    /// a paragraph's lines in one face, or a word of another face in a
    /// line (face 0: no face holds most of it), stay one block.
    #[test]
    fn a_line_alone_in_another_face_over_its_text_is_a_block_of_its_own() {
        let set = |face: u32, l: Line| Line { face, ..l };
        let (serif, sans) = (1, 2);
        let groups = grouped(&[
            set(
                sans,
                line("Transports Hierarchy", 11.0, 72.0, 200.0, 100.0, true),
            ),
            set(
                serif,
                body(
                    "Base class for all transports, which every other one of",
                    114.0,
                    false,
                ),
            ),
            set(serif, body("them shares.", 128.0, false)),
            set(
                serif,
                line(
                    "A short line in the text's face",
                    11.0,
                    72.0,
                    200.0,
                    160.0,
                    true,
                ),
            ),
            set(
                0,
                body(
                    "goes on in a line where a word is set in another face.",
                    174.0,
                    false,
                ),
            ),
        ]);
        assert_eq!(groups.len(), 3, "{groups:#?}");
        assert_eq!(groups[0], "Transports Hierarchy");
    }

    /// A bold heading a point larger than the text set right over it
    /// (a filing's "Noninterest revenue" over its note's text) is a block
    /// of its own; a bold label of the text's size over it stays with it.
    #[test]
    fn a_larger_bold_line_over_its_text_is_a_block_of_its_own() {
        let bold = |text: &str, size: f32, y: f32| Line {
            bold: true,
            ..line(text, size, 72.0, 200.0, y, false)
        };
        let under = |y: f32| {
            body(
                "Refer to Note 6 of the annual report for a discussion of the",
                y,
                false,
            )
        };
        let groups = grouped(&[bold("Noninterest revenue", 12.0, 100.0), under(114.0)]);
        assert_eq!(groups.len(), 2, "{groups:#?}");
        assert_eq!(groups[0], "Noninterest revenue");
        assert_eq!(
            group_lines(&[bold("Deposits", 11.0, 100.0), under(114.0)]).len(),
            1
        );
    }

    /// A description list's bold label a quad before its text, which runs
    /// on to the margin, is one block with it; a table's bold label with
    /// its next column far off is a block of its own, as is a bold label
    /// before a short title.
    #[test]
    fn a_bold_label_a_quad_before_its_text_is_one_block_with_it() {
        let label = |text: &str, end: f32| Line {
            bold: true,
            ..line(text, 11.0, 72.0, end, 100.0, false)
        };
        let rest = |x: f32, end: f32| {
            let text = "Dots can be shifted by the optional argument before the";
            vec![
                line(text, 11.0, x, end, 100.0, false),
                body("coordinates, as the next example shows.", 114.0, false),
            ]
        };
        let blocks = |x: f32, end: f32| {
            let mut lines = vec![label("Shift", 100.0)];
            lines.extend(rest(x, end));
            grouped(&lines)
        };
        assert_eq!(blocks(111.0, 540.0).len(), 1, "{:#?}", blocks(111.0, 540.0));
        assert_eq!(blocks(250.0, 540.0).len(), 2);
        assert_eq!(blocks(111.0, 300.0).len(), 2);
        // A list's mark before one sentence ending short of the margin;
        // a word's label before it stays apart.
        let item = |mark: &str| {
            let end = 72.0 + 5.5 * mark.chars().count() as f32;
            let text = "Corporate activities - Bethesda, Maryland.";
            let full = "A paragraph after a gap, running the full width of the column.";
            grouped(&[
                label(mark, end),
                line(text, 11.0, end + 11.0, 300.0, 100.0, false),
                body(full, 140.0, true),
            ])
        };
        assert_eq!((item("•").len(), item("(F)").len()), (2, 2));
        assert_eq!(item("Offices").len(), 3);
    }

    /// A numbered heading in the body's font, with no sentence end or gap
    /// between it and its paragraph.
    #[test]
    fn a_short_numbered_line_over_its_text_is_a_block_of_its_own() {
        let lines = vec![
            line("3.1.2 Harbour campus", 11.0, 72.0, 190.0, 100.0, false),
            body(
                "The harbour campus holds the schools of engineering and the arts",
                114.0,
                false,
            ),
            body("and the library.", 128.0, false),
        ];
        let groups = grouped(&lines);
        assert_eq!(groups.len(), 2, "{groups:#?}");
        assert_eq!(groups[0], "3.1.2 Harbour campus");
        // An exhibit index's numbered entries stay a list, and a wrapped
        // entry stays whole.
        let entries = vec![
            line("3.1 Restated Certificate", 11.0, 72.0, 200.0, 100.0, false),
            line(
                "3.2 Amended Bylaws of the Company",
                11.0,
                72.0,
                300.0,
                114.0,
                false,
            ),
        ];
        assert_eq!(group_lines(&entries).len(), 1);
        let wrapped = vec![
            line("4.3 Forms of Global Note", 11.0, 72.0, 230.0, 100.0, false),
            line("Senior Notes due 2025", 11.0, 72.0, 180.0, 114.0, false),
            body(
                "A paragraph after a gap, running the full width of the column.",
                150.0,
                true,
            ),
        ];
        assert_eq!(group_lines(&wrapped).len(), 2);
        // A part over its first item.
        let lines = vec![
            line("PART III", 11.0, 72.0, 120.0, 100.0, false),
            line(
                "ITEM 10. DIRECTORS AND OFFICERS",
                11.0,
                72.0,
                300.0,
                114.0,
                false,
            ),
        ];
        assert_eq!(group_lines(&lines).len(), 2);
        // A part centred over its item, the item's line ending first.
        let lines = vec![
            line("PART I", 10.0, 289.0, 320.0, 50.0, false),
            line("ITEM 1. Business", 10.0, 50.0, 130.0, 62.0, false),
        ];
        assert_eq!(group_lines(&lines).len(), 2);
        // An item right after a full line that ends a sentence.
        let lines = vec![
            line(
                "The information required by this Item 11 is incorporated by reference.",
                11.0,
                90.0,
                540.0,
                100.0,
                false,
            ),
            line(
                "ITEM 13. CERTAIN RELATIONSHIPS AND RELATED TRANSACTIONS",
                11.0,
                72.0,
                400.0,
                114.0,
                false,
            ),
        ];
        assert_eq!(group_lines(&lines).len(), 2);
    }
}
