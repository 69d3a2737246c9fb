//! Table rows among a page's rows: spans that are cells (short, lined up
//! with the rows around them), joined by ` | ` so a row's label stays
//! with its numbers; and the fixes a row's spans need first (a currency
//! sign apart from its amount, a section number a quad from its title).

use super::lexicon::{LIST_DASHES, LIST_MARKS};
use super::numbering::{chapter_label, item_heading, subsection, tex_command_first};
use super::page::{Row, Span};
use super::text_shape::{ends_sentence, leaders};
use super::tuning::TUNING;

/// What separates the cells of a table row in the indexed text.
pub const CELL_SEPARATOR: &str = " | ";

/// A section number or a chapter's label set a quad apart from its title
/// (`6   Booktabs and colortbl`, TeX's way) is one heading, not two cells.
pub(super) fn join_section_number(mut spans: Vec<Span>) -> Vec<Span> {
    if spans.len() < 2 {
        return spans;
    }
    let number = spans[0].text.trim_end_matches('.');
    // `6`, `2.4.2`, `A.1`, or a filing's `Item 5.` left of its title.
    let item = item_heading(&spans[0].text) && spans[0].text.split_whitespace().count() == 2;
    // A chapter's label a quad from its title (`第一章  简介`).
    let label = chapter_label(&spans[0].text);
    let numbered = label
        || !number.is_empty()
            && number.split('.').all(|p| {
                (1..=TUNING.section_number_digits).contains(&p.len())
                    && p.chars().all(|c| c.is_ascii_digit())
                    || (p.len() == 1 && p.chars().all(|c| c.is_ascii_uppercase()))
            })
        || item;
    // Three letters, or two of a script without case (`2.4.2  字体`).
    let letters = spans[1].text.chars().filter(|c| c.is_alphabetic());
    let caseless = letters
        .clone()
        .filter(|c| !c.is_uppercase() && !c.is_lowercase())
        .count();
    // A subsection's title may start with the TeX command it describes
    // (`4.1 \istroot: basics`; a listing numbers its lines).
    let first = &spans[1].text;
    let command = tex_command_first(first) && subsection(&spans[0].text);
    let title = (first.starts_with(char::is_alphabetic) || command)
        && (letters.count() >= TUNING.title_letters || caseless >= 2);
    // A filing sets its item's title at a tab stop ("ITEM 7." then
    // "Management's Discussion…" an inch to the right).
    let (item_reach, number_reach) = TUNING.number_reach;
    let reach = if item { item_reach } else { number_reach };
    let close = spans[1].x0 - spans[0].x1 <= reach * spans[0].size.max(spans[1].size);
    if numbered && title && close {
        let second = spans.remove(1);
        let first = &mut spans[0];
        first.text = format!("{} {}", first.text, second.text);
        first.x1 = second.x1;
        first.bold &= second.bold;
        first.italic &= second.italic;
    }
    spans
}

/// A list's mark set a tab from its item's text (a bullet at the list's
/// indent, Word's and LibreOffice's way) starts the item's line, not a
/// column of a table; a dash does only before the item alone (before more
/// cells it is a table's "nothing").
pub(super) fn join_list_mark(mut spans: Vec<Span>) -> Vec<Span> {
    let two = spans.len() == 2;
    let is_mark = |c: char| LIST_MARKS.contains(c) || two && LIST_DASHES.contains(c);
    let lone_mark = |t: &str| t.chars().count() == 1 && t.chars().all(is_mark);
    let close = |a: &Span, b: &Span| b.x0 - a.x1 <= TUNING.number_reach.1 * b.size;
    if spans.len() >= 2 && lone_mark(spans[0].text.trim()) && close(&spans[0], &spans[1]) {
        // The line is the item's, in its type, from where its mark stands.
        let mark = spans.remove(0);
        spans[0].text = format!("{} {}", mark.text.trim(), spans[0].text);
        spans[0].x0 = mark.x0;
    }
    spans
}

/// A currency sign set apart from its amount (`$      1,234`) joins the
/// amount, also when it was set a space after the amount before it
/// (`3,226.8 $` then `2,729.4`); a closing bracket or percent sign joins
/// the number before it.
pub(super) fn merge_symbols(spans: Vec<Span>) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    let mut pending: Option<Span> = None;
    let (opens, closes) = super::lexicon::AMOUNT_MARKS;
    let count = spans.len();
    for (i, mut s) in spans.into_iter().enumerate() {
        if let Some(p) = pending.take() {
            s.text = format!("{}{}", p.text, s.text);
            s.x0 = p.x0;
        }
        let trailing = s.text.rsplit_once(' ').filter(|(_, m)| opens.contains(m));
        if let Some((amount, mark)) = trailing.filter(|_| i + 1 < count) {
            let mark = Span {
                text: mark.to_string(),
                x0: s.x1,
                ..s.clone()
            };
            s.text = amount.to_string();
            out.push(s);
            pending = Some(mark);
            continue;
        }
        let t = s.text.as_str();
        if opens.contains(&t) {
            pending = Some(s);
            continue;
        }
        if let Some(prev) = out.last_mut().filter(|_| closes.contains(&t)) {
            prev.text.push_str(t);
            prev.x1 = s.x1;
            continue;
        }
        out.push(s);
    }
    out.extend(pending);
    out
}

