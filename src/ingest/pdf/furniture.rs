//! Page furniture: running headers and footers and page numbers, which
//! repeat on many pages and would otherwise become the text or the
//! section of every chunk under them.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use super::lexicon::{lower_kept, CONTINUED, PAGE_LINE_WORDS, ROMAN_PAGE_LETTERS};
use super::numbering::{item_heading, numbered_depth};
use super::page::Line;
use super::statement::statement_line;
use super::text_shape::heading_text;
use super::tuning::TUNING;

/// Drops running headers and footers and bare page numbers. A running line is the
/// same text, digits aside, among the first three or last two lines of at least a
/// tenth of the pages (and of three): a filing repeats "Table of Contents" or
/// "Notes to Consolidated Financial Statements (continued)" on a quarter of its
/// pages, and as text or headings they would cite every page under them. So is a
/// line at the same height on three pages, however few the document has (a
/// chapter's running header, "Chapter 6: Add-on packages", tops only its chapter's
/// pages), and the last line of three pages wherever it falls. Table rows stay: a
/// header row repeated on every page of a long table is what its numbers mean,
/// as is a line inside the page's text (`keep_lines_inside_the_text`).
pub(super) fn strip_running_lines(pages: &mut [Vec<Line>], body: f32) {
    let verdict = Edges::of(pages);
    let numbered = numbered_rows(pages);
    let verdicts: Vec<Vec<Verdict>> = pages
        .iter()
        .zip(&numbered)
        .map(|(p, numbered)| {
            let n = p.len();
            let rows = edges(p);
            let mut v: Vec<Verdict> = p
                .iter()
                .enumerate()
                .map(|(i, l)| verdict.judge(l, (edge(i, n), rows[i]), numbered, body))
                .collect();
            keep_lines_inside_the_text(p, &mut v);
            keep_inner_repeats(p, &mut v);
            v
        })
        .collect();
    drop_furniture(pages, verdicts);
}

/// A running line stands at its page's edge, above or below the page's
/// own text. One with that text above and below it, reaching over or
/// under it (not a margin's thumb index beside the text), is the text's:
/// a statement's `December 31,` between its title and its rows, at the
/// same height over each balance sheet.
fn keep_lines_inside_the_text(p: &[Line], v: &mut [Verdict]) {
    let text: Vec<&Line> = p
        .iter()
        .zip(&*v)
        .filter(|(_, v)| **v == Verdict::Text)
        .map(|(l, _)| l)
        .collect();
    for (l, verdict) in p.iter().zip(v.iter_mut()) {
        if *verdict == Verdict::Running && inside(l, &text) {
            *verdict = Verdict::Text;
        }
    }
}

/// A running line's text met again on its page, nearer the page's
/// middle, is the page's own: a section's heading under the running
/// header that names it ("1 How to use" under "1 How to use … 4", the
/// page's number a line of its own). Only the outermost runs: the first
/// above the page's middle, the last below it.
fn keep_inner_repeats(p: &[Line], v: &mut [Verdict]) {
    let ys = p.iter().map(|l| l.y);
    let middle = (ys.clone().fold(f32::MAX, f32::min) + ys.fold(f32::MIN, f32::max)) / 2.0;
    let mut outermost = |from_edge: &mut dyn Iterator<Item = usize>| {
        let mut seen = HashSet::new();
        for i in from_edge {
            if v[i] == Verdict::Running && !seen.insert(key(&p[i].text)) {
                v[i] = Verdict::Text;
            }
        }
    };
    outermost(&mut (0..p.len()).filter(|&i| p[i].y < middle));
    outermost(&mut (0..p.len()).rev().filter(|&i| p[i].y >= middle));
}

/// Whether `l` has lines of `text` above and below it, one of them
/// reaching over or under it.
fn inside(l: &Line, text: &[&Line]) -> bool {
    let apart = TUNING.row_baseline * l.size;
    let above = text.iter().any(|t| t.y < l.y - apart);
    let below = text.iter().any(|t| t.y > l.y + apart);
    let reaches = text
        .iter()
        .any(|t| (t.y - l.y).abs() > apart && t.x < l.end && l.x < t.end);
    above && below && reaches
}

/// A line's text with spaces dropped and lower-cased.
fn exact(t: &str) -> String {
    lower_kept(t, |c| !c.is_whitespace())
}

