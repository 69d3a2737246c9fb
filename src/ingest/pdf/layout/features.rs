//! What the layout knows before it decides any block: the document's
//! body size, its heading sizes, its contents pages, where its paragraphs
//! wrap, the names it sets in capitals (`Document`), and its lines
//! grouped into blocks with their text and index-letter marks (`Group`).

use std::collections::{HashMap, HashSet};
use std::ops::RangeInclusive;

use super::super::body::{most_common_size, page_bodies};
use super::super::class::{classify, DocumentClass};
use super::super::contents::contents_pages;
use super::super::grouping::{apart, group_lines, mean_size, share, wrap_margins};
use super::super::hyphens::Hyphenation;
use super::super::page::{Line, Page};
use super::super::text_shape::{
    alphabet_runs, heading_text, index_group, index_letter, join_lines,
};
use super::super::tuning::TUNING;
use super::emphasis::names_in_capitals;
use crate::text::cjk::is_cjk;

/// What the whole document says, computed once.
pub(super) struct Document<'a> {
    pub pages: &'a [Page],
    /// Every page's lines, running headers and page numbers left out.
    pub lines: &'a [Vec<Line>],
    /// The body text's font size in the whole document...
    body: f32,
    /// ...and on each page (`page_bodies`).
    bodies: Vec<f32>,
    /// The size its code is set in, often smaller than its words', and the
    /// width of code's glyphs as a share of it (`code_pitch`).
    code_size: f32,
    code_pitch: f32,
    /// Most of the text is bold: bold then says nothing (a font that
    /// reports a heavy weight for every glyph).
    pub bold_body: bool,
    /// Most of the text is in italics: italics then say nothing.
    pub italic_body: bool,
    /// The face and colour most of the text is set in (`look`), face 0
    /// when unknown: of its lines in other scripts, and of those in Chinese
    /// or Japanese (a font sets one script: its text in another is no
    /// emphasis).
    body_look: [Look; 2],
    /// The faces and colours its larger headings are set in (`heading_looks`).
    heading_looks: HashSet<Look>,
    /// The span of a contents page's entries, by page.
    contents: HashMap<u32, RangeInclusive<f32>>,
    /// Heading font sizes, largest first: their rank is the heading level.
    pub heading_sizes: Vec<f32>,
    /// The level right below every font-ranked heading.
    pub below_fonts: u8,
    /// Where wrapped lines start, on odd and even pages.
    pub margins: [Option<f32>; 2],
    /// Names the text sets in capitals, never headings.
    pub names: HashSet<String>,
    /// Its class (`class.rs`): a filing's rules of parts, items and
    /// statements run only on filings.
    pub class: DocumentClass,
}

/// A block's lines before any decision: its page, its lines, its text.
pub(super) struct Group<'a> {
    pub page: u32,
    pub lines: Vec<&'a Line>,
    /// Its lines joined once; empty for a table's rows and a listing's
    /// lines, which stay apart.
    pub text: String,
    /// A letter or group of an index ("A", "Symbols").
    pub letter: bool,
    /// An index's letter in a run of letters in alphabetical order.
    pub alphabetical: bool,
}

impl<'a> Document<'a> {
    /// The document's features and its groups of lines, in reading order.
    pub(super) fn read(
        pages: &'a [Page],
        lines: &'a [Vec<Line>],
        body: f32,
        hyphens: &Hyphenation,
    ) -> (Self, Vec<Group<'a>>) {
        let mut raw: Vec<(u32, Vec<&Line>)> = Vec::new();
        for (i, page) in lines.iter().enumerate() {
            for group in group_lines(page) {
                raw.push((i as u32 + 1, group));
            }
        }
        let texts: Vec<String> = raw
            .iter()
            .map(|(_, g)| {
                // A listing's line alone may head its entry (`Walk::add`).
                if apart(g) && (g[0].table || g.len() > 1) {
                    "".into()
                } else {
                    join_lines(g, hyphens)
                }
            })
            .collect();
        let mut doc = Document {
            pages,
            lines,
            body,
            bodies: page_bodies(lines, body),
            code_size: most_common_size(code_lines(lines).map(|l| (l.size, l.text.as_str()))),
            code_pitch: code_pitch(lines),
            bold_body: share(lines, |l| l.bold) > TUNING.bold_body_share,
            italic_body: share(lines, |l| l.italic) > TUNING.bold_body_share,
            body_look: body_look(lines),
            heading_looks: HashSet::new(),
            contents: contents_pages(lines),
            heading_sizes: Vec::new(),
            below_fonts: 0,
            margins: wrap_margins(&raw),
            names: names_in_capitals(&raw, &texts),
            class: classify(pages),
        };
        let candidates: Vec<(f32, &Vec<&Line>)> = raw
            .iter()
            .zip(&texts)
            .map(|((page, g), text)| (mean_size(g), *page, g, text))
            .filter(|(size, page, g, text)| {
                doc.big(*size, *page)
                    && g.len() <= TUNING.heading_lines
                    && !apart(g)
                    && heading_text(text)
            })
            .map(|(size, _, g, _)| (size, g))
            .collect();
        doc.heading_looks = heading_looks(candidates.iter().map(|(_, g)| g.as_slice()));
        doc.heading_sizes = heading_sizes(candidates.into_iter().map(|(size, _)| size).collect());
        doc.below_fonts = doc.heading_sizes.len().min(TUNING.font_levels.0) as u8 + 1;
        let (letters, alphabetical) = index_letters(&raw);
        let groups = raw
            .into_iter()
            .zip(texts)
            .zip(letters.into_iter().zip(alphabetical))
            .map(|(((page, lines), text), (letter, alphabetical))| Group {
                page,
                lines,
                text,
                letter,
                alphabetical,
            })
            .collect();
        (doc, groups)
    }

