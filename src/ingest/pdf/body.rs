//! The body's font size: the whole document's, the prose's, and each
//! page's, where a document of parts sets each part in a type of its own.

use std::collections::HashMap;

use super::block::Block;
use super::page::Line;
use super::tuning::TUNING;

/// The most common font size of the pages' lines, weighted by characters.
pub(super) fn body_size(pages: &[Vec<Line>]) -> f32 {
    most_common_size(pages.iter().flatten().map(|l| (l.size, l.text.as_str())))
}

/// The most common font size of blocks of prose, weighted by characters.
pub(super) fn prose_size(blocks: &[Block]) -> f32 {
    let prose = blocks.iter().filter(|b| !b.table && !b.code);
    most_common_size(prose.map(|b| (b.size, b.text.as_str())))
}

/// Each page's body size. A document of parts (a filing and the exhibits
/// filed with it, a volume of papers) may set each part in a type of its
/// own, and the whole document's most common size would make one part's
/// text all smaller or larger than "the body". Where the prose (no table
/// rows, no listings) on the pages around a page is mostly in one size
/// that is not the whole document's prose's, that size is the page's
/// body; elsewhere `body` is.
pub(super) fn page_bodies(pages: &[Vec<Line>], body: f32) -> Vec<f32> {
    let prose = |p: &Vec<Line>| {
        let lines = p.iter().filter(|l| !l.table && !l.mono);
        size_histogram(lines.map(|l| (l.size, l.text.as_str())))
    };
    let hists: Vec<SizeHistogram> = pages.iter().map(prose).collect();
    let sum = |hists: &[SizeHistogram]| {
        let mut all = SizeHistogram::new();
        for h in hists {
            h.iter()
                .for_each(|(&k, &n)| *all.entry(k).or_default() += n);
        }
        all
    };
    let whole = histogram_mode(&sum(&hists)).map(|(size, _)| size);
    let reach = TUNING.part_pages;
    let near = |i: usize| i.saturating_sub(reach)..(i + reach + 1).min(pages.len());
    let mut parts: Vec<f32> = (0..pages.len())
        .map(|i| {
            let around = sum(&hists[near(i)]);
            let all: usize = around.values().sum();
            match histogram_mode(&around) {
                Some((size, n))
                    if all >= TUNING.part_chars && n * 2 > all && Some(size) != whole =>
                {
                    size
                }
                _ => body,
            }
        })
        .collect();
    for i in 1..parts.len() {
        if parts[i] != parts[i - 1] {
            move_to_part_start(&mut parts, &hists, i);
        }
    }
    // A part shorter than the pages measured (a one-page exhibit) shows
    // only on its own pages: those in the whole document's body or in a
    // part's near them have it.
    let own = |h: &SizeHistogram| {
        let all: usize = h.values().sum();
        histogram_mode(h)
            .filter(|_| all >= TUNING.part_page_chars)
            .map(|(s, _)| s)
    };
    (0..pages.len())
        .map(|i| match own(&hists[i]) {
            Some(s) if s == body || parts[near(i)].contains(&s) => s,
            _ => parts[i],
        })
        .collect()
}

/// The pages around a part's start measured as the part's body change
/// somewhere near its first page: the change moves to where the pages
/// before hold most prose in the one size and those after in the other.
fn move_to_part_start(parts: &mut [f32], hists: &[SizeHistogram], at: usize) {
    let (before, after) = (parts[at - 1], parts[at]);
    let reach = TUNING.part_pages;
    let seen: &[f32] = parts;
    let run = |size: f32| move |&j: &usize| seen[j] == size;
    let from = (at.saturating_sub(reach)..at)
        .rev()
        .take_while(run(before))
        .last();
    let to = (at..(at + reach).min(seen.len()))
        .take_while(run(after))
        .last();
    let (Some(from), Some(to)) = (from, to.map(|j| j + 1)) else {
        return;
    };
    let chars = |j: usize, size: f32| hists[j].get(&((size * 2.0).round() as i32)).copied();
    let fit = |k: &usize| {
        let head: usize = (from..*k).filter_map(|j| chars(j, before)).sum();
        head + (*k..to).filter_map(|j| chars(j, after)).sum::<usize>()
    };
    let start = (from..=to).max_by_key(fit).unwrap_or(at);
    parts[from..start].fill(before);
    parts[start..to].fill(after);
}

/// Characters by font size, in half points.
type SizeHistogram = HashMap<i32, usize>;

fn size_histogram<'a>(texts: impl Iterator<Item = (f32, &'a str)>) -> SizeHistogram {
    let mut hist = SizeHistogram::new();
    for (size, text) in texts {
        let n = text.chars().filter(|c| !c.is_whitespace()).count();
        *hist.entry((size * 2.0).round() as i32).or_default() += n;
    }
    hist
}

/// The size most characters are set in, and how many are; of two as
/// common, the smaller.
fn histogram_mode(hist: &SizeHistogram) -> Option<(f32, usize)> {
    hist.iter()
        .max_by_key(|&(&size, &n)| (n, -size))
        .map(|(&size, &n)| (size as f32 / 2.0, n))
        .filter(|&(s, _)| s > 0.0)
}

/// The most common size of some texts, weighted by characters.
pub(super) fn most_common_size<'a>(texts: impl Iterator<Item = (f32, &'a str)>) -> f32 {
    histogram_mode(&size_histogram(texts)).map_or(TUNING.default_body_size, |(s, _)| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of `n` lines of prose in `size`, and `rows` table rows in `row_size`.
    fn page(size: f32, n: usize, row_size: f32, rows: usize) -> Vec<Line> {
        let prose = (0..n).map(|_| Line {
            text: "a line of the page's prose that runs from margin to margin".into(),
            size,
            ..Line::default()
        });
        let table = (0..rows).map(|_| Line {
            text: "Total net sales | 495,761 | 481,317 | 478,614".into(),
            size: row_size,
            table: true,
            ..Line::default()
        });
        prose.chain(table).collect()
    }

    #[test]
    fn each_part_of_a_document_has_its_own_body() {
        // A filing in 9.5 points, its statements' rows in 8, then a longer
        // exhibit in 12: the filing's pages are not "smaller than the body".
        let mut pages: Vec<Vec<Line>> = (0..30).map(|_| page(9.5, 30, 8.0, 10)).collect();
        pages.extend((0..45).map(|_| page(12.0, 40, 12.0, 0)));
        let body = body_size(&pages);
        assert_eq!(body, 12.0);
        let bodies = page_bodies(&pages, body);
        assert!(bodies[..30].iter().all(|&b| b == 9.5), "{bodies:?}");
        assert!(bodies[30..].iter().all(|&b| b == 12.0), "{bodies:?}");
    }

    #[test]
    fn pages_of_tables_or_little_text_keep_the_documents_body() {
        // Ten pages of small-type tables and a page of a few words inside
        // a document in one type: one body throughout.
        let mut pages: Vec<Vec<Line>> = (0..20).map(|_| page(10.0, 30, 8.0, 5)).collect();
        pages.extend((0..10).map(|_| page(10.0, 3, 8.0, 40)));
        pages.push(page(7.0, 2, 7.0, 0));
        pages.extend((0..20).map(|_| page(10.0, 30, 8.0, 5)));
        let body = body_size(&pages);
        assert!(page_bodies(&pages, body).iter().all(|&b| b == body));
    }
}
