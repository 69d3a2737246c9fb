//! A table cell whose text wraps over lines is one cell. Three shapes: a
//! row's label begun on the lines above its numbers (`Net cash used in` over
//! `investing activities | (2,297) | (1,764)`), a row whose text cells go
//! on below it while its first column stays empty (a specification's
//! `week of the year as a decimal number (Sunday` over `is the first day of
//! the week)`), and a row wrapped in every column (a heading row's `Number
//! of shares (in | Weighted-average` over `thousands) | grant-date fair
//! value`). All are told by where the lines stand (the label in the
//! label's column, each piece under one cell of the row) and by the text
//! going on (no sentence ended above, a lower-case word below, a label cut
//! off mid-phrase); joined with the document's own hyphenation, so an
//! agent reads each row whole.

use super::hyphens::Hyphenation;
use super::page::Line;
use super::tables::CELL_SEPARATOR;
use super::text_shape::{append_line, cut_off, ends_sentence, figure_caption};
use super::tuning::TUNING;

/// Joins the wrapped lines of each table row on a page into the row.
pub(super) fn join_wrapped_cells(lines: &mut Vec<Line>, hyphens: &Hyphenation) {
    let mut out: Vec<Line> = Vec::with_capacity(lines.len());
    let mut rest = std::mem::take(lines).into_iter().peekable();
    while let Some(mut line) = rest.next() {
        if !line.table {
            out.push(line);
            continue;
        }
        // A piece that begins the next row's label is that row's, not the
        // end of the row above (`… period ended,` / `(in millions, except`
        // / `and ratios) | 2021 | 2020`).
        let labels_next = rest.peek().is_some_and(|next| {
            next.table && line.cells.len() <= 1 && label_goes_on(&line, next, next.y)
        });
        if let Some(row) = out.last_mut().filter(|_| !labels_next) {
            if let Some(columns) = continues(row, &line) {
                append_cells(row, &line, &columns, hyphens);
                continue;
            }
        }
        let mut top = line.y;
        while out.last().is_some_and(|l| label_goes_on(l, &line, top)) && !beside(&out) {
            let Some(label) = out.pop() else { break };
            top = label.y;
            prepend_label(&mut line, &label, hyphens);
        }
        out.push(line);
    }
    *lines = out;
}

/// Whether the last line of `out` has another beside it on its baseline:
/// a piece of a row of its own (a list set in columns), not a label.
fn beside(out: &[Line]) -> bool {
    let [.., before, last] = out else {
        return false;
    };
    (before.y - last.y).abs() <= TUNING.row_baseline * last.size
}

/// Whether `label`, one line of text, begins the first cell of `row`
/// (whose wrapped lines so far start at `top`): closely above it in the
/// same type, in the row's first column (flush with it or a hanging
/// indent away, ending before the second cell), and going on into a cell
/// that opens with a lower-case word. (The caller checks it stands alone
/// on its baseline.)
fn label_goes_on(label: &Line, row: &Line, top: f32) -> bool {
    let (Some(first), Some(second)) = (row.cells.first(), row.cells.get(1)) else {
        return false;
    };
    let first_text = row.text.split(CELL_SEPARATOR).next().unwrap_or_default();
    let indent = first[0] - label.x;
    let slack = TUNING.edge_tolerance * row.size;
    label.cells.len() <= 1
        && !label.mono
        && same_type(label, row)
        && close(label.y, top, row.size)
        && first_text.starts_with(char::is_lowercase)
        && goes_on_after(&label.text)
        && !figure_caption(&label.text)
        && (-slack..=TUNING.wrap_indent * row.size).contains(&indent)
        && label.end < second[0]
}