/// [`exact`] with digits as `#`: the same running line on every page,
/// whatever number it carries.
fn key(t: &str) -> String {
    let digit = |c: char| if c.is_ascii_digit() { '#' } else { c };
    exact(t).chars().map(digit).collect()
}

/// The runs of digits in a text, in order.
fn digit_runs(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A line's size in half points.
fn half_points(l: &Line) -> i32 {
    (l.size * 2.0).round() as i32
}

/// What the pages' edges hold, counted once per page: how often each
/// text tops or ends a page, where, and at what size.
#[derive(Default)]
struct Edges {
    /// Pages with any line.
    with_text: usize,
    /// Pages each text, digits aside, tops or ends.
    counts: HashMap<String, usize>,
    /// The same at each height.
    placed: HashMap<(String, i32), usize>,
    /// Pages each text is the last line of.
    outermost: HashMap<String, usize>,
    /// The smallest size each running text is set in.
    smallest: HashMap<String, f32>,
    /// Pages each exact text tops at each size: a larger title that
    /// itself repeats ("Exhibit 99.3" over every page of its exhibit,
    /// larger than "Exhibit 99.1") is a running line too.
    sized: HashMap<(String, i32), usize>,
    /// Pages each exact text tops or ends.
    exactly: HashMap<String, usize>,
    /// Pages each text is at the edge of and also away from it.
    inside: HashMap<String, usize>,
    /// Pages in the document: a bare number above it numbers no page.
    pages: usize,
    /// Each text's digit runs where it last stood at an edge (and that
    /// page), and how many times it came back as it was, with its page's
    /// number changed and with other figures.
    runs: HashMap<String, Recurrences>,
}

/// How a text at pages' edges came back from one page to another.
#[derive(Default)]
struct Recurrences {
    /// Its digit runs where it last stood, and that page.
    last: Vec<String>,
    page: usize,
    /// Times it came back as it was, with its page's number changed, with
    /// another figure changed, and with several.
    same: usize,
    numbered: usize,
    moved: usize,
    several: usize,
}

impl Edges {
    fn of(pages: &[Vec<Line>]) -> Edges {
        let mut e = Edges {
            with_text: pages.iter().filter(|p| !p.is_empty()).count(),
            pages: pages.len(),
            ..Edges::default()
        };
        for (n, p) in pages.iter().enumerate() {
            let mut seen = HashSet::new();
            let at_edge = edges(p);
            for (i, l) in p.iter().enumerate() {
                let k = key(&l.text);
                if i + 1 == p.len() {
                    *e.outermost.entry(k.clone()).or_default() += 1;
                }
                if !at_edge[i] || !seen.insert(k.clone()) {
                    continue;
                }
                *e.counts.entry(k.clone()).or_default() += 1;
                *e.placed.entry((k.clone(), height(l))).or_default() += 1;
                let s = e.smallest.entry(k.clone()).or_insert(l.size);
                *s = s.min(l.size);
                *e.sized.entry((exact(&l.text), half_points(l))).or_default() += 1;
                *e.exactly.entry(exact(&l.text)).or_default() += 1;
                e.count_changes(k, digit_runs(&l.text), n);
            }
            let mid: HashSet<String> = p
                .iter()
                .zip(&at_edge)
                .filter(|(_, &e)| !e)
                .map(|(l, _)| key(&l.text))
                .collect();
            for k in seen.intersection(&mid) {
                *e.inside.entry(k.clone()).or_default() += 1;
            }
        }
        e
    }

    /// Counts how `runs`, the digits of text `k` at the edge of page
    /// `page`, differ from where it stood at the edge of a page before: a
    /// year going back (`Year Ended December 31, 2018` over a statement, then
    /// `2017` over the next) is what the line says.
    fn count_changes(&mut self, k: String, runs: Vec<String>, page: usize) {
        let r = match self.runs.entry(k) {
            Entry::Occupied(r) => r.into_mut(),
            Entry::Vacant(v) => {
                v.insert(Recurrences {
                    last: runs,
                    page,
                    ..Recurrences::default()
                });
                return;
            }
        };
        let changed: Vec<(&String, &String)> =
            r.last.iter().zip(&runs).filter(|(a, b)| a != b).collect();
        match changed.as_slice() {
            [] => r.same += 1,
            [(a, b)] if numbers_pages(a, b, page - r.page) => r.numbered += 1,
            [_] => r.moved += 1,
            _ => r.several += 1,
        }
        (r.last, r.page) = (runs, page);
    }

    /// A running line comes back as it was or with one number changed (its
    /// page's). A line whose figures change several at a time (`Net income
    /// 634 580`, the last row of a scanned statement), or whose figures
    /// other than its page's number change often (each year's statement's
    /// period), is text that happens to stand at its pages' edge.
    fn figures_change(&self, k: &str) -> bool {
        self.runs.get(k).is_some_and(|r| {
            let other = r.moved + r.several;
            let returns = r.same + r.numbered + other;
            r.several > r.numbered + r.moved
                || (other > r.numbered && other * TUNING.figures_change_in > returns)
        })
    }

    /// A bare number the document's pages could be numbered with (a year over
    /// a table's column numbers no page of a 90-page filing); else it is text.
    fn could_number_a_page(&self, t: &str) -> bool {
        printed_numbers(t).iter().all(|&n| n <= self.pages as i64)
    }

    /// A number with a point or comma inside (`4.3.`, `1,234`) numbers pages
    /// only where its form recurs at pages' edges (chapter-page numbering:
    /// `4.12`); alone at one page's foot it is text (a section a sentence
    /// ends on, a total).
    fn numbers_pages(&self, t: &str) -> bool {
        let digit = |d: char| d.is_ascii_digit();
        let inner = t.char_indices().any(|(i, c)| {
            matches!(c, '.' | ',')
                && t[..i].ends_with(digit)
                && t[i + c.len_utf8()..].starts_with(digit)
        });
        !inner
            || self
                .counts
                .get(&key(t))
                .is_some_and(|&n| n >= TUNING.running.0)
    }

    /// What a line is: kept, a page number, or a running line;
    /// `numbered` holds the heights of its page's numbered rows.
    /// `at_edge`: whether the line is among the page's first or last
    /// lines, and whether it is on their rows (where a page's number is
    /// looked for only at the first).
    fn judge(&self, l: &Line, at_edge: (bool, bool), numbered: &[i32], body: f32) -> Verdict {
        let (at_edge, on_edge_row) = at_edge;
        if l.table {
            return Verdict::Text;
        }
        let bare = page_number(&l.text);
        let plausible = bare && self.could_number_a_page(&l.text) && self.numbers_pages(&l.text);
        if at_edge && plausible {
            return Verdict::PageNumber;
        }
        if at_edge && numbered.iter().any(|h| (h - height(l)).abs() <= 1) {
            return Verdict::Running;
        }
        if bare && !plausible {
            return Verdict::Text;
        }
        let k = key(&l.text);
        // Most lines are met on no other page: one lookup settles them.
        let c = self.counts.get(&k).copied().unwrap_or(0);
        // The same text at the edge and inside the page is what the page
        // says, a list's item (a running line stands apart from the text).
        let inside = self.inside.get(&k).copied().unwrap_or(0);
        if self.with_text < TUNING.running.0
            || c < TUNING.running.0
            || inside * TUNING.inside_one_page_in >= c
            || self.figures_change(&k)
        {
            return Verdict::Text;
        }
        let kept = self.numbered_heading(l) || self.chapter_title(l, &k, body);
        if !kept && self.runs_in_place(l, &k, on_edge_row, c) {
            Verdict::Running
        } else {
            Verdict::Text
        }
    }

    /// A numbered heading atop a page ("ITEM 7.", "Note 12 – Debt") is not
    /// furniture for sharing its shape, digits aside, with others: its number
    /// is what it says, not the page's. It is where its own text repeats
    /// ("Chapter 6: Add-on packages" over its chapter) or says it continues.
    fn numbered_heading(&self, l: &Line) -> bool {
        numbered_depth(&l.text).is_some()
            && (heading_text(&l.text) || item_heading(&l.text))
            && self.exactly.get(&exact(&l.text)).copied().unwrap_or(0) < 2
            && !l.text.to_lowercase().contains(CONTINUED)
    }

    /// A chapter's title atop its first page, larger than the running
    /// header repeating it on the pages after, stays.
    fn chapter_title(&self, l: &Line, k: &str, body: f32) -> bool {
        let least = self.smallest.get(k).copied().unwrap_or(l.size);
        let repeats = self
            .sized
            .get(&(exact(&l.text), half_points(l)))
            .is_some_and(|&n| n >= TUNING.running.0);
        l.size >= body * TUNING.larger_ratio && l.size >= least * TUNING.larger_ratio && !repeats
    }

    /// Whether a line repeated on `c` pages' edges runs where it stands.
    fn runs_in_place(&self, l: &Line, k: &str, at_edge: bool, c: usize) -> bool {
        // A statement's title stands in the same place over each year's
        // statement (a consolidating statement for each of three years):
        // it runs only where it tops a tenth of the pages.
        if statement_line(&l.text).is_some() {
            return c * TUNING.running.1 >= self.with_text;
        }
        // Within a point or two: a height near a bucket's edge falls on
        // either side of it from page to page.
        let here: usize = (height(l) - 1..=height(l) + 1)
            .map(|h| self.placed.get(&(k.to_string(), h)).copied().unwrap_or(0))
            .sum();
        // Away from the page's edge in reading order (a header read after a
        // figure, a footer before a margin note), a line is a running one only
        // where it runs elsewhere: the same text at the same height.
        if !at_edge {
            return here >= TUNING.running.0;
        }
        // The last line of three pages or more, wherever it falls (an
        // exhibit's footer set right under its text).
        let here = here.max(self.outermost.get(k).copied().unwrap_or(0));
        c * TUNING.running.1 >= self.with_text || here >= TUNING.running.0
    }
}

/// Whether a figure going from `a` to `b` over `between` pages is a page's
/// number: it goes up, by no more than the pages between.
fn numbers_pages(a: &str, b: &str, between: usize) -> bool {
    match (a.parse::<usize>(), b.parse::<usize>()) {
        (Ok(a), Ok(b)) => b > a && b - a <= between,
        _ => false,
    }
}

/// Drops each page's page numbers and running lines by their verdicts.
fn drop_furniture(pages: &mut [Vec<Line>], verdicts: Vec<Vec<Verdict>>) {
    // The running lines of pages that have text of their own: furniture
    // beside text.
    fn running<'a>(p: &'a [Line], v: &'a [Verdict]) -> impl Iterator<Item = String> + 'a {
        let lines = p.iter().zip(v).filter(|(_, v)| **v == Verdict::Running);
        lines.map(|(l, _)| key(&l.text))
    }
    let beside_text: HashSet<String> = pages
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| v.contains(&Verdict::Text))
        .flat_map(|(p, v)| running(p, v))
        .collect();
    for (p, v) in pages.iter_mut().zip(verdicts) {
        // A page where everything repeats keeps it when it never sits beside
        // other text (short pages, each its heading and one line): it says
        // nothing else. A page of the header and footer others carry is blank.
        let keep_running =
            !v.contains(&Verdict::Text) && !running(p, &v).all(|k| beside_text.contains(&k));
        let mut it = v.into_iter();
        p.retain(|_| match it.next() {
            Some(Verdict::PageNumber) => false,
            Some(Verdict::Running) => keep_running,
            _ => true,
        });
    }
}

