//! Which writing systems an embedding model reads, and whether a query has
//! a word in one of them.
//!
//! An English model's vocabulary holds some CJK characters and symbols,
//! but it was never trained to make sense of them: `密钥` or `🔥` comes out
//! as a vector near whatever else the model understands least (codec
//! tables, symbol-heavy code), scored as if it meant something. Such a
//! query is searched by its keywords alone.

use serde::Deserialize;

/// The scripts a model's vocabulary reads (models.toml `reads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reads {
    /// Latin letters (with their accented forms) and digits: the English
    /// models.
    #[default]
    Latin,
    /// Letters and digits of every script: multilingual models.
    Any,
}

impl Reads {
    /// Whether `text` has a letter or digit the model reads.
    pub fn any_word_in(self, text: &str) -> bool {
        text.chars().any(|c| match self {
            Reads::Latin => is_latin(c),
            Reads::Any => c.is_alphanumeric(),
        })
    }
}

/// ASCII letters and digits, and the Latin letters of Latin-1, Latin
/// Extended-A/B and Latin Extended Additional (é, ß, ł, ơ, ...).
fn is_latin(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || (c.is_alphabetic() && matches!(c, '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_english_model_reads_latin_words_and_digits() {
        for q in [
            "rotate keys",
            "café crème",
            "Łódź",
            "2019",
            "证书 curl",
            "x",
        ] {
            assert!(Reads::Latin.any_word_in(q), "{q}");
        }
        for q in ["密钥轮换", "証明書", "🔥", "((((", "→ ×", "", "  ", "Ключ"] {
            assert!(!Reads::Latin.any_word_in(q), "{q}");
        }
    }

    #[test]
    fn a_multilingual_model_reads_every_script_but_not_symbols() {
        for q in ["密钥轮换", "Ключ", "rotate"] {
            assert!(Reads::Any.any_word_in(q), "{q}");
        }
        for q in ["🔥", "((((", "→"] {
            assert!(!Reads::Any.any_word_in(q), "{q}");
        }
    }
}
