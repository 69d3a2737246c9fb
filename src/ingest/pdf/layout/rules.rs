//! The rules that tell a heading from text, as one table. A rule is a row:
//! its name, the document classes it applies to, its test over a group's
//! features and a line it fires on (its unit test reads it). Its weight, in
//! `heading_weights.tsv`, votes for a heading (above zero) or for text: a
//! group is a heading when the bias and the fired rules' weights sum above
//! zero. `cargo dev fit-pdf-rules` fits the weights on bookmarked PDFs.

use std::sync::LazyLock;

use super::super::block::Block;
use super::super::class::DocumentClass::{self, *};
use super::super::numbering::numbered_depth;
use super::super::text_shape::{all_caps, text_faults, title_case, TextFaults};
use super::super::tuning::TUNING;

/// What a group of lines shows, read once: the rules test only these.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Features {
    pub class: DocumentClass,
    pub lines: usize,
    /// Larger than the body, as headings are set.
    pub larger: bool,
    /// Smaller than the body: a footnote, a caption, a figure's label.
    pub smaller: bool,
    /// Every line bold, where bold tells something.
    pub bold: bool,
    /// Every line in italics, where italics tell something.
    pub italic: bool,
    /// Every line in a face or colour of the larger headings', not the
    /// body's (sans over serif, blue over black).
    pub look: bool,
    /// An index's letter set apart (bold, large, or in an alphabetical run).
    pub letter: bool,
    /// An entry of a contents page.
    pub listed: bool,
    /// A paragraph of one line at its first-line indent.
    pub indented: bool,
    /// A table's row: cells stand beside it on its baseline.
    pub row: bool,
    pub faults: TextFaults,
    pub numbered: bool,
    /// Starts with a word, not a number or a mark.
    pub word_first: bool,
    pub caps: bool,
    pub title_case: bool,
    /// Headings are set larger than the body: title case alone tells little.
    pub sized_headings: bool,
    pub short: bool,
    /// A filing's item title (`Item 7. …`) in capitals or bold.
    pub item: bool,
    /// A chapter's label (`ARTICLE 1`, `CHAPTER 3`) on a line of its own
    /// over the rest, in capitals or bold.
    pub labelled: bool,
}

impl Features {
    /// The features a group's text alone shows.
    pub(super) fn of_text(text: &str) -> Features {
        Features {
            faults: text_faults(text),
            numbered: numbered_depth(text).is_some(),
            word_first: leads_with_a_word(text),
            caps: all_caps(text),
            title_case: title_case(text),
            short: short_line(text),
            lines: 1,
            ..Features::default()
        }
    }
}

pub(crate) struct Rule {
    pub name: &'static str,
    pub classes: &'static [DocumentClass],
    pub test: fn(&Features) -> bool,
    /// A line the rule fires on; `{…}` says what its text cannot show.
    pub example: &'static str,
}

const ALL: &[DocumentClass] = &[Filing, Paper, Manual, Generic];
const FILINGS: &[DocumentClass] = &[Filing];

