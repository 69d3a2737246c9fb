//! Which rows are a table's, on rows the tests place.

use super::*;

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

/// A row's label carries a raised footnote mark and its figures are set
/// two points lower (as statements set them): one row still.
#[test]
fn a_footnote_mark_in_a_label_keeps_the_row_with_its_figures() {
    let rows = [
        ("Cost of sales", "7,988", ""),
        ("Selling expenses", "7,229", " (a)"),
    ];
    let mut g = Vec::new();
    for (i, (label, figure, mark)) in rows.iter().enumerate() {
        let y = 100.0 + i as f32 * 14.0;
        g.extend(text_at(label, 72.0, y, 9.0));
        g.extend(text_at(
            mark,
            72.0 + label.len() as f32 * 4.5 + 1.0,
            y - 3.5,
            6.0,
        ));
        g.extend(text_at(figure, 300.0, y + 2.0, 9.0));
    }
    let read = lines(&g);
    let l = texts(&read);
    assert_eq!(l.len(), 2, "{l:?}");
    assert!(
        l[1].starts_with("Selling expenses") && l[1].ends_with("(a) | 7,229"),
        "{l:?}"
    );
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

/// Each column's sign set a space after the figure before it, as an
/// earnings release sets them: each sign still goes with its own figure.
#[test]
fn a_sign_after_a_figure_goes_with_the_next_one() {
    let mut g = Vec::new();
    for (i, (a, b, c)) in [
        ("Net sales", "3,226.8", "2,729.4"),
        ("Cost", "1,914.4", "1,586.2"),
    ]
    .iter()
    .enumerate()
    {
        let y = 100.0 + i as f32 * 12.0;
        g.extend(text_at(a, 72.0, y, 10.0));
        g.extend(text_at(&format!("$ {b} $"), 250.0, y, 10.0));
        g.extend(text_at(c, 350.0, y, 10.0));
    }
    let l = lines(&g);
    assert_eq!(
        texts(&l),
        vec![
            "Net sales | $ 3,226.8 | $2,729.4",
            "Cost | $ 1,914.4 | $1,586.2"
        ]
    );
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

/// An exhibit index: a number and description, the form, date, exhibit
/// and file number of each entry, a blank line between entries, a wrapped
/// description under some.
fn exhibit_index(step: f32) -> Vec<Glyph> {
    let entries = [
        (
            "3.1 Restated Certificate of Incorporation",
            "8-K",
            "4/26/11",
            "3.3",
            "000-15175",
        ),
        (
            "3.2 Amended and Restated Bylaws",
            "8-K",
            "9/2/16",
            "3.2",
            "000-15175",
        ),
        (
            "4.1 Specimen Common Stock Certificate",
            "10-Q",
            "6/25/14",
            "4.1",
            "000-15175",
        ),
    ];
    let mut g = Vec::new();
    for (i, (a, b, c, d, e)) in entries.iter().enumerate() {
        let y = 100.0 + i as f32 * step;
        g.extend(text_at(a, 72.0, y, 10.0));
        g.extend(text_at(b, 340.0, y, 10.0));
        g.extend(text_at(c, 390.0, y, 10.0));
        g.extend(text_at(d, 445.0, y, 10.0));
        g.extend(text_at(e, 475.0, y, 10.0));
    }
    g.extend(text_at("of the Company", 96.0, 110.0, 10.0));
    g
}

#[test]
fn an_index_with_a_blank_line_between_entries_is_one_table() {
    let mut g = exhibit_index(27.0);
    // The last entry's description wraps; a paragraph follows after a gap.
    g.extend(text_at("as amended", 96.0, 164.0, 10.0));
    g.extend(text_at(
        "The exhibits marked with an asterisk are plans.",
        72.0,
        200.0,
        10.0,
    ));
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(
        t,
        vec![
            "3.1 Restated Certificate of Incorporation | 8-K | 4/26/11 | 3.3 | 000-15175",
            "of the Company",
            "3.2 Amended and Restated Bylaws | 8-K | 9/2/16 | 3.2 | 000-15175",
            "4.1 Specimen Common Stock Certificate | 10-Q | 6/25/14 | 4.1 | 000-15175",
            "as amended",
            "The exhibits marked with an asterisk are plans.",
        ]
    );
    assert!(l[..5].iter().all(|l| l.table) && !l[5].table, "{t:?}");
    // Three blank lines apart, the entries are no longer one table.
    let l = lines(&exhibit_index(50.0));
    assert!(l.iter().all(|l| !l.table), "{:?}", texts(&l));
}

#[test]
fn headings_in_two_parts_far_apart_are_no_table() {
    // A number and its title, three line heights apart: each a heading.
    let mut g = Vec::new();
    for (i, (n, title)) in [("Chapter 1", "Introduction"), ("Chapter 2", "Methods")]
        .iter()
        .enumerate()
    {
        let y = 100.0 + i as f32 * 30.0;
        g.extend(text_at(n, 72.0, y, 10.0));
        g.extend(text_at(title, 160.0, y, 10.0));
    }
    let l = lines(&g);
    assert!(l.iter().all(|l| !l.table), "{:?}", texts(&l));
}

#[test]
fn a_short_line_under_a_table_is_its_own_only_where_the_table_ends() {
    // A two-row table, then the lines given (text, x, baseline, size).
    let under_table = |below: &[(&str, f32, f32, f32)]| {
        let mut g = Vec::new();
        for (i, (a, b)) in [("Cash", "1,234"), ("Debt", "56")].iter().enumerate() {
            let y = 100.0 + i as f32 * 12.0;
            g.extend(text_at(a, 72.0, y, 10.0));
            g.extend(text_at(b, 300.0 - b.len() as f32 * 5.0, y, 10.0));
        }
        for (text, x, y, size) in below {
            g.extend(text_at(text, *x, *y, *size));
        }
        lines(&g)
    };
    // A signer's name under the last row, then a gap.
    let by = "By: Anthony Skiadas, as attorney-in-fact";
    let l = under_table(&[
        ("Gregory Weaver", 72.0, 124.0, 10.0),
        (by, 40.0, 150.0, 10.0),
    ]);
    assert!(l[..3].iter().all(|l| l.table), "{:?}", texts(&l));
    assert!(!l[3].table, "{:?}", texts(&l));
    // A label that goes on closely into text of its own stays out.
    let text = "funds held at net asset value, which the plan measures as follows";
    let l = under_table(&[("Commingled", 72.0, 124.0, 10.0), (text, 72.0, 136.0, 10.0)]);
    assert!(l[..2].iter().all(|l| l.table), "{:?}", texts(&l));
    assert!(l[2..].iter().all(|l| !l.table), "{:?}", texts(&l));
    // A heading in larger type right under a table is no row of it.
    let l = under_table(&[("D Font dimensions", 72.0, 128.0, 14.0)]);
    assert!(!l[2].table, "{:?}", texts(&l));
}

/// A line justified between `left` and `right`: its words an equal space
/// apart, the first at `left`, the last ending at `right`.
fn justified_at(line: &str, left: f32, right: f32, y: f32) -> Vec<Glyph> {
    let words: Vec<Vec<Glyph>> = line.split(' ').map(|w| text_at(w, 0.0, y, 10.0)).collect();
    let width: f32 = words.iter().map(|w| w[w.len() - 1].right).sum();
    let space = (right - left - width) / (words.len() - 1) as f32;
    let mut x = left;
    let mut g = Vec::new();
    for word in words {
        let end = word[word.len() - 1].right;
        g.extend(word.into_iter().map(|c| Glyph {
            left: c.left + x,
            right: c.right + x,
            origin: (c.origin.0 + x, y),
            ..c
        }));
        x += end + space;
    }
    g
}

#[test]
fn justified_lines_in_a_narrow_column_are_prose_not_tables() {
    // Two columns 230 points wide: a line of few long words gets word
    // spaces wider than a cell's gap, alike across the line, and ends at
    // the margin as the lines around it do.
    let columns = [
        (
            60.0,
            [
                "kb keeps your documents in one file and reads",
                "(from the PyPI onnxruntime wheel) and the",
                "all of the models it uses and keeps a copy of",
                "checked against the sha256 kb pins",
                "them in a cache so that it can work offline and",
                "it says what to do when one of them is missing",
            ],
            "in the end.",
        ),
        (
            320.0,
            [
                "so every search runs offline in the same way",
                "Every command takes --data-dir DIR (or",
                "KB_DATA_DIR; default ~/.kb) and --format",
                "json or human, and every command prints its",
                "results as text at a terminal and as JSON to a",
                "pipe, so that agents and people can both use it",
            ],
            "as they like.",
        ),
    ];
    let mut g = Vec::new();
    for (left, full, last) in columns {
        for (i, line) in full.iter().enumerate() {
            g.extend(justified_at(
                line,
                left,
                left + 230.0,
                100.0 + 12.0 * i as f32,
            ));
        }
        g.extend(text_at(last, left, 172.0, 10.0));
    }
    let l = lines(&g);
    let mut expected: Vec<&str> = columns[0].1.to_vec();
    expected.push(columns[0].2);
    expected.extend(columns[1].1);
    expected.push(columns[1].2);
    assert_eq!(texts(&l), expected);
    assert!(l.iter().all(|l| !l.table));
    // A table's row whose cells are each their column's widest is set
    // alike too, but its text column ends raggedly: it stays a table.
    let mut g = Vec::new();
    let rows = [
        ("erf(x)", "real", "error function"),
        ("cdawson(z)", "complex", "extension of Dawson's integral"),
        ("abs(x)", "any", "absolute value"),
    ];
    for (i, (a, b, c)) in rows.iter().enumerate() {
        let y = 100.0 + 12.0 * i as f32;
        // Columns at 60, 120 and 167: 12 points past `cdawson(z)` and `complex`.
        g.extend(text_at(a, 60.0, y, 10.0));
        g.extend(text_at(b, 120.0, y, 10.0));
        g.extend(text_at(c, 167.0, y, 10.0));
    }
    let l = lines(&g);
    assert_eq!(
        texts(&l)[1],
        "cdawson(z) | complex | extension of Dawson's integral"
    );
    assert!(l.iter().all(|l| l.table), "{:?}", texts(&l));
}

/// A list's marks set a tab from their items (Word's and LibreOffice's
/// bullets, a dash a level down) start the items' lines: no table of
/// marks. A dash before more cells is a table's "nothing".
#[test]
fn a_lists_marks_a_tab_from_their_items_make_no_table() {
    let mut g = Vec::new();
    for (i, (mark, item, x)) in [
        ("•", "revenue recognition;", 72.0),
        ("•", "goodwill and other intangible assets;", 72.0),
        ("–", "income taxes.", 90.0),
        ("–", "pension plans.", 90.0),
    ]
    .iter()
    .enumerate()
    {
        let y = 100.0 + i as f32 * 12.0;
        g.extend(text_at(mark, *x, y, 10.0));
        g.extend(text_at(item, x + 18.0, y, 10.0));
    }
    // The dash's row: its figure as close to it as an item's text.
    for (i, (cells, x)) in [
        (["Total", "1,234", "1,100"], 120.0),
        (["–", "12", "15"], 90.0),
    ]
    .iter()
    .enumerate()
    {
        let y = 160.0 + i as f32 * 12.0;
        g.extend(text_at(cells[0], 72.0, y, 10.0));
        g.extend(text_at(cells[1], *x, y, 10.0));
        g.extend(text_at(cells[2], 200.0, y, 10.0));
    }
    assert_eq!(
        texts(&lines(&g)),
        vec![
            "• revenue recognition;",
            "• goodwill and other intangible assets;",
            "– income taxes.",
            "– pension plans.",
            "Total | 1,234 | 1,100",
            "– | 12 | 15",
        ]
    );
}