/// The heights, on each page, of the rows at its edge that carry its printed
/// page number: a number that is the page's index plus one offset at one
/// height on three pages or more. A header naming the current section beside
/// the page number ("2.4.5 段落 … 9") never repeats, but its row is furniture.
fn numbered_rows(pages: &[Vec<Line>]) -> Vec<Vec<i32>> {
    fn at_edge(p: &[Line]) -> impl Iterator<Item = &Line> {
        let n = p.len();
        p.iter()
            .enumerate()
            .filter(move |(i, l)| edge(*i, n) && !l.table)
            .map(|(_, l)| l)
    }
    fn marks(page: usize, l: &Line) -> impl Iterator<Item = (i64, i32)> {
        let h = height(l);
        printed_numbers(&l.text)
            .into_iter()
            .map(move |v| (v - page as i64, h))
    }
    let mut votes: HashMap<(i64, i32), usize> = HashMap::new();
    for (page, p) in pages.iter().enumerate() {
        let mine: HashSet<(i64, i32)> = at_edge(p).flat_map(|l| marks(page, l)).collect();
        for m in mine {
            *votes.entry(m).or_default() += 1;
        }
    }
    let voted = |mark: (i64, i32)| votes.get(&mark).is_some_and(|&n| n >= TUNING.running.0);
    let runs = |(offset, h): (i64, i32)| (h - 1..=h + 1).any(|h| voted((offset, h)));
    pages
        .iter()
        .enumerate()
        .map(|(page, p)| {
            at_edge(p)
                .filter(|l| marks(page, l).any(runs))
                .map(height)
                .collect()
        })
        .collect()
}

