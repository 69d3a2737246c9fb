//! The hierarchy a filing's headings have by their words, whatever their
//! fonts: "PART II" holds "Item 7.", "Item 8." holds "Notes to Consolidated
//! Financial Statements", which holds "Note 4. Debt". Filings often set all
//! of them in one bold body font, so without this they would all be siblings
//! and `show --section "Item 8."` would stop at the first note.

use super::block::Block;
use super::lexicon::*;
use super::numbering::{exhibit_label, item_heading};
use super::statement::statement_line;
use super::tuning::TUNING;

/// A heading with a place in a filing's hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Part,
    Item,
    Notes,
    Note,
    /// The form's signatures, after its last item.
    Signatures,
}

/// The word after a heading's first, without the punctuation that ends
/// a number: "II" of "PART II.", "4" of "Note 4 – Debt".
fn number_word(t: &str) -> &str {
    t.split_whitespace()
        .nth(1)
        .map_or("", |w| w.trim_end_matches(['.', ':', '—', '–', '-']))
}

fn kind(t: &str) -> Option<Kind> {
    let t = t.trim();
    let first = t.split_whitespace().next().unwrap_or("");
    let number = number_word(t);
    let digits = number.chars().all(|c| c.is_ascii_digit());
    match first.to_lowercase().as_str() {
        PART_LABEL
            if !number.is_empty()
                && (number.chars().all(|c| ROMAN_PART_LETTERS.contains(c)) || digits) =>
        {
            Some(Kind::Part)
        }
        NOTE_LABEL if (1..=2).contains(&number.len()) && digits => Some(Kind::Note),
        NOTES_LABEL => {
            let l = t.to_lowercase();
            (l.starts_with(NOTES_TO) && l.contains(NOTES_OF)).then_some(Kind::Notes)
        }
        _ if item_heading(t) => Some(Kind::Item),
        _ if SIGNATURES_TITLES.contains(&letters(t).as_str()) => Some(Kind::Signatures),
        _ => None,
    }
}

/// The number of a heading numbered as a note is: "1. Description of
/// Business", "12 Income Taxes" (a number of one or two digits and a
/// capitalised word).
fn note_number(t: &str) -> Option<u32> {
    let (number, rest) = t.trim().split_once(char::is_whitespace)?;
    let digits = number.strip_suffix('.').unwrap_or(number);
    let numbered = (1..=2).contains(&digits.len())
        && digits.chars().all(|c| c.is_ascii_digit())
        && rest.trim_start().starts_with(|c: char| c.is_uppercase());
    numbered.then_some(digits)?.parse().ok()
}

/// The number of a note's heading, with the word or without ("Note 4.
/// Debt", "4. Debt").
fn note_of(t: &str) -> Option<u32> {
    match kind(t) {
        Some(Kind::Note) => number_word(t).parse().ok(),
        None => note_number(t),
        _ => None,
    }
}

/// For each block, the number of the next note's heading after it before
/// the next part, item or notes: where it follows the current note's, the
/// notes go on past the block ("ZYTIGA" atop a page of a note on
/// litigation is a name in it, not the end of the notes).
pub(super) fn notes_ahead(blocks: &[Block]) -> Vec<Option<u32>> {
    let mut ahead = vec![None; blocks.len()];
    let mut next = None;
    for (i, b) in blocks.iter().enumerate().rev() {
        ahead[i] = next;
        if !b.heading() {
            continue;
        }
        match note_of(&b.text) {
            Some(n) => next = Some(n),
            None if kind(&b.text).is_some() => next = None,
            None => {}
        }
    }
    ahead
}

/// "PART I", "Part 1", "PART ONE": the first part.
fn part_one(t: &str) -> bool {
    FIRST_PART_NUMBERS.contains(&number_word(t).to_lowercase().as_str())
}

/// "Notes to Consolidated Financial Statements".
pub(super) fn is_notes(t: &str) -> bool {
    kind(t) == Some(Kind::Notes)
}

