//! Headings taken back before the levels are given: what has a
//! heading's type and shape but heads nothing, as its neighbours show.

use std::collections::{HashMap, HashSet};

use super::super::block::{Block, Role};
use super::super::body::prose_size;
use super::super::contents::contents_title;
use super::super::furniture::page_number;
use super::super::labels::{officer_title, place};
use super::super::lexicon::{letters, lower_words, CONTINUED, ROMAN_BEFORE, SIGNATURE_MARK};
use super::super::numbering::{chapter_label, numbered_depth};
use super::super::page::{Line, Page};
use super::super::text_shape::{abstract_title, ends_sentence, is_date};
use super::super::title::boilerplate;
use super::super::tuning::TUNING;

/// A running header naming the current section ("2.4 安装" atop each page of section
/// 2.4, the page number beside it), smaller than the heading it repeats, is the
/// page's mark: not furniture (its text changes by section), and as a heading it
/// would open the section again on every page. A page's first block is dropped when
/// it repeats a larger heading (a mark in the body's type reads as text) and carries its
/// number ("7 索引": a number heads one section only) or shares its baseline with
/// another line (a page number, the document's name): a real heading atop a page
/// stands alone, or beside the other column's. A mark in the heading's own type is
/// known only where the heading follows it on its page.
pub(super) fn drop_section_marks(blocks: &mut Vec<Block>, pages: &[Page]) {
    let key = |t: &str| lower_words(t, char::is_whitespace).join(" ");
    let mut largest: HashMap<String, f32> = HashMap::new();
    for b in blocks.iter().filter(|b| b.heading()) {
        let size = largest.entry(key(&b.text)).or_insert(b.size);
        *size = size.max(b.size);
    }
    let mut drop = vec![false; blocks.len()];
    for (i, b) in blocks.iter().enumerate() {
        if i > 0 && blocks[i - 1].page == b.page {
            continue;
        }
        let text = key(&b.text);
        let Some(&heading_size) = largest.get(&text) else {
            continue;
        };
        // Across a page's gutter, a line on the heading's baseline other
        // than a page number is the other column's first: no mark.
        let beside = |page: &Page| {
            let row: Vec<&Line> = page
                .lines
                .iter()
                .filter(|l| (l.y - b.top).abs() < TUNING.same_baseline_points)
                .collect();
            let side = |l: &Line| page.gutter.map(|g| l.x >= g);
            let own = row.iter().find(|l| b.text.starts_with(l.text.trim()));
            row.iter()
                .filter(|l| own.is_none_or(|o| side(l) == side(o)) || page_number(&l.text))
                .count()
                > 1
        };
        let smaller = heading_size >= b.size + TUNING.same_type_points
            && (numbered_depth(&b.text).is_some()
                || pages.get(b.page as usize - 1).is_some_and(beside));
        let heading_follows = blocks[i + 1..]
            .iter()
            .take_while(|n| n.page == b.page)
            .take(TUNING.section_mark_blocks)
            .any(|n| n.heading() && key(&n.text) == text);
        drop[i] = smaller || heading_follows;
    }
    let mut drop = drop.into_iter();
    blocks.retain(|_| !drop.next().unwrap_or(false));
}

/// The headings `f` finds a number in, with their places.
fn headings_by<'a, T>(blocks: &'a [Block], f: impl Fn(&'a str) -> Option<T>) -> Vec<(usize, T)> {
    let headings = blocks.iter().enumerate().filter(|(_, b)| b.heading());
    let found = headings.filter_map(|(i, b)| Some((i, f(&b.text)?)));
    found.collect()
}

