//! How much a heading set in the body's font stands out: slightly larger
//! type, then capitals, then the rest, then italics, then code in the
//! body's weight and slant. Under one, a heading of lower emphasis is its
//! sub-heading.

use std::collections::HashSet;

use super::super::block::Block;
use super::super::lexicon::letters;
use super::super::page::Line;
use super::super::text_shape::all_caps;
use super::super::tuning::TUNING;

/// The ranks of emphasis, highest first (`emphasis_rank`).
const LARGER: usize = 0;
const CAPITALS: usize = LARGER + 1;
const THE_REST: usize = CAPITALS + 1;
const ITALICS: usize = THE_REST + 1;
const PLAIN_CODE: usize = ITALICS + 1;

/// The ranks of emphasis open above the current body-font heading.
#[derive(Debug, Default)]
pub(super) struct Emphasis([bool; PLAIN_CODE + 1]);

impl Emphasis {
    /// How many levels of higher emphasis a heading of `rank` sits under.
    pub(super) fn above(&self, rank: usize) -> u8 {
        self.0[..rank].iter().filter(|&&open| open).count() as u8
    }

    /// A heading of `rank` opens its rank and closes the ranks below it.
    pub(super) fn open(&mut self, rank: usize) {
        self.0[rank] = true;
        self.0[rank + 1..].fill(false);
    }
}

/// A body-font heading's emphasis, highest first: type slightly larger than
/// the body's (not large enough to rank by size), capitals, the rest,
/// italics, code in the body's weight and slant (an API's entries told by
/// their colour alone, `channel.publish(message)`; in bold or italics code
/// ranks as words do). A name
/// is in capitals in any heading: one written with digits ("COVID-19",
/// "F-35": capitals count only in a word of letters), or an abbreviation of
/// four letters or fewer the paragraphs write in capitals too ("GAAP",
/// "EBIT"). A longer such word may be a heading's name quoted or a
/// product's, and its siblings set in capitals would rank apart.
pub(super) fn emphasis_rank(b: &Block, body: f32, names: &HashSet<String>) -> usize {
    let (text, size) = (b.text.as_str(), b.size);
    let words_in_capitals = text
        .split_whitespace()
        .any(|w| w.chars().any(char::is_alphabetic) && !w.chars().any(|c| c.is_ascii_digit()));
    let abbreviation = text.split_whitespace().count() == 1
        && text.chars().filter(|c| c.is_alphabetic()).count() <= TUNING.abbreviation_letters
        && names.contains(&letters(text));
    if size >= body * TUNING.slightly_larger_ratio {
        LARGER
    } else if all_caps(text) && words_in_capitals && !abbreviation {
        CAPITALS
    } else if b.italic {
        ITALICS
    } else if b.mono && !b.bold {
        PLAIN_CODE
    } else {
        THE_REST
    }
}

/// The words the paragraphs write in capitals among words in lower case
/// (names and abbreviations: "under GAAP and", "EMEA's net revenue"), in
/// lower-case letters. A run of capitals in a paragraph is a heading quoted
/// ("see RESULTS OF OPERATIONS") or a defined term, no name. Paragraphs are
/// groups of ten words or more not in capitals (`texts`: their lines joined).
pub(super) fn names_in_capitals(groups: &[(u32, Vec<&Line>)], texts: &[String]) -> HashSet<String> {
    let capitals = |w: &str| {
        let mut letters = w.chars().filter(|c| c.is_alphabetic()).peekable();
        letters.peek().is_some() && letters.all(char::is_uppercase)
    };
    let mut out = HashSet::new();
    for ((_, g), text) in groups.iter().zip(texts) {
        if g[0].table || g[0].mono || all_caps(text) {
            continue;
        }
        let words: Vec<&str> = text
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphabetic))
            .collect();
        if words.len() < TUNING.paragraph_words {
            continue;
        }
        for (i, w) in words.iter().enumerate() {
            let before = i.checked_sub(1).is_some_and(|j| capitals(words[j]));
            let after = words.get(i + 1).is_some_and(|n| capitals(n));
            let long = w.chars().filter(|c| c.is_alphabetic()).count() >= TUNING.name_letters;
            if !before && !after && capitals(w) && long {
                out.insert(letters(w));
            }
        }
    }
    out
}
