//! Levels: a function of the walk's blocks in reading order, every role
//! decided. A heading's level is read from its cue and the headings before
//! it, which the fold keeps; a filing's parts, items and notes nest by the
//! filing's strategy (`FilingNesting`).

use super::super::block::{Block, Cue, Role};
use super::super::filing::{is_filing_heading, is_notes, is_part, notes_ahead, FilingNesting};
use super::super::numbering::{item_heading, numbered_depth};
use super::super::statement::statement_line;
use super::super::tuning::TUNING;
use super::emphasis::{emphasis_rank, Emphasis};
use super::features::Document;

/// Each block's level, `None` for what is not a heading.
pub(super) fn levels(doc: &Document, blocks: &[Block]) -> Vec<Option<u8>> {
    let items = doc.filing() && blocks.iter().any(|b| b.heading() && item_heading(&b.text));
    let mut fold = Levels {
        filing: FilingNesting::new(items),
        ..Levels::default()
    };
    let ahead = notes_ahead(blocks);
    let mut levels: Vec<Option<u8>> = (blocks.iter().zip(ahead))
        .map(|(b, ahead)| fold.next(doc, b, ahead))
        .collect();
    fold.lift_cover(blocks, &mut levels);
    levels
}

/// What the headings so far leave open for the next.
#[derive(Default)]
struct Levels {
    /// The page of the last statement's title, and its level: its row
    /// groups ("Assets") are its subsections on its page and the next.
    statement: Option<(u32, Option<u8>)>,
    /// The level and depth of the last numbered heading: `7.37` nests
    /// under `7` by their numbers, whatever their fonts.
    numbered: Option<(u8, u8)>,
    /// The level of the filing item the text is in: its unnumbered
    /// sub-headings ("Liquidity") nest under "Item 7.".
    item: Option<u8>,
    filing: FilingNesting,
    /// The level of the last heading other than an index's letter: the
    /// letters nest right under the index's heading.
    above_letters: Option<u8>,
    /// The ranks of emphasis open (`emphasis.rs`): "MARKET OVERVIEW" >
    /// "Digital Media" until a heading of another kind comes.
    emphasis: Emphasis,
    /// The body size of the last block's page: where it changes, a part
    /// of the document begins (an exhibit after a filing's notes).
    body: Option<f32>,
    /// The page of the last block.
    page: u32,
}

impl Levels {
    /// The level of one block, and what it leaves open; `next_note`: the
    /// number of the next note's heading after it (`notes_ahead`).
    fn next(&mut self, doc: &Document, b: &Block, next_note: Option<u32>) -> Option<u8> {
        let body = doc.body(b.page);
        if self.body.is_some_and(|last| last != body) {
            self.part_begins();
        }
        self.body = Some(body);
        let may_end_notes = self.page != b.page && !self.filing.notes_go_on(next_note);
        self.page = b.page;
        // Counted only as far as an item's words may tell it says nothing.
        let says = TUNING.empty_item_words + 1;
        if b.role == Role::Text && self.filing.item_words < says {
            self.filing.item_words += b.text.split_whitespace().take(says).count();
        }
        match b.role {
            Role::Heading(cue) => Some(self.heading(doc, b, cue, may_end_notes)),
            // Prose after a statement's table: the headings after it are
            // the discussion's, not the statement's row groups.
            Role::Text if b.text.split_whitespace().count() >= TUNING.prose_words => {
                self.statement.take_if(|(_, named)| named.is_some());
                None
            }
            Role::Text | Role::Apart => None,
        }
    }

    /// A part in a type of its own is none of the items, numbered
    /// sections, statements or notes before it: its headings do not nest
    /// in them (a filing's exhibit after its last note).
    fn part_begins(&mut self) {
        self.item = None;
        self.numbered = None;
        self.statement = None;
        self.emphasis = Emphasis::default();
        self.filing.close_notes();
    }

