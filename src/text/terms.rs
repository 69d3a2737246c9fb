//! Extra searchable forms of numbers and identifiers, and CJK bigrams.
//!
//! The keyword index splits text the way FTS5's unicode61 tokenizer does:
//! letters and digits make words, everything else separates them. That
//! misses forms people and agents use interchangeably: `parseConfig` is one
//! word while `parse_config` is two, `FY2018` never meets `2018`, and
//! `1,234,567` is three numbers. Each chunk therefore gets a `terms` column
//! of extra forms, and queries are expanded by the same function, so every
//! spelling of a name meets every other:
//! - compounds (`parse_config`, `os.path.join`, `kb-eval`) are also indexed
//!   joined (`parseconfig`), the way unicode61 sees `parseConfig`; a dotted
//!   path also by its dotted parts and their tails joined
//!   (`package.rust-version` gives `rustversion`, `server.tls.cert_file`
//!   `certfile` and `tlscertfile`), so a key is found by the name the user
//!   types, not only by its whole path;
//! - camelCase, PascalCase and letter/digit runs (`parseConfig`,
//!   `XMLHttpRequest`, `FY2018`, `sha256`) are also indexed as their parts;
//! - two-digit fiscal years and quarters (`FY18`, `Q3'19`, `3Q19`) give the
//!   full year and the quarter (`2018`, `q3 2019`);
//! - numbers with thousands separators give the bare number (`1234567`);
//! - CJK runs give their character bigrams ([`super::cjk`]).

use super::cjk;

/// A compound with more parts than this (hashes, base64) only gets its
/// joined form: its parts would be noise.
const MAX_PARTS: usize = 8;
/// Longer compounds are skipped altogether.
const MAX_COMPOUND_CHARS: usize = 80;

/// The extra forms of a chunk's text for the `terms` column, separated by
/// spaces (empty for most prose).
pub fn index_terms(text: &str) -> String {
    extra_forms(text).join(" ")
}

/// The extra words a query also searches for (its words themselves are
/// not repeated).
pub fn query_expansions(query: &str) -> Vec<String> {
    extra_forms(query)
}

/// The identifiers a query names (`rust-version`, `package.rust-version`,
/// `parse_config`, `parseConfig`), each as the one word every spelling of
/// it is indexed under (`rustversion`): a chunk whose words or extra forms
/// hold that word holds the identifier whole. Words joined by a hyphen,
/// dot or underscore, or written in camelCase; not numbers (`3.14`) nor
/// letters run into digits (`FY2018`).
pub fn query_identifiers(query: &str) -> Vec<String> {
    let mut out = Distinct::default();
    for (token, segments) in compound_tokens(query) {
        let camel = token
            .chars()
            .zip(token.chars().skip(1))
            .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
        let joined: String = segments.concat().to_lowercase();
        let wordy = segments
            .iter()
            .filter(|s| s.chars().any(char::is_alphabetic))
            .count();
        if (segments.len() > 1 && wordy > 1 && !token.contains('\''))
            || (segments.len() == 1 && camel)
        {
            out.push(joined);
        }
    }
    out.into_vec()
}

fn extra_forms(text: &str) -> Vec<String> {
    let mut out = Distinct::default();
    compounds(text, &mut out);
    super::numbers::forms(text, |f| out.push(f));
    cjk::for_each_bigram(text, |b| out.push(b.to_string()));
    out.into_vec()
}

