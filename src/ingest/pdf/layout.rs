//! From laid-out lines to paragraphs and headings: running headers and
//! page numbers dropped, lines grouped into blocks at vertical gaps, font
//! changes, short sentence-ending lines, first-line indents and bullets;
//! wrapped lines joined and words hyphenated at line ends rejoined; short
//! standalone blocks that look like headings (larger font, bold, numbered
//! like `2.3 Results`, ALL CAPS or Title Case) given a level. Table rows
//! stay one line each, in a block of their own with the caption above
//! them.

use super::contents::{contents_pages, contents_title};
use super::filing::{is_part, FilingNesting};
use super::furniture::strip_running_lines;
use super::grouping::{body_size, bold_share, group_lines, mean_size};
use super::monospace::code_text;
use super::page::{Line, Page};
use super::statement::{caption, statement_line, statement_title};
use super::text_shape::{
    all_caps, heading_text, item_heading, join_lines, numbered_depth, title_case,
};

/// A paragraph or heading of a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// 1-based page number.
    pub page: u32,
    /// The text on one line: wrapped lines joined, hyphenation undone.
    pub text: String,
    /// Heading level (1 = top) when the block is heading-like.
    pub level: Option<u8>,
    /// Font size in points.
    pub size: f32,
    /// Baseline of its first line, in points from the top of the page.
    pub top: f32,
    /// A table: one row per line (cells joined by ` | `), its caption first.
    pub table: bool,
    /// A listing in a monospaced font: one line per line, indented.
    pub code: bool,
    /// The page's text was recognised by OCR.
    pub ocr: bool,
}

