//! Table-of-contents pages: their lines name the document's headings, so
//! taken as headings they would put every section a second time, on the
//! contents page, and cite it.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use super::lexicon::{letters, CONTENTS_TITLES, ROMAN_PAGE_REF};
use super::page::Line;
use super::tables::CELL_SEPARATOR;
use super::text_shape::{index_letter, leaders};
use super::tuning::TUNING;

/// The pages that are a table of contents (1-based), each with the baselines
/// of its listing: at least five entries (a title followed by its page
/// number) making up at least two fifths of the page's lines with letters, or
/// a page with "Contents" over at least three. What is above the first entry
/// ("Item 8. Financial Statements" over its index) is not an entry, nor is a
/// heading in a bigger type below the last (the text's start under a short
/// manual's contents). A back-of-book index, with two of its letters or
/// more, is no contents page: its letters are headings.
pub(super) fn contents_pages(pages: &[Vec<Line>]) -> HashMap<u32, RangeInclusive<f32>> {
    let mut out = HashMap::new();
    for (i, lines) in pages.iter().enumerate() {
        let letters = (0..lines.len())
            .filter(|&k| index_letter(&lines[k], lines.get(k + 1)))
            .count();
        if letters >= 2 {
            continue;
        }
        let with_letters = lines
            .iter()
            .filter(|l| l.text.chars().any(char::is_alphabetic))
            .count();
        let entries = entries(lines);
        let baselines = entries.iter().map(|&e| lines[e].y);
        let Some(first) = baselines.clone().reduce(f32::min) else {
            continue;
        };
        let last = baselines.fold(first, f32::max);
        // Under the last entry, the listing goes on (entries whose page
        // number was not read) to the text's first heading, set bigger.
        let size = entries.iter().map(|&e| lines[e].size).fold(0.0, f32::max);
        let end = lines
            .iter()
            .filter(|l| l.y > last && l.size > size + TUNING.same_type_points)
            .map(|l| l.y - 1.0)
            .reduce(f32::min)
            .unwrap_or(f32::MAX);
        let n = entries.len();
        // Headed at the page's top, or further down above its entries (a
        // short manual's contents under its title and abstract).
        let top = TUNING.contents_title_lines;
        let headed = (0..lines.len())
            .any(|k| (k < top || lines[k].y < first) && contents_title(&row_text(lines, k)));
        let (least, headed_least) = TUNING.contents_entries;
        let (part, whole) = TUNING.contents_share;
        if (n >= least && n * whole >= with_letters * part) || (headed && n >= headed_least) {
            out.insert(i as u32 + 1, first - 1.0..=end);
        }
    }
    out
}

/// The text of line `k` and the lines after it on its row: a title set
/// letter-spaced (`目   录`) comes as a span a letter.
fn row_text(lines: &[Line], k: usize) -> String {
    lines[k..]
        .iter()
        .take_while(|l| same_row(&lines[k], l))
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Two spans on one baseline, within half the size of `b`'s type.
pub(super) fn same_row(a: &Line, b: &Line) -> bool {
    (a.y - b.y).abs() < TUNING.same_row * b.size.max(1.0)
}

/// The title of a table of contents, in the languages kb sees most.
pub(super) fn contents_title(t: &str) -> bool {
    CONTENTS_TITLES.contains(&letters(t).as_str())
}

/// The entries of a page (indexes of its lines): lines (or table rows)
/// with words that end in a page number, and page numbers standing alone
/// at the right of a row (set as a span of their own) after a line with
/// words. A financial table's rows hold columns of amounts; an entry's
/// only number after its words is the page.
fn entries(lines: &[Line]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let text = l.text.replace(CELL_SEPARATOR, " ");
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let Some(last) = tokens.last() else { continue };
        let last = last.trim_start_matches('…');
        let letters = text.chars().any(char::is_alphabetic);
        if page_ref(last) && letters && tokens.len() > 1 && numbered_words_before(&tokens) {
            out.push(i);
        } else if tokens.len() == 1 && (page_ref(last) || page_ref(&last.to_lowercase())) {
            // Standing apart at the row's right, a page number may be a capital
            // roman one (`III`): there it cannot be "Part II". Back over the
            // row's dot leaders, when set as spans of their own, to the words.
            let words = (0..i)
                .rev()
                .take_while(|&j| same_row(&lines[j], l) && lines[j].end < l.x)
                .find(|&j| !leaders(&lines[j].text));
            if let Some(j) = words.filter(|&j| lines[j].text.chars().any(char::is_alphabetic)) {
                out.push(j);
            }
        }
    }
    out
}

