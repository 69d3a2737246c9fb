//! Blocks and heading levels from laid-out lines the tests set.

use super::super::grouping::tests::{body, line};
use super::rules::leads_with_a_word;
use super::*;

mod filings;
mod furniture;
mod styles;
mod title_page;

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

/// A sentence naming a filing's form, agency and file number: the pages
/// that carry it are a filing's (`class.rs`), whose rules run on them.
fn filed(y: f32) -> Line {
    body(
        "Form 10-K filed with the Securities and Exchange Commission, commission file number 1-1234.",
        y,
        true,
    )
}

/// Blocks of every page with their levels, no title chosen.
fn blocks(pages: &[Page]) -> Vec<Block> {
    structure(pages, &Hyphenation::of(pages), None, &|_| None, false).0
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
            Line {
                bold: true,
                ..body("Related Work", 220.0, true)
            },
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
            Line {
                bold: true,
                ..body("Liquidity and Capital Resources", 180.0, true)
            },
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
/// part over its first item holds the item, and over any other heading
/// before its first item, holds that too ("PART I" over "CAUTIONARY
/// STATEMENT", then "Item 1. Business").
#[test]
fn a_chapter_label_over_its_title_joins_it() {
    let book = vec![Page {
        lines: vec![
            line("Part I", 16.0, 72.0, 140.0, 100.0, true),
            line("Getting started", 20.0, 72.0, 260.0, 140.0, true),
            prose(180.0),
            line("1 Introduction", 16.0, 72.0, 220.0, 220.0, true),
            prose(260.0),
        ],
        ..Page::default()
    }];
    assert_eq!(
        headings(&blocks(&book)),
        vec![
            ("Part I Getting started", Some(1)),
            ("1 Introduction", Some(2))
        ]
    );
    let filing = vec![
        Page {
            lines: vec![
                line("PART I", 14.0, 284.0, 330.0, 100.0, true),
                line("CAUTIONARY STATEMENT", 14.0, 72.0, 250.0, 140.0, true),
                prose(180.0),
                filed(210.0),
                line("Item 1. Business", 14.0, 72.0, 220.0, 260.0, true),
                prose(300.0),
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
    assert_eq!(
        headings(&blocks(&filing)),
        vec![
            ("PART I", Some(1)),
            ("CAUTIONARY STATEMENT", Some(2)),
            ("Item 1. Business", Some(2)),
            ("PART II", Some(1)),
            ("Item 5. Market for Equity", Some(2)),
        ]
    );
}

/// A chapter's label over its title in the body's type, neither bold
/// nor larger ("ARTICLE 1" over "DEFINITIONS" in a plan), is a heading.
#[test]
fn a_label_over_its_title_in_the_body_type_is_a_heading() {
    let page = Page {
        lines: vec![
            prose(80.0),
            line("ARTICLE 1", 11.0, 280.0, 330.0, 120.0, true),
            line("DEFINITIONS", 11.0, 270.0, 340.0, 133.0, false),
            prose(160.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    assert_eq!(headings(&b), vec![("ARTICLE 1 DEFINITIONS", Some(1))]);
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
            filed(150.0),
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

/// An index set smaller than the body, its letters in its entries' type
/// and weight: a run of letters in alphabetical order is its letters.
#[test]
fn an_index_in_small_type_has_its_letters_as_headings() {
    let small = |text: &str, x: f32, y: f32| line(text, 9.0, x, 300.0, y, true);
    let mut index = vec![line("Index", 16.0, 72.0, 140.0, 60.0, true)];
    let mut y = 90.0;
    for letter in ["A", "B", "C", "D", "E"] {
        index.push(small(letter, 120.0, y));
        for n in 1..=3 {
            let entry = format!("{}entry{n} . . . . . . 1{n}", letter.to_lowercase());
            index.push(Line {
                gap: false,
                ..small(&entry, 72.0, y + 11.0 * n as f32)
            });
        }
        y += 60.0;
    }
    let prose_page = || Page {
        lines: (0..30).map(|k| prose(60.0 + 20.0 * k as f32)).collect(),
        ..Page::default()
    };
    let pages = [
        prose_page(),
        prose_page(),
        Page {
            lines: index,
            ..Page::default()
        },
    ];
    let b = blocks(&pages);
    let letters: Vec<_> = headings(&b)
        .into_iter()
        .filter(|(t, _)| t.len() == 1)
        .collect();
    assert_eq!(
        letters,
        [
            ("A", Some(2)),
            ("B", Some(2)),
            ("C", Some(2)),
            ("D", Some(2)),
            ("E", Some(2))
        ]
    );
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

/// An API reference heads each entry with its name in bold code type: a
/// heading, under a listing too, while a listing's lines in the body's
/// weight stay a listing.
#[test]
fn a_lone_bold_line_of_code_heads_its_entry() {
    let code = |t: &str, y: f32, bold: bool| Line {
        mono: true,
        pitch: 6.6,
        bold,
        ..line(t, 11.0, 72.0, 300.0, y, true)
    };
    let page = Page {
        lines: vec![
            prose(80.0),
            code("worker.getEnvironmentData(key)#", 110.0, true),
            prose(130.0),
            code(
                "const { isMainThread } = require('node:worker_threads');",
                160.0,
                false,
            ),
            // A keyword set bold, indented, stays in its listing.
            Line {
                x: 72.0 + 2.0 * 6.6,
                ..code("\\displaystyle", 175.0, true)
            },
            code("worker.isMainThread", 190.0, false),
            code("worker.threadId#", 210.0, true),
            prose(230.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    assert_eq!(
        headings(&b),
        vec![
            ("worker.getEnvironmentData(key)#", Some(1)),
            ("worker.threadId#", Some(1))
        ]
    );
    let listings: Vec<&str> = b
        .iter()
        .filter(|b| b.code)
        .map(|b| b.text.as_str())
        .collect();
    assert_eq!(listings.len(), 1, "{listings:?}");
    assert!(
        listings[0].ends_with("\n  \\displaystyle\nworker.isMainThread"),
        "{listings:?}"
    );
}

/// A paragraph of one line in Chinese, indented two characters from
/// where the wrapped lines start (a note between two parts of a
/// listing), is text; a heading flush with the margin, and a bold one
/// run in at the indent, are headings.
#[test]
fn an_indented_chinese_line_is_a_paragraph() {
    let cjk = |t: &str, x: f32, y: f32, gap: bool| line(t, 12.0, x, 500.0, y, gap);
    let code = |t: &str, y: f32| Line {
        mono: true,
        pitch: 5.0,
        ..line(t, 9.0, 72.0, 300.0, y, false)
    };
    let page = Page {
        lines: vec![
            Line {
                bold: true,
                ..line("3.1 安装方法", 14.0, 72.0, 200.0, 80.0, true)
            },
            cjk(
                "本宏包提供了两个选项来控制字体，分别为罗马体和常规体，其中罗马体为默认值，",
                96.0,
                110.0,
                true,
            ),
            cjk(
                "表示字体为罗马体；常规体表示字体为数学模式下的常规体，效果类似于意大利体。",
                72.0,
                126.0,
                false,
            ),
            // The package's source, in smaller type, outweighs its prose.
            code(
                "\\RenewDocumentCommand{\\chapter}{s o m o}{\\ifhitsz@openright\\fi}",
                140.0,
            ),
            code(
                "\\RenewDocumentCommand{\\section}{s o m o}{\\ifhitsz@openright\\fi}",
                150.0,
            ),
            code(
                "\\RenewDocumentCommand{\\subsection}{s o m o}{\\ifhitsz@openright\\fi}",
                160.0,
            ),
            cjk("此处添加保护选项", 96.0, 175.0, true),
            code("\\newcommand{\\d}{x}", 200.0),
            Line {
                bold: true,
                ..cjk("设置字体", 96.0, 225.0, true)
            },
            cjk(
                "本宏包提供了两个选项来控制字体，分别为罗马体和常规体，其中罗马体为默认值，",
                96.0,
                250.0,
                true,
            ),
            cjk("表示字体为罗马体。", 72.0, 266.0, false),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    assert_eq!(
        headings(&b),
        vec![("3.1 安装方法", Some(1)), ("设置字体", Some(2)),],
        "{b:?}"
    );
}

/// A table's row whose cells the reader left apart on its baseline (an
/// exhibit's number and title, then its form, date and file number, or
/// the tick of its "filed herewith" column) is no heading; a heading
/// after a line's number in the margin is one.
#[test]
fn a_row_with_its_cells_apart_is_no_heading() {
    let cell = |t: &str, x: f32, y: f32| line(t, 10.0, x, x + 40.0, y, false);
    let page = Page {
        lines: vec![
            line("Exhibit Index", 14.0, 72.0, 200.0, 80.0, true),
            prose(100.0),
            Line {
                bold: true,
                ..line(
                    "10.9 Deferred Compensation Plan",
                    11.0,
                    72.0,
                    300.0,
                    140.0,
                    true,
                )
            },
            cell("10-K", 340.0, 140.0),
            cell("1/20/15", 390.0, 140.0),
            cell("000-15175", 470.0, 140.0),
            prose(170.0),
            Line {
                bold: true,
                ..line(
                    "21 Subsidiaries of the Registrant",
                    11.0,
                    72.0,
                    300.0,
                    185.0,
                    true,
                )
            },
            cell("X", 540.0, 185.0),
            Line {
                gap: true,
                ..cell("26", 40.0, 215.0)
            },
            Line {
                bold: true,
                ..line("2 Where to Get It", 11.0, 72.0, 300.0, 215.0, true)
            },
            prose(245.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page]);
    assert_eq!(
        headings(&b),
        vec![("Exhibit Index", Some(1)), ("2 Where to Get It", Some(2))],
        "{b:?}"
    );
}

/// A numbered list's items set like headings, in another style than the
/// sections' count ("3." between "1" and "2"), are no headings; a part
/// numbering its sections anew, and a list once the count has ended,
/// keep theirs.
#[test]
fn list_items_out_of_the_count_are_no_headings() {
    let h = |t: &str, y: f32| Line {
        bold: true,
        ..line(t, 11.0, 72.0, 300.0, y, true)
    };
    let page = Page {
        lines: vec![
            h("1 Loading the package", 80.0),
            prose(100.0),
            h("3. Local settings", 130.0),
            prose(150.0),
            h("2 Setting options", 180.0),
            prose(200.0),
        ],
        ..Page::default()
    };
    // The second part numbers its sections anew.
    let part = Page {
        lines: vec![
            h("1 Starting again", 90.0),
            prose(110.0),
            h("2 Going further", 140.0),
            prose(160.0),
            h("1. First step", 190.0),
            prose(210.0),
            h("2. Second step", 240.0),
            prose(260.0),
        ],
        ..Page::default()
    };
    let b = blocks(&[page, part]);
    let texts: Vec<&str> = headings(&b).into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        texts,
        vec![
            "1 Loading the package",
            "2 Setting options",
            "1 Starting again",
            "2 Going further",
            "1. First step",
            "2. Second step"
        ]
    );
}

/// A table set atop a page, above the page's first heading, is filed
/// under that heading, not the section before; one under prose that
/// runs on from the page before stays where it is.
#[test]
fn a_float_atop_a_page_belongs_to_the_heading_on_its_page() {
    let row = |t: &str, y: f32| Line {
        table: true,
        ..line(t, 10.0, 72.0, 540.0, y, false)
    };
    let prose = |y: f32| {
        let t = format!("A paragraph of prose long enough to be body text, at {y}, ends.");
        body(&t, y, true)
    };
    let page = |lines: Vec<Line>| Page {
        lines,
        ..Page::default()
    };
    let pages = [
        page(vec![
            line("1 Methods", 14.0, 72.0, 200.0, 80.0, true),
            prose(100.0),
        ]),
        page(vec![
            row("Sample | 2023 | 2022", 80.0),
            row("Alpha | 1.2 | 1.4", 92.0),
            line("2 Results", 14.0, 72.0, 200.0, 130.0, true),
            prose(150.0),
        ]),
        page(vec![
            prose(80.0),
            row("Sample | 2021 | 2020", 110.0),
            line("3 Discussion", 14.0, 72.0, 200.0, 140.0, true),
            prose(160.0),
        ]),
    ];
    let b = blocks(&pages);
    let text: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
    let at = |t: &str| text.iter().position(|x| x.starts_with(t)).unwrap();
    assert!(at("2 Results") < at("Sample | 2023"), "{text:?}");
    assert!(at("Sample | 2021") < at("3 Discussion"), "{text:?}");
}
