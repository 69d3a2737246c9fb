//! Match snippets: the best passage of a chunk, about 32 tokens, query words
//! wrapped in `[MATCH]` and `[/MATCH]`, `...` where the text was cut.
//!
//! Keyword hits use FTS5's own `snippet()`. Chunks found only by the vector
//! ranker share no indexed word with the query, so their snippet is the
//! sentence sharing the most word stems with it (else the first sentence).

use super::query::query_terms;

const SNIPPET_WORDS: usize = 32;

/// A crude stem: the first five characters, enough to relate
/// install/installing/installation without a stemmer.
fn stem(w: &str) -> String {
    w.to_lowercase().chars().take(5).collect()
}

/// Whether a word of a text relates to a word of the query (shares its
/// crude stem).
fn relates_to(query: &str) -> impl Fn(&str) -> bool {
    let stems: Vec<String> = query_terms(query).iter().map(|t| stem(t)).collect();
    move |w: &str| {
        let core: String = w.chars().filter(|c| c.is_alphanumeric()).collect();
        !core.is_empty() && stems.iter().any(|s| stem(&core) == *s)
    }
}

/// Where a text holds words related to the query's (byte ranges of its
/// words, in order): what a snippet marks.
pub(crate) fn query_word_marks(text: &str, query: &str) -> Vec<std::ops::Range<usize>> {
    let is_match = relates_to(query);
    text.split_whitespace()
        .filter(|w| is_match(w))
        .map(|w| {
            let start = w.as_ptr() as usize - text.as_ptr() as usize;
            start..start + w.len()
        })
        .collect()
}

pub fn lexical_snippet(text: &str, query: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return String::new();
    }
    let is_match = relates_to(query);
    // The window of SNIPPET_WORDS words with the most matching words.
    let n = words.len();
    let win = SNIPPET_WORDS.min(n);
    let mut best = (0usize, 0usize);
    let mut count = words[..win].iter().filter(|w| is_match(w)).count();
    best.1 = count;
    for start in 1..=(n - win) {
        if is_match(words[start - 1]) {
            count -= 1;
        }
        if is_match(words[start + win - 1]) {
            count += 1;
        }
        if count > best.1 {
            best = (start, count);
        }
    }
    let (start, _) = best;
    let mut out = String::new();
    if start > 0 {
        out.push_str("...");
    }
    let marked: Vec<String> = words[start..start + win]
        .iter()
        .map(|w| mark_runs(w, &is_match))
        .collect();
    out.push_str(&marked.join(" "));
    if start + win < n {
        out.push_str("...");
    }
    out
}

/// A word of the text with its related runs of letters and digits marked,
/// the punctuation around them left out: `formatUserProfile(p:` is
/// `[MATCH]formatUserProfile[/MATCH](p:`, as FTS5 marks a token.
fn mark_runs(word: &str, is_match: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(word.len() + 16);
    let mut rest = word;
    while let Some(start) = rest.find(is_run_char) {
        out.push_str(&rest[..start]);
        let run = &rest[start..];
        let end = run.find(|c: char| !is_run_char(c)).unwrap_or(run.len());
        match is_match(&run[..end]) {
            true => out.push_str(&format!("[MATCH]{}[/MATCH]", &run[..end])),
            false => out.push_str(&run[..end]),
        }
        rest = &run[end..];
    }
    out.push_str(rest);
    out
}

/// A character of an identifier or word (`load_config`, `résumé`).
fn is_run_char(c: char) -> bool {
    super::query::is_word_char(c) || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_the_byte_ranges_of_related_words() {
        let text = "Zürich: installing  Git, then boats, then git.";
        let marks = query_word_marks(text, "how to install git");
        let words: Vec<&str> = marks.iter().map(|m| &text[m.clone()]).collect();
        assert_eq!(words, ["installing", "Git,", "git."]);
        assert!(query_word_marks(text, "canoes").is_empty());
    }

    #[test]
    fn marks_related_words_and_cuts() {
        let text = format!(
            "{} Installing git is easy with the package manager. {}",
            "x ".repeat(50),
            "y ".repeat(50)
        );
        let s = lexical_snippet(&text, "how to install git");
        assert!(s.contains("[MATCH]Installing[/MATCH]"), "{s}");
        assert!(s.contains("[MATCH]git[/MATCH]"), "{s}");
        assert!(s.starts_with("...") && s.ends_with("..."), "{s}");
    }

    #[test]
    fn marks_wrap_the_word_not_its_punctuation() {
        let s = lexical_snippet(
            "export function formatUserProfile(p: UserProfile) { \"\"\"Configuration notes. }",
            "format user profile configuration",
        );
        assert!(s.contains("[MATCH]formatUserProfile[/MATCH](p:"), "{s}");
        assert!(
            s.contains("\"\"\"[MATCH]Configuration[/MATCH] notes."),
            "{s}"
        );
        assert_eq!(mark_runs("(git).", |w| w == "git"), "([MATCH]git[/MATCH]).");
        assert_eq!(mark_runs("--", |_| true), "--");
    }

    #[test]
    fn no_match_gives_the_start() {
        assert_eq!(lexical_snippet("alpha beta", "zzz"), "alpha beta");
    }
}