/// A distinct list of non-empty strings, in first-seen order (the set
/// beside it keeps a pasted page of a query linear).
#[derive(Default)]
pub(crate) struct Distinct {
    items: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl Distinct {
    pub(crate) fn push(&mut self, s: String) {
        if !s.is_empty() && self.seen.insert(s.clone()) {
            self.items.push(s);
        }
    }

    pub(crate) fn into_vec(self) -> Vec<String> {
        self.items
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !cjk::is_cjk(c)
}

/// The tokens of `text` that may be compounds (words joined by `_`, `.`,
/// `-` or `'`, trimmed, at most [`MAX_COMPOUND_CHARS`]), each with the
/// words unicode61 makes of it.
fn compound_tokens(text: &str) -> impl Iterator<Item = (&str, Vec<&str>)> {
    text.split(|c: char| !(is_word_char(c) || matches!(c, '_' | '.' | '-' | '\'')))
        .map(|raw| raw.trim_matches(|c: char| !is_word_char(c)))
        .filter(|token| !token.is_empty() && token.chars().count() <= MAX_COMPOUND_CHARS)
        .map(|token| {
            let segments = token
                .split(|c: char| !is_word_char(c))
                .filter(|s| !s.is_empty())
                .collect();
            (token, segments)
        })
}

/// Joined forms of separated compounds and parts of camelCase and
/// letter/digit runs.
fn compounds(text: &str, out: &mut Distinct) {
    for (token, segments) in compound_tokens(text) {
        let parts: Vec<String> = segments.iter().flat_map(|s| split_humps(s)).collect();
        if segments.len() > 1 {
            let joined: String = segments.concat().to_lowercase();
            // Joined decimals (`3.14` → `314`) mean nothing.
            if !joined.chars().all(|c| c.is_ascii_digit()) {
                out.push(joined);
            }
            dotted_tails(token, out);
        }
        if parts.len() > MAX_PARTS {
            continue;
        }
        for seg in &segments {
            let humps = split_humps(seg);
            if humps.len() > 1 {
                for p in humps {
                    if p.chars().count() >= 2 {
                        out.push(p);
                    }
                }
            }
        }
    }
}

/// The joined forms of a dotted path's tails and of each of its parts that
/// is a compound itself: `a.b-c.d_e` gives `bcde`, `de` and `bc`.
fn dotted_tails(token: &str, out: &mut Distinct) {
    let parts: Vec<&str> = token.split('.').filter(|p| !p.is_empty()).collect();
    if parts.len() < 2 && !token.contains('.') {
        return;
    }
    let joined = |ps: &[&str]| -> String {
        ps.iter()
            .flat_map(|p| p.split(|c: char| !is_word_char(c)))
            .collect::<String>()
            .to_lowercase()
    };
    let words = |p: &str| {
        p.split(|c: char| !is_word_char(c))
            .filter(|s| !s.is_empty())
            .count()
    };
    for i in 1..parts.len() {
        let tail = &parts[i..];
        if tail.len() > 1 || words(tail[0]) > 1 {
            let j = joined(tail);
            if !j.chars().all(|c| c.is_ascii_digit()) {
                out.push(j);
            }
        }
    }
    for p in &parts[..parts.len().saturating_sub(1)] {
        if words(p) > 1 {
            out.push(joined(&[p]));
        }
    }
}

/// Splits a word at camelCase humps and letter/digit boundaries, lower-cased:
/// `parseConfig` → parse config, `XMLHttpRequest` → xml http request,
/// `FY2018` → fy 2018; and where a superscript follows digits (`2019¹` →
/// 2019 ¹, a year with its footnote's mark).
fn split_humps(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (a, b) = (chars[i - 1], chars[i]);
        let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
        let boundary = (a.is_lowercase() && b.is_uppercase())
            || (a.is_uppercase() && b.is_uppercase() && next_lower)
            || (a.is_alphabetic() && b.is_numeric())
            || (a.is_numeric() && b.is_alphabetic())
            || (a.is_ascii_digit() && b.is_numeric() && !b.is_ascii_digit());
        if boundary {
            parts.push(chars[start..i].iter().collect::<String>().to_lowercase());
            start = i;
        }
    }
    parts.push(chars[start..].iter().collect::<String>().to_lowercase());
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(t: &str) -> Vec<String> {
        extra_forms(t)
    }

    #[test]
    fn identifiers_meet_in_every_spelling() {
        assert_eq!(forms("parse_config"), ["parseconfig"]);
        assert_eq!(forms("parseConfig"), ["parse", "config"]);
        assert_eq!(forms("os.path.join"), ["ospathjoin", "pathjoin"]);
        assert_eq!(
            forms("package.rust-version = 1.85"),
            ["packagerustversion", "rustversion"]
        );
        assert_eq!(
            forms("server.tls.cert_file"),
            ["servertlscertfile", "tlscertfile", "certfile"]
        );
        // A query for the key's own name meets it.
        assert!(forms("rust-version").contains(&"rustversion".to_string()));
        assert_eq!(forms("XMLHttpRequest"), ["xml", "http", "request"]);
        assert_eq!(forms("kb-eval"), ["kbeval"]);
        // Sentence punctuation is not part of a word.
        assert!(forms("It works. Really, it does.").is_empty());
    }

    #[test]
    fn a_query_names_its_identifiers() {
        assert_eq!(query_identifiers("rust-version"), ["rustversion"]);
        assert_eq!(
            query_identifiers("set package.rust-version and parse_config"),
            ["packagerustversion", "parseconfig"]
        );
        assert_eq!(query_identifiers("where is parseConfig"), ["parseconfig"]);
        for none in [
            "FY2018 revenue",
            "pi is 3.14",
            "it's fine",
            "omega-3 fats",
            "a plain question",
        ] {
            assert!(query_identifiers(none).is_empty(), "{none}");
        }
    }

    #[test]
    fn fiscal_years_quarters_and_separators() {
        assert_eq!(forms("FY2018"), ["fy", "2018"]);
        assert_eq!(
            forms("fiscal 2019\u{b9} and message\u{2076}"),
            ["2019", "message"]
        );
        assert_eq!(forms("FY18 results"), ["fy", "18", "2018"]);
        assert!(forms("in Q3'19").contains(&"2019".to_string()));
        let f = forms("3Q19 revenue");
        assert!(
            f.contains(&"q3".to_string()) && f.contains(&"2019".to_string()),
            "{f:?}"
        );
        assert_eq!(forms("revenue of 1,234,567 dollars"), ["1234567"]);
        // Decimals are not joined.
        assert!(forms("pi is 3.14").is_empty());
    }

    #[test]
    fn noise_is_bounded() {
        // A hash: only its joined form would be emitted if it had separators;
        // as one word with many letter/digit humps it gives nothing.
        assert!(forms("e3b0c44298fc1c149afbf4c8996fb924").is_empty());
        assert!(index_terms(&"x".repeat(500)).is_empty());
    }

    #[test]
    fn cjk_bigrams_are_terms() {
        assert_eq!(index_terms("定期轮换密钥"), "定期 期轮 轮换 换密 密钥");
        assert_eq!(query_expansions("ssh 密钥"), ["密钥"]);
    }
}