/// "PART II", "Part 1": a filing's or a book's part.
pub(super) fn is_part(t: &str) -> bool {
    kind(t) == Some(Kind::Part)
}

/// A part, an item, the notes or a note: headings whose level the filing's
/// own nesting sets.
pub(super) fn is_filing_heading(t: &str) -> bool {
    kind(t).is_some()
}

/// A heading that opens a filing's financial statements: their index, the
/// auditor's report, a statement's title.
fn opens_statements(t: &str) -> bool {
    let report = AUDIT_REPORT_TITLES.contains(&letters(t).as_str());
    names_statements(t) || report || statement_line(t).is_some()
}

/// Names the financial statements ("Index to Financial Statements").
fn names_statements(t: &str) -> bool {
    t.to_lowercase().contains(FINANCIAL_STATEMENT)
}

/// The open parts of a filing's hierarchy as its headings go by.
#[derive(Debug, Default)]
pub(super) struct FilingNesting {
    /// The level of the first part: every part is its sibling.
    part_level: Option<u8>,
    /// The first part seen is Part I: what comes before it is the cover.
    /// A filing that sets Part I only in its contents starts its text
    /// before its first part ("PART II"), and that text is no cover.
    opens_with_part_one: bool,
    /// The open part's level: every heading until the next part is in it.
    part: Option<u8>,
    notes: Option<u8>,
    /// The level of the item holding notes opened by their first note (no
    /// notes' heading): where they end, the item is open again.
    notes_in: Option<u8>,
    /// The level the notes' own type suggests (the first note's): a heading
    /// in that type or smaller without a note's number is in the current note
    /// ("Credit card loan portfolio" in "Note 11 – Loans"); larger, it ends them.
    note_type: Option<u8>,
    /// The level of the current note.
    note: Option<u8>,
    /// The level of the last item.
    item_level: Option<u8>,
    /// The level of the form's signatures, once they came: the exhibits
    /// filed after them are their siblings, in no item.
    signed: Option<u8>,
    /// The emphasis of the notes' own headings (the first note's,
    /// `emphasis.rs`): a heading set with more ends them.
    note_emphasis: Option<usize>,
    /// The current note's number.
    note_number: Option<u32>,
    /// A financial statement's title came in the open item, notes closed:
    /// a heading numbered 1 opens its notes ("1. Basis of Presentation"
    /// where the notes' own heading is only a running header).
    after_statements: bool,
    /// The open item's title names the financial statements; its text's words.
    item_holds_statements: bool,
    pub(super) item_words: usize,
    /// The level of financial statements filed beside the items (`beside_items`).
    statements_beside: Option<u8>,
    /// The document has items: it is a filing, whose parts hold everything
    /// up to the next part, the headings before a part's first item too. A
    /// book's parts leave their chapters to the fonts.
    filing: bool,
}

impl FilingNesting {
    /// The nesting of a document whose headings include items or not.
    pub(super) fn new(items: bool) -> Self {
        FilingNesting {
            filing: items,
            ..FilingNesting::default()
        }
    }

    /// The level a filing's cover headings ("FORM 10-K", the company's name)
    /// are lifted to, as siblings of its first part rather than ancestors of
    /// every heading after: `None` for a document not a filing or without parts.
    pub(super) fn cover_level(&self) -> Option<u8> {
        self.part_level
            .filter(|_| self.filing && self.opens_with_part_one)
    }

    /// The top level a heading inside a filing's open part may take: one
    /// below the part's.
    pub(super) fn in_part(&self) -> Option<u8> {
        self.part.filter(|_| self.filing).map(|p| p + 1)
    }

    pub(super) fn close_notes(&mut self) {
        self.notes = None;
        self.notes_in = None;
        self.note_type = None;
        self.note = None;
        self.note_emphasis = None;
        self.note_number = None;
        self.after_statements = false;
    }

    /// A financial statement's title came: its notes may follow.
    pub(super) fn statement_seen(&mut self) {
        self.after_statements = self.notes.is_none();
    }