    /// A financial statement's title, placed in the filing: what follows
    /// on its page and the next nests under it. A title over a table on a
    /// statement's page that names no statement is a row group of it
    /// ("LIABILITIES AND EQUITY" under "Consolidated Balance Sheets").
    fn statement_title(&mut self, doc: &Document, b: &Block) -> u8 {
        if let Some((page, Some(level))) = self.statement {
            if page == b.page && statement_line(&b.text).is_none() {
                return level + 1;
            }
        }
        let (item, numbered) = (&mut self.item, &mut self.numbered);
        let under = doc.statement_level(*item);
        let level = self.filing.place(&b.text, under, item, numbered);
        let named = statement_line(&b.text).is_some();
        if named {
            self.filing.statement_seen();
        }
        self.statement = Some((b.page, named.then_some(level)));
        level
    }

    /// A heading's level by its cue, the filing's nesting applied; what
    /// later headings nest under follows it.
    fn heading(&mut self, doc: &Document, b: &Block, cue: Cue, may_end_notes: bool) -> u8 {
        // Its emphasis, read once: the filing's notes weigh it, the body's
        // type ranks by it.
        let weighed = doc.filing() && cue != Cue::Letter;
        let rank =
            (weighed || cue == Cue::Body).then(|| emphasis_rank(b, doc.body(b.page), &doc.names));
        if let Some(rank) = rank.filter(|_| weighed) {
            self.filing
                .weigh(&b.text, rank, may_end_notes, &mut self.item);
        }
        let (level, body_rank) = match cue {
            Cue::Statement => return self.statement_title(doc, b),
            Cue::Letter => (self.above_letters.map_or(doc.below_fonts, |l| l + 1), None),
            Cue::Larger => (self.font_level(doc, b), None),
            Cue::Numbered(depth) => (self.numbered_level(doc, depth), None),
            Cue::Body => self.body_font_level(doc, b, rank.unwrap_or_default()),
        };
        // Larger type and a number end a statement's nesting and open an
        // item, or end the item where they rank as high as it; a part, the
        // notes and a note place themselves in the item.
        let placed = doc.filing() && self.filing.places(&b.text);
        if matches!(cue, Cue::Larger | Cue::Numbered(_)) {
            self.statement = None;
            if !placed {
                self.item = match doc.filing() && item_heading(&b.text) {
                    true => Some(level),
                    false => self.item.filter(|&i| level > i),
                };
            }
        }
        let (item, numbered) = (&mut self.item, &mut self.numbered);
        let level = match doc.filing() {
            true => self.filing.place(&b.text, level, item, numbered),
            false => level,
        };
        if cue != Cue::Letter {
            self.above_letters = Some(level);
        }
        match body_rank {
            Some(rank) if !doc.filing() || !is_filing_heading(&b.text) => self.emphasis.open(rank),
            _ => self.emphasis = Emphasis::default(),
        }
        level
    }

    /// The font size ranks headings; it wins over numbering, which
    /// documents often restart or flatten. A size left out of the ranks
    /// sits with the ranked size below it.
    fn font_level(&mut self, doc: &Document, b: &Block) -> u8 {
        let sizes = &doc.heading_sizes;
        let rank = sizes
            .iter()
            .position(|s| (s - b.size).abs() < TUNING.same_size_points)
            .unwrap_or_else(|| sizes.iter().filter(|&&s| s > b.size).count());
        let level = rank as u8 + 1;
        match numbered_depth(&b.text) {
            Some(d) => self.numbered = Some((level, d)),
            None if self.numbered.is_some_and(|(l, _)| level <= l) => self.numbered = None,
            None => {}
        }
        level
    }

    /// Nested by its numbering under the last numbered heading, or below
    /// every larger-font heading.
    fn numbered_level(&mut self, doc: &Document, depth: u8) -> u8 {
        let level = match self.numbered {
            Some((l, d0)) => (l + depth).saturating_sub(d0).max(1),
            None => doc.below_fonts - 1 + depth,
        };
        self.numbered = Some((level, depth));
        level
    }

    /// A heading in the body's type: the notes beside the statements, a
    /// heading under a statement's title on its page and the next, under
    /// the filing item or part it is in, and ranked by its emphasis among
    /// the body-font headings above it.
    fn body_font_level(&mut self, doc: &Document, b: &Block, rank: usize) -> (u8, Option<usize>) {
        let under_statement = self
            .statement
            .filter(|&(p, _)| b.page <= p + 1)
            .filter(|_| !is_notes(&b.text));
        if under_statement.is_none() {
            self.statement = None;
        }
        let within = self.item.map(|i| i + 1).max(self.filing.in_part());
        let inside = |level: u8| within.map_or(level, |w| level.max(w));
        let level = match under_statement {
            // The notes stand beside the statements they are to.
            _ if is_notes(&b.text) => inside(doc.below_fonts),
            Some((_, Some(statement_level))) => statement_level + 1,
            Some((_, None)) => inside(doc.below_fonts + 1),
            None => inside(doc.below_fonts) + self.emphasis.above(rank),
        };
        (level, Some(rank))
    }