    /// A contents page lists headings from its first entry to its last: they
    /// are not headings there, whatever their shape (a statement's name too).
    pub(super) fn listed(&self, page: u32, y: f32) -> bool {
        self.contents.get(&page).is_some_and(|l| l.contains(&y))
    }

    /// Every line is set in italics, and italics tell something.
    pub(super) fn italic(&self, lines: &[&Line]) -> bool {
        !self.italic_body && lines.iter().all(|l| l.italic)
    }

    /// Every line is set in a face or colour of the larger headings' other
    /// than the body's (sans over a serif text, blue over black); a line of
    /// code, by its colour alone.
    pub(super) fn other_look(&self, lines: &[&Line]) -> bool {
        let other = |l: &&Line| {
            let body = self.body_look[cjk_line(l)];
            let face = !self.code(l) && look(l) != body && self.heading_looks.contains(&look(l));
            body.0 != 0 && (face || self.code_in_headings_ink(l))
        };
        lines.iter().all(other)
    }

    /// A line of code in the larger headings' colour, not the body's: an
    /// API reference names its entries in monospaced type
    /// (`subprocess.channel.ref()` in its headings' blue). Its face is
    /// code's, never the headings'; its colour tells.
    pub(super) fn code_in_headings_ink(&self, l: &Line) -> bool {
        let body = self.body_look[cjk_line(l)];
        self.code(l) && l.ink != body.1 && self.heading_looks.iter().any(|h| h.1 == l.ink)
    }

    /// A filing: the rules of parts, items and statements run.
    pub(super) fn filing(&self) -> bool {
        self.class == DocumentClass::Filing
    }

    /// The body text's font size on `page`.
    pub(super) fn body(&self, page: u32) -> f32 {
        let at = (page as usize).saturating_sub(1);
        self.bodies.get(at).copied().unwrap_or(self.body)
    }

    /// Shown monospaced, or too short to show it (`eol`) but in a face of
    /// no name with glyphs as wide as the document's code.
    pub(super) fn code(&self, l: &Line) -> bool {
        let pitch = l.pitch / l.size.max(f32::EPSILON);
        let code_wide = (pitch - self.code_pitch).abs() <= TUNING.listing_pitch_share * pitch;
        l.mono || (l.face == 0 && l.pitch > 0.0 && code_wide)
    }

    /// Set in a smaller type than the body's on `page`; `code`, than the
    /// document's code.
    pub(super) fn smaller(&self, code: bool, size: f32, page: u32) -> bool {
        let body = if code {
            self.body(page).min(self.code_size)
        } else {
            self.body(page)
        };
        size < body * TUNING.smaller_ratio
    }

    /// Set in a larger type than the body's on `page`, as headings are.
    pub(super) fn big(&self, size: f32, page: u32) -> bool {
        let body = self.body(page);
        size >= body * TUNING.larger_ratio && size >= body + TUNING.larger_points
    }

    /// A statement's title sits under the item it is in (Item 8.).
    pub(super) fn statement_level(&self, item: Option<u8>) -> u8 {
        item.map_or(self.below_fonts, |i| self.below_fonts.max(i + 1))
    }
}

/// Which groups are an index's letters and groups ("Symbols" and
/// "Numbers" on the pages of its letters), and which of those stand in
/// alphabetical runs: such letters need no larger or bolder type.
fn index_letters(raw: &[(u32, Vec<&Line>)]) -> (Vec<bool>, Vec<bool>) {
    let mut letters: Vec<bool> = raw
        .iter()
        .enumerate()
        .map(|(i, (page, g))| {
            let next = raw.get(i + 1).filter(|(p, _)| p == page);
            g.len() == 1 && index_letter(g[0], next.map(|(_, n)| n[0]))
        })
        .collect();
    let index_pages: HashSet<u32> = raw
        .iter()
        .zip(&letters)
        .filter_map(|((page, _), &l)| l.then_some(*page))
        .collect();
    for ((page, g), l) in raw.iter().zip(letters.iter_mut()) {
        *l |= g.len() == 1 && index_pages.contains(page) && index_group(&g[0].text);
    }
    let candidates: Vec<(u32, char)> = raw
        .iter()
        .zip(&letters)
        .filter(|(_, &l)| l)
        .map(|((page, g), _)| (*page, g[0].text.trim().chars().next().unwrap_or(' ')))
        .collect();
    let mut sure = alphabet_runs(&candidates).into_iter();
    let alphabetical: Vec<bool> = letters
        .iter()
        .map(|&l| l && sure.next().unwrap_or(false))
        .collect();
    (letters, alphabetical)
}