/// Blocks of every page, in reading order.
pub(super) fn blocks(pages: &[Page]) -> Vec<Block> {
    let mut lines: Vec<Vec<Line>> = pages.iter().map(|p| p.lines.clone()).collect();
    let body = body_size(&lines);
    strip_running_lines(&mut lines, body);
    let contents = contents_pages(&lines);
    // Bold says nothing where most of the text is bold (a font that
    // reports a heavy weight for every glyph).
    let bold_body = bold_share(&lines) > 0.4;
    let mut raw: Vec<(u32, Vec<&Line>)> = Vec::new();
    for (i, page) in lines.iter().enumerate() {
        for group in group_lines(page) {
            raw.push((i as u32 + 1, group));
        }
    }
    let big = |size: f32| size >= body * 1.12 && size >= body + 1.0;
    // Heading font sizes, largest first: their rank is the heading level.
    let mut heading_sizes: Vec<f32> = Vec::new();
    for (_, g) in &raw {
        let size = mean_size(g);
        if big(size) && g.len() <= 2 && !g[0].table && !g[0].mono && heading_text(&join_lines(g)) {
            heading_sizes.push(size);
        }
    }
    heading_sizes.sort_by(|a, b| b.total_cmp(a));
    heading_sizes.dedup_by(|a, b| (*a - *b).abs() < 0.6);
    let below_fonts = heading_sizes.len().min(5) as u8 + 1;

    let mut out: Vec<Block> = Vec::with_capacity(raw.len());
    // The lines of the last two blocks of prose, for a statement's title.
    let mut last_lines: [Vec<String>; 2] = Default::default();
    // The page of the last statement title: the row groups under it
    // ("Assets", "Current liabilities") are its subsections, not its
    // siblings, on its page and the next.
    let mut statement_page: Option<u32> = None;
    // The level and depth of the last numbered heading: `7.37` nests under
    // `7` by their numbers, whatever their fonts.
    let mut numbered: Option<(u8, u8)> = None;
    // The level of the filing item the text is in: its unnumbered
    // sub-headings ("Liquidity and Capital Resources") nest under
    // "Item 7.".
    let mut item: Option<u8> = None;
    let mut filing = FilingNesting::default();
    // A statement's title sits under the item it is in (Item 8.).
    let statement_level = |item: Option<u8>| item.map_or(below_fonts, |i| below_fonts.max(i + 1));
    for (page, g) in raw {
        let ocr = pages[page as usize - 1].ocr;
        let size = mean_size(&g);
        if g[0].mono {
            out.push(Block {
                page,
                text: code_text(&g),
                level: None,
                size,
                top: g[0].y,
                table: false,
                code: true,
                ocr,
            });
            continue;
        }
        if g.first().is_some_and(|l| l.table) {
            let rows: Vec<&str> = g.iter().map(|l| l.text.as_str()).collect();
            let mut text = rows.join("\n");
            // The caption right above the table goes with it: a `Table 3`
            // line, or the short lines that title a statement
            // ("CONSOLIDATED BALANCE SHEETS", "(Amounts in millions)"),
            // whose title line heads the table as a heading.
            // The units and dateline between a statement's title and its
            // table ("(Amounts in millions)", "Years Ended December 31,")
            // belong to the table.
            let lead = statement_lead(&out, page);
            if lead > 0 {
                let lines: Vec<String> = out.drain(out.len() - lead..).map(|b| b.text).collect();
                text = format!("{}\n{text}", lines.join("\n"));
            } else if let Some(prev) = out
                .last()
                .filter(|b| b.page == page && !b.table && b.level.is_none())
            {
                if caption(&prev.text) {
                    text = format!("{}\n{text}", prev.text);
                    out.pop();
                } else if let Some((title, rest)) = statement_title(&last_lines[1]) {
                    let prev = out.pop().unwrap_or_else(|| unreachable!());
                    statement_page = Some(page);
                    out.push(Block {
                        level: Some(filing.place(
                            &title,
                            statement_level(item),
                            &mut item,
                            &mut numbered,
                        )),
                        text: title,
                        ..prev
                    });
                    if !rest.is_empty() {
                        text = format!("{rest}\n{text}");
                    }
                } else if prev.text.split_whitespace().count() <= 8 && out.len() >= 2 {
                    // A dateline between the title and its table ("Years
                    // Ended December 31,").
                    let before = &out[out.len() - 2];
                    if before.page == page && !before.table && before.level.is_none() {
                        if let Some((title, rest)) = statement_title(&last_lines[0]) {
                            let dateline = out.pop().unwrap_or_else(|| unreachable!());
                            let block = out.pop().unwrap_or_else(|| unreachable!());
                            statement_page = Some(page);
                            out.push(Block {
                                level: Some(filing.place(
                                    &title,
                                    statement_level(item),
                                    &mut item,
                                    &mut numbered,
                                )),
                                text: title,
                                ..block
                            });
                            let lead = [rest.as_str(), dateline.text.as_str()]
                                .iter()
                                .filter(|s| !s.is_empty())
                                .copied()
                                .collect::<Vec<_>>()
                                .join("\n");
                            text = format!("{lead}\n{text}");
                        }
                    }
                }
            }
            out.push(Block {
                page,
                text,
                level: None,
                size,
                top: g[0].y,
                table: true,
                code: false,
                ocr,
            });
            continue;
        }
        let text = join_lines(&g);
        last_lines.swap(0, 1);
        last_lines[1] = g.iter().map(|l| l.text.clone()).collect();
        // A financial statement's title heads what follows wherever its
        // table starts: "CONSOLIDATED STATEMENTS OF OPERATIONS (Amounts in
        // millions)", its units split off as text of their own.
        if g.len() <= 2 {
            if let Some((title, units)) = statement_line(&g[0].text) {
                statement_page = Some(page);
                out.push(Block {
                    page,
                    level: Some(filing.place(
                        &title,
                        statement_level(item),
                        &mut item,
                        &mut numbered,
                    )),
                    text: title,
                    size,
                    top: g[0].y,
                    table: false,
                    code: false,
                    ocr,
                });
                let rest: Vec<&str> = std::iter::once(units.as_str())
                    .chain(g[1..].iter().map(|l| l.text.as_str()))
                    .filter(|s| !s.is_empty())
                    .collect();
                if !rest.is_empty() {
                    out.push(Block {
                        page,
                        text: rest.join(" "),
                        level: None,
                        size,
                        top: g[0].y,
                        table: false,
                        code: false,
                        ocr,
                    });
                }
                last_lines[1].clear();
                continue;
            }
        }
        let bold = !bold_body && g.iter().all(|l| l.bold);
        // Smaller than the body: a footnote ("4 譬如…"), a caption or a
        // figure's label, never a heading.
        let small = size < body * 0.92;
        let level = if g.len() > 2 || small || !heading_text(&text) {
            None
        } else if contents
            .get(&page)
            .is_some_and(|&first| g[0].y >= first - 1.0)
            && !contents_title(&text)
        {
            // A contents page lists headings: they are not headings there.
            None
        } else if big(size) {
            // The font size ranks headings; it wins over numbering,
            // which documents often restart or flatten.
            let rank = heading_sizes
                .iter()
                .position(|s| (s - size).abs() < 0.6)
                .unwrap_or(0);
            let level = rank as u8 + 1;
            statement_page = None;
            match numbered_depth(&text) {
                Some(d) => numbered = Some((level, d)),
                None if numbered.is_some_and(|(l, _)| level <= l) => numbered = None,
                None => {}
            }
            item = item_heading(&text).then_some(level);
            Some(level)
        } else if g.len() > 1 {
            None
        } else if let Some(d) = numbered_depth(&text) {
            // Nested by its numbering under the last numbered heading, or
            // below every larger-font heading.
            statement_page = None;
            let level = match numbered {
                Some((l, d0)) => (l + d).saturating_sub(d0).max(1),
                None => below_fonts - 1 + d,
            };
            numbered = Some((level, d));
            item = item_heading(&text).then_some(level);
            Some(level)
        } else if leads_with_a_word(&text)
            && (all_caps(&text) || title_case(&text) || (bold && short_line(&text)))
        {
            let under_statement = statement_page.is_some_and(|p| page <= p + 1)
                && !text.to_lowercase().starts_with("notes to");
            if !under_statement {
                statement_page = None;
            }
            let level = below_fonts + u8::from(under_statement);
            Some(item.map_or(level, |i| level.max(i + 1)))
        } else {
            None
        };
        let level = level.map(|l| filing.place(&text, l, &mut item, &mut numbered));
        out.push(Block {
            page,
            text,
            level: level.map(|l| l.clamp(1, 6)),
            size,
            top: g[0].y,
            table: false,
            code: false,
            ocr,
        });
    }
    if let Some(top) = filing.cover_level() {
        for b in out
            .iter_mut()
            .take_while(|b| !(b.level.is_some() && is_part(&b.text)))
        {
            if let Some(l) = b.level.as_mut() {
                *l = (*l).max(top);
            }
        }
    }
    out
}

