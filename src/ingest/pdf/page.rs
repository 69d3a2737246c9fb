//! What reading a PDF's pages gives: the pages with their lines, and the
//! spans and rows that lines are built from. The bottom of the `pdf`
//! folder: every step of reading and layout speaks these types.

use serde::{Deserialize, Serialize};

use super::pitch::Pitch;
use super::tuning::TUNING;

/// What the extractor found in a PDF.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Extracted {
    /// The Info dictionary's Title, when set.
    pub title: Option<String>,
    /// True when the file was encrypted but opened with the empty password.
    #[serde(default)]
    pub encrypted: bool,
    pub pages: Vec<Page>,
    /// The document's own outline (its bookmarks), depth first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outline: Vec<OutlineEntry>,
}

/// A bookmark: a section's title, its depth and where it starts.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct OutlineEntry {
    pub title: String,
    /// 1 for a top-level bookmark, 2 for its children, ...
    pub level: u8,
    /// 1-based page the bookmark points at.
    pub page: u32,
    /// Where on the page the section starts, in points from its top, when
    /// the bookmark says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top: Option<f32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Page {
    pub lines: Vec<Line>,
    /// Why the page could not be read (an extractor error or crash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The lines were recognised by OCR from a rendering of the page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ocr: bool,
    /// Why a page that needed OCR did not get it (no engine, or its error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ocr_error: Option<String>,
    /// The x of the gutter between the columns its text was read in, in
    /// points from the left, when it has columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gutter: Option<f32>,
    /// Draws nothing, or nothing but white: a page left blank, which has
    /// no text to miss.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blank: bool,
}

/// A line of text as laid out on the page.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Line {
    pub text: String,
    /// Font size in points (mean over the line's characters).
    pub size: f32,
    /// Left and right edges, in points from the left of the page.
    pub x: f32,
    pub end: f32,
    /// Baseline, in points from the top of the page.
    pub y: f32,
    /// A vertical gap of more than 1.5 line heights comes before the line.
    pub gap: bool,
    /// Every character is bold.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bold: bool,
    /// Every character is set in italics (or slanted).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub italic: bool,
    /// A row of a table: its cells joined by ` | `.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub table: bool,
    /// A table row's cells' left and right edges, in its text's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<[f32; 2]>,
    /// The width of each of its glyphs when all are equally wide, in
    /// points (0 when they differ).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pitch: f32,
    /// Shown to be set in a monospaced font (code, a listing).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mono: bool,
    /// The font family most of it is set in, as a number (0: unknown, or
    /// no family holds most of it): a heading set in another face than
    /// the body's (sans over serif) is told by it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub face: u32,
    /// The colour most of it is set in, as a number (0: black, or no
    /// colour holds most of it): a heading set in the text's face but in
    /// its own colour is told by it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ink: u32,
}

fn is_zero<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl Page {
    /// True when the page has no letter or digit at all (a scanned image,
    /// a blank page).
    pub fn without_text(&self) -> bool {
        !self
            .lines
            .iter()
            .any(|l| l.text.chars().any(char::is_alphanumeric))
    }

    /// A page whose text is missing: no letter or digit, yet not blank (a
    /// scan OCR could not read, an image of text).
    pub fn text_missing(&self) -> bool {
        self.without_text() && !self.blank
    }
}

/// Characters set together on one baseline.
#[derive(Debug, Clone, Default)]
pub(super) struct Word {
    pub(super) text: String,
    pub(super) x0: f32,
    pub(super) x1: f32,
    pub(super) baseline: f32,
    pub(super) size: f32,
    pub(super) style: StyleCount,
    pub(super) pitch: Pitch,
}

/// How many of a run's characters are bold and how many italic, of all,
/// and the face and the colour most of them are set in.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StyleCount {
    pub(super) bold: usize,
    pub(super) italic: usize,
    pub(super) chars: usize,
    pub(super) face: Vote,
    pub(super) ink: Vote,
}

impl StyleCount {
    pub(super) fn add(&mut self, bold: bool, italic: bool, face: u32, ink: u32) {
        let (bold, italic) = (bold.into(), italic.into());
        let one = |value| Vote { value, lead: 1 };
        self.merge(&StyleCount {
            bold,
            italic,
            chars: 1,
            face: one(face),
            ink: one(ink),
        });
    }

    pub(super) fn merge(&mut self, o: &StyleCount) {
        (self.bold, self.italic) = (self.bold + o.bold, self.italic + o.italic);
        self.chars += o.chars;
        self.face.merge(o.face);
        self.ink.merge(o.ink);
    }

    /// Whether most of the characters are bold, and whether most are italic.
    pub(super) fn most(&self) -> (bool, bool) {
        let (part, whole) = TUNING.bold_share;
        let most = |n: usize| self.chars > 0 && n * whole >= self.chars * part;
        (most(self.bold), most(self.italic))
    }
}

/// A majority vote over characters (Boyer-Moore's): the value leading and
/// by how many characters no other's cancelled.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Vote {
    value: u32,
    lead: usize,
}

impl Vote {
    fn merge(&mut self, o: Vote) {
        if self.value == o.value {
            self.lead += o.lead;
        } else if o.lead > self.lead {
            (self.value, self.lead) = (o.value, o.lead - self.lead);
        } else {
            self.lead -= o.lead;
        }
    }

    /// The value most of `chars` characters hold, 0 when none does: the
    /// leader's lead is at least half of them, as it is wherever three
    /// quarters share a value.
    pub(super) fn winner(&self, chars: usize) -> u32 {
        if chars > 0 && self.lead * 2 >= chars {
            self.value
        } else {
            0
        }
    }
}

/// A run of words on one baseline, cut from its neighbours by a gap wider
/// than a word space.
#[derive(Debug, Clone, Default)]
pub(super) struct Span {
    pub(super) text: String,
    pub(super) x0: f32,
    pub(super) x1: f32,
    pub(super) baseline: f32,
    pub(super) size: f32,
    pub(super) bold: bool,
    pub(super) italic: bool,
    /// The face and the colour most of it is set in (`StyleCount`).
    pub(super) face: u32,
    pub(super) ink: u32,
    /// Its glyphs' widths.
    pub(super) pitch: Pitch,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Row {
    /// Left to right on the page.
    pub(super) spans: Vec<Span>,
    /// Mostly Arabic or Hebrew: read from right to left.
    pub(super) rtl: bool,
}

impl Row {
    pub(super) fn baseline(&self) -> f32 {
        self.spans
            .iter()
            .map(|s| s.baseline)
            .fold(f32::MIN, f32::max)
    }

    pub(super) fn size(&self) -> f32 {
        self.spans.iter().map(|s| s.size).fold(0.0, f32::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run's face is the face of most of its characters, however they
    /// come (one by one, or runs merged); without a clear majority, none.
    #[test]
    fn a_runs_face_is_the_face_most_of_it_is_set_in() {
        let run = |faces: &[u32]| {
            let mut c = StyleCount::default();
            faces.iter().for_each(|&f| c.add(false, false, f, f));
            c
        };
        let face = |c: StyleCount| (c.face.winner(c.chars), c.ink.winner(c.chars));
        assert_eq!(face(run(&[7, 7, 7, 3, 7, 7, 7, 7])), (7, 7));
        let mut merged = run(&[3]);
        merged.merge(&run(&[7, 7, 7, 7, 7]));
        assert_eq!(face(merged), (7, 7));
        assert_eq!(face(run(&[7, 3, 7, 3, 5, 7])), (0, 0));
        assert_eq!(face(StyleCount::default()), (0, 0));
    }
}
