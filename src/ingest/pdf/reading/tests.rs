//! Reading order from placed glyphs, on glyphs the tests place.

use super::*;

mod tables;

/// The page's lines in reading order, as [`lines_in_columns`] reads them
/// without a document to learn a gutter from.
fn lines(glyphs: &[Glyph]) -> Vec<Line> {
    lines_in_columns(glyphs, None).0
}

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
                italic: false,
                face: 0,
                ink: 0,
                turns: 0,
            }
        })
        .collect()
}

/// Courier-like glyphs: every one 6 points wide, narrow ones too.
fn mono_at(text: &str, x: f32, y: f32) -> Vec<Glyph> {
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
                italic: false,
                face: 0,
                ink: 0,
                turns: 0,
            }
        })
        .collect()
}

/// Right-to-left text drawn from `right` leftwards, 10 pt: each letter
/// left of the one before, each word left of the one before, a space
/// glyph after each word.
fn rtl_at(text: &str, right: f32, baseline: f32) -> Vec<Glyph> {
    let mut g = Vec::new();
    let mut x = right;
    for word in text.split(' ') {
        for c in word.chars() {
            g.extend(text_at(&c.to_string(), x - 5.0, baseline, 10.0));
            x -= 5.0;
        }
        g.push(Glyph::space());
        x -= 4.0;
    }
    g
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
                italic: false,
                face: 0,
                ink: 0,
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

/// TeX's `\`E`: the accent raised over the capital in a box of its own,
/// drawn after the rest of the line.
#[test]
fn an_accent_drawn_after_its_line_is_composed_with_its_capital() {
    let mut g = text_at("E meglio", 72.0, 100.0, 10.0);
    g.extend(text_at("`", 73.0, 97.3, 10.0));
    assert_eq!(texts(&lines(&g)), vec!["\u{c8} meglio"]);
}

/// Glyphs as pdfium's loose boxes place them: each as wide as it
/// advances, so the letters of a word touch.
fn touching(text: &str, x: f32, baseline: f32) -> Vec<Glyph> {
    text_at(text, x, baseline, 10.0)
        .into_iter()
        .map(|g| Glyph {
            right: g.left + 5.0,
            ..g
        })
        .collect()
}

/// Justified text set tight: the words stand 2.4 points apart (a space
/// under a quarter of the size), and one word space is not marked as a
/// space by the PDF.
#[test]
fn a_tight_word_space_left_unmarked_parts_the_words() {
    let mut g = Vec::new();
    let mut x = 72.0;
    let words = [
        "fixes",
        "of",
        "the",
        "releases.",
        "For",
        "excruciating",
        "detail",
    ];
    for (i, w) in words.iter().enumerate() {
        if i > 0 && *w != "excruciating" {
            g.push(Glyph::space());
        }
        g.extend(touching(w, x, 100.0));
        x += 5.0 * w.chars().count() as f32 + 2.4;
    }
    assert_eq!(
        texts(&lines(&g)),
        vec!["fixes of the releases. For excruciating detail"]
    );
    // Letters kerned 1.2 points apart in a line whose spaces are 5 points
    // wide stay one word.
    let mut g = touching("a loosely", 72.0, 100.0);
    g.extend(touching("set", 72.0 + 45.0 + 1.2, 100.0));
    g.extend(touching(" line of text", 72.0 + 45.0 + 1.2 + 15.0, 100.0));
    assert_eq!(texts(&lines(&g)), vec!["a looselyset line of text"]);
}

#[test]
fn right_to_left_lines_are_read_in_their_order() {
    // "שלום עולם" drawn right to left: each letter left of the one
    // before, the second word left of the first.
    let g = rtl_at("שלום עולם", 300.0, 100.0);
    assert_eq!(texts(&lines(&g)), vec!["שלום עולם"]);
}

/// Hebrew in two columns: the right column is read first.
#[test]
fn right_to_left_columns_start_at_the_right() {
    let mut g = Vec::new();
    for i in 0..6 {
        let y = 100.0 + i as f32 * 12.0;
        let words = "שלום עולם ".repeat(2 + i % 2);
        g.extend(rtl_at(&format!("ימין {}", words.trim()), 540.0, y));
        g.extend(rtl_at(&format!("שמאל {}", words.trim()), 280.0, y));
    }
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(t.len(), 12, "{t:?}");
    assert!(t[..6].iter().all(|t| t.starts_with("ימין")), "{t:?}");
    assert!(t[6..].iter().all(|t| t.starts_with("שמאל")), "{t:?}");
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

/// Glyphs each drawn on its own, touching the one before, with the
/// engine's guessed space after every one; words a quarter size apart.
fn guessed_spaces(text: &str, x: f32, baseline: f32, size: f32) -> Vec<Glyph> {
    let mut at = x;
    let mut out = Vec::new();
    for ch in text.chars() {
        if ch == ' ' {
            at += 0.25 * size;
            continue;
        }
        let mut g = text_at(&ch.to_string(), at, baseline, size);
        at = g[0].right;
        g.extend([Glyph::space(), Glyph::space()]);
        out.extend(g);
    }
    out
}

#[test]
fn letters_split_by_guessed_spaces_are_words_again() {
    let g = guessed_spaces(
        "Other liabilities consisted of the following",
        72.0,
        100.0,
        8.5,
    );
    assert_eq!(
        texts(&lines(&g)),
        ["Other liabilities consisted of the following"]
    );
    // A word of capitals with a guessed space before its last letter.
    let mut g = text_at("XARELT", 72.0, 100.0, 8.0);
    g.push(Glyph::space());
    g.extend(text_at("O", 96.0, 100.0, 8.0));
    assert_eq!(texts(&lines(&g)), ["XARELTO"]);
    // A formula's variables, apart, stay apart.
    let g = text_at("e b x n", 72.0, 100.0, 10.0);
    assert_eq!(texts(&lines(&g)), ["e b x n"]);
    // Words set close but not touching keep the space the engine guessed
    // between them (a filing's "of the", a symbol and its index).
    let mut g = text_at("of", 72.0, 100.0, 10.0);
    g.push(Glyph::space());
    g.extend(text_at("the", g[1].right + 0.3, 100.0, 10.0));
    assert_eq!(texts(&lines(&g)), ["of the"]);
}

#[test]
fn a_monospaced_row_is_one_line_with_its_spaces() {
    // An aligned comment far to the right stays on the line, its spaces
    // counted in glyph widths.
    let mut g = mono_at("x = f(1)", 72.0, 100.0);
    g.extend(mono_at("# the first", 72.0 + 6.0 * 20.0, 100.0));
    g.extend(mono_at("    print(x)", 72.0, 112.0));
    let l = lines(&g);
    assert_eq!(
        texts(&l),
        vec!["x = f(1)            # the first", "print(x)"]
    );
    assert!(l.iter().all(|l| l.mono && (l.pitch - 6.0).abs() < 1e-3));
    assert!(!l[0].table);
    assert!((l[1].x - (72.0 + 24.0)).abs() < 1e-3);
    // A listing's line numbers in the text font beside the code: each
    // row is still one line of code, its indentation kept.
    let mut g = text_at("12", 60.0, 200.0, 7.0);
    g.extend(mono_at("if (x) {", 72.0, 200.0));
    g.extend(text_at("13", 60.0, 212.0, 7.0));
    g.extend(mono_at("    f(x);", 72.0, 212.0));
    let l = lines(&g);
    assert_eq!(texts(&l), vec!["12 if (x) {", "13     f(x);"]);
    assert!(l.iter().all(|l| l.mono && (l.pitch - 6.0).abs() < 1e-3));
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
fn a_page_of_short_blocks_measures_gaps_against_its_paragraphs() {
    // A filing's page: single-spaced paragraphs (12pt steps) and items a
    // line or two long, 21 points apart. The steps between blocks are
    // the most, but a gap is still a gap.
    let mut g = Vec::new();
    let mut y = 100.0;
    let mut step = |dy: f32| {
        y += dy;
        y
    };
    for (text, dy) in [
        (
            "The information required by this item is found in our",
            21.0,
        ),
        (
            "proxy statement to be filed with the commission within",
            12.0,
        ),
        ("days after the end of the fiscal year to which this", 12.0),
        ("report relates and is incorporated here.", 12.0),
        (
            "ITEM 12. SECURITY OWNERSHIP OF CERTAIN BENEFICIAL OWNERS AND",
            21.0,
        ),
        ("STOCKHOLDER MATTERS", 12.0),
        (
            "The information required by this Item 12 is incorporated.",
            21.0,
        ),
        ("ITEM 13. CERTAIN RELATIONSHIPS", 21.0),
        (
            "The information required by this Item 13 is incorporated.",
            21.0,
        ),
        ("ITEM 14. PRINCIPAL ACCOUNTING FEES", 21.0),
        (
            "The information required by this Item 14 is incorporated.",
            21.0,
        ),
        ("PART IV", 21.0),
        ("ITEM 15. EXHIBITS", 21.0),
    ] {
        g.extend(text_at(text, 72.0, step(dy), 10.0));
    }
    let gaps: Vec<bool> = lines(&g).iter().skip(1).map(|l| l.gap).collect();
    assert_eq!(
        gaps,
        [false, false, false, true, false, true, true, true, true, true, true, true]
    );
}

#[test]
fn a_page_of_short_paragraphs_measures_gaps_against_its_full_lines() {
    // A manual made from a web page: paragraphs of a line or two, 28
    // points apart, on 12-point text; a paragraph's first line runs to
    // the margin and the next goes on 14 points under it, in capitals or
    // code, never in lower case. A heading 20 points over its first line
    // stands apart from it.
    let full = "The resume event is emitted whenever the input stream gets";
    let mut g = Vec::new();
    let mut y = 100.0;
    for (text, dy) in [
        ("Event: resume", 0.0),
        ("Added in: v0.7.5", 20.0),
        (full, 28.0),
        ("Resumed, it reads.", 14.0),
        ("The listener function is called without arguments.", 28.0),
        (full, 28.0),
        ("Ctrl+Z brings it back.", 14.0),
        (full, 28.0),
        ("SIGINT stops it.", 14.0),
        ("The event is not supported on Windows.", 28.0),
    ] {
        y += dy;
        g.extend(text_at(text, 72.0, y, 12.0));
    }
    let gaps: Vec<bool> = lines(&g).iter().skip(1).map(|l| l.gap).collect();
    assert_eq!(
        gaps,
        [true, true, false, true, true, false, true, false, true]
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

/// Eight rows of two columns of prose, the first at `top`.
fn two_columns(top: f32) -> Vec<Glyph> {
    let mut g = Vec::new();
    for i in 0..8 {
        let y = top + i as f32 * 12.0;
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
    g
}

#[test]
fn two_columns_are_read_one_after_the_other() {
    let mut g = text_at(
        "A Two Column Paper Title Spanning Everything",
        72.0,
        60.0,
        14.0,
    );
    g.extend(two_columns(100.0));
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(t[0], "A Two Column Paper Title Spanning Everything");
    assert_eq!(t[1], "left column line 0 of prose");
    assert_eq!(t[8], "left column line 7 of prose");
    assert_eq!(t[9], "right column line 0 of text");
    assert_eq!(t.len(), 17);
    assert!(l.iter().all(|l| !l.table), "{t:?}");
}

/// Two columns whose lines do not share baselines (the right one set half
/// a line lower, as under a heading of another height or an equation in
/// the other column) under a centred title block: no row holds both
/// columns, yet each is read down in turn.
#[test]
fn columns_on_offset_baselines_are_read_one_after_the_other() {
    let mut g = Vec::new();
    for (i, line) in [
        "A Title Centred Over Both Columns",
        "Its Author, Her Institution",
    ]
    .iter()
    .enumerate()
    {
        g.extend(text_at(line, 200.0, 60.0 + 14.0 * i as f32, 12.0));
    }
    for i in 0..8 {
        let y = 120.0 + i as f32 * 12.0;
        let left = format!("left column line {i} of prose");
        g.extend(text_at(&left, 72.0, y, 10.0));
        let right = format!("right column line {i} of text");
        g.extend(text_at(&right, 320.0, y + 6.0, 10.0));
    }
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(t[2], "left column line 0 of prose", "{t:?}");
    assert_eq!(t[9], "left column line 7 of prose", "{t:?}");
    assert_eq!(t[10], "right column line 0 of text", "{t:?}");
    assert_eq!(t.len(), 18);
}

/// A page of two columns: `prose` rows of prose over an eight-row table
/// in the left one, a row of prose beside each of its rows in the right.
fn table_under_prose(prose: usize) -> Vec<Glyph> {
    let mut g = Vec::new();
    let table = [
        ("Loans", "10,187", "12,305"),
        ("Deposits", "65", "569"),
        ("Securities", "1,882", "2,533"),
        ("Trading", "1,782", "2,064"),
        ("Other", "199", "443"),
        ("Total", "14,271", "19,161"),
        ("Expense", "146", "1,575"),
        ("Net", "12,925", "14,452"),
    ];
    for i in 0..prose + table.len() {
        let y = 100.0 + i as f32 * 12.0;
        if i < prose {
            let line = format!("left column prose line {i} reads on and on");
            g.extend(text_at(&line, 72.0, y, 10.0));
        } else {
            let (a, b, c) = table[i - prose];
            g.extend(text_at(a, 72.0, y, 10.0));
            g.extend(text_at(b, 220.0 - b.len() as f32 * 5.0, y, 10.0));
            g.extend(text_at(c, 280.0 - c.len() as f32 * 5.0, y, 10.0));
        }
        let line = format!("right column prose line {i} reads on as well");
        g.extend(text_at(&line, 320.0, y, 10.0));
    }
    g
}

/// A table set in the left column under three lines of prose, beside a
/// right column of prose: still two columns, the table's rows whole in
/// the left one.
#[test]
fn a_table_in_one_column_does_not_merge_the_columns() {
    let g = table_under_prose(3);
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(t.len(), 22, "{t:?}");
    assert_eq!(t[0], "left column prose line 0 reads on and on");
    assert_eq!(t[3], "Loans | 10,187 | 12,305", "{t:?}");
    assert_eq!(t[10], "Net | 12,925 | 14,452", "{t:?}");
    assert_eq!(t[11], "right column prose line 0 reads on as well");
    assert!(l[3..11].iter().all(|l| l.table) && !l[11].table);
}

/// A full-width table over two columns of prose, its figures right of
/// the gutter: its rows keep their labels, whether the table is set apart
/// from the columns by a gap or by a caption across the page, and the
/// columns below are still read in turn.
#[test]
fn a_full_width_table_over_columns_keeps_its_rows() {
    for captioned in [false, true] {
        let mut g = Vec::new();
        for (i, label) in ["Widgets", "Gadgets", "Operating income"]
            .iter()
            .enumerate()
        {
            let y = 60.0 + i as f32 * 12.0;
            g.extend(text_at(label, 72.0, y, 10.0));
            g.extend(text_at("845.1", 355.0, y, 10.0));
        }
        let caption = "Table 1: segment results for the year, in millions of dollars";
        if captioned {
            g.extend(text_at(caption, 72.0, 96.0, 10.0));
        }
        let top = if captioned { 108.0 } else { 120.0 };
        g.extend(two_columns(top));
        let l = lines(&g);
        let t: Vec<&str> = texts(&l).into_iter().filter(|t| *t != caption).collect();
        assert_eq!(t[2], "Operating income | 845.1", "{t:?}");
        assert_eq!(t[3], "left column line 0 of prose", "{t:?}");
        assert_eq!(t[11], "right column line 0 of text", "{t:?}");
    }
}

/// Two tables side by side, each under its own two-line heading and over
/// its notes: the headings stay with their tables, column by column.
#[test]
fn tables_side_by_side_keep_their_headings() {
    let mut g = Vec::new();
    for (x, name) in [(72.0, "Assets"), (320.0, "Credit")] {
        g.extend(text_at(&format!("{name} months"), x, 60.0, 10.0));
        g.extend(text_at("ended March 31,", x, 72.0, 10.0));
        for i in 0..4 {
            let y = 100.0 + i as f32 * 12.0;
            g.extend(text_at(&format!("{name} row {i}"), x, y, 10.0));
            g.extend(text_at("1,234", x + 150.0, y, 10.0));
        }
        for i in 0..3 {
            let note = format!("({i}) {name} notes run on in prose here");
            g.extend(text_at(&note, x, 160.0 + i as f32 * 12.0, 10.0));
        }
    }
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(&t[..2], ["Assets months", "ended March 31,"], "{t:?}");
    assert_eq!(t[9], "Credit months", "{t:?}");
}

/// Under two columns of prose, a listing whose lines end in a brace set
/// far to the right keeps each line whole (a margin label in the text
/// font keeps the row from reading as one monospaced line), while an example's code beside
/// its output is two columns.
#[test]
fn a_listing_under_columns_keeps_its_lines() {
    let mut g = Vec::new();
    for i in 0..6 {
        let y = 100.0 + i as f32 * 12.0;
        let line = format!("left column prose line {i} reads on and on");
        g.extend(text_at(&line, 72.0, y, 10.0));
        let line = format!("right column prose line {i} reads on as well");
        g.extend(text_at(&line, 320.0, y, 10.0));
    }
    g.extend(text_at(
        "A caption that runs across the whole width of the page here",
        72.0,
        180.0,
        10.0,
    ));
    for (i, key) in ["cover title", "cover label", "emblem color"]
        .iter()
        .enumerate()
    {
        let y = 200.0 + i as f32 * 12.0;
        // A guard's name in the text font in the margin, as a .dtx sets it.
        g.extend(text_at("<def-u>", 20.0, y, 7.0));
        g.extend(mono_at(&format!("{{ {key} }} {{ x"), 72.0, y));
        g.extend(mono_at("},", 456.0, y));
    }
    let l = lines(&g);
    let t = texts(&l);
    assert!(t[13..].iter().all(|l| l.ends_with("},")), "{t:?}");
    assert_eq!(t.len(), 16, "{t:?}");
    // Code at the left, the text it sets at the right.
    let mut g = Vec::new();
    for i in 0..6 {
        let y = 100.0 + i as f32 * 12.0;
        g.extend(mono_at(&format!("<para>line {i}</para>"), 72.0, y));
        let line = format!("right column prose line {i} reads on as well");
        g.extend(text_at(&line, 320.0, y, 10.0));
    }
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(t[0], "<para>line 0</para>", "{t:?}");
    assert_eq!(t[6], "right column prose line 0 reads on as well", "{t:?}");
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
    // A CJK title of two characters is a whole title.
    g.extend(text_at("2.4.2", 72.0, 180.0, 10.0));
    g.extend(text_at("字体", 72.0 + 25.0 + 10.0, 180.0, 10.0));
    // A filing's item number left of its title.
    g.extend(text_at("Item 5.", 72.0, 210.0, 10.0));
    g.extend(text_at(
        "Market for Common Equity",
        72.0 + 35.0 + 10.0,
        210.0,
        10.0,
    ));
    // Or at a tab stop an inch from it.
    g.extend(text_at("ITEM 7.", 72.0, 240.0, 10.0));
    g.extend(text_at(
        "Management's Discussion and Analysis",
        72.0 + 35.0 + 28.0,
        240.0,
        10.0,
    ));
    // A chapter's label a quad from its title.
    g.extend(text_at("第一章", 72.0, 270.0, 16.0));
    g.extend(text_at("简介", 72.0 + 24.0 + 16.0, 270.0, 16.0));
    g.extend(text_at("Chapter 3", 72.0, 300.0, 16.0));
    g.extend(text_at("Fonts", 72.0 + 72.0 + 16.0, 300.0, 16.0));
    // A title starting with the TeX command it describes.
    g.extend(text_at("4.1", 72.0, 330.0, 11.0));
    g.extend(text_at(
        "\\istroot: basics",
        72.0 + 17.0 + 11.0,
        330.0,
        11.0,
    ));
    let l = lines(&g);
    assert_eq!(
        texts(&l),
        vec![
            "6 Booktabs and colortbl",
            "Booktabs is now compatible with the colortbl package.",
            "7 Technical summary",
            "2.4.2 字体",
            "Item 5. Market for Common Equity",
            "ITEM 7. Management's Discussion and Analysis",
            "第一章 简介",
            "Chapter 3 Fonts",
            "4.1 \\istroot: basics"
        ]
    );
    assert!(l.iter().all(|l| !l.table));
}

/// An index in three columns, each entry a name, dot leaders and a page
/// number set as spans of their own: each column is read down in turn,
/// its letters over their entries, not rows across the page as a table.
#[test]
fn an_index_in_three_columns_is_read_column_by_column() {
    let mut g = Vec::new();
    for (c, names) in [
        ["A", "\\alph", "amsthm", "B", "\\bf", "bibtex"],
        ["C", "\\cite", "ctex", "D", "\\def", "docs"],
        ["E", "\\else", "enumitem", "F", "\\fi", "fontspec"],
    ]
    .iter()
    .enumerate()
    {
        let x = 72.0 + 178.0 * c as f32;
        for (r, name) in names.iter().enumerate() {
            let y = 100.0 + 14.0 * r as f32;
            if name.len() == 1 {
                g.extend(text_at(name, x + 60.0, y, 9.0));
                continue;
            }
            g.extend(text_at(name, x, y, 9.0));
            g.extend(text_at(". . . . . . . .", x + 50.0, y, 9.0));
            g.extend(text_at("12", x + 125.0, y, 9.0));
        }
    }
    // The running header, over the last column, set apart above it.
    g.extend(text_at("7 Index", 520.0, 70.0, 10.0));
    let l = lines(&g);
    let t: Vec<String> = l.iter().map(|l| l.text.replace(" | ", " ")).collect();
    assert_eq!(t.len(), 19, "{t:?}");
    assert_eq!(t[0], "7 Index");
    assert_eq!(t[1], "A");
    assert!(t[2].starts_with("\\alph ."), "{t:?}");
    assert_eq!(t[4], "B");
    assert_eq!(t[7], "C");
    assert_eq!(t[13], "E");
    assert!(t[18].starts_with("fontspec ."), "{t:?}");
}

/// A reference card: three columns of entries (a command and what it
/// does), no prose anywhere, each column's lines placed by its own
/// headings, so its baselines lie off its neighbours', by amounts that
/// change down the page. Each column is read down in turn, its entries
/// whole, not rows across the page.
#[test]
fn a_reference_card_is_read_column_by_column() {
    // Each row's baseline in the second and third columns, against the first's.
    let shifts = [
        (1.5, -1.0),
        (1.5, -1.0),
        (1.5, 2.0),
        (3.0, 2.0),
        (3.0, 0.5),
        (3.0, 1.0),
        (-2.0, 0.5),
        (-2.0, 1.2),
    ];
    let mut g = Vec::new();
    for (r, (b, c)) in shifts.iter().enumerate() {
        let y = 60.0 + 10.0 * r as f32;
        for (col, shift) in [("a", 0.0), ("b", *b), ("c", *c)] {
            let x = 40.0 + 260.0 * ["a", "b", "c"].iter().position(|c| *c == col).unwrap() as f32;
            g.extend(text_at(&format!("cmd{col}{r}"), x, y + shift, 8.0));
            let what = format!("does {col}{r} as its description says");
            g.extend(text_at(&what, x + 50.0, y + shift, 8.0));
        }
    }
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(t.len(), 24, "{t:?}");
    assert_eq!(t[0], "cmda0 | does a0 as its description says", "{t:?}");
    assert_eq!(t[7], "cmda7 | does a7 as its description says", "{t:?}");
    assert_eq!(t[8], "cmdb0 | does b0 as its description says", "{t:?}");
    assert_eq!(t[23], "cmdc7 | does c7 as its description says", "{t:?}");
}

/// A table whose labels sit on a baseline of their own, a little above
/// their figures, row after row (as some filings set them): one offset
/// all down the table is not columns running apart, so each row keeps
/// its label with its figures.
#[test]
fn a_tables_labels_on_a_baseline_of_their_own_keep_their_figures() {
    let mut g = Vec::new();
    let labels = [
        "Service",
        "Equipment",
        "Other",
        "Total",
        "Wireless",
        "Fios",
        "Churn",
        "Net",
    ];
    for (r, label) in labels.iter().enumerate() {
        let y = 100.0 + 12.0 * r as f32;
        g.extend(text_at(label, 72.0, y, 8.0));
        g.extend(text_at("67,733", 300.0, y + 1.3, 8.0));
        g.extend(text_at("64,884", 360.0, y + 1.3, 8.0));
    }
    let l = lines(&g);
    let t = texts(&l);
    assert_eq!(t.len(), 8, "{t:?}");
    assert_eq!(t[0], "Service | 67,733 | 64,884", "{t:?}");
    assert_eq!(t[7], "Net | 67,733 | 64,884", "{t:?}");
}

/// A left column that starts lower, under a figure, is still read before
/// the right column that starts at the top.
#[test]
fn a_column_that_starts_lower_is_read_in_its_turn() {
    let mut g = Vec::new();
    for i in 0..10 {
        let y = 100.0 + i as f32 * 12.0;
        g.extend(text_at(
            &format!("right column line {i} of text"),
            320.0,
            y,
            10.0,
        ));
        if i >= 2 {
            g.extend(text_at(
                &format!("left column line {i} of prose"),
                72.0,
                y,
                10.0,
            ));
        }
    }
    let t: Vec<String> = lines(&g).into_iter().map(|l| l.text).collect();
    assert_eq!(t[0], "left column line 2 of prose", "{t:?}");
    assert_eq!(t[8], "right column line 0 of text", "{t:?}");
}

/// A page with one row of prose over a table in its left column has too
/// little prose there to show a gutter alone; read with the gutter the
/// document's other pages show, its columns are read one after the
/// other.
#[test]
fn the_documents_usual_gutter_reads_a_page_of_thin_columns() {
    let g = table_under_prose(1);
    let (_, gutter) = lines_in_columns(&g, None);
    assert_eq!(gutter, None);
    let (l, gutter) = lines_in_columns(&g, Some(305.0));
    assert!(
        gutter.is_some_and(|x| (x - 305.0).abs() < 10.0),
        "{gutter:?}"
    );
    let t = texts(&l);
    assert_eq!(t[0], "left column prose line 0 reads on and on", "{t:?}");
    assert_eq!(t[1], "Loans | 10,187 | 12,305", "{t:?}");
    assert_eq!(t[9], "right column prose line 0 reads on as well", "{t:?}");
}

#[test]
fn the_usual_gutter_is_the_one_most_pages_show() {
    let some = |xs: &[f32]| xs.iter().map(|&x| Some(x)).collect::<Vec<_>>();
    let mut pages = some(&[300.0, 302.0, 306.0, 150.0]);
    pages.push(None);
    let usual = usual_gutter(&pages, 5).expect("a usual gutter");
    assert!((300.0..=306.0).contains(&usual), "{usual}");
    // Two pages, or three of forty, make no habit.
    assert_eq!(usual_gutter(&some(&[300.0, 301.0]), 2), None);
    assert_eq!(usual_gutter(&some(&[300.0, 301.0, 302.0]), 40), None);
}

/// A footnote's raised number is set against its text with no space
/// (LaTeX's footnotes): it is a word of its own, while a mark raised after
/// a word stays with it, as the superscript it is.
#[test]
fn a_footnotes_number_is_apart_from_its_text() {
    let mut g = text_at("1", 72.0, 700.0, 6.0);
    g.extend(text_at("http://example.org/ is kept", 75.0, 703.0, 9.0));
    let mut mark_after = text_at("see", 72.0, 730.0, 9.0);
    mark_after.extend(text_at("2", 85.5, 727.0, 6.0));
    g.extend(mark_after);
    // A degree sign is raised as a mark is, and stays with its unit.
    g.extend(text_at("\u{25e6}", 72.0, 757.0, 6.0));
    g.extend(text_at("C or (1)", 75.0, 760.0, 9.0));
    g.extend(text_at("a", 111.0, 757.0, 6.0));
    g.extend(text_at("1", 114.0, 760.0, 9.0));
    // An exponent is a superscript; raised letters keep their form.
    g.extend(text_at("10", 72.0, 790.0, 9.0));
    g.extend(text_at("-6", 82.0, 787.0, 6.0));
    g.extend(text_at(" 1", 92.0, 790.0, 9.0));
    g.extend(text_at("st", 99.5, 787.0, 6.0));
    // A mark in brackets stays as printed.
    g.extend(text_at("notes", 72.0, 820.0, 9.0));
    g.extend(text_at("(1)", 94.5, 817.0, 6.0));
    assert_eq!(
        texts(&lines(&g)),
        [
            "1 http://example.org/ is kept",
            "see\u{b2}",
            "\u{25e6}C or (1)a1",
            "10\u{207b}\u{2076}",
            "1st",
            "notes(1)"
        ]
    );
}

/// pdfium guesses a line break after every glyph of some turned tables
/// (`11,036` came out `11 , 036`): one between glyphs that touch on one
/// baseline parts nothing, while the PDF's own spaces and a line below do.
#[test]
fn a_guessed_line_break_between_touching_glyphs_parts_nothing() {
    let between = |parts: &[(&str, f32)], sep: Glyph, baseline: f32| -> Vec<Glyph> {
        parts
            .iter()
            .flat_map(|&(text, x)| text_at(text, x, baseline, 9.0))
            .flat_map(|g| [g, sep])
            .collect()
    };
    // The comma is 2.7 wide: each glyph touches the next.
    let number = [("11", 72.0), (",", 81.0), ("036", 83.7)];
    let mut g = between(&number, Glyph::line_break(), 700.0);
    g.extend(text_at("next", 72.0, 712.0, 9.0));
    g.extend(between(&number, Glyph::space(), 724.0));
    assert_eq!(texts(&lines(&g)), ["11,036", "next", "11 , 036"]);
}