/// The rules, in the order of their weights.
#[rustfmt::skip]
pub(crate) const RULES: &[Rule] = &[
    Rule { name: "more lines than a heading", classes: ALL, test: |f| f.lines > TUNING.heading_lines, example: "{lines=5} Getting started" },
    Rule { name: "smaller than the body", classes: ALL, test: |f| f.smaller, example: "{smaller} Source: company reports" },
    Rule { name: "a contents page's entry", classes: ALL, test: |f| f.listed, example: "{listed} Getting started" },
    Rule { name: "a paragraph's indented line", classes: ALL, test: |f| f.indented, example: "{indented} 第一章" },
    Rule { name: "a table's row", classes: ALL, test: |f| f.row, example: "{row} Net sales" },
    Rule { name: "too long, or starts on a mark", classes: ALL, test: |f| !f.letter && f.faults.ill_sized, example: "- an item of a list" },
    Rule { name: "starts in lower case", classes: ALL, test: |f| !f.letter && f.faults.lower_case, example: "the start of a line" },
    Rule { name: "ends as a sentence", classes: ALL, test: |f| !f.letter && f.faults.sentence, example: "It ends here." },
    Rule { name: "a glossary's entry", classes: ALL, test: |f| !f.letter && f.faults.glossary, example: "FASB: Financial Accounting Standards Board" },
    Rule { name: "cut off on a joining word", classes: ALL, test: |f| !f.letter && f.faults.cut_off, example: "Receivables from" },
    Rule { name: "few letters", classes: ALL, test: |f| !f.letter && f.faults.few_letters, example: "2019 2020 2021" },
    Rule { name: "a field or a link", classes: ALL, test: |f| !f.letter && f.faults.field_or_link, example: "See https://example.org" },
    Rule { name: "a date", classes: ALL, test: |f| !f.letter && f.faults.date, example: "January 29, 2018" },
    Rule { name: "a label", classes: ALL, test: |f| !f.letter && f.faults.label, example: "Not applicable" },
    Rule { name: "code or markup", classes: ALL, test: |f| !f.letter && f.faults.code, example: "Total = price + tax" },
    Rule { name: "a contents line", classes: ALL, test: |f| !f.letter && f.faults.contents_entry, example: "2.1 Installing 14" },
    Rule { name: "a figure's caption", classes: ALL, test: |f| !f.letter && f.faults.caption, example: "Figure 3 Sales by region" },
    Rule { name: "an index's letter", classes: ALL, test: |f| f.letter, example: "{letter} A" },
    Rule { name: "larger type", classes: ALL, test: |f| f.larger, example: "{larger} Getting started" },
    Rule { name: "wrapped over lines", classes: ALL, test: |f| f.lines > 1, example: "{lines=2} Getting started" },
    Rule { name: "a filing's item title, wrapped", classes: FILINGS, test: |f| f.lines > 1 && f.item, example: "{lines=2 filing} ITEM 7. MANAGEMENT'S DISCUSSION" },
    Rule { name: "a chapter's label over its title", classes: ALL, test: |f| f.lines > 1 && f.labelled, example: "{lines=2 labelled} ARTICLE 1 DEFINITIONS" },
    Rule { name: "numbered", classes: ALL, test: |f| f.numbered, example: "2.3 Results" },
    Rule { name: "capitals", classes: ALL, test: |f| f.word_first && f.caps, example: "RESULTS OF OPERATIONS" },
    Rule { name: "title case", classes: ALL, test: |f| f.word_first && f.title_case, example: "Results of Operations" },
    Rule { name: "title case where headings are larger", classes: ALL, test: |f| f.word_first && f.title_case && f.sized_headings, example: "{sized} History" },
    Rule { name: "a short bold line", classes: ALL, test: |f| f.word_first && f.bold && f.short, example: "{bold} Results of operations" },
    Rule { name: "a short italic line", classes: ALL, test: |f| f.word_first && f.italic && f.short, example: "{italic} Event: 'close'" },
    Rule { name: "in the headings' face or colour", classes: ALL, test: |f| f.word_first && f.look, example: "{look} Are there copyright restrictions on the use of Python?" },
];

/// Whether each rule fires on `f`, in the order of `RULES`.
pub(crate) fn fired(f: &Features) -> Vec<bool> {
    let fires = |r: &Rule| r.classes.contains(&f.class) && (r.test)(f);
    RULES.iter().map(fires).collect()
}

/// The bias and each rule's weight (rows, in the order of `RULES`), a
/// column for each document class, as `heading_weights.tsv` gives them.
pub(crate) static WEIGHTS: LazyLock<Vec<[f32; 4]>> = LazyLock::new(|| {
    let rows = include_str!("heading_weights.tsv").lines();
    let rows = rows.filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    rows.map(|l| {
        let mut w = l.split('\t').skip(1).map(|w| w.parse().unwrap_or(0.0));
        [(); 4].map(|_| w.next().unwrap_or(0.0))
    })
    .collect()
});

/// The heading score in a document of `class`: above zero, a heading.
pub(crate) fn score(fired: &[bool], class: DocumentClass) -> f32 {
    let column = |row: &[f32; 4]| row[class as usize];
    let votes = fired.iter().zip(&WEIGHTS[1..]).filter(|(f, _)| **f);
    column(&WEIGHTS[0]) + votes.map(|(_, w)| column(w)).sum::<f32>()
}

/// What the heading rules made of one group of lines.
#[derive(Debug, Clone)]
pub struct Decision {
    pub page: u32,
    pub text: String,
    /// Whether each rule fired, in the order of `RULES`.
    pub fired: Vec<bool>,
    pub score: f32,
    /// The walk made it a heading.
    pub heading: bool,
    pub class: DocumentClass,
}

