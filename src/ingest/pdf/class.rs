//! A document's class, told once from the lines of its first pages: a
//! filing (an SEC form, an earnings release, an annual report), a paper
//! or thesis, a manual or book, or anything else. Only a filing's rules
//! (its parts, items and statements) run on filings.

use super::contents::contents_title;
use super::lexicon::FILING_PHRASES;
use super::numbering::chapter_label;
use super::page::Page;
use super::text_shape::abstract_title;
use super::tuning::TUNING;

/// The columns of the heading rules' weights follow this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DocumentClass {
    Filing,
    Paper,
    Manual,
    #[default]
    Generic,
}
use DocumentClass::*;

/// The class of a document by the lines of its first pages with text.
pub(super) fn classify(pages: &[Page]) -> DocumentClass {
    let pages = pages.iter().filter(|p| !p.lines.is_empty());
    let lines = pages.take(TUNING.first_pages).flat_map(|p| &p.lines);
    class_of(&lines.map(|l| l.text.as_str()).collect::<Vec<_>>())
}

/// A filing when `lines` name enough of a filing's phrases, a paper with
/// an abstract's heading, a manual or book with a contents page's title
/// or a chapter's label.
fn class_of(lines: &[&str]) -> DocumentClass {
    let lower: Vec<String> = lines.iter().map(|l| l.to_lowercase()).collect();
    let named = |p: &str| lower.iter().any(|l| l.contains(p));
    match () {
        _ if FILING_PHRASES.iter().filter(|p| named(p)).count() >= TUNING.filing_phrases => Filing,
        _ if lines.iter().any(|l| abstract_title(l)) => Paper,
        _ if lines.iter().any(|l| contents_title(l) || chapter_label(l)) => Manual,
        _ => Generic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_classed_by_its_first_lines() {
        let cover = [
            "SECURITIES AND EXCHANGE COMMISSION",
            "FORM 10-K",
            "Commission file number 1-1234",
        ];
        assert_eq!(class_of(&cover), Filing);
        let release = [
            "FOR IMMEDIATE RELEASE",
            "Net sales rose 4% and net income 6%",
            "Earnings per share of $1.96",
        ];
        assert_eq!(class_of(&release), Filing);
        // One phrase is a mention, not a filing.
        assert_eq!(class_of(&["Abstract", "We study net income."]), Paper);
        assert_eq!(class_of(&["Contents", "Part II", "Item 1. Setup"]), Manual);
        assert_eq!(class_of(&["Chapter 1", "Getting started"]), Manual);
        assert_eq!(class_of(&["Part II", "Item 1. Setup"]), Manual);
        assert_eq!(class_of(&["A note on tea", "Brew it hot."]), Generic);
        assert_eq!(class_of(&[]), Generic);
    }
}
