//! The characters of a page as laid out for reading: each turned upright
//! in its own direction, accents that TeX draws apart composed with their
//! letters, ligatures spelled out, presentation forms made letters.

use super::tuning::TUNING;

/// A unit: the quarter turns of a full turn.
pub(super) const TURNS: u8 = 4;

/// The character of a line break the engine guessed ([`Glyph::line_break`]).
pub(super) const GUESSED_BREAK: char = '\n';

/// A character as the PDF places it, in points from the page's top-left
/// (y grows downwards).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Glyph {
    pub ch: char,
    /// The character's box on the page.
    pub left: f32,
    pub right: f32,
    pub top: f32,
    pub bottom: f32,
    /// Where its baseline starts.
    pub origin: (f32, f32),
    /// Font size in points (as scaled on the page).
    pub size: f32,
    pub bold: bool,
    pub italic: bool,
    /// Its font's family, as a number (`read::face_of`): 0 when unknown.
    pub face: u32,
    /// Its colour, as a number (`read::ink_of`): 0 for black.
    pub ink: u32,
    /// Direction of the text in quarter turns counter-clockwise: 0 reads
    /// left to right, 1 upwards (a landscape slide on a portrait page),
    /// 2 upside down, 3 downwards.
    pub turns: u8,
}

impl Glyph {
    /// A glyph with no box: a space between words.
    pub fn space() -> Glyph {
        Glyph {
            ch: ' ',
            ..Glyph::default()
        }
    }

    /// A line break the engine guessed (pdfium does after every glyph of turned text).
    pub fn line_break() -> Glyph {
        Glyph {
            ch: GUESSED_BREAK,
            ..Glyph::default()
        }
    }

    /// Its left and right edges and baseline once its text is turned to
    /// read left to right.
    pub(super) fn upright(&self) -> (f32, f32, f32) {
        let (ox, oy) = self.origin;
        match self.turns % TURNS {
            0 => (self.left, self.right, oy),
            1 => (-self.bottom, -self.top, ox),
            2 => (-self.right, -self.left, -oy),
            _ => (self.top, self.bottom, -ox),
        }
    }
}

/// Upright position of a glyph for laying out words: its edges and
/// baseline in the frame where its text reads left to right.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Placed {
    pub(super) ch: char,
    pub(super) x0: f32,
    pub(super) x1: f32,
    pub(super) baseline: f32,
    pub(super) size: f32,
    pub(super) bold: bool,
    pub(super) italic: bool,
    pub(super) face: u32,
    pub(super) ink: u32,
}

/// A letter of a script written right to left (Hebrew, Arabic and their
/// presentation forms).
pub(super) fn rtl(c: char) -> bool {
    matches!(c as u32,
        0x0590..=0x05FF | 0x0600..=0x06FF | 0x0750..=0x077F | 0x08A0..=0x08FF
        | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF)
}

/// The combining mark of a spacing accent, as TeX sets accented letters:
/// the accent drawn as a glyph of its own over or under the letter.
fn combining(accent: char) -> Option<char> {
    Some(match accent {
        '\u{b4}' | '\u{2ca}' => '\u{301}',
        '`' | '\u{2cb}' => '\u{300}',
        '^' | '\u{2c6}' => '\u{302}',
        '\u{a8}' => '\u{308}',
        '~' | '\u{2dc}' => '\u{303}',
        '\u{b8}' => '\u{327}',
        '\u{2c7}' => '\u{30c}',
        '\u{2d8}' => '\u{306}',
        '\u{2d9}' => '\u{307}',
        '\u{2da}' => '\u{30a}',
        '\u{2dd}' => '\u{30b}',
        '\u{af}' | '\u{2c9}' => '\u{304}',
        '\u{2db}' => '\u{328}',
        _ => return None,
    })
}