/// The document's lines shown to be code (not a table's rows).
fn code_lines(lines: &[Vec<Line>]) -> impl Iterator<Item = &Line> {
    lines
        .iter()
        .flatten()
        .filter(|l| l.mono && !l.table && l.size > 0.0)
}

/// The most common width of a glyph of code, as a share of its size.
fn code_pitch(lines: &[Vec<Line>]) -> f32 {
    let mut chars: HashMap<i32, usize> = HashMap::new();
    for l in code_lines(lines) {
        let share = (l.pitch / l.size / TUNING.code_pitch_step).round() as i32;
        *chars.entry(share).or_default() += l.text.chars().count();
    }
    let most = chars.into_iter().max_by_key(|&(share, n)| (n, share));
    most.map_or(0.0, |(share, _)| share as f32 * TUNING.code_pitch_step)
}

/// A line's face and colour (`Line::face`, `Line::ink`), as the rules
/// compare a heading's type with the body's.
type Look = (u32, u32);

fn look(l: &Line) -> Look {
    (l.face, l.ink)
}

/// The faces and colours of the larger headings (`groups`), each set in one
/// by two of them or more: a label's or a chart's face (a font table's
/// codes) that no heading shares says nothing.
fn heading_looks<'a>(groups: impl Iterator<Item = &'a [&'a Line]>) -> HashSet<Look> {
    let mut count: HashMap<Look, usize> = HashMap::new();
    for g in groups {
        let face = look(g[0]);
        if face.0 != 0 && g.iter().all(|l| look(l) == face) {
            *count.entry(face).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|&(_, n)| n >= 2)
        .map(|(face, _)| face)
        .collect()
}

/// The face and colour most of the document's characters are set in, in
/// lines of other scripts and in lines of Chinese or Japanese (`cjk_line`).
fn body_look(lines: &[Vec<Line>]) -> [Look; 2] {
    let mut chars: [HashMap<Look, usize>; 2] = Default::default();
    for l in lines.iter().flatten().filter(|l| l.face != 0 && !l.mono) {
        *chars[cjk_line(l)].entry(look(l)).or_default() += l.text.chars().count();
    }
    chars.map(|c| {
        c.into_iter()
            .max_by_key(|&(f, n)| (n, f))
            .map_or((0, 0), |(f, _)| f)
    })
}

/// 1 when most of a line's letters are Chinese or Japanese, else 0.
fn cjk_line(l: &Line) -> usize {
    let letters = l.text.chars().filter(|c| c.is_alphabetic());
    let cjk: isize = letters.map(|c| if is_cjk(c) { 1 } else { -1 }).sum();
    usize::from(cjk > 0)
}

/// Heading font sizes, largest first: their rank is the heading level. Where
/// there are more than levels to give (a page of font samples, a cover's
/// one-off sizes over a thesis's five levels), only sizes of three headings
/// or more rank: else each sample would push the real levels down to the sixth.
fn heading_sizes(mut sizes: Vec<f32>) -> Vec<f32> {
    sizes.sort_by(|a, b| b.total_cmp(a));
    let mut counted: Vec<(f32, usize)> = Vec::new();
    for size in sizes {
        match counted.last_mut() {
            Some((s, n)) if (*s - size).abs() < TUNING.same_size_points => *n += 1,
            _ => counted.push((size, 1)),
        }
    }
    let frequent: Vec<f32> = counted
        .iter()
        .filter(|&&(_, n)| n >= TUNING.font_levels.1)
        .map(|&(s, _)| s)
        .collect();
    if counted.len() > TUNING.font_levels.0 && !frequent.is_empty() {
        frequent
    } else {
        counted.into_iter().map(|(s, _)| s).collect()
    }
}

#[cfg(test)]
mod documents {
    use super::*;

    impl Document<'_> {
        /// A document of no pages with these features, for the levels' tests.
        pub(in super::super) fn of(
            body: f32,
            heading_sizes: Vec<f32>,
            class: DocumentClass,
        ) -> Self {
            let below_fonts = heading_sizes.len().min(TUNING.font_levels.0) as u8 + 1;
            Document {
                pages: &[],
                lines: &[],
                body,
                bodies: Vec::new(),
                code_size: body,
                code_pitch: 0.0,
                bold_body: false,
                italic_body: false,
                body_look: [(0, 0); 2],
                heading_looks: HashSet::new(),
                contents: HashMap::new(),
                heading_sizes,
                below_fonts,
                margins: [None; 2],
                names: HashSet::new(),
                class,
            }
        }

        /// The same with each page's body size.
        pub(in super::super) fn with_bodies(self, bodies: Vec<f32>) -> Self {
            Document { bodies, ..self }
        }
    }
}
