//! Running headers, page numbers and section marks: page furniture is no heading.

use super::*;

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

/// A section number a page's last sentence ends on is text; a page number
/// of chapter-page form, on every page, is not.
#[test]
fn a_section_number_ending_a_page_is_text() {
    let topics = ["apples", "bridges", "clocks", "dunes"];
    let pages = |foot: &dyn Fn(usize) -> String| -> Vec<Page> {
        (1..=4)
            .map(|i| Page {
                lines: vec![
                    body(&format!("A page on {}.", topics[i - 1]), 100.0, true),
                    body(
                        &format!("More on {} in Section", topics[i - 1]),
                        114.0,
                        false,
                    ),
                    line(&foot(i), 10.0, 72.0, 90.0, 128.0, false),
                ],
                ..Page::default()
            })
            .collect()
    };
    let reference = blocks(&pages(&|i| {
        if i == 2 {
            "4.3.".into()
        } else {
            format!("{i}")
        }
    }));
    assert!(
        reference.iter().any(|b| b.text.ends_with("Section 4.3.")),
        "{reference:#?}"
    );
    let numbered = blocks(&pages(&|i| format!("3.{i}")));
    assert!(
        numbered.iter().all(|b| !b.text.contains("3.")),
        "{numbered:#?}"
    );
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

/// A running header naming the current section, smaller than the
/// section's heading and beside the page number, is not the section
/// again on the page; a heading atop a page on its own stays.
#[test]
fn a_section_mark_atop_a_page_is_not_a_heading() {
    let heading = |text: &str, size: f32, y: f32| line(text, size, 72.0, 300.0, y, true);
    // A heading in the body's size is set in bold where others are larger.
    let bold = |text: &str, size: f32, y: f32| Line {
        bold: true,
        ..heading(text, size, y)
    };
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
    let mut third = vec![bold("Troubleshooting", 11.0, 40.0)];
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
    let mut sixth = vec![bold("Troubleshooting", 11.0, 40.0)];
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