/// Which cell of `row` each cell of `next` goes on (`None`: `next` is a
/// row of its own). Each piece of `next` must lie under exactly one cell
/// (left to right) and go on its text where no sentence ended: a text
/// cell's piece opens with a lower-case word (or closes a bracket left
/// open); the first column's only where its cell above was cut off
/// mid-phrase (`Czech, Polish,` over `Portuguese,`) or left a bracket
/// open. A cell of `row` must be text of several words (a row of single
/// words is a row of its own).
fn continues(row: &Line, next: &Line) -> Option<Vec<usize>> {
    let above: Vec<&str> = row.text.split(CELL_SEPARATOR).collect();
    let below: Vec<&str> = next.text.split(CELL_SEPARATOR).collect();
    let plain = above.len() == row.cells.len() && below.len() == next.cells.len();
    if !plain || row.mono || next.mono || !same_type(row, next) || !close(row.y, next.y, next.size)
    {
        return None;
    }
    let mut columns: Vec<usize> = Vec::with_capacity(below.len());
    for (cell, text) in next.cells.iter().zip(&below) {
        let mut under = row
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| overlap(c, cell));
        let (Some((k, _)), None) = (under.next(), under.next()) else {
            return None;
        };
        // A first column of names opens lower-case row after row
        // (`acos(x)` over `acosh(x)`): only a cut-off label goes on there,
        // and not in a listing's lines of equal-width glyphs.
        let code = row.pitch > 0.0 || next.pitch > 0.0;
        let opens = match k {
            0 => !code && (cut_short(above[k]) || unclosed(above[k])),
            _ => text.starts_with(char::is_lowercase) || unclosed(above[k]),
        };
        let goes_on = opens && goes_on_after(above[k]);
        if !goes_on || columns.last().is_some_and(|&m| m >= k) {
            return None;
        }
        columns.push(k);
    }
    let words = |t: &&str| t.split_whitespace().count();
    above
        .iter()
        .any(|t| words(t) >= TUNING.wrapped_cell_words)
        .then_some(columns)
}

/// Whether a cell's text stops mid-phrase: on a comma, a hyphen or a
/// joining word (`Receivables from`).
fn cut_short(t: &str) -> bool {
    let t = t.trim_end();
    // A date closes a label (`At December 31,`): the rows below are its own.
    let dated = t
        .strip_suffix(',')
        .is_some_and(|t| t.ends_with(|c: char| c.is_ascii_digit()));
    (t.ends_with([',', '-', '&', '/']) && !dated) || cut_off(t)
}

/// Appends each cell of `next` to the cell of `row` it goes on.
fn append_cells(row: &mut Line, next: &Line, columns: &[usize], hyphens: &Hyphenation) {
    let mut cells: Vec<String> = row.text.split(CELL_SEPARATOR).map(String::from).collect();
    for ((text, edges), &k) in next
        .text
        .split(CELL_SEPARATOR)
        .zip(&next.cells)
        .zip(columns)
    {
        append_line(&mut cells[k], text, hyphens);
        row.cells[k] = [row.cells[k][0].min(edges[0]), row.cells[k][1].max(edges[1])];
    }
    row.text = cells.join(CELL_SEPARATOR);
    row.end = row.end.max(next.end);
    row.y = next.y;
}

/// Puts `label` ahead of the first cell of `row`.
fn prepend_label(row: &mut Line, label: &Line, hyphens: &Hyphenation) {
    let (first, rest) = row
        .text
        .split_once(CELL_SEPARATOR)
        .unwrap_or((row.text.as_str(), ""));
    let mut text = label.text.trim().to_string();
    append_line(&mut text, first, hyphens);
    row.text = format!("{text}{CELL_SEPARATOR}{rest}");
    row.x = row.x.min(label.x);
    row.cells[0] = [row.cells[0][0].min(label.x), row.cells[0][1].max(label.end)];
    row.gap = label.gap;
}

/// Whether text may go on after `t`: no sentence ended, and no number (a
/// page or a figure) closed an entry.
fn goes_on_after(t: &str) -> bool {
    !ends_sentence(t) && !t.trim_end().ends_with(|c: char| c.is_ascii_digit())
}

/// Whether `t` opens a bracket it does not close (`… number (range`).
fn unclosed(t: &str) -> bool {
    let count = |set: [char; 2]| t.chars().filter(|c| set.contains(c)).count();
    count(['(', '[']) > count([')', ']'])
}

fn same_type(a: &Line, b: &Line) -> bool {
    (a.size - b.size).abs() <= TUNING.same_type_points && a.bold == b.bold
}

