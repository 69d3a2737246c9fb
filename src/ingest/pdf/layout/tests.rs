//! Blocks and heading levels from laid-out lines the tests set.

use super::super::grouping::tests::{body, line};
use super::*;

/// Words of its own for page `i` (digits alone would read as the
/// same line, a running one).
fn tag(i: usize) -> String {
    [b'a' + (i / 26) as u8, b'a' + (i % 26) as u8]
        .map(char::from)
        .iter()
        .collect()
}

/// A sentence-ending paragraph line after a gap.
fn prose(y: f32) -> Line {
    body(
        "A paragraph of body text long enough to be prose, which ends here.",
        y,
        true,
    )
}

/// The headings among `b`, with their levels.
fn headings(b: &[Block]) -> Vec<(&str, Option<u8>)> {
    b.iter()
        .filter(|b| b.level.is_some())
        .map(|b| (b.text.as_str(), b.level))
        .collect()
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
            line("4 Such as Linux", 8.0, 72.0, 180.0, 700.0, true),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    let levels: Vec<(String, Option<u8>)> = b.iter().map(|b| (b.text.clone(), b.level)).collect();
    assert_eq!(
        levels,
        vec![
            ("A Study of Search".into(), Some(1)),
            ("1 Introduction".into(), Some(2)),
            (
                "Body text that is long enough to look like a paragraph of prose.".into(),
                None
            ),
            ("1.1 Motivation".into(), Some(3)),
            (
                "More body text that is long enough to look like a paragraph too.".into(),
                None
            ),
            ("Related Work".into(), Some(3)),
            (
                "Another paragraph of body text, long enough to be prose, ends.".into(),
                None
            ),
            ("4 Such as Linux".into(), None),
        ]
    );
}