/// Lines of justified prose joined back as one span each: in a narrow column
/// justifying can widen a line's word spaces past a cell's gap, and the line
/// would read as a row of one-word cells.
pub(super) fn join_justified(mut rows: Vec<Row>) -> Vec<Row> {
    let justified: Vec<bool> = (0..rows.len()).map(|i| justified(&rows, i)).collect();
    for (r, _) in rows.iter_mut().zip(justified).filter(|(_, j)| *j) {
        let mut spans = std::mem::take(&mut r.spans).into_iter();
        let mut line = spans.next().unwrap_or_default();
        for s in spans {
            line.text = format!("{} {}", line.text, s.text);
            (line.x1, line.size) = (s.x1, line.size.max(s.size));
            (line.bold, line.italic) = (line.bold && s.bold, line.italic && s.italic);
            line.pitch.merge(&s.pitch);
        }
        r.spans = vec![line];
    }
    rows
}

/// Justifying widens a line's spaces alike (TeX's after a sentence more) and
/// ends it at the margin where the lines around it end, where a table's cells
/// stand as its columns fall: a few gaps alike within a share of the size
/// (`justified_spaces`), between words half of which start in lower case (not
/// a table's header or its amounts), in a row ending where the row above or
/// below does (not a row of a table's widest cells, its text column ragged).
fn justified(rows: &[Row], i: usize) -> bool {
    let (r, (fewest, spread)) = (&rows[i], TUNING.justified_spaces);
    let size = r.size();
    let spaces = r.spans.windows(2).filter(|p| !ends_sentence(&p[0].text));
    let gaps: Vec<f32> = spaces.map(|p| p[1].x0 - p[0].x1).collect();
    let most = gaps.iter().copied().fold(f32::MIN, f32::max);
    let least = gaps.iter().copied().fold(f32::MAX, f32::min);
    let first = |s: &&Span| s.text.chars().find(|c| c.is_alphanumeric());
    let lower = |s: &&Span| first(s).is_some_and(char::is_lowercase);
    let prose = 2 * r.spans.iter().filter(lower).count() >= r.spans.len();
    let end = |n: &Row| n.spans.last().map_or(f32::MIN, |s| s.x1);
    let near = |n: &&Row| (n.baseline() - r.baseline()).abs() <= TUNING.row_step.0 * size;
    let flush = |n: &Row| (end(n) - end(r)).abs() <= spread * size;
    let beside = [i.wrapping_sub(1), i + 1].map(|k| rows.get(k).filter(near).is_some_and(flush));
    gaps.len() >= fewest && most - least <= spread * size && prose && beside.contains(&true)
}

/// A short cell, or a number: a right edge that lines up means a column
/// (the right margin of justified prose lines up too, but prose is long).
pub(super) fn cell_like(s: &Span) -> bool {
    let n = s.text.chars().count();
    let digits = s.text.chars().filter(char::is_ascii_digit).count();
    n <= TUNING.cell_chars || digits * 2 >= n
}

/// The spans of a row could be a table's cells: several, none but the first
/// (a row label) as long as a line of prose. A label in the margin beside a
/// paragraph, or a wide word space in justified text, gives two, one long;
/// a row of three or more may hold a description as long as a label
/// (`%j | day of the year as a decimal number (range | tm_yday`), not
/// long dot leaders (a contents entry's, kept as one line).
pub(super) fn cells(r: &Row) -> bool {
    let (first, other) = TUNING.row_cell_chars;
    let wide = r.spans.len() >= TUNING.wide_row_cells;
    r.spans.len() >= 2
        && r.spans.iter().enumerate().all(|(i, s)| {
            let described = wide && !leaders(&s.text);
            s.text.chars().count() <= if i == 0 || described { first } else { other }
        })
}

