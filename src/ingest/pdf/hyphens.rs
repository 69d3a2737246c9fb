//! A word broken at a line's end with a hyphen (`stock-` over `based`) is
//! either one word the typesetter hyphenated (`infor-` over `mation`) or a
//! compound that keeps its hyphen (`stock-based`). The document's own
//! spelling tells them apart: a compound it writes with its hyphen inside
//! a line more often than as one word keeps its hyphen; any other word is
//! joined, as a typesetter's break is.

use std::collections::HashMap;

use super::page::Page;

/// How the document spells the words it breaks at line ends.
#[derive(Debug, Default)]
pub(super) struct Hyphenation {
    /// Hyphenated pairs of word parts inside lines (`stock-based`), lower case.
    hyphenated: HashMap<String, u32>,
    /// Words written whole, lower case.
    whole: HashMap<String, u32>,
}

impl Hyphenation {
    /// Counts the spellings of every line of the document; a hyphen that
    /// ends a line is the break in question, not evidence.
    pub(super) fn of(pages: &[Page]) -> Hyphenation {
        let mut h = Hyphenation::default();
        for line in pages.iter().flat_map(|p| &p.lines) {
            let text = line.text.trim_end().trim_end_matches(['-', '\u{ad}']);
            for part in text.split(|c: char| !c.is_alphabetic() && c != '-') {
                let words: Vec<String> = part.split('-').map(str::to_lowercase).collect();
                for pair in words.windows(2).filter(|p| p.iter().all(|w| !w.is_empty())) {
                    *h.hyphenated.entry(pair.join("-")).or_default() += 1;
                }
                for w in words.into_iter().filter(|w| !w.is_empty()) {
                    *h.whole.entry(w).or_default() += 1;
                }
            }
        }
        h
    }

    /// Whether `before` (a line's text up to its last hyphen) and `after`
    /// (the next line's text) keep the hyphen between them: the document
    /// writes them hyphenated more often than whole, or the break ends a
    /// compound's part (`top-to-` over `bottom`; typesetters break such a
    /// word at its hyphens) and the document never writes them whole.
    pub(super) fn keeps(&self, before: &str, after: &str) -> bool {
        matches!(self.spellings(before, after), Some((h, w, part)) if h > w || part && w == 0)
    }

    /// Whether a word in capitals is broken (`SOFT-` over `WARE`, `POIN-`
    /// over `T_SIZE`; not `Wal-` over `Mart`) that the document writes
    /// whole more often than hyphenated.
    pub(super) fn joins_capitals(&self, before: &str, after: &str) -> bool {
        let left = before.rsplit(|c: char| !c.is_alphabetic()).next();
        let right = after.chars().take_while(|c| c.is_alphabetic()).take(2);
        left.is_some_and(|l| l.chars().nth(1).is_some() && l.chars().all(char::is_uppercase))
            && right.into_iter().all(char::is_uppercase)
            && matches!(self.spellings(before, after), Some((h, w, _)) if w > h)
    }

    /// How often the document writes the word broken between `before` and
    /// `after` hyphenated and whole, and whether its left part follows a
    /// hyphen.
    fn spellings(&self, before: &str, after: &str) -> Option<(u32, u32, bool)> {
        let start = before.trim_end_matches(char::is_alphabetic).len();
        let left = before[start..].to_lowercase();
        let right: String = after.chars().take_while(|c| c.is_alphabetic()).collect();
        let right = right.to_lowercase();
        let count = |map: &HashMap<String, u32>, key: String| map.get(&key).copied().unwrap_or(0);
        (!left.is_empty() && !right.is_empty()).then(|| {
            let part = before[..start].ends_with('-');
            let whole = count(&self.whole, format!("{left}{right}"));
            (
                count(&self.hyphenated, format!("{left}-{right}")),
                whole,
                part,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::pdf::page::Line;

    fn pages(lines: &[&str]) -> Vec<Page> {
        vec![Page {
            lines: lines
                .iter()
                .map(|t| Line {
                    text: t.to_string(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }]
    }

    #[test]
    fn the_documents_spelling_decides() {
        let h = Hyphenation::of(&pages(&[
            "Stock-based compensation expense rose, as stock-based awards",
            "vested; the infor-",
            "mation is in Note 12. Re-measurement and remeasurement, remeasurement.",
        ]));
        assert!(h.keeps("recognised stock", "based compensation"));
        assert!(h.keeps("Stock", "Based"));
        // Never written with a hyphen inside a line: a typesetter's break.
        assert!(!h.keeps("the infor", "mation"));
        // Written whole more often than hyphenated.
        assert!(!h.keeps("the re", "measurement"));
        assert!(!h.keeps("12", "based"));
        // A part of a compound, its joined form never written.
        assert!(h.keeps("a top-to", "bottom order"));
        assert!(!h.keeps("a stock-re", "measurement"));
        assert!(
            h.joins_capitals("the RE", "MEASUREMENT") && !h.joins_capitals("Re", "Measurement")
        );
        assert!(!h.joins_capitals("STOCK", "BASED"));
    }
}