/// "Item 7." heads its unnumbered sub-headings; `7.37` nests under a
/// larger `7`.
#[test]
fn items_and_numbers_nest_their_sub_headings() {
    let page = Page {
        lines: vec![
            line("7 R Miscellanea", 16.0, 72.0, 300.0, 60.0, true),
            prose(80.0),
            body("7.37 Why does backslash behave strangely", 100.0, true),
            prose(120.0),
            body("Item 7. Management's Discussion and Analysis", 140.0, true),
            prose(160.0),
            body("Liquidity and Capital Resources", 180.0, true),
            prose(200.0),
            body("Item 8. Financial Statements", 220.0, true),
            prose(240.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    let level = |t: &str| b.iter().find(|b| b.text == t).and_then(|b| b.level);
    let top = level("7 R Miscellanea").expect("a heading");
    assert_eq!(
        level("7.37 Why does backslash behave strangely"),
        Some(top + 1),
        "{b:#?}"
    );
    let item = level("Item 7. Management's Discussion and Analysis").expect("a heading");
    assert_eq!(level("Liquidity and Capital Resources"), Some(item + 1));
    assert_eq!(level("Item 8. Financial Statements"), Some(item));
}

#[test]
fn a_heading_may_start_with_a_year_or_a_word_with_digits() {
    assert!(leads_with_a_word("5G Deployment") && leads_with_a_word("2021 Compared to 2020"));
    assert!(leads_with_a_word("Results"));
    assert!(!leads_with_a_word("2021") && !leads_with_a_word("12,345 Units"));
}

/// A filing's cover headings are siblings of its parts, not the
/// ancestors of every section.
#[test]
fn a_filings_cover_sits_beside_its_parts() {
    let page = Page {
        lines: vec![
            line("FORM 10-K", 16.0, 72.0, 300.0, 60.0, true),
            line(
                "ORCHARD SYSTEMS INCORPORATED",
                13.0,
                72.0,
                300.0,
                90.0,
                true,
            ),
            prose(110.0),
            body("PART I", 140.0, true),
            body("Item 1. Business", 160.0, true),
            prose(180.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    let level = |t: &str| b.iter().find(|b| b.text == t).and_then(|b| b.level);
    let part = level("PART I").expect("a heading");
    assert_eq!(level("FORM 10-K"), Some(part), "{b:#?}");
    assert_eq!(level("ORCHARD SYSTEMS INCORPORATED"), Some(part));
    assert_eq!(level("Item 1. Business"), Some(part + 1));
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
}

/// A running header on a quarter of the pages is dropped; one on two
/// pages of forty is not.
#[test]
fn running_lines_on_a_tenth_of_the_pages_are_dropped() {
    let pages: Vec<Page> = (1..=40)
        .map(|i| {
            let mut lines = Vec::new();
            if i % 4 == 0 {
                lines.push(line(
                    "Notes to Financial Statements (continued)",
                    9.0,
                    72.0,
                    300.0,
                    30.0,
                    false,
                ));
            }
            if i <= 2 {
                lines.push(line(
                    "Selected Quarterly Data",
                    9.0,
                    72.0,
                    300.0,
                    44.0,
                    false,
                ));
            }
            lines.push(body(
                &format!("Page {} says something of its own.", tag(i)),
                100.0,
                true,
            ));
            Page {
                lines,
                ..Page::default()
            }
        })
        .collect();
    let b = blocks(&pages);
    assert!(
        b.iter().all(|b| !b.text.contains("Notes to Financial")),
        "{b:#?}"
    );
    assert!(b.iter().any(|b| b.text.contains("Selected Quarterly Data")));
}

/// The lines that title a statement go with its table: the title as a
/// heading, the company and units as the table's caption.
#[test]
fn a_statement_title_heads_its_table() {
    let row = |t: &str, y: f32| Line {
        table: true,
        ..line(t, 9.0, 72.0, 400.0, y, false)
    };
    let pages = vec![Page {
        lines: vec![
            body("The notes follow the statements below.", 60.0, true),
            line("CONSOLIDATED BALANCE SHEETS", 9.0, 72.0, 250.0, 90.0, true),
            line("(Amounts in millions)", 9.0, 72.0, 200.0, 102.0, false),
            row("At December 31 | 2019 | 2018", 120.0),
            row("Cash | $5,794 | $4,225", 132.0),
            row("Total assets | $19,845 | $17,890", 144.0),
        ],
        ..Page::default()
    }];
    let b = blocks(&pages);
    let title = b
        .iter()
        .position(|b| b.text == "CONSOLIDATED BALANCE SHEETS")
        .unwrap();
    assert!(b[title].level.is_some(), "{b:#?}");
    assert!(b[title + 1].table, "{b:#?}");
    assert!(
        b[title + 1].text.starts_with("(Amounts in millions)\n"),
        "{b:#?}"
    );
}

/// The row groups of a statement ("Assets", "Liabilities") are its
/// subsections; the notes after it are not.
#[test]
fn headings_inside_a_statement_nest_under_its_title() {
    let row = |t: &str, y: f32| Line {
        table: true,
        ..line(t, 9.0, 72.0, 400.0, y, false)
    };
    let pages = vec![
        Page {
            lines: vec![
                line("CONSOLIDATED BALANCE SHEETS", 9.0, 72.0, 250.0, 90.0, true),
                row("At December 31 | 2017 | 2016", 120.0),
                line("Assets", 9.0, 72.0, 120.0, 140.0, true),
                row("Cash | $2,822 | $1,467", 152.0),
                line("Liabilities and Equity", 9.0, 72.0, 200.0, 170.0, true),
                row("Total current liabilities | 5,466 | 4,587", 182.0),
            ],
            ..Page::default()
        },
        Page {
            lines: vec![
                line(
                    "NOTES TO CONSOLIDATED FINANCIAL STATEMENTS",
                    9.0,
                    72.0,
                    300.0,
                    90.0,
                    true,
                ),
                body(
                    "The notes begin here and say something long enough.",
                    110.0,
                    true,
                ),
            ],
            ..Page::default()
        },
    ];
    let b = blocks(&pages);
    let level = |t: &str| b.iter().find(|b| b.text == t).and_then(|b| b.level);
    let title = level("CONSOLIDATED BALANCE SHEETS").expect("a heading");
    assert_eq!(level("Assets"), Some(title + 1), "{b:#?}");
    assert_eq!(level("Liabilities and Equity"), Some(title + 1));
    assert_eq!(
        level("NOTES TO CONSOLIDATED FINANCIAL STATEMENTS"),
        Some(title)
    );
}

/// Body-font headings nest by emphasis: a slightly larger line over one
/// in capitals over a mixed-case one, until a heading of a higher rank
/// comes. A name in capitals with digits, or one the paragraphs write
/// in capitals ("GAAP"), is no heading in capitals.
#[test]
fn body_font_headings_nest_by_emphasis() {
    let mut lines = Vec::new();
    let headings = [
        ("Service and Product Offerings", 11.8),
        ("MARKET OVERVIEW", 11.0),
        ("Digital Media", 11.0),
        ("COMPETITION", 11.0),
        ("Wireless Plans", 11.8),
        ("Wireless Services", 11.0),
        ("COVID-19", 11.0),
        ("Inflation", 11.0),
        ("GAAP", 11.0),
        ("Revenues", 11.0),
    ];
    for (i, (text, size)) in headings.iter().enumerate() {
        let y = 80.0 + i as f32 * 60.0;
        lines.push(line(text, *size, 72.0, 300.0, y, true));
        lines.push(prose(y + 20.0));
    }
    lines.push(body(
        "Revenues under GAAP were as shown above in the table, with competition rules.",
        600.0,
        true,
    ));
    let b = blocks(&[Page {
        lines,
        ..Page::default()
    }]);
    let levels: Vec<(&str, u8)> = b
        .iter()
        .filter_map(|b| b.level.map(|l| (b.text.as_str(), l)))
        .collect();
    assert_eq!(
        levels,
        vec![
            ("Service and Product Offerings", 1),
            ("MARKET OVERVIEW", 2),
            ("Digital Media", 3),
            ("COMPETITION", 2),
            ("Wireless Plans", 1),
            ("Wireless Services", 2),
            ("COVID-19", 2),
            ("Inflation", 2),
            ("GAAP", 2),
            ("Revenues", 2),
        ]
    );
}

/// Levels are ranks: no unused level above the text's own, and nesting
/// deeper than six is cut at the sixth level only.
#[test]
fn levels_are_renumbered_as_ranks() {
    let mut b: Vec<Block> = [3, 4, 7, 4, 9, 10, 11, 12, 13]
        .iter()
        .map(|&l| Block {
            level: Some(l),
            ..Block::default()
        })
        .collect();
    b.push(Block::default());
    rank_levels(&mut b);
    let levels: Vec<Option<u8>> = b.iter().map(|b| b.level).collect();
    assert_eq!(
        levels,
        [1, 2, 3, 2, 4, 5, 6, 6, 6]
            .map(Some)
            .into_iter()
            .chain([None])
            .collect::<Vec<_>>()
    );
}

/// A page of font samples, each size once, does not push the real
/// levels (chapters, sections, sub-headings) down to the sixth.
#[test]
fn one_off_sizes_do_not_flatten_the_levels() {
    let mut pages = Vec::new();
    for c in 0..3 {
        let t = tag(c);
        pages.push(Page {
            lines: vec![
                line(
                    &format!("Chapter {} Things {t}", c + 1),
                    18.0,
                    72.0,
                    300.0,
                    80.0,
                    true,
                ),
                line(
                    &format!("{}.1 Section {t}", c + 1),
                    14.0,
                    72.0,
                    250.0,
                    120.0,
                    true,
                ),
                prose(140.0),
                line(&format!("Details of {t}"), 13.0, 72.0, 200.0, 170.0, true),
                prose(190.0),
            ],
            ..Page::default()
        });
    }
    let samples: Vec<Line> = [30.0, 28.0, 26.0, 24.0, 22.0, 20.0, 16.0]
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            line(
                &format!("Sample Words {}", tag(i)),
                size,
                72.0,
                300.0,
                100.0 + 40.0 * i as f32,
                true,
            )
        })
        .collect();
    pages.push(Page {
        lines: samples,
        ..Page::default()
    });
    let b = blocks(&pages);
    let level = |text: &str| b.iter().find(|b| b.text == text).and_then(|b| b.level);
    assert_eq!(level("Chapter 1 Things aa"), Some(1));
    assert_eq!(level("1.1 Section aa"), Some(2));
    assert_eq!(level("Details of aa"), Some(3));
    assert_eq!(level("Sample Words aa"), Some(1), "larger than every rank");
    assert_eq!(
        level("Sample Words ag"),
        Some(2),
        "beside the ranked size below it"
    );
}

/// A chapter's label over its title is one heading with it; a filing's
/// part over its first item holds the item.
#[test]
fn a_chapter_label_over_its_title_joins_it() {
    let pages = vec![
        Page {
            lines: vec![
                line("Part I", 16.0, 72.0, 140.0, 100.0, true),
                line("Getting started", 20.0, 72.0, 260.0, 140.0, true),
                prose(180.0),
                line("1 Introduction", 16.0, 72.0, 220.0, 220.0, true),
                prose(260.0),
            ],
            ..Page::default()
        },
        Page {
            lines: vec![
                line("PART II", 14.0, 72.0, 140.0, 100.0, true),
                line("Item 5. Market for Equity", 14.0, 72.0, 300.0, 140.0, true),
                prose(180.0),
            ],
            ..Page::default()
        },
    ];
    let b = blocks(&pages);
    assert_eq!(
        headings(&b),
        vec![
            ("Part I Getting started", Some(1)),
            ("1 Introduction", Some(2)),
            ("PART II", Some(2)),
            ("Item 5. Market for Equity", Some(3)),
        ]
    );
}

/// A filing's item whose title in capitals wraps onto a second line is a
/// heading, and the text under it is its section.
#[test]
fn a_wrapped_item_in_capitals_is_a_heading() {
    let page = Page {
        lines: vec![
            body("PART II", 50.0, true),
            body(
                "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS OF",
                80.0,
                true,
            ),
            line("OPERATIONS", 11.0, 72.0, 140.0, 94.0, false),
            prose(120.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    let headings: Vec<(&str, u8)> = b
        .iter()
        .filter_map(|b| b.level.map(|l| (b.text.as_str(), l)))
        .collect();
    assert_eq!(
        headings,
        vec![
            ("PART II", 1),
            (
                "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS OF OPERATIONS",
                2
            ),
        ]
    );
}

/// A running header naming the current section, smaller than the
/// section's heading and beside the page number, is not the section
/// again on the page; a heading atop a page on its own stays.
#[test]
fn a_section_mark_atop_a_page_is_not_a_heading() {
    let heading = |text: &str, size: f32, y: f32| line(text, size, 72.0, 300.0, y, true);
    // Paragraphs of their own: the same text atop each page would be a
    // running line.
    let prose_from = |y: f32| {
        (0..3).map(move |i| {
            let text = format!(
                "Body text {} long enough to be read as prose, ending here.",
                tag(y as usize + i)
            );
            body(&text, y + i as f32 * 20.0, true)
        })
    };
    let mut first: Vec<Line> = prose_from(50.0).collect();
    first.push(heading("2.4 Installing", 14.0, 120.0));
    first.extend(prose_from(140.0));
    first.push(heading("Troubleshooting", 14.0, 220.0));
    first.extend(prose_from(240.0));
    first.push(heading("Uninstalling", 14.0, 320.0));
    first.extend(prose_from(340.0));
    // The mark and the page number on one baseline atop page 2; page 3
    // opens on a heading that repeats another, alone on its baseline.
    let mut second = vec![
        line("2.4 Installing", 10.5, 72.0, 140.0, 40.0, false),
        line("2", 10.5, 520.0, 530.0, 40.0, false),
    ];
    second.extend(prose_from(80.0));
    let mut third = vec![heading("Troubleshooting", 11.0, 40.0)];
    third.extend(prose_from(60.0));
    // A mark in the heading's own type, the heading right under it.
    let mut fourth = vec![
        heading("2.5 Building", 14.0, 40.0),
        heading("2.5 Building", 14.0, 90.0),
    ];
    fourth.extend(prose_from(110.0));
    // A numbered mark alone on its baseline: its number heads one
    // section only, on page 1.
    let mut fifth = vec![line("2.4 Installing", 10.5, 400.0, 480.0, 40.0, false)];
    fifth.extend(prose_from(170.0));
    // Atop a page read in two columns, a heading beside the other
    // column's first line: a heading.
    let mut sixth = vec![heading("Troubleshooting", 11.0, 40.0)];
    sixth.extend(prose_from(62.0));
    sixth.push(line("Income tax expense", 11.0, 320.0, 420.0, 40.0, false));
    // Across the gutter, the page number beside a mark still makes it
    // one.
    let mut seventh = vec![line("Uninstalling", 10.5, 72.0, 140.0, 40.0, false)];
    seventh.extend(prose_from(64.0));
    seventh.push(line("7", 10.5, 520.0, 530.0, 40.0, false));
    let pages: Vec<Page> = [first, second, third, fourth, fifth, sixth, seventh]
        .into_iter()
        .enumerate()
        .map(|(i, lines)| Page {
            lines,
            gutter: (i >= 5).then_some(310.0),
            ..Page::default()
        })
        .collect();
    let b = blocks(&pages);
    let headings: Vec<(&str, u32)> = b
        .iter()
        .filter(|b| b.level.is_some())
        .map(|b| (b.text.as_str(), b.page))
        .collect();
    assert_eq!(
        headings,
        vec![
            ("2.4 Installing", 1),
            ("Troubleshooting", 1),
            ("Uninstalling", 1),
            ("Troubleshooting", 3),
            ("2.5 Building", 4),
            ("Troubleshooting", 6)
        ]
    );
    assert!(!b
        .iter()
        .any(|b| [2, 5].contains(&b.page) && b.text.contains("Installing")));
    assert!(!b
        .iter()
        .any(|b| b.page == 7 && b.text.contains("Uninstalling")));
}

/// A back-of-book index: its letters and its "Symbols" group are
/// headings right under the index's own heading, and its entries with
/// their page numbers do not make it a contents page.
#[test]
fn an_index_has_its_letters_as_headings() {
    let bold = |text: &str, y: f32| Line {
        bold: true,
        ..line(text, 11.0, 120.0, 128.0, y, true)
    };
    let entry = |text: &str, y: f32| line(text, 11.0, 72.0, 300.0, y, false);
    let mut lines = vec![
        line("1 Introduction", 16.0, 72.0, 220.0, 60.0, true),
        prose(90.0),
        line("Index", 16.0, 72.0, 140.0, 130.0, true),
        Line {
            bold: true,
            ..line("Symbols", 11.0, 110.0, 160.0, 160.0, true)
        },
        entry("\\@author . . . . . . . . . . 3", 175.0),
    ];
    let mut y = 190.0;
    for (letter, words) in [
        ("A", ["\\alph", "amsthm (package)", "appendix"]),
        ("B", ["\\bf", "bibtex", "Book"]),
    ] {
        lines.push(bold(letter, y));
        for w in words {
            y += 15.0;
            lines.push(entry(&format!("{w} . . . . . . . . . . 12"), y));
        }
        y += 25.0;
    }
    let b = blocks(&[Page {
        lines,
        ..Page::default()
    }]);
    assert_eq!(
        headings(&b),
        vec![
            ("1 Introduction", Some(1)),
            ("Index", Some(1)),
            ("Symbols", Some(2)),
            ("A", Some(2)),
            ("B", Some(2)),
        ]
    );
    // A lone capital over text that does not start with it is no letter.
    let b = blocks(&[Page {
        lines: vec![
            bold("C", 100.0),
            entry("The answer is twelve . . . 12", 115.0),
        ],
        ..Page::default()
    }]);
    assert!(b.iter().all(|b| b.level.is_none()), "{b:?}");
}

/// The document's title, in type of its own atop the first page, is no
/// heading: the sections under it move up a level. A first heading in
/// the type of other headings is a section, whatever the title.
#[test]
fn the_title_is_no_heading() {
    let page = || Page {
        lines: vec![
            line("A Study of Search", 24.0, 72.0, 300.0, 80.0, false),
            line("1 Introduction", 16.0, 72.0, 200.0, 120.0, true),
            prose(150.0),
            line("1.1 Motivation", 12.0, 72.0, 180.0, 180.0, true),
            prose(210.0),
            line("2 Results", 16.0, 72.0, 200.0, 240.0, true),
            prose(270.0),
        ],
        ..Page::default()
    };
    let levels = |b: &[Block]| -> Vec<(String, u8)> {
        b.iter()
            .filter_map(|b| Some((b.text.clone(), b.level?)))
            .collect()
    };
    let mut b = blocks(&[page()]);
    assert_eq!(levels(&b)[0], ("A Study of Search".into(), 1));
    drop_title_page_headings(&mut b, Some("A Study of Search"));
    assert_eq!(
        levels(&b),
        vec![
            ("1 Introduction".into(), 1),
            ("1.1 Motivation".into(), 2),
            ("2 Results".into(), 1),
        ]
    );
    assert!(b[0].text == "A Study of Search" && b[0].level.is_none());
    // "1 Introduction" chosen as the title (no better one) stays a section.
    let mut b = blocks(&[Page {
        lines: page().lines[1..].to_vec(),
        ..Page::default()
    }]);
    let before = levels(&b);
    drop_title_page_headings(&mut b, Some("1 Introduction"));
    assert_eq!(levels(&b), before);
    // A lone heading heads its text, title or not.
    let lines = page().lines;
    let mut b = blocks(&[Page {
        lines: vec![lines[0].clone(), lines[2].clone()],
        ..Page::default()
    }]);
    drop_title_page_headings(&mut b, Some("A Study of Search"));
    assert_eq!(levels(&b)[0], ("A Study of Search".into(), 1));
}

/// The headers over a table's columns, set apart from its rows, are part
/// of the table, not headings; a title centred over it stays a heading.
#[test]
fn a_tables_column_headers_are_no_headings() {
    let row = |t: &str, y: f32| Line {
        table: true,
        ..line(t, 10.0, 43.0, 551.0, y, false)
    };
    let bold = |t: &str, x: f32, end: f32, y: f32| Line {
        bold: true,
        ..line(t, 10.0, x, end, y, true)
    };
    let rows = |y: f32| {
        vec![
            row(
                "(dollars in millions) | Amount | Level 1 | Level 2 | Total",
                y,
            ),
            row(
                "At December 31, 2020 | $127,778 | $103,967 | $52,785 | $156,752",
                y + 12.0,
            ),
            row(
                "At December 31, 2021 | 149,543 | 106,599 | 62,606 | 169,205",
                y + 24.0,
            ),
        ]
    };
    let mut lines = vec![
        bold("Fair Value of Debt", 43.0, 200.0, 80.0),
        Line {
            size: 10.0,
            ..prose(100.0)
        },
        bold("Fair Value", 417.0, 458.0, 130.0),
        bold("Carrying", 279.0, 315.0, 145.0),
    ];
    lines.extend(rows(154.0));
    lines.push(bold("Segment Data", 270.0, 330.0, 230.0));
    lines.extend(rows(244.0));
    let b = blocks(&[Page {
        lines,
        ..Page::default()
    }]);
    assert_eq!(
        headings(&b),
        vec![("Fair Value of Debt", Some(1)), ("Segment Data", Some(1))]
    );
    let table = b.iter().find(|b| b.table).map(|b| b.text.as_str());
    assert!(
        table.is_some_and(|t| t.starts_with("Fair Value\nCarrying\n(dollars in millions)")),
        "{table:?}"
    );
}

/// A title page's author, address and date are no headings, nor is any
/// line of a cover without prose; a heading over the first paragraph, a
/// numbered one, the abstract's and the contents' stay.
#[test]
fn a_title_pages_author_is_no_heading() {
    let short = |t: &str, y: f32| line(t, 11.0, 200.0, 400.0, y, true);
    let page = Page {
        lines: vec![
            line("The subcaption package", 18.0, 150.0, 450.0, 80.0, false),
            line("Axel Sommerfeldt", 13.0, 220.0, 380.0, 110.0, true),
            // Addresses in a monospaced font: a listing of single words.
            Line {
                mono: true,
                pitch: 6.0,
                ..short("https://example.org/caption", 125.0)
            },
            Line {
                mono: true,
                pitch: 6.0,
                ..line("axel@example.org", 11.0, 200.0, 400.0, 138.0, false)
            },
            short("2022/02/20", 155.0),
            line("Abstract", 13.0, 72.0, 200.0, 170.0, true),
            short("One line.", 180.0),
            line("Overview", 13.0, 72.0, 200.0, 195.0, true),
            prose(210.0),
            line("Contents", 13.0, 72.0, 200.0, 230.0, true),
            prose(250.0),
            line("Related Work", 13.0, 72.0, 200.0, 290.0, true),
            short("A short line", 305.0),
        ],
        ..Page::default()
    };
    let mut b = blocks(std::slice::from_ref(&page));
    drop_title_page_headings(&mut b, Some("The subcaption package"));
    assert_eq!(
        headings(&b),
        vec![
            ("Abstract", Some(1)),
            ("Overview", Some(1)),
            ("Contents", Some(1)),
            ("Related Work", Some(1))
        ],
        "after the first prose every heading stays"
    );
    // A cover: no prose, every unnumbered line goes, the title too; a
    // numbered one stays.
    let cover = Page {
        lines: vec![
            line("UNIVERSITY OF EINSTENIA", 16.0, 150.0, 450.0, 80.0, false),
            line("Faculty of Astronomy", 14.0, 150.0, 450.0, 120.0, true),
            line("The Pressure of Jupiter", 20.0, 150.0, 450.0, 200.0, true),
            line("1 Scope", 14.0, 72.0, 200.0, 400.0, true),
        ],
        ..Page::default()
    };
    let second = Page {
        lines: vec![
            line("Abstract", 14.0, 72.0, 200.0, 80.0, false),
            prose(110.0),
        ],
        ..Page::default()
    };
    let mut b = blocks(&[cover, second]);
    drop_title_page_headings(&mut b, Some("The Pressure of Jupiter"));
    assert_eq!(
        headings(&b),
        vec![("1 Scope", Some(1)), ("Abstract", Some(1))]
    );
    // A form's cover: the lines naming the form say what the page is.
    let form = Page {
        lines: vec![
            line("FORM 10-K", 16.0, 250.0, 350.0, 80.0, false),
            short("(Mark One)", 100.0),
            line("ACME CORP", 14.0, 250.0, 350.0, 140.0, true),
            short("(Exact name of registrant)", 160.0),
        ],
        ..Page::default()
    };
    let mut b = blocks(&[form]);
    drop_title_page_headings(&mut b, Some("ACME CORP FORM 10-K"));
    assert_eq!(headings(&b), vec![("FORM 10-K", Some(1))]);
}

/// On a contents page nothing from the first entry on is a heading, a
/// statement's name and an item over a table of page numbers included.
#[test]
fn a_contents_page_names_no_statement() {
    let row = |t: &str, y: f32| Line {
        table: true,
        ..line(t, 11.0, 72.0, 400.0, y, false)
    };
    let mut lines = vec![body("TABLE OF CONTENTS", 60.0, true)];
    for (i, item) in [
        "Business",
        "Risk Factors",
        "Properties",
        "Legal Proceedings",
        "Controls",
    ]
    .iter()
    .enumerate()
    {
        lines.push(body(
            &format!("Item {}. {item} {}", i + 1, 3 + 9 * i),
            80.0 + 14.0 * i as f32,
            true,
        ));
    }
    lines.push(body("Consolidated Statements of Cash Flows", 160.0, true));
    lines.push(body(
        "Item 15. Exhibits, Financial Statement Schedules",
        190.0,
        true,
    ));
    lines.push(row("Signatures | 105", 204.0));
    lines.push(row("Summary of Trademarks | 107", 218.0));
    let b = blocks(&[Page {
        lines,
        ..Page::default()
    }]);
    assert_eq!(headings(&b), vec![("TABLE OF CONTENTS", Some(1))], "{b:#?}");
}

/// The place over an auditor's date is no heading; a place over prose
/// may be one.
#[test]
fn a_signatures_place_is_not_a_heading() {
    let page = Page {
        lines: vec![
            body(
                "Report of Independent Registered Public Accounting Firm",
                60.0,
                true,
            ),
            prose(80.0),
            body("/s/ Ernst & Young LLP", 110.0, true),
            body("Tysons, Virginia", 130.0, true),
            body("February 9, 2023", 144.0, true),
            body("New York, New York", 180.0, true),
            prose(200.0),
            body("/s/ Deloitte & Touche LLP", 230.0, true),
            body("Chicago, Illinois", 250.0, true),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    let h: Vec<&str> = headings(&b).into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        h,
        vec![
            "Report of Independent Registered Public Accounting Firm",
            "New York, New York"
        ],
        "{b:#?}"
    );
}

/// The signer's name and title under a signature are no headings, in
/// plain or spaced small capitals; a section after the signature is.
#[test]
fn a_signers_name_and_title_are_no_headings() {
    let page = Page {
        lines: vec![
            body("CERTIFICATION", 60.0, true),
            prose(80.0),
            body("Dated: January 29, 2018 By:", 110.0, true),
            body("/ S / R EED H ASTINGS", 130.0, true),
            body("Reed Hastings", 150.0, true),
            body("Chief Executive Officer", 170.0, true),
            body("/s/ David Wells", 200.0, true),
            body(
                "Executive Vice President and Chief Financial Officer",
                220.0,
                true,
            ),
            body("Stock Option Plans", 260.0, true),
            prose(280.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    let h: Vec<&str> = headings(&b).into_iter().map(|(t, _)| t).collect();
    assert_eq!(h, vec!["CERTIFICATION", "Stock Option Plans"], "{b:#?}");
}