/// A spacing accent drawn over (or under) the letter beside it in drawing
/// order is composed with that letter (`´` + `e` → `é`), as a reader sees it.
pub(super) fn compose_accents(glyphs: Vec<Placed>) -> Vec<Placed> {
    let over = |accent: &Placed, letter: &Placed| {
        let mid = (accent.x0 + accent.x1) / 2.0;
        letter.ch.is_alphabetic()
            && mid >= letter.x0 - TUNING.accent_overhang * letter.size
            && mid <= letter.x1 + TUNING.accent_overhang * letter.size
            && (accent.baseline - letter.baseline).abs() < letter.size
    };
    let mut out: Vec<Placed> = Vec::with_capacity(glyphs.len());
    let mut i = 0;
    while i < glyphs.len() {
        let g = glyphs[i];
        if let Some(mark) = combining(g.ch) {
            // The accent first, then its letter; or the letter first.
            let next = glyphs.get(i + 1).filter(|n| over(&g, n));
            if let Some((next, ch)) = next.and_then(|n| compose(n.ch, mark).map(|c| (n, c))) {
                out.push(Placed { ch, ..*next });
                i += 2;
                continue;
            }
            let prev = out.last_mut().filter(|p| over(&g, p));
            if let Some((prev, ch)) = prev.and_then(|p| compose(p.ch, mark).map(|c| (p, c))) {
                prev.ch = ch;
                i += 1;
                continue;
            }
        }
        out.push(g);
        i += 1;
    }
    compose_apart(&mut out);
    out
}

/// `letter` with the combining `mark`, when Unicode has it as one character.
fn compose(letter: char, mark: char) -> Option<char> {
    use unicode_normalization::UnicodeNormalization as _;
    // A dotless i takes the accent as i does.
    let letter = if letter == '\u{131}' { 'i' } else { letter };
    let mut it = [letter, mark].into_iter().nfc();
    let composed = it.next()?;
    it.next().is_none().then_some(composed)
}

/// Accents drawn away from their letter in drawing order (TeX raises an
/// accent over a capital in a box of its own, drawn after the line: `È`)
/// are composed with the letter on their row whose box holds their middle.
fn compose_apart(glyphs: &mut Vec<Placed>) {
    let mut taken = vec![false; glyphs.len()];
    for i in 0..glyphs.len() {
        let Some(mark) = combining(glyphs[i].ch) else {
            continue;
        };
        let a = glyphs[i];
        let mid = (a.x0 + a.x1) / 2.0;
        let under = |l: &Placed| {
            l.ch.is_alphabetic()
                && l.x0 < mid
                && mid < l.x1
                && (a.baseline - l.baseline).abs() < l.size
        };
        let letter = (0..glyphs.len()).find(|&j| j != i && !taken[j] && under(&glyphs[j]));
        if let Some((j, ch)) = letter.and_then(|j| compose(glyphs[j].ch, mark).map(|c| (j, c))) {
            glyphs[j].ch = ch;
            taken[i] = true;
        }
    }
    let mut taken = taken.into_iter();
    glyphs.retain(|_| !taken.next().unwrap_or(false));
}

/// The superscript of a digit or sign (`2` → `²`); letters keep theirs.
pub(super) fn superscript(c: char) -> Option<char> {
    let (plain, raised) = super::lexicon::SUPERSCRIPTS;
    let at = plain.chars().position(|p| p == c)?;
    raised.chars().nth(at)
}

pub(super) fn push_char(text: &mut String, c: char) {
    match c {
        '\u{fb00}' => text.push_str("ff"),
        '\u{fb01}' => text.push_str("fi"),
        '\u{fb02}' => text.push_str("fl"),
        '\u{fb03}' => text.push_str("ffi"),
        '\u{fb04}' => text.push_str("ffl"),
        '\u{fb05}' | '\u{fb06}' => text.push_str("st"),
        // Arabic and Hebrew presentation forms (the shapes a font draws)
        // become the letters people type; so do the Kangxi radicals and
        // compatibility ideographs that CJK fonts often map their glyphs
        // to (`⼭` U+2F2D for `山`), or a search for `山东` misses them.
        c if matches!(c as u32, 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x2E80..=0x2FDF | 0xF900..=0xFAFF) =>
        {
            use unicode_normalization::UnicodeNormalization as _;
            text.extend(std::iter::once(c).nfkc());
        }
        c => text.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::push_char;

    #[test]
    fn glyphs_become_the_letters_people_type() {
        let mut s = String::new();
        for c in [
            '\u{fb01}', 'x', '\u{2f2d}', '东', '\u{2f24}', '\u{f900}', 'ﻻ',
        ] {
            push_char(&mut s, c);
        }
        assert_eq!(s, "fix山东大豈لا");
    }
}
