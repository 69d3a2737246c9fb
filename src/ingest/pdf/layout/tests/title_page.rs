//! A document's title and its title page: no headings but the sections'.

use super::*;

/// The blocks of `pages` titled `title`, the title page's headings taken
/// back.
fn titled(pages: &[Page], title: &str) -> Vec<Block> {
    structure(
        pages,
        &Hyphenation::of(pages),
        None,
        &|_| Some(title.to_string()),
        true,
    )
    .0
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
    let b = blocks(&[page()]);
    assert_eq!(levels(&b)[0], ("A Study of Search".into(), 1));
    let b = titled(&[page()], "A Study of Search");
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
    let pages = [Page {
        lines: page().lines[1..].to_vec(),
        ..Page::default()
    }];
    let b = blocks(&pages);
    let before = levels(&b);
    let b = titled(&pages, "1 Introduction");
    assert_eq!(levels(&b), before);
    // A lone heading heads its text, title or not.
    let lines = page().lines;
    let pages = [Page {
        lines: vec![lines[0].clone(), lines[2].clone()],
        ..Page::default()
    }];
    let b = titled(&pages, "A Study of Search");
    assert_eq!(levels(&b)[0], ("A Study of Search".into(), 1));
    // A title in lower case over a subtitle in type of its own: neither
    // heads anything.
    let mut lines = page().lines;
    lines[0] = line("fancybox: documentation", 24.0, 72.0, 300.0, 60.0, false);
    lines.insert(
        1,
        line("Box Tips and Tricks", 20.0, 72.0, 300.0, 90.0, false),
    );
    let pages = [Page {
        lines,
        ..Page::default()
    }];
    let b = titled(&pages, "fancybox: documentation");
    assert_eq!(levels(&b)[0], ("1 Introduction".into(), 1));
    // The degree a thesis is for, over its title: neither heads a section.
    let mut lines = page().lines;
    lines.insert(0, line("Doctoral Thesis", 28.0, 72.0, 300.0, 50.0, false));
    let pages = [Page {
        lines,
        ..Page::default()
    }];
    let b = blocks(&pages);
    assert_eq!(levels(&b)[0], ("Doctoral Thesis".into(), 1));
    let b = titled(&pages, "A Study of Search");
    assert_eq!(levels(&b)[0], ("1 Introduction".into(), 1));
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
    let b = titled(std::slice::from_ref(&page), "The subcaption package");
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
    let pages = [cover, second];
    let b = titled(&pages, "The Pressure of Jupiter");
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
    let pages = [form];
    let b = titled(&pages, "ACME CORP FORM 10-K");
    assert_eq!(headings(&b), vec![("FORM 10-K", Some(1))]);
}

/// A manual page's first heading over its one-line summary ("NAME" over
/// "git-am - Apply a series of patches") is no title page's line: it is
/// set as the page's later sections are, at their left edge.
#[test]
fn a_manual_pages_first_section_over_its_summary_stays() {
    let heading = |t: &str, y: f32| line(t, 14.0, 72.0, 200.0, y, true);
    let page = Page {
        lines: vec![
            line("git-am(1)", 20.0, 72.0, 300.0, 60.0, false),
            heading("NAME", 100.0),
            line(
                "git-am - Apply a series of patches",
                11.0,
                72.0,
                300.0,
                120.0,
                true,
            ),
            heading("DESCRIPTION", 150.0),
            prose(170.0),
            heading("OPTIONS", 200.0),
            prose(220.0),
            heading("EXAMPLES", 250.0),
            prose(270.0),
        ],
        ..Page::default()
    };
    let b = titled(std::slice::from_ref(&page), "git-am(1)");
    let names: Vec<&str> = headings(&b).into_iter().map(|(t, _)| t).collect();
    assert_eq!(names, ["NAME", "DESCRIPTION", "OPTIONS", "EXAMPLES"]);
}

/// The same where the first page holds no section after its first
/// paragraph: its headings are set as the sections of the pages after it.
#[test]
fn a_manual_pages_first_sections_stay_where_the_others_come_later() {
    let heading = |t: &str, y: f32| line(t, 14.0, 72.0, 200.0, y, true);
    let short = |t: &str, y: f32| line(t, 11.0, 72.0, 300.0, y, true);
    let first = Page {
        lines: vec![
            line("git-am(1)", 20.0, 72.0, 300.0, 60.0, false),
            heading("NAME", 100.0),
            short("git-am - Apply a series of patches", 120.0),
            heading("SYNOPSIS", 150.0),
            short("git am [--signoff]", 170.0),
            heading("DESCRIPTION", 200.0),
            short("Splits mail messages:", 220.0),
            prose(240.0),
        ],
        ..Page::default()
    };
    let second = Page {
        lines: vec![
            heading("OPTIONS", 60.0),
            prose(80.0),
            heading("EXAMPLES", 110.0),
            prose(130.0),
        ],
        ..Page::default()
    };
    let b = titled(&[first, second], "git-am(1)");
    let names: Vec<&str> = headings(&b).into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        names,
        ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES"]
    );
}

