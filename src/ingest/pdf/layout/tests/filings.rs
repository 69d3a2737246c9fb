//! A filing's cover, statements, contents and signatures.

use super::*;

/// A row of a statement's table, in 9pt type.
fn row(t: &str, y: f32) -> Line {
    Line {
        table: true,
        ..line(t, 9.0, 72.0, 400.0, y, false)
    }
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
            filed(200.0),
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

/// The lines that title a statement go with its table: the title as a
/// heading, the company and units as the table's caption.
#[test]
fn a_statement_title_heads_its_table() {
    let pages = vec![Page {
        lines: vec![
            body("The notes follow the statements below.", 60.0, true),
            line("CONSOLIDATED BALANCE SHEETS", 9.0, 72.0, 250.0, 90.0, true),
            line("(Amounts in millions)", 9.0, 72.0, 200.0, 102.0, false),
            row("At December 31 | 2019 | 2018", 120.0),
            row("Cash | $5,794 | $4,225", 132.0),
            row("Total assets | $19,845 | $17,890", 144.0),
            filed(170.0),
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

/// A company's name set over the statement's title in one block leaves
/// the title the heading, though lines stand between it and the table; a
/// bullet over a statement's name is a list's entry, not a company.
#[test]
fn a_company_over_a_statement_title_leaves_it_the_heading() {
    let text = |t: &str, y: f32, gap: bool| line(t, 9.0, 72.0, 300.0, y, gap);
    let pages = vec![Page {
        lines: vec![
            body("The notes follow the statements below.", 40.0, true),
            text("ORCHARD HOLDINGS, LLC", 70.0, true),
            text("CONSOLIDATED STATEMENTS OF CASH FLOWS", 81.0, false),
            text("(In thousands)", 92.0, false),
            text("Year Ended December 31, 2018 and 2017", 110.0, true),
            text("Cash flows from operating activities", 125.0, true),
            row("Net income | $5,794 | $4,225", 140.0),
            row("Depreciation | 224,682 | 224,358", 152.0),
            body("Our sources of funds are these.", 160.0, true),
            text("• Equity", 180.0, true),
            text(
                "Consolidated Statements of Equity and Note 12",
                191.0,
                false,
            ),
            filed(220.0),
        ],
        ..Page::default()
    }];
    let b = blocks(&pages);
    let title = b
        .iter()
        .position(|b| b.text == "CONSOLIDATED STATEMENTS OF CASH FLOWS")
        .expect("the title as a block of its own");
    assert!(b[title].level.is_some(), "{b:#?}");
    assert!(
        b[title + 1]
            .text
            .starts_with("ORCHARD HOLDINGS, LLC (In thousands)"),
        "{b:#?}"
    );
    assert!(
        !b.iter()
            .any(|b| b.level.is_some() && b.text.contains("Statements of Equity")),
        "{b:#?}"
    );
}

/// The row groups of a statement ("Assets", "Liabilities") are its
/// subsections; the notes after it are not.
#[test]
fn headings_inside_a_statement_nest_under_its_title() {
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
                filed(140.0),
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

/// Inside an item the row groups still sit one level under the
/// statement, however deep the item; the prose after the statement's
/// table ends it, and the discussion's next heading is the statement's
/// sibling.
#[test]
fn a_statements_row_groups_nest_under_it_inside_an_item() {
    let text = |t: &str, y: f32| line(t, 9.0, 72.0, 540.0, y, true);
    let prose = |y: f32| {
        text(
            "The discussion of the results that follows reads the statement above line by line.",
            y,
        )
    };
    let pages = vec![Page {
        lines: vec![
            text("PART II", 60.0),
            text("Item 8. Financial Statements", 80.0),
            prose(100.0),
            text("Consolidated Statements of Income", 130.0),
            row("Years Ended December 31 | 2021 | 2020", 150.0),
            text("Operating Revenues", 170.0),
            row("Service revenues | $110,449 | $109,872", 182.0),
            text("Operating Expenses", 200.0),
            row("Cost of services | 31,234 | 31,401", 212.0),
            prose(240.0),
            text("Segment Results", 270.0),
            prose(290.0),
            filed(310.0),
        ],
        ..Page::default()
    }];
    let b = blocks(&pages);
    let level = |t: &str| b.iter().find(|b| b.text == t).and_then(|b| b.level);
    let item = level("Item 8. Financial Statements").expect("a heading");
    let title = level("Consolidated Statements of Income").expect("a heading");
    assert_eq!(title, item + 1, "{b:#?}");
    assert_eq!(level("Operating Revenues"), Some(title + 1), "{b:#?}");
    assert_eq!(level("Operating Expenses"), Some(title + 1));
    assert_eq!(level("Segment Results"), Some(title), "{b:#?}");
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

/// The place over an auditor's date, or under the signature or its
/// tenure line, is no heading; a place over prose may be one.
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
            body("/s/ KPMG LLP", 280.0, true),
            body(
                "We have served as the Company's auditor since 1994.",
                295.0,
                true,
            ),
            body("Dallas, Texas", 320.0, true),
            prose(340.0),
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

/// The financial statements filed after an item that neither names them
/// nor holds more than a line ("Item 16. Form 10-K Summary" over
/// "None.") stand beside the items, not in that item: the auditor's
/// report, each statement and the notes. After an item with text of its
/// own (a report on internal control in "Item 9A"), or one that names
/// the statements ("Item 15. Exhibits, Financial Statement Schedules"),
/// the report stays in the item.
#[test]
fn statements_after_the_last_item_stand_beside_the_items() {
    let report = "Report of Independent Registered Public Accounting Firm";
    let level_in = |last_item: &str, under_it: Line| {
        let pages = vec![
            Page {
                lines: vec![
                    filed(40.0),
                    body("PART IV", 60.0, true),
                    body(last_item, 80.0, true),
                    under_it,
                ],
                ..Page::default()
            },
            Page {
                lines: vec![
                    body(report, 60.0, true),
                    prose(80.0),
                    body("Critical Audit Matters", 110.0, true),
                    prose(130.0),
                    line("CONSOLIDATED BALANCE SHEETS", 9.0, 72.0, 250.0, 160.0, true),
                    row("At December 31 | 2019 | 2018", 180.0),
                    row("Total assets | $19,845 | $17,890", 192.0),
                    body("Notes to Consolidated Financial Statements", 220.0, true),
                    body("1. Description of Business", 240.0, true),
                    prose(260.0),
                ],
                ..Page::default()
            },
        ];
        let b = blocks(&pages);
        let level = |t: &str| b.iter().find(|b| b.text == t).and_then(|b| b.level);
        let levels = [
            last_item,
            report,
            "Critical Audit Matters",
            "CONSOLIDATED BALANCE SHEETS",
            "Notes to Consolidated Financial Statements",
            "1. Description of Business",
        ]
        .map(|t| level(t).unwrap_or_else(|| panic!("{t}: no heading in {b:#?}")));
        levels
    };
    let none = body("None.", 100.0, true);
    let [item, report, _, sheets, notes, note] = level_in("Item 16. Form 10-K Summary", none);
    assert_eq!([report, sheets, notes], [item; 3]);
    assert!(note > notes);
    for (last_item, under_it) in [
        ("Item 9A. Controls and Procedures", prose(100.0)),
        (
            "Item 15. Exhibits, Financial Statement Schedules",
            body("None.", 100.0, true),
        ),
    ] {
        let [item, report, ..] = level_in(last_item, under_it);
        assert!(report > item, "{last_item}");
    }
}
