//! Text that came from a document or a file name, made safe to show: no
//! control character reaches a terminal (escape sequences could clear the
//! screen, set the window title or plant a link) or splits a line of a log
//! (a file name with a newline could forge an entry). One classification
//! of what is unsafe, two ways of writing it.

/// Where the text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escape {
    /// A terminal: newlines and tabs lay the text out and stay; every other
    /// control character is shown as `\u{..}`.
    Terminal,
    /// One line of a log whose fields are separated by tabs: newline, tab
    /// and carriage return are written `\n`, `\t`, `\r`, other ASCII
    /// control characters `\xHH`, and the rest `\u{..}`. Backslashes are
    /// left alone: paths come escaped already (`source_path::encode` writes
    /// a backslash `\\` and a byte that is not UTF-8 `\xHH`).
    Line,
}

/// Bidirectional overrides and isolates reorder what follows them on
/// screen (a disguised file name).
fn reorders(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// How `c` is written for `to`, or `None` when it is safe as it is.
pub(crate) fn escaped(c: char, to: Escape) -> Option<String> {
    if !c.is_control() && !reorders(c) {
        return None;
    }
    Some(match (c, to) {
        ('\n' | '\t', Escape::Terminal) => return None,
        ('\n', Escape::Line) => "\\n".into(),
        ('\t', Escape::Line) => "\\t".into(),
        ('\r', Escape::Line) => "\\r".into(),
        (c, Escape::Line) if c.is_ascii() => format!("\\x{:02X}", c as u32),
        (c, _) => c.escape_unicode().to_string(),
    })
}

/// `text` with every unsafe character written as [`escaped`] says.
pub(crate) fn escape(text: &str, to: Escape) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match escaped(c, to) {
            Some(e) => out.push_str(&e),
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_line_stays_one_line_and_a_terminal_keeps_its_layout() {
        let name = "a\nb\tc\rd\x1b[2Je\u{7f}f\u{9b}g\u{202e}h é 日本";
        let line = escape(name, Escape::Line);
        assert_eq!(
            line,
            "a\\nb\\tc\\rd\\x1B[2Je\\x7Ff\\u{9b}g\\u{202e}h é 日本"
        );
        assert!(!line.chars().any(|c| c.is_control()));
        let term = escape(name, Escape::Terminal);
        assert!(term.starts_with("a\nb\tc\\u{d}d\\u{1b}[2Je"), "{term}");
        assert_eq!(escape("plain \\ text", Escape::Line), "plain \\ text");
    }
}