/// Whether a line at `below` is the next line of one at `above`.
fn close(above: f32, below: f32, size: f32) -> bool {
    below > above && below - above <= TUNING.gap.0 * size
}

fn overlap(a: &[f32; 2], b: &[f32; 2]) -> bool {
    a[1].min(b[1]) > a[0].max(b[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[(&str, f32, f32)], y: f32) -> Line {
        let text: Vec<&str> = cells.iter().map(|c| c.0).collect();
        Line {
            text: text.join(CELL_SEPARATOR),
            size: 10.0,
            x: cells[0].1,
            end: cells[cells.len() - 1].2,
            y,
            table: true,
            cells: cells.iter().map(|c| [c.1, c.2]).collect(),
            ..Line::default()
        }
    }

    fn text(t: &str, x: f32, end: f32, y: f32) -> Line {
        Line {
            text: t.into(),
            size: 10.0,
            x,
            end,
            y,
            ..Line::default()
        }
    }

    fn joined(mut lines: Vec<Line>) -> Vec<String> {
        join_wrapped_cells(&mut lines, &Hyphenation::default());
        lines.into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn a_label_begun_over_its_numbers_joins_its_row() {
        let lines = vec![
            text("Net increase in cash", 72.0, 170.0, 100.0),
            text("and cash equivalents,", 80.0, 180.0, 112.0),
            row(
                &[
                    ("including restricted", 80.0, 175.0),
                    ("12", 300.0, 310.0),
                    ("(2,501)", 350.0, 380.0),
                ],
                124.0,
            ),
            row(&[("Total", 72.0, 100.0), ("7", 300.0, 310.0)], 136.0),
        ];
        assert_eq!(
            joined(lines),
            [
                "Net increase in cash and cash equivalents, including restricted | 12 | (2,501)",
                "Total | 7"
            ]
        );
    }

    #[test]
    fn a_label_ending_a_sentence_or_reaching_the_numbers_stays_apart() {
        let numbers = || row(&[("net of tax", 72.0, 120.0), ("12", 300.0, 310.0)], 112.0);
        for label in [
            text("Other income:", 72.0, 140.0, 100.0),
            text(
                "The table below shows what each segment earned in",
                72.0,
                400.0,
                100.0,
            ),
            text("Table 4 Results for", 72.0, 170.0, 100.0),
            text("Far above", 72.0, 170.0, 60.0),
        ] {
            let before = label.text.clone();
            assert_eq!(joined(vec![label, numbers()]), [before, numbers().text]);
        }
    }

    #[test]
    fn a_list_set_in_columns_or_an_entry_closed_by_a_number_is_no_label() {
        let entry = || {
            row(
                &[("cbmtics, 226", 72.0, 120.0), ("edf, 105", 300.0, 340.0)],
                112.0,
            )
        };
        let columns = vec![
            text("uzbek-arab", 72.0, 120.0, 100.0),
            text("uzbek-latn", 200.0, 250.0, 100.0),
            row(&[("uzbek", 200.0, 230.0), ("yiddish", 300.0, 340.0)], 112.0),
        ];
        assert_eq!(joined(columns).len(), 3);
        let closed = vec![text("asin, 37", 72.0, 110.0, 100.0), entry()];
        assert_eq!(joined(closed).len(), 2);
    }

    #[test]
    fn cells_wrapped_under_a_row_join_it_while_its_first_column_stays_empty() {
        let lines = vec![
            row(
                &[
                    ("one", 60.0, 80.0),
                    ("The width of this (range", 100.0, 190.0),
                    ("three", 230.0, 260.0),
                    ("Column four will act in", 280.0, 400.0),
                ],
                100.0,
            ),
            row(
                &[
                    ("column depends on the", 100.0, 200.0),
                    ("the same way as", 280.0, 360.0),
                ],
                112.0,
            ),
            row(&[("same width.", 280.0, 340.0)], 124.0),
            row(&[("[001,366])", 100.0, 150.0)], 136.0),
            row(&[("two", 60.0, 80.0), ("Other", 100.0, 130.0)], 148.0),
        ];
        assert_eq!(
            joined(lines),
            [
                "one | The width of this (range column depends on the [001,366]) | three | Column \
                 four will act in the same way as same width.",
                "two | Other"
            ]
        );
    }

    #[test]
    fn a_row_of_its_own_under_an_empty_first_column_stays_apart() {
        let above = || {
            row(
                &[
                    ("Fruit", 60.0, 90.0),
                    ("apple", 100.0, 130.0),
                    ("red", 200.0, 220.0),
                ],
                100.0,
            )
        };
        // Single words, numbers, a capital, a sentence ended above.
        for below in [
            row(&[("banana", 100.0, 140.0), ("yellow", 200.0, 230.0)], 112.0),
            row(&[("12", 100.0, 110.0), ("14", 200.0, 210.0)], 112.0),
        ] {
            let texts = [above().text, below.text.clone()];
            assert_eq!(joined(vec![above(), below]), texts);
        }
        let sentence = row(
            &[("x", 60.0, 70.0), ("Reads the file first.", 100.0, 190.0)],
            100.0,
        );
        let next = row(&[("then writes it", 100.0, 170.0)], 112.0);
        let texts = [sentence.text.clone(), next.text.clone()];
        assert_eq!(joined(vec![sentence, next]), texts);
    }

    #[test]
    fn a_row_wrapped_in_every_column_joins_where_each_cell_goes_on() {
        let lines = vec![
            row(
                &[
                    ("Number of shares (in", 60.0, 150.0),
                    ("Weighted-average", 200.0, 280.0),
                    ("Total value of", 320.0, 390.0),
                ],
                100.0,
            ),
            row(
                &[
                    ("thousands)", 60.0, 110.0),
                    ("grant-date fair value", 200.0, 290.0),
                    ("awards", 320.0, 350.0),
                ],
                112.0,
            ),
            row(
                &[
                    ("Czech, Polish,", 60.0, 130.0),
                    ("hyphen.repeat", 200.0, 260.0),
                    ("Explicit hyphens behave like", 320.0, 450.0),
                ],
                124.0,
            ),
            row(
                &[("Slovak", 60.0, 90.0), ("babelhyphen", 320.0, 370.0)],
                136.0,
            ),
        ];
        assert_eq!(
            joined(lines),
            [
                "Number of shares (in thousands) | Weighted-average grant-date fair value | Total \
                 value of awards",
                "Czech, Polish, Slovak | hyphen.repeat | Explicit hyphens behave like babelhyphen"
            ]
        );
    }

    #[test]
    fn a_first_column_of_names_or_a_dated_label_starts_rows_of_its_own() {
        let function = |name: &str, what: &str, y: f32| {
            row(
                &[
                    (name, 60.0, 100.0),
                    ("any", 150.0, 170.0),
                    (what, 200.0, 330.0),
                ],
                y,
            )
        };
        let names = vec![
            function("acos(x)", "the inverse cosine of x", 100.0),
            function("acosh(x)", "the inverse hyperbolic cosine", 112.0),
        ];
        assert_eq!(joined(names).len(), 2);
        let dated = vec![
            row(
                &[
                    ("Benefit obligation as of December 31,", 60.0, 200.0),
                    ("$2,386", 250.0, 280.0),
                ],
                100.0,
            ),
            row(&[("change in plan assets", 60.0, 160.0)], 112.0),
        ];
        assert_eq!(joined(dated).len(), 2);
    }

    #[test]
    fn a_piece_that_begins_the_next_rows_label_is_that_rows() {
        let lines = vec![
            row(
                &[
                    ("As of or for the period ended,", 60.0, 200.0),
                    ("Three months ended", 250.0, 330.0),
                ],
                100.0,
            ),
            row(&[("(in millions, except per share", 60.0, 200.0)], 112.0),
            row(
                &[
                    ("data and ratios)", 60.0, 130.0),
                    ("2021", 250.0, 270.0),
                    ("2020", 300.0, 320.0),
                ],
                124.0,
            ),
        ];
        assert_eq!(
            joined(lines),
            [
                "As of or for the period ended, | Three months ended",
                "(in millions, except per share data and ratios) | 2021 | 2020"
            ]
        );
    }
}
