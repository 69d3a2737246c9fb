//! A font's pitch told from its glyphs' widths: a proportional font sets `i`,
//! `l`, `.` or `(` in a quarter to two fifths of its size; a monospaced font
//! gives them the width of every other glyph, half its size or more (Courier
//! 0.6, TeX's typewriter 0.525). Those narrow glyphs are the evidence: the
//! font's name and flags would cost a call into pdfium for every character.

use super::tuning::TUNING;

/// A glyph a proportional font sets narrow.
fn narrow(c: char) -> bool {
    "iljtfrI.,:;'!|()[]{}".contains(c)
}

/// What the glyphs of a word, a span or a line say about their font's pitch.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Pitch {
    /// Narrow glyphs set as wide as a monospaced font sets them.
    wide_narrow: u16,
    /// Narrow glyphs set narrow: a proportional font.
    narrow_narrow: u16,
    widths: f32,
    glyphs: u16,
    min: f32,
    /// The last glyph's width when it is a mark (no letter or digit).
    end_mark: f32,
}

impl Pitch {
    /// Counts a glyph `width` points wide in a font of `size` points.
    pub(super) fn add(&mut self, c: char, width: f32, size: f32) {
        if size <= 0.0 || !width.is_finite() || width <= 0.0 {
            return;
        }
        if narrow(c) {
            if width >= TUNING.narrow_set.0 * size {
                self.wide_narrow += 1;
            } else if width < TUNING.narrow_set.1 * size {
                self.narrow_narrow += 1;
            }
        }
        let least = if self.glyphs == 0 { width } else { self.min };
        self.min = least.min(width);
        self.end_mark = if c.is_alphanumeric() { 0.0 } else { width };
        self.widths += width;
        self.glyphs = self.glyphs.saturating_add(1);
    }

    pub(super) fn merge(&mut self, o: &Pitch) {
        if o.glyphs == 0 {
            return;
        }
        if self.glyphs == 0 {
            *self = *o;
            return;
        }
        self.wide_narrow = self.wide_narrow.saturating_add(o.wide_narrow);
        self.narrow_narrow = self.narrow_narrow.saturating_add(o.narrow_narrow);
        self.widths += o.widths;
        self.glyphs = self.glyphs.saturating_add(o.glyphs);
        self.min = self.min.min(o.min);
        self.end_mark = o.end_mark;
    }

    /// Every glyph as wide as the others: their width (0 when they differ
    /// or there are none). Measured by the mean against the narrowest, as
    /// the engine draws a few glyphs' boxes past their advance; a wider
    /// mark that ends the run left out of the mean, as it may be set in
    /// another font (an API entry's `#` or `¶` link after its name in code).
    pub(super) fn even(&self) -> f32 {
        let mean_of = |widths: f32, glyphs: u16| widths / f32::from(glyphs.max(1));
        let without_mark = match self.glyphs {
            n if n > 2 && self.end_mark > 0.0 => mean_of(self.widths - self.end_mark, n - 1),
            _ => f32::MAX,
        };
        let mean = mean_of(self.widths, self.glyphs).min(without_mark);
        if self.glyphs > 0 && mean - self.min <= TUNING.even_width_share * self.min {
            self.min
        } else {
            0.0
        }
    }

    /// Shown to be monospaced: even, with narrow glyphs as wide as the
    /// rest and none set narrow.
    pub(super) fn fixed(&self) -> bool {
        self.even() > 0.0 && self.wide_narrow >= 2 && self.narrow_narrow == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pitch_of(text: &str, width: impl Fn(char) -> f32) -> Pitch {
        let mut p = Pitch::default();
        for c in text.chars().filter(|c| !c.is_whitespace()) {
            p.add(c, width(c), 10.0);
        }
        p
    }

    #[test]
    fn narrow_glyphs_tell_a_monospaced_font() {
        let courier = pitch_of("print(list(x))", |_| 6.0);
        assert!(courier.fixed() && (courier.even() - 6.0).abs() < 1e-4);
        // A glyph's box drawn past its advance does not unsettle it.
        let drawn = pitch_of("import reportlab", |c| if c == 'p' { 6.5 } else { 6.0 });
        assert!(drawn.fixed() && (drawn.even() - 6.0).abs() < 1e-4);
        // Helvetica: `i`, `l`, `t`, `(` narrow, the rest wider.
        let helvetica = pitch_of("print(list(x))", |c| if narrow(c) { 2.8 } else { 5.6 });
        assert!(!helvetica.fixed() && helvetica.even() == 0.0);
        // Even but without narrow glyphs to tell: not shown monospaced.
        let digits = pitch_of("2018 2017", |_| 5.56);
        assert!(!digits.fixed() && digits.even() > 0.0);
        // One mark in a wider font after a name in code: still code.
        let linked = pitch_of("end(event)#", |c| if c == '#' { 10.1 } else { 6.6 });
        assert!(linked.fixed() && (linked.even() - 6.6).abs() < 1e-4);
        let two = pitch_of("end(event)##", |c| if c == '#' { 10.1 } else { 6.6 });
        assert!(!two.fixed());
        // Not a mark, or not at the end: another font.
        let letter = pitch_of("ssty2.math→h", |c| if c == 'h' { 7.9 } else { 6.6 });
        assert!(!letter.fixed());
        // A narrower mark at the end stays in the mean: boxes drawn past
        // their advance (a slanted comment) measured as before.
        let slanted = |c| match c {
            '(' => 5.71,
            '*' => 5.33,
            'x' => 5.49,
            _ => 5.23,
        };
        assert!(pitch_of("(*!x*)", slanted).fixed());
    }
}