/// A numbered list's items in the text's type ("3. Local settings …") look
/// like numbered headings but break the sections' count: between "1 Loading
/// the package" and "2 The \subcaptionbox command" a "3." heads no section.
/// The count of one-level numbers starts at the first 1; a heading numbered
/// in another style than the count's (`3.` among `3`) is taken back while
/// the count's next number comes later. In the count's own style a heading
/// always stands: a part or section numbers anew, and kb may miss a number.
pub(super) fn drop_out_of_count(blocks: &mut [Block]) {
    let numbered = headings_by(blocks, section_number);
    let mut count: Option<(u32, char)> = None;
    for (k, &(i, (n, style))) in numbered.iter().enumerate() {
        let Some((last, own)) = count else {
            if n == 1 {
                count = Some((n, style));
            }
            continue;
        };
        let goes_on = || {
            numbered[k + 1..]
                .iter()
                .any(|&(_, next)| next == (last + 1, own))
        };
        if style != own && goes_on() {
            blocks[i].role = Role::Text;
        } else {
            count = Some((n, style));
        }
    }
}

/// A heading that says it continues an earlier one ("14. Hedging
/// Activities (Continued)" atop the note's next page) opens no section:
/// it is text in the section it continues.
pub(super) fn drop_continued_headings(blocks: &mut [Block]) {
    let mut seen = HashSet::new();
    for b in blocks.iter_mut().filter(|b| b.heading()) {
        let mut words = lower_words(&b.text, |c| !c.is_alphanumeric());
        let continued = words.last().is_some_and(|w| w == CONTINUED);
        if continued {
            words.pop();
        }
        if continued && seen.contains(&words) {
            b.role = Role::Text;
        } else {
            seen.insert(words);
        }
    }
}

/// The number of a heading numbered on one level, and what follows it
/// (a full stop, a parenthesis, or a space): `3 Results` is (3, ' '),
/// `3. Local settings` (3, '.').
fn section_number(t: &str) -> Option<(u32, char)> {
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > TUNING.section_number_digits {
        return None;
    }
    let mut rest = t[digits.len()..].chars();
    let style = match rest.next()? {
        c @ ('.' | ')') if rest.next()?.is_whitespace() => c,
        c if c.is_whitespace() => ' ',
        _ => return None,
    };
    let words = rest.as_str().trim_start().starts_with(char::is_alphabetic);
    words.then_some((digits.parse().ok()?, style))
}

/// A person's initial set like an appendix's letter ("J. Anne Doe, III
/// (age 47), Vice President and Controller" in a filing, "M. Jane Roe")
/// heads nothing: a letter that stands alone (no heading carries the letter
/// or roman number before it, nor the letter after it) opening a name of two
/// or three capitalised words or initials is no numbering.
pub(super) fn drop_stray_initials(blocks: &mut [Block]) {
    fn numbering(t: &str) -> Option<&str> {
        let stem = t.split_whitespace().next()?.strip_suffix('.')?;
        (!stem.is_empty()
            && stem.len() <= TUNING.numbering_letters
            && stem.chars().all(|c| c.is_ascii_uppercase()))
        .then_some(stem)
    }
    let numbers = headings_by(blocks, numbering);
    let letter = |s: &str, c: u8| s.as_bytes() == [c];
    let stray: Vec<usize> = numbers
        .iter()
        .enumerate()
        .filter_map(|(k, &(i, stem))| {
            let &[c] = stem.as_bytes() else { return None };
            let roman_before = ROMAN_BEFORE.iter().find(|r| r.0 == c).map_or("", |r| r.1);
            let before = numbers[..k]
                .iter()
                .any(|&(_, s)| letter(s, c - 1) || s == roman_before);
            let after = numbers[k + 1..].iter().any(|&(_, s)| letter(s, c + 1));
            (c != b'A' && c != b'I' && !before && !after && name(&blocks[i].text)).then_some(i)
        })
        .collect();
    for i in stray {
        blocks[i].role = Role::Text;
    }
}