/// Every number before the last token is followed by a word: a section's or an
/// item's number ("1.1 Scope", "Item 1. Business"), not a column of amounts.
fn numbered_words_before(tokens: &[&str]) -> bool {
    let body = &tokens[..tokens.len() - 1];
    body.iter().enumerate().all(|(i, t)| {
        !t.contains(char::is_numeric)
            || body
                .get(i + 1)
                .is_some_and(|n| n.contains(char::is_alphabetic))
    })
}

/// A page number as a contents entry gives it: `12`, `xiv`, `F-3`.
pub(super) fn page_ref(t: &str) -> bool {
    let t = t.trim_start_matches(['.', '…']);
    let short = |n: usize| !t.is_empty() && t.len() <= n;
    let digits = short(TUNING.page_ref_digits) && t.chars().all(|c| c.is_ascii_digit());
    let roman = short(TUNING.roman_page_letters) && t.chars().all(|c| ROMAN_PAGE_REF.contains(c));
    let lettered = t.split_once('-').is_some_and(|(a, b)| {
        a.len() == 1
            && a.chars().all(|c| c.is_ascii_uppercase())
            && (1..=TUNING.page_ref_digits).contains(&b.len())
            && b.chars().all(|c| c.is_ascii_digit())
    });
    digits || roman || lettered
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, y: f32, x: f32) -> Line {
        Line {
            text: text.into(),
            size: 10.0,
            x,
            end: x + 6.0 * text.chars().count() as f32,
            y,
            ..Line::default()
        }
    }

    #[test]
    fn a_contents_page_and_a_financial_statement_told_apart() {
        let toc = vec![
            line("Table of Contents", 60.0, 72.0),
            line("1 Introduction … 1", 80.0, 72.0),
            line("1.1 Scope … 2", 92.0, 72.0),
            line("2 Installation", 104.0, 72.0),
            line("14", 104.0, 500.0),
            line("PART I", 116.0, 72.0),
            line("Item 1. Business | 3", 128.0, 72.0),
            line("Item 1A. Risk Factors | 18", 140.0, 72.0),
            line("Appendix … xii", 152.0, 72.0),
        ];
        let statement = vec![
            line("CONSOLIDATED BALANCE SHEETS", 60.0, 72.0),
            line("Cash and cash equivalents | $ 2,306 | $ 1,011", 80.0, 72.0),
            line("Short-term investments | 3,513 | 3,749", 92.0, 72.0),
            line("Receivables | 1,218 | 833", 104.0, 72.0),
            line("Total current assets | 7,750 | 6,250", 116.0, 72.0),
            line("Goodwill | 6,660 | 5,406", 128.0, 72.0),
            line("Total assets | 14,536 | 12,707", 140.0, 72.0),
        ];
        let prose = vec![
            line("The results for 2017 show that revenue grew in", 60.0, 72.0),
            line("every segment, as Note 4 explains on page 12", 72.0, 72.0),
        ];
        // A title set letter-spaced, and rows of words, dot leaders and
        // a page number, each a span of its own.
        let mut spaced = vec![line("目", 60.0, 270.0), line("录", 60.0, 300.0)];
        for (i, (words, page)) in [("摘要", "I"), ("Abstract", "III"), ("简介", "1")]
            .into_iter()
            .enumerate()
        {
            let y = 80.0 + 12.0 * i as f32;
            spaced.push(line(words, y, 72.0));
            spaced.push(line("· · · · · · · ·", y, 200.0));
            spaced.push(line(page, y, 500.0));
        }
        // A short manual's contents under its title and abstract.
        let mut manual = vec![
            line("The brandeis-problemset Document Class", 60.0, 134.0),
            line("Rebecca Turner", 80.0, 273.0),
            line("Abstract", 100.0, 298.0),
            line(
                "Brandeis University's computer science courses",
                112.0,
                134.0,
            ),
            line("Contents", 140.0, 110.0),
        ];
        for (i, words) in ["1 Default behavior", "2 Class configuration", "3 Example"]
            .into_iter()
            .enumerate()
        {
            let y = 160.0 + 12.0 * i as f32;
            manual.push(line(words, y, 110.0));
            manual.push(line(&(2 * i + 2).to_string(), y, 500.0));
        }
        manual.push(Line {
            size: 14.0,
            ..line("1 Introduction", 210.0, 110.0)
        });
        manual.push(line(
            "In chemical publications it is often necessary",
            230.0,
            110.0,
        ));
        let pages = contents_pages(&[toc, statement, prose, spaced, manual]);
        assert_eq!(
            pages,
            HashMap::from([
                (1, 79.0..=f32::MAX),
                (4, 79.0..=f32::MAX),
                (5, 159.0..=209.0)
            ])
        );
        assert!(contents_title("TABLE OF CONTENTS") && contents_title("目 录"));
        assert!(!contents_title("Contents of the package"));
    }
}
