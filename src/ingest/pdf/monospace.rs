//! Monospaced text (code, terminal sessions, preformatted listings), told by
//! its glyphs' widths (`pitch.rs`): its lines and its indentation stay.

use super::page::Line;
use super::tuning::TUNING;

/// The text of a block of monospaced lines: one line each, indented by
/// how far right of the block's left edge it starts, in glyph widths.
pub(super) fn code_text(lines: &[&Line]) -> String {
    let left = lines.iter().map(|l| l.x).fold(f32::MAX, f32::min);
    let pitch = lines
        .iter()
        .find(|l| l.pitch > 0.0)
        .map_or(1.0, |l| l.pitch);
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            // A blank line in the listing: a baseline skipped.
            let prev = lines[i - 1];
            let step = l.y - prev.y;
            let (low, high) = TUNING.blank_line_step;
            if prev.size > 0.0 && step > low * prev.size && step < high * prev.size {
                out.push('\n');
            }
        }
        let indent = ((l.x - left) / pitch).round().clamp(0.0, TUNING.max_indent) as usize;
        out.extend(std::iter::repeat_n(' ', indent));
        out.push_str(l.text.trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_keeps_its_lines_indentation_and_blank_lines() {
        let line = |text: &str, x: f32, y: f32| Line {
            text: text.into(),
            size: 10.0,
            x,
            end: x + 6.0 * text.len() as f32,
            y,
            pitch: 6.0,
            mono: true,
            ..Line::default()
        };
        let a = line("def f(x):", 72.0, 100.0);
        let b = line("return x", 96.0, 112.0);
        let c = line("f(1)", 72.0, 136.0);
        assert_eq!(code_text(&[&a, &b, &c]), "def f(x):\n    return x\n\nf(1)");
    }
}