/// After an initial, a name: two or three words up to a comma or a
/// parenthesis, each an initial or capitalised ("Anne Doe", "W. Roe", "John
/// McAllister"); a section's title has a lower-case word, a word in capitals
/// or one word alone ("V. Earnings, Proration and Payout", "V. PBRS Funding").
fn name(t: &str) -> bool {
    let rest = t.split_once(char::is_whitespace).map_or("", |(_, r)| r);
    let head = rest.split([',', '(']).next().unwrap_or("");
    let words: Vec<&str> = head.split_whitespace().collect();
    let capitalised = |w: &str| {
        w.starts_with(char::is_uppercase)
            && w.chars().any(char::is_lowercase)
            && w.chars()
                .all(|c| c.is_alphabetic() || c == '-' || c == '\'')
    };
    (TUNING.name_words.0..=TUNING.name_words.1).contains(&words.len())
        && words.iter().all(|w| an_initial(w) || capitalised(w))
}

/// The place an auditor or officer signs at, under the signature ("/s/ Audit
/// Firm LLP") or over the date ("Springfield, Illinois" / "February 9, 2023"):
/// it looks like a heading, and the report's last lines would be cited under it.
pub(super) fn drop_signature_places(blocks: &mut [Block]) {
    for i in 0..blocks.len() {
        let b = &blocks[i];
        if !b.heading() || !place(&b.text) {
            continue;
        }
        let same_page = |n: &&Block| n.page == b.page;
        // Right under the signature, or under the auditor's tenure
        // ("We have served as the Corporation's auditor since 1994.").
        let signed = (1..=TUNING.signature_blocks).any(|k| {
            i.checked_sub(k)
                .and_then(|p| blocks.get(p))
                .filter(same_page)
                .is_some_and(|p| p.text.starts_with(SIGNATURE_MARK))
        });
        let dated = blocks
            .get(i + 1)
            .filter(same_page)
            .is_some_and(|n| is_date(&n.text));
        if signed || dated {
            blocks[i].role = Role::Text;
        }
    }
}

/// The signer under a signature ("/s/ Jane Roe", small capitals spaced out
/// as "/ S / J ANE R OE"): the name set again and the officer's title ("Chief
/// Executive Officer") look like headings but head nothing (a certification's
/// last lines would be cited under them). Taken back: the name right under
/// the signature, and a title right under the signature or its name.
pub(super) fn drop_signers(blocks: &mut [Block]) {
    for i in 1..blocks.len() {
        if !blocks[i].heading() {
            continue;
        }
        let page = blocks[i].page;
        let signer = |k: usize| {
            i.checked_sub(k)
                .map(|j| &blocks[j])
                .filter(|b| b.page == page)
                .and_then(|b| signed_name(&b.text))
        };
        let text = &blocks[i].text;
        let right_under = signer(1);
        let name = right_under.as_ref().is_some_and(|n| *n == letters(text));
        if name || ((right_under.is_some() || signer(2).is_some()) && officer_title(text)) {
            blocks[i].role = Role::Text;
        }
    }
}

/// The name signed in a line holding a signature: what follows "/s/" or
/// "/ S /", in lower-case letters alone ("/ S / J. A NNE M C A LLISTER"
/// signs "jannemcallister").
fn signed_name(t: &str) -> Option<String> {
    let lower = t.to_lowercase();
    let compact: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
    Some(letters(compact.split_once(SIGNATURE_MARK)?.1))
}

