//! Page furniture: running headers and footers and page numbers, which
//! repeat on many pages and would otherwise become the text or the
//! section of every chunk under them.

use std::collections::{HashMap, HashSet};

use super::page::Line;

/// Drops running headers and footers and bare page numbers. A running
/// line is the same text, digits aside, among the first three or last two
/// lines of at least a tenth of the pages (and of three): a filing repeats
/// "Table of Contents" or "Notes to Consolidated Financial Statements
/// (continued)" on a quarter of its pages, and as body text or headings
/// they would cite every page under them. A line repeated at the same
/// height on three pages is a running line however few pages the
/// document has: a chapter's running header ("Chapter 6: Add-on
/// packages") tops only that chapter's pages; so is the last line of
/// three pages wherever it falls. Table rows stay: a header
/// row repeated on every page of a long table is what its numbers mean.
pub(super) fn strip_running_lines(pages: &mut [Vec<Line>], body: f32) {
    fn key(t: &str) -> String {
        t.chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .flat_map(char::to_lowercase)
            .collect()
    }
    fn edge(i: usize, n: usize) -> bool {
        i < 3 || i + 2 >= n
    }
    // The same height within a point or so.
    fn height(l: &Line) -> i32 {
        (l.y / 2.0).round() as i32
    }
    let with_text = pages.iter().filter(|p| !p.is_empty()).count();
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut placed: HashMap<(String, i32), usize> = HashMap::new();
    let mut outermost: HashMap<String, usize> = HashMap::new();
    // The smallest size each running text is set in.
    let mut smallest: HashMap<String, f32> = HashMap::new();
    for p in pages.iter() {
        let mut seen = HashSet::new();
        let mut outer = HashSet::new();
        for (i, l) in p.iter().enumerate() {
            if i + 1 == p.len() && outer.insert(key(&l.text)) {
                *outermost.entry(key(&l.text)).or_default() += 1;
            }
            if edge(i, p.len()) && seen.insert(key(&l.text)) {
                *counts.entry(key(&l.text)).or_default() += 1;
                *placed.entry((key(&l.text), height(l))).or_default() += 1;
                let s = smallest.entry(key(&l.text)).or_insert(l.size);
                *s = s.min(l.size);
            }
        }
    }
    // What each line is: kept, a page number, or a running line.
    let judge = |l: &Line, at_edge: bool| -> Verdict {
        if !at_edge || l.table {
            return Verdict::Text;
        }
        if page_number(&l.text) {
            return Verdict::PageNumber;
        }
        // A chapter's title atop its first page, larger than the running
        // header repeating it on the pages after, stays.
        let least = smallest.get(&key(&l.text)).copied().unwrap_or(l.size);
        if l.size >= body * 1.12 && l.size >= least * 1.12 {
            return Verdict::Text;
        }
        let c = counts.get(&key(&l.text)).copied().unwrap_or(0);
        // Within a point or two: a height near a bucket's edge falls on
        // either side of it from page to page.
        let k = key(&l.text);
        let here: usize = (height(l) - 1..=height(l) + 1)
            .map(|h| placed.get(&(k.clone(), h)).copied().unwrap_or(0))
            .sum();
        // The last line of three pages or more, wherever it falls (an
        // exhibit's footer set right under its text).
        let here = here.max(outermost.get(&k).copied().unwrap_or(0));
        if with_text >= 3 && c >= 3 && (c * 10 >= with_text || here >= 3) {
            Verdict::Running
        } else {
            Verdict::Text
        }
    };
    for p in pages.iter_mut() {
        let n = p.len();
        let verdicts: Vec<Verdict> = p
            .iter()
            .enumerate()
            .map(|(i, l)| judge(l, edge(i, n)))
            .collect();
        // A page where everything repeats (a short page of a series of
        // short pages) keeps its text: there is nothing else it says.
        let keep_running = !verdicts.contains(&Verdict::Text);
        let mut it = verdicts.into_iter();
        p.retain(|_| match it.next() {
            Some(Verdict::PageNumber) => false,
            Some(Verdict::Running) => keep_running,
            _ => true,
        });
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Text,
    PageNumber,
    Running,
}

/// "12", "xii", "- 12 -", "Page 12", "12 / 40", "Page 12 of 40", and the
/// numbered pages of a filing's parts: "F-4", "A-12", "S-3".
fn page_number(t: &str) -> bool {
    let t = t.trim().to_lowercase();
    if let Some((prefix, n)) = t.split_once('-') {
        if (1..=2).contains(&prefix.len())
            && prefix.chars().all(|c| c.is_ascii_alphabetic())
            && (1..=4).contains(&n.len())
            && n.chars().all(|c| c.is_ascii_digit())
        {
            return true;
        }
    }
    let words: String = t
        .chars()
        .filter(|c| c.is_alphabetic())
        .collect::<String>()
        .replace("page", "")
        .replace("of", "");
    let digits = t.chars().filter(char::is_ascii_digit).count();
    if digits > 0 && digits <= 8 && words.is_empty() && t.chars().count() <= 20 {
        return true;
    }
    let roman = !t.is_empty() && t.len() <= 6 && t.chars().all(|c| "ivxlcdm".contains(c));
    roman
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

    /// A chapter's running header tops three of forty pages: under a
    /// tenth of them, but at the same height each time.
    #[test]
    fn a_running_header_of_a_few_pages_is_dropped() {
        let line = |text: &str, y: f32| Line {
            text: text.into(),
            size: 9.0,
            x: 72.0,
            end: 300.0,
            y,
            ..Line::default()
        };
        let mut pages: Vec<Vec<Line>> = (1..=40)
            .map(|i| {
                let mut p = vec![line(
                    &format!("Page {} says something of its own.", tag(i)),
                    100.0,
                )];
                if (2..=4).contains(&i) {
                    p.insert(0, line("Chapter 6: Add-on packages", 30.0));
                }
                if (10..=12).contains(&i) {
                    p.insert(0, line("A heading of its own", 60.0 + i as f32 * 20.0));
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert!(!all.contains(&"Chapter 6: Add-on packages"), "{all:?}");
        assert_eq!(
            all.iter().filter(|t| **t == "A heading of its own").count(),
            3
        );
    }

    /// A running header set larger than the body (its measured size
    /// differs from the body's) is still furniture; the chapter's title,
    /// larger again on its first page, is not.
    #[test]
    fn a_running_header_larger_than_the_body_is_dropped_but_not_its_title() {
        let line = |text: &str, size: f32, y: f32| Line {
            text: text.into(),
            size,
            x: 72.0,
            end: 300.0,
            y,
            ..Line::default()
        };
        let mut pages: Vec<Vec<Line>> = (1..=10)
            .map(|i| {
                let word = ["alpha", "beta", "gamma", "delta", "epsilon"][i % 5];
                let own = format!("Body text about {word} on page {i}.");
                let mut p = vec![line(&own, 9.0, 100.0 + i as f32)];
                if i == 1 {
                    p.insert(0, line("第 3 节 使用方法", 20.0, 60.0));
                } else {
                    p.insert(0, line(&format!("{i}"), 10.5, 30.0));
                    p.insert(0, line("第 3 节 使用方法", 10.5, 30.0));
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert_eq!(all.iter().filter(|t| **t == "第 3 节 使用方法").count(), 1);
        assert_eq!(all.len(), 11, "{all:?}");
    }

    /// An exhibit's footer set right under its text: at another height on
    /// each page, but the last line of each.
    #[test]
    fn a_footer_that_follows_the_text_is_dropped() {
        let line = |text: &str, y: f32| Line {
            text: text.into(),
            size: 9.0,
            x: 72.0,
            end: 300.0,
            y,
            ..Line::default()
        };
        let mut pages: Vec<Vec<Line>> = (1..=40)
            .map(|i| {
                let own = format!("Clause {} of the agreement.", tag(i));
                let mut p = vec![line(&own, 100.0)];
                if (20..=24).contains(&i) {
                    p.push(line(
                        "Global Option Grant Award Agreement",
                        400.0 + 9.0 * i as f32,
                    ));
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert_eq!(all.len(), 40, "{all:?}");
    }

    #[test]
    fn page_numbers_in_their_forms() {
        assert!(page_number("Page 3 of 10") && page_number("- 4 -") && page_number("xii"));
        assert!(page_number("F-4") && page_number("A-12") && !page_number("COVID-19"));
        assert!(!page_number("Chapter 2") && !page_number("Version 2.0 notes"));
    }
}
