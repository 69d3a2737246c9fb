//! How text for people is dressed: decided once, at the edge (the CLI
//! knows whether stdout is a terminal, how wide it is, and whether NO_COLOR
//! is set), and handed to every renderer. Renderers mark emphasis with two
//! private-use characters; [`Style::finish`] turns them into colour (or
//! nothing) and makes anything from a document or a file name safe for a
//! terminal.

use super::escape::{escaped, Escape};

/// Opens emphasis in rendered text (replaced by `finish`).
const EMPHASIS_ON: char = '\u{E000}';
/// Closes emphasis.
const EMPHASIS_OFF: char = '\u{E001}';

/// Presentation choices for human output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    /// ANSI colour and bold.
    pub color: bool,
    /// Columns to wrap long text to (None: do not wrap).
    pub width: Option<usize>,
}

impl Default for Style {
    fn default() -> Self {
        Style::PLAIN
    }
}

impl Style {
    /// Plain text, not wrapped.
    pub(crate) const PLAIN: Style = Style {
        color: false,
        width: None,
    };

    /// Colour and wrapping when stdout is a terminal (no colour with
    /// NO_COLOR set).
    pub(crate) fn for_stdout() -> Style {
        use std::io::IsTerminal;
        if !std::io::stdout().is_terminal() {
            return Style::PLAIN;
        }
        Style {
            color: std::env::var_os("NO_COLOR").is_none(),
            width: terminal_width(),
        }
    }

    /// Marks `text` as emphasised (shown bold yellow when colour is on).
    pub(crate) fn emphasis(&self, text: &str) -> String {
        format!("{EMPHASIS_ON}{}{EMPHASIS_OFF}", strip_marks(text))
    }

    /// Wraps `text` to the width, each line after the first indented by
    /// `indent` spaces (the first line is indented by the caller).
    pub(crate) fn wrap(&self, text: &str, indent: usize) -> String {
        let Some(width) = self.width.filter(|w| *w > indent + 20) else {
            return text.to_string();
        };
        let room = width - indent;
        let mut out = String::new();
        let mut line = 0usize;
        for word in text.split(' ') {
            let len = visible_len(word);
            if line > 0 && line + 1 + len > room {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
                line = 0;
            } else if line > 0 {
                out.push(' ');
                line += 1;
            }
            out.push_str(word);
            line += len;
        }
        out
    }

    /// The final text for the terminal: emphasis marks become colour codes
    /// (or vanish), and every control character that came from a document or
    /// a file name (escape sequences that could clear the screen, set the
    /// window title or plant a link) is shown escaped instead of obeyed.
    pub(crate) fn finish(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            match c {
                EMPHASIS_ON if self.color => out.push_str("\x1b[1;33m"),
                EMPHASIS_OFF if self.color => out.push_str("\x1b[0m"),
                EMPHASIS_ON | EMPHASIS_OFF => {}
                c => match escaped(c, Escape::Terminal) {
                    Some(e) => out.push_str(&e),
                    None => out.push(c),
                },
            }
        }
        out
    }
}

fn strip_marks(text: &str) -> String {
    text.replace([EMPHASIS_ON, EMPHASIS_OFF], "")
}

fn visible_len(word: &str) -> usize {
    word.chars()
        .filter(|c| *c != EMPHASIS_ON && *c != EMPHASIS_OFF)
        .count()
}

/// The terminal's width in columns: `COLUMNS`, else the terminal itself.
fn terminal_width() -> Option<usize> {
    if let Some(c) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return Some(c);
    }
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ fills a winsize struct for a terminal fd.
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
        if ok && ws.ws_col > 0 {
            return Some(ws.ws_col as usize);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_escapes_from_documents_are_shown_not_obeyed() {
        let evil = "Title\x1b]0;pwned\x07 \x1b[2J\u{9b}31m \u{202e}gpj.exe";
        let out = Style::PLAIN.finish(evil);
        assert!(!out.contains('\x1b') && !out.contains('\x07') && !out.contains('\u{9b}'));
        assert!(!out.contains('\u{202e}'));
        assert!(out.contains("\\u{1b}]0;pwned"), "{out}");
        let styled = Style {
            color: true,
            width: None,
        };
        let text = format!("a {} b", styled.emphasis("git"));
        assert_eq!(styled.finish(&text), "a \x1b[1;33mgit\x1b[0m b");
        assert_eq!(Style::PLAIN.finish(&text), "a git b");
    }

    #[test]
    fn wrapping_indents_continuation_lines() {
        let s = Style {
            color: false,
            width: Some(30),
        };
        let w = s.wrap("one two three four five six seven eight nine ten", 3);
        for line in w.lines() {
            assert!(line.chars().count() <= 30, "{line:?}");
        }
        assert!(w.lines().nth(1).unwrap().starts_with("   "));
    }
}
