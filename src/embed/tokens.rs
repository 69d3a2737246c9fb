//! The one token counter every chunker uses.

use std::sync::Arc;

use tokenizers::Tokenizer;

/// Counts tokens the way the embedding model will see them.
#[derive(Clone)]
pub enum TokenCounter {
    /// An estimate for unit tests, which have no model: one token per
    /// whitespace-separated word (and one per Chinese, Japanese or Korean
    /// character, which no space separates). Real BERT word-piece counts
    /// run about 1.3x higher for English prose.
    #[cfg(test)]
    Whitespace,
    /// The model's own tokenizer, with truncation and padding switched off.
    Model(Arc<Tokenizer>),
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            #[cfg(test)]
            TokenCounter::Whitespace => f.write_str("TokenCounter::Whitespace"),
            TokenCounter::Model(_) => f.write_str("TokenCounter::Model"),
        }
    }
}

impl TokenCounter {
    /// Tokens in `text`, not counting the model's special tokens.
    pub fn count(&self, text: &str) -> usize {
        match self {
            #[cfg(test)]
            TokenCounter::Whitespace => text.split_whitespace().map(word_tokens).sum(),
            TokenCounter::Model(tok) => match tok.encode_fast(text, false) {
                Ok(enc) => enc.len(),
                // The tokenizer only fails on pathological input; fall back to
                // a safe over-estimate so the chunk is split, not truncated.
                Err(_) => text.len() / 2 + 1,
            },
        }
    }
}

/// Tokens of one whitespace-separated word in the estimate: each CJK
/// character, and each run of other characters, counts one.
#[cfg(test)]
fn word_tokens(word: &str) -> usize {
    let mut n = 0;
    let mut in_run = false;
    for c in word.chars() {
        if crate::text::cjk::is_cjk_or_punctuation(c) {
            n += 1;
            in_run = false;
        } else if !in_run {
            n += 1;
            in_run = true;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_characters_count_one_each() {
        assert_eq!(TokenCounter::Whitespace.count("日本語のテキスト"), 8);
        assert_eq!(TokenCounter::Whitespace.count("kb は速い。"), 5);
        assert_eq!(TokenCounter::Whitespace.count("Rust和SQLite"), 3);
    }

    #[test]
    fn whitespace_counts_words() {
        assert_eq!(TokenCounter::Whitespace.count("  one two\nthree  "), 3);
        assert_eq!(TokenCounter::Whitespace.count(""), 0);
    }
}
