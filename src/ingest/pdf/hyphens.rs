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
    /// (the next line's text) keep the hyphen between them.
    pub(super) fn keeps(&self, before: &str, after: &str) -> bool {
        let start = before.trim_end_matches(char::is_alphabetic).len();
        let left = before[start..].to_lowercase();
        let right: String = after.chars().take_while(|c| c.is_alphabetic()).collect();
        let right = right.to_lowercase();
        let count = |map: &HashMap<String, u32>, key: String| map.get(&key).copied().unwrap_or(0);
        !left.is_empty()
            && !right.is_empty()
            && count(&self.hyphenated, format!("{left}-{right}"))
                > count(&self.whole, format!("{left}{right}"))
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
    }
}
