//! How text for people is dressed: decided once, at the edge (the CLI
//! knows whether stdout is a terminal and whether NO_COLOR is set), and
//! handed to every renderer.

/// Presentation choices for human output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// ANSI colour and bold.
    pub color: bool,
}

impl Style {
    /// Plain text: no escape sequences.
    pub const PLAIN: Style = Style { color: false };

    /// Colour when stdout is a terminal and NO_COLOR is not set.
    pub fn for_stdout() -> Style {
        use std::io::IsTerminal;
        Style {
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    /// `text` in bold yellow when colour is on.
    pub fn emphasis(&self, text: &str) -> String {
        if self.color {
            format!("\x1b[1;33m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}