/// Among a page's first three lines or its last two, where running
/// headers and footers fall in reading order.
fn edge(i: usize, n: usize) -> bool {
    i < TUNING.edge_lines.0 || i + TUNING.edge_lines.1 >= n
}

/// Which of a page's lines stand at its edges: the first three or last two,
/// and the lines on their row (a footer set as `Reference Manual`,
/// `libexplain` and `12` across the foot is three lines on one row).
fn edges(p: &[Line]) -> Vec<bool> {
    let n = p.len();
    let mut out: Vec<bool> = (0..n).map(|i| edge(i, n)).collect();
    for i in 1..n {
        if height(&p[i]) == height(&p[i - 1]) {
            out[i] |= out[i - 1];
        }
    }
    for i in (1..n).rev() {
        if height(&p[i]) == height(&p[i - 1]) {
            out[i - 1] |= out[i];
        }
    }
    out
}

/// The same height within a point or so.
fn height(l: &Line) -> i32 {
    (l.y / TUNING.height_bucket_points).round() as i32
}

/// The whole numbers a line could print as its page's number: a page
/// number's own ("Page 12 of 40" gives 12), else a number opening or
/// closing the line ("12 Methods", "2.4.5 段落 9").
fn printed_numbers(t: &str) -> Vec<i64> {
    let whole = |w: &str| {
        (1..=TUNING.page_number.0).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit())
    };
    if page_number(t) {
        return t
            .split(|c: char| !c.is_ascii_digit())
            .find(|w| whole(w))
            .and_then(|w| w.parse().ok())
            .into_iter()
            .collect();
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    match words.as_slice() {
        [first, .., last] => [first, last]
            .into_iter()
            .filter(|w| whole(w))
            .filter_map(|w| w.parse().ok())
            .collect(),
        _ => Vec::new(),
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
pub(super) fn page_number(t: &str) -> bool {
    let t = t.trim().to_lowercase();
    let part_page = t.split_once('-').is_some_and(|(prefix, n)| {
        (1..=TUNING.page_number.1).contains(&prefix.len())
            && prefix.chars().all(|c| c.is_ascii_alphabetic())
            && (1..=TUNING.page_number.0).contains(&n.len())
            && n.chars().all(|c| c.is_ascii_digit())
    });
    let letters: String = t.chars().filter(|c| c.is_alphabetic()).collect();
    let words = PAGE_LINE_WORDS
        .iter()
        .fold(letters, |l, w| l.replace(w, ""));
    let digits = t.chars().filter(char::is_ascii_digit).count();
    let numeral = (1..=TUNING.page_line.0).contains(&digits)
        && words.is_empty()
        && t.chars().count() <= TUNING.page_line.1;
    let roman = !t.is_empty()
        && t.len() <= TUNING.roman_page_letters
        && t.chars().all(|c| ROMAN_PAGE_LETTERS.contains(c));
    part_page || numeral || roman
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

    /// Page `i`'s text of its own, 100 points down, in the 9-point body.
    fn own_text(i: usize) -> Line {
        line(
            &format!("Page {} says something of its own.", tag(i)),
            9.0,
            100.0,
        )
    }

    /// A line of the text column, 72 to 300 points across.
    fn line(text: &str, size: f32, y: f32) -> Line {
        Line {
            text: text.into(),
            size,
            x: 72.0,
            end: 300.0,
            y,
            ..Line::default()
        }
    }

    /// A statement's last rows end three scanned pages with other figures
    /// on each; the footer beside them changes only its page's number. A
    /// year over a table's column tops three pages, at its table's height:
    /// a 12-page document has no page 2021. The rows and years stay.
    #[test]
    fn changing_figures_and_years_are_not_furniture() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let mut pages: Vec<Vec<Line>> = (1..=12)
            .map(|i| {
                let mut p = vec![
                    own_text(i),
                    line(
                        &format!("Net income $ {} $ {}", 600 + i * 7, 500 + i * 3),
                        680.0,
                    ),
                    line(&format!("Acme quarterly report {i}"), 700.0),
                ];
                if i <= 3 {
                    p.insert(0, line("2021", 20.0 + i as f32 * 30.0));
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert_eq!(
            all.iter().filter(|t| t.starts_with("Net income")).count(),
            12
        );
        assert_eq!(all.iter().filter(|t| **t == "2021").count(), 3, "{all:?}");
        assert!(!all.iter().any(|t| t.starts_with("Acme")), "{all:?}");
    }

    /// A footer set as three lines on one row (`Reference Manual`, the
    /// program's name and the page's number): the third line from the
    /// foot is on the foot's row, and runs like the others.
    #[test]
    fn a_footer_of_three_lines_on_one_row_is_dropped() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let mut pages: Vec<Vec<Line>> = (1..=12)
            .map(|i| {
                vec![
                    own_text(i),
                    line("Reference Manual", 768.0),
                    line("libexplain", 768.0),
                    line(&i.to_string(), 768.0),
                ]
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert_eq!(all.len(), 12, "{all:?}");
    }

    /// A chapter's running header tops three of forty pages: under a
    /// tenth of them, but at the same height each time.
    #[test]
    fn a_running_header_of_a_few_pages_is_dropped() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let mut pages: Vec<Vec<Line>> = (1..=40)
            .map(|i| {
                let mut p = vec![own_text(i)];
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

    /// A section's heading at a page's top under the running header that
    /// names the section, the header's page number a line of its own: the
    /// header runs, the heading is the page's.
    #[test]
    fn a_heading_under_the_running_header_naming_it_stays() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let mut pages: Vec<Vec<Line>> = (1..=12)
            .map(|i| {
                let section = if i < 6 { "1 How to use" } else { "2 Options" };
                let mut p = vec![line(section, 30.0), line(&i.to_string(), 30.0)];
                if i == 1 || i == 6 {
                    p.push(line(section, 60.0));
                }
                p.push(own_text(i));
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let kept = |t: &str| pages.iter().flatten().filter(|l| l.text == t).count();
        assert_eq!((kept("1 How to use"), kept("2 Options")), (1, 1));
        assert!(pages[0]
            .iter()
            .any(|l| l.text == "1 How to use" && l.y == 60.0));
    }

    /// A note's consolidating statements, one per year, each under its
    /// title and its year at the same height: what the pages say, not
    /// furniture; the running header carrying the page number still is.
    #[test]
    fn a_statement_title_and_its_year_over_each_years_statement_stay() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let titles = ["STATEMENT OF OPERATIONS", "STATEMENT OF CASH FLOWS"];
        let mut pages: Vec<Vec<Line>> = (1..=40)
            .map(|i| {
                let mut p = vec![own_text(i), line(&format!("Acme Corp. | {i}"), 700.0)];
                if (20..26).contains(&i) {
                    let year = 2018 - (i - 20) / 2;
                    p.insert(0, line(&format!("Year Ended December 31, {year}"), 40.0));
                    p.insert(0, line(&format!("CONDENSED {}", titles[i % 2]), 20.0));
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert_eq!(all.iter().filter(|t| t.starts_with("CONDENSED")).count(), 6);
        assert_eq!(
            all.iter().filter(|t| t.starts_with("Year Ended")).count(),
            6
        );
        assert!(!all.iter().any(|t| t.starts_with("Acme")), "{all:?}");
    }

    /// Each balance sheet's `December 31,` stands at the same height
    /// between its title and its rows: inside the page's text, kept. The
    /// header above the title and a thumb index in the margin beside the
    /// text still run.
    #[test]
    fn a_repeated_line_inside_the_pages_text_stays() {
        let at = |text: &str, x: f32, end: f32, y: f32| Line {
            x,
            end,
            ..line(text, 9.0, y)
        };
        let mut pages: Vec<Vec<Line>> = (1..=30)
            .map(|i| {
                let mut p = vec![at(
                    &format!("Page {} says something.", tag(i)),
                    72.0,
                    500.0,
                    300.0,
                )];
                if (10..13).contains(&i) {
                    p.splice(
                        0..0,
                        [
                            at("ACME CORP.", 200.0, 260.0, 20.0),
                            at(&format!("Balance sheet {}", tag(i)), 200.0, 300.0, 60.0),
                            at("December 31,", 400.0, 460.0, 90.0),
                            at("Chapter 4", 540.0, 580.0, 200.0),
                        ],
                    );
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert_eq!(all.iter().filter(|t| **t == "December 31,").count(), 3);
        assert!(
            !all.iter().any(|t| *t == "ACME CORP." || *t == "Chapter 4"),
            "{all:?}"
        );
    }

    /// A filing's items each top a page at the same height: their text
    /// differs only in digits, but each is a title, kept; a footer
    /// carrying the page number, or a continued note repeated, is still
    /// furniture.
    #[test]
    fn numbered_headings_atop_pages_are_not_furniture() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let items = ["ITEM 1.", "ITEM 2.", "ITEM 3.", "ITEM 7.", "ITEM 8."];
        let mut pages: Vec<Vec<Line>> = (1..=20)
            .map(|i| {
                let mut p = vec![
                    own_text(i),
                    line(&format!("Acme 2022 Form 10-K {i}"), 700.0),
                ];
                if let Some(item) = items.get(i / 4).filter(|_| i % 4 == 0) {
                    p.insert(0, line(item, 50.0));
                }
                if [13, 15, 17].contains(&i) {
                    p.insert(0, line(&format!("NOTE {i} – LEASES (continued)"), 50.0));
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        for item in &items[1..] {
            assert!(all.contains(item), "{item} in {all:?}");
        }
        assert!(!all.iter().any(|t| t.starts_with("Acme")), "{all:?}");
        assert!(!all.iter().any(|t| t.contains("continued")), "{all:?}");
    }

    /// A running header set larger than the body (its measured size
    /// differs from the body's) is still furniture; the chapter's title,
    /// larger again on its first page, is not.
    #[test]
    fn a_running_header_larger_than_the_body_is_dropped_but_not_its_title() {
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

    /// Each exhibit's number tops its pages; one exhibit sets it larger
    /// than the others. Larger, but on every page of its exhibit: still a
    /// running line.
    #[test]
    fn a_larger_running_header_that_repeats_is_dropped() {
        let line = |text: &str, size: f32| Line {
            x: 500.0,
            end: 560.0,
            ..line(text, size, 30.0)
        };
        let mut pages: Vec<Vec<Line>> = (1..=30)
            .map(|i| {
                let own = format!("Clause {} of the agreement.", tag(i));
                let mut p = vec![Line {
                    y: 100.0,
                    x: 72.0,
                    ..line(&own, 9.0)
                }];
                match i {
                    1..=4 => p.insert(0, line("Exhibit 99.1", 9.0)),
                    5..=10 => p.insert(0, line("Exhibit 99.3", 11.0)),
                    _ => {}
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert_eq!(all.len(), 30, "{all:?}");
    }

    /// A running header read after the page's first lines (a figure's
    /// labels come first in reading order) is still at its place.
    #[test]
    fn a_running_line_away_from_the_edge_in_reading_order_is_dropped() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let mut pages: Vec<Vec<Line>> = (1..=12)
            .map(|i| {
                let mut p: Vec<Line> = (0..6)
                    .map(|j| {
                        line(
                            &format!("Line {} {} of the text.", tag(i), tag(j)),
                            100.0 + 12.0 * j as f32,
                        )
                    })
                    .collect();
                let at = if i % 4 == 0 { 4 } else { 0 };
                p.insert(at, line("Chapter 6 Paragraphs", 30.0));
                p.insert(at, line(&format!("Figure {} label", tag(i)), 300.0));
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert!(!all.contains(&"Chapter 6 Paragraphs"), "{all:?}");
        assert_eq!(all.len(), 12 * 7);
    }

    /// A blank page keeps neither its running header nor its footer; a
    /// series of pages of nothing but lines repeated among themselves
    /// keeps them.
    #[test]
    fn a_blank_page_loses_its_furniture_but_a_one_line_page_keeps_its_line() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let mut pages: Vec<Vec<Line>> = (1..=10)
            .map(|i| {
                let mut p = vec![line("Cours - Méthodes", 30.0)];
                if i != 5 {
                    p.push(line(&format!("Text {} of its own.", tag(i)), 100.0));
                }
                p.push(line("Chapitre 4. Détails", 700.0));
                p
            })
            .collect();
        for i in 0..4 {
            pages.push(vec![
                line("Thank you", 300.0),
                line(&format!("Part {i} of the review."), 320.0),
            ]);
        }
        strip_running_lines(&mut pages, 9.0);
        assert!(pages[4].is_empty(), "{:?}", pages[4]);
        assert!(pages[10..].iter().all(|p| p.len() == 2));
        assert!(pages[..10]
            .iter()
            .flatten()
            .all(|l| l.text.starts_with("Text")));
    }

    /// An exhibit's footer set right under its text: at another height on
    /// each page, but the last line of each.
    #[test]
    fn a_footer_that_follows_the_text_is_dropped() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
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

    /// A header naming the current section beside the page number
    /// changes from page to page: its row, which carries the page's
    /// printed number, is still furniture, whether the number is a line
    /// of its own or closes the header's. A line of the text that ends in
    /// a number, or a heading atop a page, stays.
    #[test]
    fn a_header_beside_its_page_number_is_dropped() {
        let line = |text: &str, y: f32| line(text, 9.0, y);
        let mut pages: Vec<Vec<Line>> = (0..12)
            .map(|i| {
                let printed = i + 7;
                let mut p = vec![
                    line(&format!("2.{} Section {}", i / 2, tag(i)), 30.0),
                    line(
                        &format!("Text {} of its own, as of {}", tag(i), i * 3 + 1),
                        100.0,
                    ),
                    line(&format!("More text {} closing the page.", tag(i)), 120.0),
                ];
                if i % 2 == 0 {
                    p.insert(
                        1,
                        Line {
                            x: 500.0,
                            end: 510.0,
                            ..line(&format!("{printed}"), 30.0)
                        },
                    );
                } else {
                    p[0].text = format!("Section {} {printed}", tag(i));
                }
                if i == 5 {
                    p.insert(1, line("2.3 A heading atop the text", 60.0));
                }
                p
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        let all: Vec<&str> = pages.iter().flatten().map(|l| l.text.as_str()).collect();
        assert!(!all.iter().any(|t| t.contains("Section")), "{all:?}");
        assert!(all.contains(&"2.3 A heading atop the text"), "{all:?}");
        assert_eq!(all.len(), 12 * 2 + 1, "{all:?}");
    }

    /// A reference's entries, the same text digits aside, run from page
    /// to page: those at the pages' edges are entries like the rest.
    #[test]
    fn a_list_running_over_pages_keeps_its_edge_lines() {
        let mut n = 0;
        let mut pages: Vec<Vec<Line>> = (0..5)
            .map(|i| {
                let count = if i < 2 { 0 } else { 12 };
                (0..count)
                    .map(|j| {
                        n += 1;
                        let t = format!("option.{n} sets the trees in row {n} when the");
                        line(&t, 9.0, 100.0 + 14.0 * j as f32)
                    })
                    .chain(std::iter::once(line(
                        &format!("Page {} text.", tag(i)),
                        9.0,
                        90.0,
                    )))
                    .collect()
            })
            .collect();
        strip_running_lines(&mut pages, 9.0);
        assert_eq!(pages.iter().flatten().count(), 3 * 12 + 5);
    }

    #[test]
    fn page_numbers_in_their_forms() {
        assert!(page_number("Page 3 of 10") && page_number("- 4 -") && page_number("xii"));
        assert!(page_number("F-4") && page_number("A-12") && !page_number("COVID-19"));
        assert!(!page_number("Chapter 2") && !page_number("Version 2.0 notes"));
        assert_eq!(printed_numbers("Page 12 of 40"), [12]);
        assert_eq!(printed_numbers("2.4.5 段落 9"), [9]);
        assert_eq!(printed_numbers("12 Methods and 2021"), [12, 2021]);
        assert!(printed_numbers("Chapter 2.1").is_empty());
    }
}