/// How many short blocks at the end of `out` sit between a statement's
/// title heading and the table starting on `page`: at most two, each of
/// at most twelve words.
fn statement_lead(out: &[Block], page: u32) -> usize {
    for lead in 1..=2.min(out.len().saturating_sub(1)) {
        let between = &out[out.len() - lead..];
        let short = |b: &Block| {
            b.page == page
                && !b.table
                && b.level.is_none()
                && b.text.split_whitespace().count() <= 12
        };
        if !between.iter().all(short) {
            return 0;
        }
        let title = &out[out.len() - lead - 1];
        if title.page == page && title.level.is_some() && statement_line(&title.text).is_some() {
            return lead;
        }
    }
    0
}

/// A bold line short enough to be a heading rather than a bold sentence
/// (in words, or in characters for a script written without spaces).
/// Starts with a word: letters, a word with digits in it ("5G
/// Deployment"), or a year ahead of others ("2021 Compared to 2020").
fn leads_with_a_word(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("");
    let year = first.len() == 4
        && (first.starts_with("19") || first.starts_with("20"))
        && first.chars().all(|c| c.is_ascii_digit());
    first.starts_with(char::is_alphabetic)
        || (first.starts_with(|c: char| c.is_ascii_digit())
            && first.chars().any(char::is_alphabetic))
        || (year && words.next().is_some())
}

fn short_line(t: &str) -> bool {
    t.split_whitespace().count() <= 8 && t.chars().count() <= 60
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words of its own for page `i` (digits alone would read as the
    /// same line, a running one).
    fn tag(i: usize) -> String {
        [b'a' + (i / 26) as u8, b'a' + (i % 26) as u8]
            .map(char::from)
            .iter()
            .collect()
    }

    fn line(text: &str, size: f32, x: f32, end: f32, y: f32, gap: bool) -> Line {
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
    fn body(text: &str, y: f32, gap: bool) -> Line {
        line(text, 11.0, 72.0, 540.0, y, gap)
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
        let levels: Vec<(String, Option<u8>)> =
            b.iter().map(|b| (b.text.clone(), b.level)).collect();
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
        let prose = |y: f32| {
            body(
                "A paragraph of body text long enough to be prose, which ends here.",
                y,
                true,
            )
        };
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
        let prose = |y: f32| {
            body(
                "A paragraph of body text long enough to be prose, which ends here.",
                y,
                true,
            )
        };
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
}