/// The lines of a title page around its title (author, affiliation, subtitle,
/// series, date: the author's name over an address and "2022/02/20", a thesis's
/// university over its faculty) are set like headings but head nothing: as headings
/// they would open the chain of every chunk of the first pages. On the first page,
/// before its first paragraph of prose, an unnumbered heading is taken back when a
/// short line that is no heading follows it (an address, a date, a version), unless
/// it is set as the text's sections are (`section_type`: a manual page's "NAME" over
/// its one-line summary), and all of them on a cover (`cover_page`). Else the title
/// kept as a heading stays; a
/// contents heading, an abstract's, a numbered one ("1 Introduction") and the lines
/// naming a form ("FORM 10-K", the agency over it: they say what the page is)
/// always do. Covers after the first page and before the first contents or numbered
/// heading (a thesis's inner cover, its English title page, a book's half-title and
/// series pages) lose their headings the same way.
pub(super) fn drop_cover_lines(blocks: &mut [Block], title: Option<&str>) {
    let Some(page) = blocks.first().map(|b| b.page) else {
        return;
    };
    let end = blocks.iter().take_while(|b| b.page == page).count();
    let body = prose_size(blocks);
    let first_prose = blocks[..end]
        .iter()
        .position(|b| (line(b) && prose(&b.text)) || b.table || listing(b));
    let cover = first_prose.is_none() || cover_page(&blocks[..end], body, title);
    for i in 0..first_prose.filter(|_| !cover).unwrap_or(end) {
        let b = &blocks[i];
        if !b.heading() || (!cover && title.is_some_and(|t| t == b.text)) || stays(&b.text) {
            continue;
        }
        let over_a_short_line = blocks[..end]
            .get(i + 1)
            .is_some_and(|n| line(n) && !prose(&n.text));
        let section = || first_prose.is_some_and(|p| section_type(b, &blocks[p..]));
        if cover || (over_a_short_line && !section()) {
            blocks[i].role = Role::Text;
        }
    }
    // The front matter: up to the first contents, numbered or chapter heading.
    // A cover there sets its display type larger than any heading after it
    // (a slide's title, in the type of every slide's, is no cover).
    let front = blocks
        .iter()
        .position(|b| b.heading() && opens_the_text(&b.text))
        .unwrap_or(end);
    let later = blocks[front..]
        .iter()
        .filter(|b| b.heading())
        .map(|b| b.size)
        .fold(0.0, f32::max);
    let front_matter = blocks.get_mut(end..front).unwrap_or_default();
    for here in front_matter.chunk_by_mut(|a, b| a.page == b.page) {
        let largest = here
            .iter()
            .filter(|b| !b.table && !b.code)
            .map(|b| b.size)
            .fold(0.0, f32::max);
        if largest > later + TUNING.same_type_points && cover_page(here, body, title) {
            for b in here.iter_mut().filter(|b| !stays(&b.text)) {
                b.role = Role::Text;
            }
        }
    }
}

/// Set in the type (within a point) and at the left edge of two unnumbered
/// headings or more after the first page's first paragraph (`after`): one of
/// the text's section headings, not a title page's line (an author's name is
/// centred). A paper's numbered sections say nothing of its authors.
fn section_type(b: &Block, after: &[Block]) -> bool {
    let same = |h: &&Block| {
        h.heading()
            && numbered_depth(&h.text).is_none()
            && (h.size - b.size).abs() <= TUNING.same_type_points
            && (h.x - b.x).abs() < TUNING.indent * b.size
    };
    after.iter().filter(same).count() >= 2
}

/// A heading that starts the text after the front matter: the contents, a numbered
/// heading, a chapter's or part's label ("Hoofdstuk 1", "Parte I").
fn opens_the_text(t: &str) -> bool {
    contents_title(t) || numbered_depth(t).is_some() || chapter_label(t)
}

/// A heading a title page keeps: a numbered one, the contents', an abstract's, a
/// form's name. An author's initial ("F. Roe") is no appendix's letter there.
fn stays(t: &str) -> bool {
    (opens_the_text(t) && !initial(t)) || abstract_title(t) || boilerplate(t)
}

/// A name opening on an initial: one capital, a full stop, a name.
fn initial(t: &str) -> bool {
    let mut words = t.split_whitespace();
    let (first, next) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    an_initial(first)
        && next.starts_with(char::is_uppercase)
        && next.chars().skip(1).all(char::is_lowercase)
}

/// One capital and a full stop: "F.", "W.".
fn an_initial(w: &str) -> bool {
    let mut cs = w.chars();
    matches!((cs.next(), cs.next(), cs.next()), (Some(c), Some('.'), None) if c.is_uppercase())
}

/// A listing of more than single words: addresses set in a monospaced
/// font are a listing of single words.
fn listing(b: &Block) -> bool {
    b.code
        && b.text
            .lines()
            .any(|l| l.split_whitespace().nth(1).is_some())
}