/// The covers after the first page, before the text starts (a thesis's
/// inner cover, its English title page, a book's half-title), are no
/// headings either: display type larger than any later heading, no
/// paragraph but a note in small type, however many words a line in
/// capitals holds. A page before the text whose largest type is a
/// heading's size (a slide's title), or with a paragraph (a chapter's
/// opening page), keeps its headings.
#[test]
fn inner_covers_are_no_headings() {
    let cover = |top: &str| Page {
        lines: vec![
            line(top, 36.0, 150.0, 450.0, 160.0, true),
            line("A Study of Search", 28.0, 150.0, 450.0, 240.0, true),
            line("Candidate: Jane Doe", 18.0, 150.0, 450.0, 350.0, true),
            line("Supervisor: John Roe", 18.0, 150.0, 450.0, 430.0, true),
            line(
                "This work was funded by the National Fund for Science, grant 1234.",
                9.0,
                72.0,
                540.0,
                770.0,
                true,
            ),
        ],
        ..Page::default()
    };
    let english = Page {
        lines: vec![
            line("Dissertation for the Doctoral Degree", 18.0, 110.0, 450.0, 220.0, true),
            Line {
                bold: true,
                ..line(
                    "RESEARCH ON KEY TECHNOLOGIES OF PARTIAL POROUS EXTERNALLY PRESSURIZED GAS BEARING",
                    28.0,
                    100.0,
                    500.0,
                    330.0,
                    true,
                )
            },
            line("Degree-Conferring-Institution: Harbin Institute", 14.0, 100.0, 450.0, 700.0, true),
        ],
        ..Page::default()
    };
    let opening = Page {
        lines: vec![
            line("Introduction", 36.0, 72.0, 300.0, 200.0, true),
            line("What the class offers", 13.0, 72.0, 300.0, 380.0, true),
            line(
                "In this first chapter we present a few general points about the class: why it exists, how to install it and which details matter.",
                9.0,
                72.0,
                540.0,
                400.0,
                true,
            ),
        ],
        ..Page::default()
    };
    let slide = Page {
        lines: vec![
            line("Motivation", 16.0, 72.0, 200.0, 80.0, true),
            line("Why Search", 13.0, 72.0, 200.0, 110.0, true),
            body("and a short point.", 140.0, true),
        ],
        ..Page::default()
    };
    let text = Page {
        lines: vec![
            line("1 Introduction", 16.0, 72.0, 220.0, 80.0, true),
            prose(110.0),
            line("2 Results", 16.0, 72.0, 220.0, 150.0, true),
            prose(180.0),
            prose(210.0),
            prose(240.0),
            prose(270.0),
        ],
        ..Page::default()
    };
    let pages = [
        cover("Doctoral Thesis"),
        cover("Thesis"),
        english,
        opening,
        slide,
        text,
    ];
    let b = titled(&pages, "A Study of Search");
    assert_eq!(
        headings(&b),
        vec![
            ("Introduction", Some(1)),
            ("What the class offers", Some(3)),
            ("Motivation", Some(2)),
            ("Why Search", Some(3)),
            ("1 Introduction", Some(2)),
            ("2 Results", Some(2)),
        ]
    );
}

/// An author's initial is no appendix's letter: "F. Bosisio" over the
/// date on a title page is no heading.
#[test]
fn an_authors_initial_is_no_number() {
    let page = Page {
        lines: vec![
            line("Package accenti", 20.0, 200.0, 400.0, 140.0, false),
            Line {
                bold: true,
                ..line("F. Bosisio", 14.0, 260.0, 340.0, 175.0, true)
            },
            line("April 2, 2005", 11.0, 260.0, 340.0, 220.0, true),
            line("1 Introduction", 16.0, 72.0, 220.0, 260.0, true),
            prose(290.0),
        ],
        ..Page::default()
    };
    let b = blocks(std::slice::from_ref(&page));
    assert!(headings(&b).contains(&("F. Bosisio", Some(3))), "{b:?}");
    let b = titled(std::slice::from_ref(&page), "Package accenti");
    assert_eq!(headings(&b), vec![("1 Introduction", Some(1))]);
}