/// At least `n` cell boundaries of `a` line up with one of `b`'s (the
/// count stops at `n`: most rows are tested for one): a span of one
/// starts or ends where a span of the other does (left edges of the first
/// cells aside, which every line of a paragraph shares; the right edge of
/// the last only for short cells and numbers).
fn share_edges(a: &Row, b: &Row, n: usize) -> bool {
    let tol = TUNING.edge_tolerance * a.size().max(b.size());
    let edges = |r: &Row| -> Vec<(f32, bool)> {
        let last = r.spans.len() - 1;
        let spans = r.spans.iter().enumerate();
        let each = spans.flat_map(|(i, s)| {
            let start = (i > 0).then_some((s.x0, true));
            [start, (i < last || cell_like(s)).then_some((s.x1, false))]
        });
        each.flatten().collect()
    };
    let eb = edges(b);
    edges(a)
        .iter()
        .filter(|(x, start)| eb.iter().any(|(y, s)| s == start && (x - y).abs() <= tol))
        .take(n)
        .count()
        == n
}

/// Marks the rows that belong to tables: runs of at least two rows with several
/// aligned spans, with the one-span rows between them (a group label inside a
/// table) when the table goes on below them, and up to two short ones closely under
/// the last. Rows follow each other within 2.6 line heights. A row of three cells
/// or more that shares two edges with the table's last row of cells may stand up to
/// 3.5 away, as in an exhibit index with a blank line between its entries (27
/// points at 10pt); a heading set in two parts (a number and its title,
/// letter-spaced characters) does not reach down to the next one that way.
pub(super) fn table_rows(rows: &[Row]) -> Vec<bool> {
    let mut table = vec![false; rows.len()];
    let wide = |r: &Row| r.spans.len() >= TUNING.wide_row_cells;
    let prose_chars = TUNING.short_line.1;
    let within = |a: &Row, b: &Row, heights: f32| {
        let dy = b.baseline() - a.baseline();
        dy > 0.0 && dy <= heights * a.size().max(b.size())
    };
    let mut i = 0;
    while i < rows.len() {
        if !cells(&rows[i]) {
            i += 1;
            continue;
        }
        // Extend the run from row i.
        let mut last_multi = i;
        let mut count = 1;
        let mut j = i + 1;
        while j < rows.len() {
            let (above, row) = (&rows[j - 1], &rows[j]);
            let next_cells = cells(row) && share_edges(&rows[last_multi], row, 1);
            let spaced_entry = next_cells
                && wide(row)
                && wide(&rows[last_multi])
                && share_edges(&rows[last_multi], row, 2)
                && within(above, row, TUNING.row_step.1);
            if !(within(above, row, TUNING.row_step.0) || spaced_entry) {
                break;
            }
            if cells(row) {
                if !next_cells {
                    break;
                }
                last_multi = j;
                count += 1;
            } else if j - last_multi > 2 || row.spans[0].text.chars().count() > prose_chars {
                // More than two one-cell rows, or a line of prose: the table ended.
                break;
            }
            j += 1;
        }
        if count >= 2 {
            let end = last_multi + 1 + lines_under(&rows[last_multi..]);
            table[i..end].fill(true);
            i = end;
        } else {
            i += 1;
        }
    }
    table
}

/// How many of the rows under a table's last row of cells (`rows[0]`) are
/// that entry's own short lines (a wrapped description, a signer's name
/// under the cells): up to two, in the table's type (not a heading's),
/// closely under it, and only where the table ends there; a line going on
/// closely below is text of its own (a label over the next table).
fn lines_under(rows: &[Row]) -> usize {
    let size = rows[0].size();
    let close = |k: usize| rows[k].baseline() - rows[k - 1].baseline() <= TUNING.gap.0 * size;
    let mut end = 1;
    while end < rows.len()
        && end <= 2
        && rows[end].spans.len() == 1
        && rows[end].spans[0].text.chars().count() <= TUNING.short_line.1
        && rows[end].size() <= size + TUNING.same_type_points
        && close(end)
    {
        end += 1;
    }
    if end < rows.len() && close(end) {
        0
    } else {
        end - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Row {
        let span = |(i, t): (usize, &&str)| Span {
            text: t.to_string(),
            x0: 100.0 * i as f32,
            x1: 100.0 * i as f32 + 80.0,
            size: 10.0,
            ..Span::default()
        };
        Row {
            spans: cells.iter().enumerate().map(span).collect(),
            rtl: false,
        }
    }

    #[test]
    fn a_row_of_three_may_hold_a_long_description_but_not_long_leaders() {
        let description = "day of the year as a decimal number (range";
        assert!(cells(&row(&["%j", description, "tm_yday"])));
        // Two spans, one long: a label in the margin beside a paragraph.
        assert!(!cells(&row(&["Note", description])));
        let leaders = ". . . . . . . . . . . . . . . . . . . . . . . . .";
        assert!(!cells(&row(&["\\kV", leaders, "12"])));
        assert!(cells(&row(&["\\kV", ". . . .", "12"])));
    }
}