    /// The notes go on at the `next` note's heading ahead: its number
    /// follows the current note's.
    pub(super) fn notes_go_on(&self, next: Option<u32>) -> bool {
        self.note_number.is_some() && next.is_some_and(|n| self.follows(n))
    }

    /// A note numbered `n` may come next: the first, or one at most
    /// `note_number_step` past the current note.
    fn follows(&self, n: u32) -> bool {
        self.note_number
            .is_none_or(|c| n > c && n - c <= TUNING.note_number_step)
    }

    /// The level of the financial statements' headings (their index, the
    /// auditor's report, each statement, the notes) where they stand beside
    /// the items: filed after an item that neither names them nor says
    /// anything ("Item 16. Form 10-K Summary" over "None."). An item with
    /// text (a report on internal control in "Item 9A") holds the report.
    fn beside_items(&mut self, text: &str, kind: Option<Kind>, item: Option<u8>) -> Option<u8> {
        let opens = || kind.is_none() && self.notes.is_none() && opens_statements(text);
        if let Some(level) = self.statements_beside {
            return (kind == Some(Kind::Notes) || opens()).then_some(level);
        }
        let level = self.item_level.filter(|&l| item == Some(l))?;
        let empty = !self.item_holds_statements && self.item_words <= TUNING.empty_item_words;
        (empty && opens()).then(|| *self.statements_beside.insert(level))
    }

    /// A part, the notes, a note or the signatures: they place themselves
    /// in the item (`place`); "4. Debt" only where it heads a note.
    pub(super) fn places(&self, text: &str) -> bool {
        matches!(
            kind(text),
            Some(Kind::Part | Kind::Notes | Kind::Signatures)
        ) || self.note_here(text).is_some()
    }

    /// The number of the note `text` heads, where it heads one: "Note 4"
    /// always; "4. Debt" while the notes are open and its number may come
    /// next ("24 Power of Attorney" in an exhibit index after note 12
    /// numbers an exhibit), and "1. Basis of Presentation" after the
    /// statements.
    fn note_here(&self, text: &str) -> Option<u32> {
        let n = note_of(text)?;
        let worded = kind(text) == Some(Kind::Note);
        let first = self.after_statements && n == 1;
        (worded || first || self.notes.is_some() && self.follows(n)).then_some(n)
    }

    /// A heading with its emphasis `rank` (`emphasis.rs`), before its level
    /// is read: the first note's sets the notes' emphasis; one set with
    /// more ("SCHEDULE II" in capitals after notes in title case) that
    /// `may_end` them (atop a page, no later note ahead), or an exhibit's
    /// label, ends the notes, and the `item` that holds them is open again.
    pub(super) fn weigh(&mut self, text: &str, rank: usize, may_end: bool, item: &mut Option<u8>) {
        let Some(notes) = self.notes else {
            return;
        };
        if self.note_here(text).is_some() {
            self.note_emphasis.get_or_insert(rank);
        } else if exhibit_label(text) || may_end && self.note_emphasis.is_some_and(|n| rank < n) {
            let holder = self.notes_in.or(notes.checked_sub(1).filter(|&l| l > 0));
            self.close_notes();
            *item = holder;
        }
    }