    /// A filing's cover headings kept above its parts: lifted to the
    /// level of its first part, as its siblings.
    fn lift_cover(&self, blocks: &[Block], levels: &mut [Option<u8>]) {
        let top = self.filing.cover_level().unwrap_or(0);
        let part = |(b, l): &(&Block, &mut Option<u8>)| l.is_some() && is_part(&b.text);
        let cover = blocks.iter().zip(levels).take_while(|bl| !part(bl));
        for l in cover.filter_map(|(_, l)| l.as_mut()) {
            *l = (*l).max(top);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::class::DocumentClass;
    use super::*;

    fn block(page: u32, text: &str, size: f32, role: Role) -> Block {
        Block {
            page,
            text: text.to_string(),
            size,
            role,
            ..Block::default()
        }
    }

    fn heading(text: &str, size: f32, cue: Cue) -> Block {
        block(1, text, size, Role::Heading(cue))
    }

    fn notes() -> Block {
        heading(
            "Notes to Consolidated Financial Statements",
            10.0,
            Cue::Body,
        )
    }

    /// Each heading's level in a filing of the body's type; every block
    /// given is a heading.
    fn filing_levels(blocks: &[Block]) -> Vec<u8> {
        heading_levels(&Document::of(10.0, vec![], DocumentClass::Filing), blocks)
    }

    /// Each heading's level in `doc`; every block given is a heading.
    fn heading_levels(doc: &Document, blocks: &[Block]) -> Vec<u8> {
        let got = levels(doc, blocks);
        got.iter().map(|l| l.expect("a heading's level")).collect()
    }

    fn prose() -> Block {
        let text = "A paragraph of body text long enough to be prose, which ends here.";
        block(1, text, 10.0, Role::Text)
    }

    #[test]
    fn larger_type_ranks_by_size_and_numbers_nest_under_it() {
        let doc = Document::of(10.0, vec![18.0, 14.0], DocumentClass::Paper);
        let blocks = [
            heading("Methods", 18.0, Cue::Larger),
            prose(),
            heading("2 Data", 14.0, Cue::Larger),
            heading("2.1 Sources", 10.0, Cue::Numbered(2)),
            heading("2.1.1 Surveys", 10.0, Cue::Numbered(3)),
            heading("3 Results", 10.0, Cue::Numbered(1)),
        ];
        assert_eq!(
            levels(&doc, &blocks),
            [Some(1), None, Some(2), Some(3), Some(4), Some(2)]
        );
    }

    #[test]
    fn body_type_headings_nest_by_emphasis_and_letters_under_the_heading_above() {
        let doc = Document::of(10.0, vec![16.0], DocumentClass::Generic);
        let blocks = [
            heading("MARKET OVERVIEW", 10.0, Cue::Body),
            heading("Digital Media", 10.0, Cue::Body),
            heading("Print", 10.0, Cue::Body),
            heading("Index", 16.0, Cue::Larger),
            heading("A", 10.0, Cue::Letter),
            heading("B", 10.0, Cue::Letter),
        ];
        assert_eq!(
            levels(&doc, &blocks),
            [Some(2), Some(3), Some(3), Some(1), Some(2), Some(2)]
        );
    }

    #[test]
    fn what_is_apart_leaves_the_levels_as_they_were() {
        let doc = Document::of(10.0, vec![16.0], DocumentClass::Generic);
        let table = Block {
            table: true,
            ..block(1, "Fair Value | Total", 10.0, Role::Apart)
        };
        let with = [
            heading("RESULTS", 10.0, Cue::Body),
            table,
            heading("Revenue", 10.0, Cue::Body),
        ];
        let without = [with[0].clone(), with[2].clone()];
        assert_eq!(levels(&doc, &with), [Some(2), None, Some(3)]);
        assert_eq!(levels(&doc, &without), [Some(2), Some(3)]);
    }

    #[test]
    fn a_statements_row_groups_nest_under_it_until_prose_follows() {
        let doc = Document::of(10.0, vec![], DocumentClass::Filing);
        let statement = "CONSOLIDATED BALANCE SHEETS";
        let blocks = [
            heading("Item 8. Financial Statements", 10.0, Cue::Body),
            heading(statement, 10.0, Cue::Statement),
            heading("Assets", 10.0, Cue::Body),
            // Over a table of its own, a row group's title names no statement.
            heading("LIABILITIES AND EQUITY", 10.0, Cue::Statement),
            prose(),
            heading("Liquidity", 10.0, Cue::Body),
            heading("LIQUIDITY RISK", 10.0, Cue::Body),
            // The notes beside the statements, whatever emphasis is open.
            notes(),
        ];
        let got = levels(&doc, &blocks);
        let (item, title, assets) = (got[0].unwrap(), got[1].unwrap(), got[2].unwrap());
        assert!(item < title && title < assets, "{got:?}");
        assert_eq!(got[3], Some(assets), "{got:?}");
        assert_eq!(got[4], None);
        assert!(got[5].unwrap() < assets, "{got:?}");
        assert_eq!(got[7], Some(title), "{got:?}");
    }

    #[test]
    fn a_part_in_a_type_of_its_own_is_not_in_the_note_before_it() {
        let blocks = [
            heading("PART IV", 10.0, Cue::Body),
            heading("Item 15. Exhibits", 10.0, Cue::Body),
            notes(),
            heading("19. Reportable Segments", 10.0, Cue::Numbered(1)),
            heading("Segment Information", 10.0, Cue::Body),
            block(
                2,
                "SUPPLEMENTAL INVESTMENT PLAN",
                12.0,
                Role::Heading(Cue::Body),
            ),
        ];
        let filing = Document::of(10.0, vec![], DocumentClass::Filing);
        let got = levels(&filing.with_bodies(vec![10.0, 12.0]), &blocks);
        let (part, notes, plan) = (got[0].unwrap(), got[2].unwrap(), got[5].unwrap());
        assert!(part < plan && plan <= notes, "{got:?}");
        // In the notes' type and emphasis, a heading is in the note.
        let mut blocks = blocks.to_vec();
        blocks[5] = block(
            2,
            "Supplemental Investment Plan",
            10.0,
            Role::Heading(Cue::Body),
        );
        let filing = Document::of(10.0, vec![], DocumentClass::Filing);
        let got = levels(&filing.with_bodies(vec![10.0, 10.0]), &blocks);
        assert!(got[5].unwrap() > got[3].unwrap(), "{got:?}");
    }

    /// A note numbered with its word is in the item even where no notes'
    /// heading opens the notes (a running header dropped from each page).
    #[test]
    fn a_note_without_the_notes_heading_is_in_the_item() {
        let doc = Document::of(10.0, vec![], DocumentClass::Filing);
        let blocks = [
            heading("Item 8. Financial Statements", 10.0, Cue::Body),
            heading("CONSOLIDATED BALANCE SHEETS", 10.0, Cue::Statement),
            heading("Note 1. Basis of Presentation", 10.0, Cue::Numbered(1)),
            heading("Note 2. Revenue", 10.0, Cue::Numbered(1)),
        ];
        let got = levels(&doc, &blocks);
        let item = got[0].unwrap();
        assert_eq!(got[2], Some(item + 1), "{got:?}");
        assert_eq!(got[3], Some(item + 1), "{got:?}");
        // Outside any item, notes are siblings all the same.
        let got = levels(&doc, &blocks[1..]);
        assert_eq!(got[1], got[2], "{got:?}");
    }

    /// A heading atop a page, after the last note, set with more emphasis
    /// than the notes' own ends them: the schedule after the last note is
    /// in the item, not the note. A name in capitals atop a page with the
    /// next note after it stays in its note.
    #[test]
    fn a_heading_more_emphatic_than_the_notes_ends_them() {
        let blocks = [
            heading("Item 8. Financial Statements", 10.0, Cue::Body),
            notes(),
            heading("24. Litigation", 10.0, Cue::Numbered(1)),
            block(2, "ZYLOPRIN", 10.0, Role::Heading(Cue::Body)),
            block(
                2,
                "25. Quarterly Information",
                10.0,
                Role::Heading(Cue::Numbered(1)),
            ),
            block(3, "SCHEDULE II", 10.0, Role::Heading(Cue::Body)),
            block(3, "Valuation Accounts", 10.0, Role::Heading(Cue::Body)),
            // An exhibit's numbering starts again: no note of the notes.
            block(4, "1. Purpose", 10.0, Role::Heading(Cue::Numbered(1))),
        ];
        let l = filing_levels(&blocks);
        assert!(l[0] < l[1] && l[1] < l[2] && l[2] < l[3], "{l:?}");
        assert_eq!(l[4], l[2], "the next note: {l:?}");
        assert_eq!(l[5], l[1], "a sibling of the notes, in the item: {l:?}");
        assert!(l[6] > l[5], "{l:?}");
    }

    /// An exhibit index after the last note numbers exhibits: a number far
    /// past the last note's is no note, and does not keep the notes open.
    #[test]
    fn a_number_far_past_the_last_note_is_no_note() {
        let blocks = [
            heading("Item 8. Financial Statements", 10.0, Cue::Body),
            notes(),
            heading("12. Quarterly Information", 10.0, Cue::Numbered(1)),
            block(2, "EXHIBIT INDEX", 10.0, Role::Heading(Cue::Body)),
            block(
                2,
                "24 Power of Attorney",
                10.0,
                Role::Heading(Cue::Numbered(1)),
            ),
        ];
        let l = filing_levels(&blocks);
        assert_eq!(l[3], l[1], "the index is beside the notes: {l:?}");
        assert!(l[4] > l[3], "the exhibit is in the index: {l:?}");
    }

    /// A heading in larger type set below the item's type is in the item:
    /// the auditor's report and the notes after it stay in "Item 8.".
    #[test]
    fn a_larger_heading_below_the_item_keeps_it_open() {
        let doc = Document::of(10.0, vec![14.0, 12.0], DocumentClass::Filing);
        let blocks = [
            heading("Item 8. Financial Statements", 14.0, Cue::Larger),
            heading("Report of Independent Auditors", 12.0, Cue::Larger),
            heading("CONSOLIDATED BALANCE SHEETS", 10.0, Cue::Statement),
            heading("Note 1. Basis of Presentation", 10.0, Cue::Numbered(1)),
            heading("Note 2. Revenue", 10.0, Cue::Numbered(1)),
            heading("Item 9. Changes in Accountants", 14.0, Cue::Larger),
        ];
        let l = heading_levels(&doc, &blocks);
        assert!(l[0] < l[1] && l[1] < l[2], "{l:?}");
        assert_eq!(l[3], l[0] + 1, "the note is in the item: {l:?}");
        assert_eq!((l[4], l[5]), (l[3], l[0]), "{l:?}");
    }

    /// Where the notes' heading is only a running header, a heading
    /// numbered 1 after the statements opens the notes in their item, and
    /// an exhibit's label ends them; before any statement, "1." is no note.
    #[test]
    fn the_first_note_after_the_statements_opens_the_notes() {
        let blocks = [
            heading("Item 8. Financial Statements", 10.0, Cue::Body),
            heading("CONSOLIDATED BALANCE SHEETS", 10.0, Cue::Statement),
            heading("1. Basis of Presentation", 10.0, Cue::Numbered(1)),
            heading("Sale of Subsidiary", 10.0, Cue::Body),
            heading("2. Restructuring", 10.0, Cue::Numbered(1)),
            block(2, "Exhibit 21", 10.0, Role::Heading(Cue::Body)),
        ];
        let l = filing_levels(&blocks);
        assert_eq!(l[2], l[0] + 1, "the first note is in the item: {l:?}");
        assert!(l[3] > l[2], "{l:?}");
        assert_eq!(l[4], l[2], "{l:?}");
        assert_eq!(l[5], l[2], "the exhibit is in the item, no note's: {l:?}");
        let without = [blocks[0].clone(), blocks[2].clone(), blocks[3].clone()];
        let l = filing_levels(&without);
        assert_ne!(l[2], l[1] + 1, "{l:?}");
    }
}