impl Decision {
    pub(super) fn new(b: &Block, fired: Vec<bool>, class: DocumentClass) -> Decision {
        Decision {
            page: b.page,
            text: b.text.clone(),
            score: score(&fired, class),
            fired,
            heading: b.heading(),
            class,
        }
    }
}

/// Starts with a word: letters, a word with digits in it ("5G
/// Deployment"), or a year ahead of others ("2021 Compared to 2020").
pub(super) fn leads_with_a_word(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("");
    let year = first.len() == TUNING.year_digits
        && (first.starts_with("19") || first.starts_with("20"))
        && first.chars().all(|c| c.is_ascii_digit());
    first.starts_with(char::is_alphabetic)
        || (first.starts_with(|c: char| c.is_ascii_digit())
            && first.chars().any(char::is_alphabetic))
        || (year && words.next().is_some())
}

/// Short enough to be a heading rather than a bold sentence (in words,
/// or in characters for a script written without spaces).
fn short_line(t: &str) -> bool {
    t.split_whitespace().count() <= TUNING.short_line.0 && t.chars().count() <= TUNING.short_line.1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The features of an example line: its text's, and `{…}` flags.
    fn example(line: &str) -> Features {
        let (flags, text) = match line.strip_prefix('{').and_then(|l| l.split_once("} ")) {
            Some((flags, text)) => (flags, text),
            None => ("", line),
        };
        let mut f = Features::of_text(text);
        f.class = Generic;
        for flag in flags.split_whitespace() {
            match flag {
                "smaller" => f.smaller = true,
                "listed" => f.listed = true,
                "indented" => f.indented = true,
                "row" => f.row = true,
                "letter" => f.letter = true,
                "larger" => f.larger = true,
                "bold" => f.bold = true,
                "italic" => f.italic = true,
                "look" => f.look = true,
                "filing" => (f.class, f.item) = (Filing, true),
                "labelled" => f.labelled = true,
                "sized" => f.sized_headings = true,
                n => f.lines = n.trim_start_matches("lines=").parse().expect(n),
            }
        }
        f
    }

    #[test]
    fn every_rule_fires_on_its_example() {
        for (i, r) in RULES.iter().enumerate() {
            assert!(fired(&example(r.example))[i], "{}: {}", r.name, r.example);
        }
    }

    #[test]
    fn the_weights_file_names_every_rule_in_order() {
        let names: Vec<&str> = include_str!("heading_weights.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split('\t').next().unwrap())
            .collect();
        let want: Vec<&str> = std::iter::once("bias")
            .chain(RULES.iter().map(|r| r.name))
            .collect();
        assert_eq!(names, want);
        assert_eq!(WEIGHTS.len(), RULES.len() + 1);
        let columns = include_str!("heading_weights.tsv")
            .lines()
            .filter(|l| !l.starts_with('#'));
        assert!(
            columns.clone().all(|l| l.split('\t').count() == 5),
            "a name and four weights a row"
        );
    }

    #[test]
    fn headings_and_text_by_their_examples() {
        for class in [Filing, Paper, Manual, Generic] {
            let heading = |l: &str| score(&fired(&example(l)), class) > 0.0;
            for l in ["{larger} Getting started", "2.3 Results", "{letter} A"] {
                assert!(heading(l), "{class:?}: {l}");
            }
            for l in ["It ends here.", "{lines=5} Getting started", "results"] {
                assert!(!heading(l), "{class:?}: {l}");
            }
            // Title case alone heads a document of body-type headings only
            // (and a filing's, whose headings are set in many ways).
            assert!(heading("Results of Operations"), "{class:?}");
            let alone = heading("{sized} Results of Operations");
            assert_eq!(alone, class == Filing, "{class:?}");
            assert!(heading("{sized bold} Results of Operations"), "{class:?}");
        }
        // Filing rules fire on filings only.
        let mut f = example("{lines=2 filing} ITEM 7. MANAGEMENT'S DISCUSSION");
        assert!(score(&fired(&f), Filing) > 0.0);
        f.class = Manual;
        assert!(!fired(&f)[RULES.iter().position(|r| r.classes == FILINGS).unwrap()]);
    }
}