    /// The level of the heading `text` given the `level` its fonts and numbering
    /// suggest. `item` (the level unnumbered sub-headings nest under) and
    /// `numbered` (the last numbered heading's level and depth) follow it.
    pub(super) fn place(
        &mut self,
        text: &str,
        level: u8,
        item: &mut Option<u8>,
        numbered: &mut Option<(u8, u8)>,
    ) -> u8 {
        // Under the notes, "1. Description of Business" is note 1 without the word.
        let note = self.note_here(text);
        let kind = match kind(text) {
            None if note.is_some() => Some(Kind::Note),
            // The form's signatures come once, in a filing.
            Some(Kind::Signatures) if !self.filing || self.signed.is_some() => None,
            k => k,
        };
        if let Some(level) = self.beside_items(text, kind, *item) {
            if kind == Some(Kind::Notes) {
                self.close_notes();
                self.notes = Some(level);
            }
            *item = self.notes;
            return level;
        }
        match kind {
            None if self.signed.is_some() && exhibit_label(text) => self.exhibit(item, numbered),
            None => self.in_nesting(level, item),
            Some(Kind::Part) => {
                if self.part_level.is_none() {
                    self.opens_with_part_one = part_one(text);
                }
                let level = *self.part_level.get_or_insert(level);
                self.part = Some(level);
                self.statements_beside = None;
                self.close_notes();
                *item = None;
                *numbered = Some((level, 1));
                level
            }
            Some(Kind::Item) => {
                let level = self.part.map_or(level, |p| p + 1);
                self.close_notes();
                self.item_level = Some(level);
                self.item_holds_statements = names_statements(text);
                self.item_words = 0;
                self.statements_beside = None;
                *item = Some(level);
                *numbered = Some((level, 1));
                level
            }
            Some(Kind::Notes) => {
                let level = item.map_or(level, |i| level.max(i + 1));
                self.close_notes();
                self.notes = Some(level);
                *item = Some(level);
                level
            }
            Some(Kind::Signatures) => self.signatures(level, item, numbered),
            Some(Kind::Note) => self.note(level, note, item, numbered),
        }
    }

    /// A heading of no kind of its own: in the open part (after the
    /// signatures, no higher than they), and in the current note where set
    /// in the notes' type or smaller; as high as the notes or the item, it
    /// ends them.
    fn in_nesting(&mut self, typed: u8, item: &mut Option<u8>) -> u8 {
        let top = self.in_part().or(self.signed);
        let level = top.map_or(typed, |p| typed.max(p));
        // The notes' type is known only while the notes are open.
        let level = match (self.note_type, self.note) {
            (Some(t), Some(note)) if typed >= t => level.max(note + 1),
            _ => level,
        };
        if self.notes.is_some_and(|n| level <= n) {
            self.close_notes();
        }
        if item.is_some_and(|i| level <= i) {
            *item = None;
        }
        level
    }

    /// The signatures end the last item and its part: they and the
    /// exhibits filed after them stand beside the parts (or, with none,
    /// the items).
    fn signatures(
        &mut self,
        level: u8,
        item: &mut Option<u8>,
        numbered: &mut Option<(u8, u8)>,
    ) -> u8 {
        let level = self.part_level.or(self.item_level).unwrap_or(level);
        self.part = None;
        self.statements_beside = None;
        self.close_notes();
        self.signed = Some(level);
        *item = None;
        *numbered = None;
        level
    }

    /// An exhibit filed after the signatures, at their level: it holds
    /// what follows as a part does.
    fn exhibit(&mut self, item: &mut Option<u8>, numbered: &mut Option<(u8, u8)>) -> u8 {
        self.part = self.signed;
        self.close_notes();
        *item = None;
        *numbered = None;
        self.signed.unwrap_or_default()
    }