/// A line of text: no heading, table or listing.
fn line(b: &Block) -> bool {
    !b.heading() && !b.table && !listing(b)
}

/// A cover: two headings or more (the title among them), display type (half
/// as large again as the body) and no paragraph: no block of 120 characters
/// or more but a footnote's (a chapter's opening page sets its introduction
/// small), nor a sentence in the body's type (a grant's note at a cover's
/// foot is smaller). A title in capitals, particulars spaced out
/// ("答 辩 日 期") or in a table, an address, are no paragraph; a table is
/// no display type (a filing's statements, each a heading over its table).
fn cover_page(page: &[Block], body: f32, title: Option<&str>) -> bool {
    // The title counts, though it may head nothing already.
    let headings = page
        .iter()
        .filter(|b| b.heading() || title == Some(b.text.as_str()))
        .count();
    let display = page
        .iter()
        .any(|b| !b.table && !b.code && b.size >= TUNING.display_ratio * body);
    let paragraph = page.iter().any(|b| {
        line(b)
            && b.size < TUNING.display_ratio * body
            && ((b.size >= TUNING.footnote_ratio * body
                && b.text.chars().count() >= TUNING.paragraph_chars)
                || (b.size >= TUNING.body_type_ratio * body && sentence(&b.text)))
    });
    headings >= TUNING.cover_headings && display && !paragraph
}

/// A sentence of thirty characters or more: a cover's lines end on no
/// full stop, however many words they hold ("A Dissertation submitted
/// to …", an address). A title's line may close on a colon.
fn sentence(t: &str) -> bool {
    ends_sentence(t) && !t.trim_end().ends_with(':') && t.chars().count() >= TUNING.full_line_chars
}

/// A paragraph's worth of words: ten or more, or a sentence of thirty
/// characters (a script without spaces writes a line of prose as one word).
fn prose(t: &str) -> bool {
    t.split_whitespace().count() >= TUNING.paragraph_words || sentence(t)
}

#[cfg(test)]
mod tests {
    use super::super::super::block::Cue;
    use super::*;

    fn heading(text: &str) -> Block {
        Block {
            page: 1,
            text: text.into(),
            role: Role::Heading(Cue::Body),
            size: 10.0,
            ..Block::default()
        }
    }

    /// An officer's initial is no letter's numbering; an appendix's
    /// letters in order, a lone roman number and a title in capitals
    /// keep theirs.
    #[test]
    fn an_initial_is_no_appendix_letter() {
        let mut blocks: Vec<Block> = [
            "A. Overview",
            "B. Segments",
            "J. Anne Doe, III (age 47), Vice President and Controller",
            "M. Jane Roe",
            "V. Earnings, Proration, and Payout",
            "R. PBRS Funding",
            "Q. Can this class be used for E-books?",
        ]
        .into_iter()
        .map(heading)
        .collect();
        drop_stray_initials(&mut blocks);
        let kept: Vec<&str> = blocks
            .iter()
            .filter(|b| b.heading())
            .map(|b| b.text.as_str())
            .collect();
        assert_eq!(
            kept,
            [
                "A. Overview",
                "B. Segments",
                "V. Earnings, Proration, and Payout",
                "R. PBRS Funding",
                "Q. Can this class be used for E-books?",
            ]
        );
    }
    /// A heading repeated atop the next page with "(Continued)" is text in
    /// the section it continues; one continuing no heading before stands.
    #[test]
    fn a_continued_heading_opens_no_section() {
        let mut blocks: Vec<Block> = [
            "14. Hedging Activities",
            "14. Hedging Activities (Continued)",
            "Item 7 — continued",
            "15. Fair Value Measurements",
        ]
        .into_iter()
        .map(heading)
        .collect();
        drop_continued_headings(&mut blocks);
        let roles: Vec<bool> = blocks.iter().map(Block::heading).collect();
        assert_eq!(roles, [true, false, true, true]);
    }
}