    /// A note numbered `number`, in the notes. Without the notes' heading
    /// (a running header dropped), the first note opens the notes in its
    /// item, and where there is none a note is the sibling of the one
    /// before.
    fn note(
        &mut self,
        level: u8,
        number: Option<u32>,
        item: &mut Option<u8>,
        numbered: &mut Option<(u8, u8)>,
    ) -> u8 {
        if self.notes.is_none() && self.note.is_none() {
            (self.notes, self.notes_in) = (*item, *item);
        }
        if self.notes.is_some() {
            self.note_type.get_or_insert(level);
        }
        let level = self.notes.map_or(self.note.unwrap_or(level), |n| n + 1);
        self.note = Some(level);
        self.note_number = number;
        self.after_statements = false;
        *item = Some(level);
        *numbered = Some((level, 1));
        level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_hold_items_and_the_notes_hold_each_note() {
        let mut f = FilingNesting::new(true);
        let (mut item, mut numbered) = (None, None);
        let mut place = |t: &str, l: u8| f.place(t, l, &mut item, &mut numbered);
        assert_eq!(place("PART I", 3), 3);
        assert_eq!(place("ITEM 1. BUSINESS", 3), 4);
        assert_eq!(place("Item 1A. Risk Factors", 3), 4);
        // A part is a sibling of the first whatever its font suggests.
        assert_eq!(place("PART II", 4), 3);
        assert_eq!(place("Market Information", 3), 4);
        assert_eq!(place("Item 8. Financial Statements", 3), 4);
        assert_eq!(place("NOTES TO CONSOLIDATED FINANCIAL STATEMENTS", 4), 5);
        assert_eq!(place("NOTE 1. BASIS OF PRESENTATION", 4), 6);
        assert_eq!(place("Note 12: Debt", 4), 6);
        // In a note, a heading in the notes' type is the note's.
        assert_eq!(place("Credit card loan portfolio", 4), 7);
        // A heading as high as the item ends it and the notes, not the part.
        assert_eq!(place("GLOSSARY OF TERMS", 3), 4);
        assert_eq!(place("Note 3 Leases", 5), 5);
        // Notes numbered without the word are notes all the same, each
        // holding its sub-headings.
        assert_eq!(place("Item 8. Financial Statements", 3), 4);
        assert_eq!(place("Notes to Consolidated Financial Statements", 4), 5);
        assert_eq!(place("1. Description of Business", 4), 6);
        assert_eq!(place("Our Segments", 7), 7);
        assert_eq!(place("2. Summary of Significant Accounting Policies", 4), 6);
        assert_eq!(place("Item 9. Changes in Accountants", 3), 4);
        assert_eq!(place("1. Financial Statements", 4), 4);
        // The signatures end the last item and its part; an exhibit filed
        // after them is their sibling and holds its own headings.
        assert_eq!(place("PART IV", 3), 3);
        assert_eq!(place("Item 16. Form 10-K Summary", 3), 4);
        assert_eq!(place("SIGNATURES", 4), 3);
        assert_eq!(place("POWER OF ATTORNEY", 4), 4);
        assert_eq!(place("Outside Director Compensation Policy", 1), 3);
        assert_eq!(place("Exhibit 4.6", 4), 3);
        assert_eq!(place("DESCRIPTION OF SECURITIES", 3), 4);
        assert_eq!(place("EXHIBIT 21", 3), 3);
        // A second "Signature" (an exhibit's own) is a heading like any.
        assert_eq!(place("Signature", 5), 5);
        assert_eq!(f.cover_level(), Some(3));
        assert!(is_part("PART II") && !is_part("Partners"));
        // A book's part leaves its chapters where their fonts put them.
        let mut book = FilingNesting::default();
        let (mut item, mut numbered) = (None, None);
        assert_eq!(book.place("Part I", 3, &mut item, &mut numbered), 3);
        assert_eq!(book.place("1 History", 1, &mut item, &mut numbered), 1);
        assert_eq!(book.cover_level(), None);
        // A filing whose first part in the text is Part II (Part I only in
        // its contents) has no cover to lift: its text before Part II keeps
        // its levels.
        let mut late = FilingNesting::new(true);
        let (mut item, mut numbered) = (None, None);
        assert_eq!(late.place("INTRODUCTION", 2, &mut item, &mut numbered), 2);
        assert_eq!(
            late.place("Item 4. Controls", 4, &mut item, &mut numbered),
            4
        );
        assert_eq!(
            late.place("Part II – Other Information", 4, &mut item, &mut numbered),
            4
        );
        assert_eq!(late.cover_level(), None);
        assert!(part_one("PART I") && part_one("Part 1.") && part_one("PART ONE"));
        assert!(!part_one("PART II") && !part_one("Part IV"));
        assert_eq!(kind("Part of the plan"), None);
        assert_eq!(kind("Notes to the reader"), None);
        assert_eq!(kind("Partners"), None);
    }
}
