//! Turning any user text into a safe FTS5 query.
//!
//! The query is split into words the way FTS5's unicode61 tokenizer splits
//! text (letters and digits make words, everything else separates them),
//! common English stop words are dropped, and each remaining word becomes a
//! quoted FTS5 string joined with OR. Quoting makes every character literal,
//! so no FTS5 syntax (`"`, `-`, `:`, `*`, `(`, `NEAR`, `AND`) can reach the
//! parser; OR lets BM25 rank chunks by how many and how rare the matched
//! words are, which suits natural-language questions where all-words AND
//! would return nothing.

/// At most this many words are searched; longer queries keep their first words.
const MAX_TERMS: usize = 64;

const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// A character of a word: a letter or digit, or a combining mark on one
/// (a decomposed `é` is `e` and U+0301; the index folds the mark away).
pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || unicode_normalization::char::is_combining_mark(c)
}

/// The words of a query as FTS5 would see them, lower-cased, stop words
/// removed (unless the query is only stop words), duplicates dropped.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut distinct = crate::text::terms::Distinct::default();
    for w in query.split(|c: char| !is_word_char(c)) {
        distinct.push(w.to_lowercase());
    }
    let words = distinct.into_vec();
    let content: Vec<String> = words
        .iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    let mut terms = if content.is_empty() { words } else { content };
    terms.truncate(MAX_TERMS);
    terms
}

/// The phrases the keyword ranker searches for a query: its words with
/// their extra forms (`text::terms`: joined and split identifiers, full
/// years, bare numbers, CJK bigrams), as the index stores them; empty when
/// the query has no words (e.g. only punctuation).
pub fn keyword_phrases(query: &str, expand: bool) -> Vec<String> {
    keyword_phrases_with(query, expand, &[])
}

/// [`keyword_phrases`], with the other phrases of the synonym `groups`
/// the query names (`search.synonyms`) when expanding.
pub fn keyword_phrases_with(query: &str, expand: bool, groups: &[Vec<String>]) -> Vec<String> {
    let mut terms = query_terms(query);
    if terms.is_empty() {
        return terms;
    }
    let mut extras = if expand {
        crate::text::terms::query_expansions(query)
    } else {
        Vec::new()
    };
    if expand {
        extras.extend(synonyms(query, groups));
    }
    for extra in extras {
        if terms.len() >= MAX_TERMS {
            break;
        }
        if !terms.contains(&extra) {
            terms.push(extra);
        }
    }
    terms
}

/// The other phrases of every synonym group a phrase of the query belongs
/// to (whole words, case-insensitive): `capex` brings `capital
/// expenditures` and `purchases of property`.
fn synonyms(query: &str, groups: &[Vec<String>]) -> Vec<String> {
    let words = |s: &str| -> String {
        s.split(|c: char| !is_word_char(c))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let text = format!(" {} ", words(query));
    let mut out = Vec::new();
    for group in groups {
        let phrases: Vec<String> = group
            .iter()
            .map(|p| words(p))
            .filter(|p| !p.is_empty())
            .collect();
        if phrases.iter().any(|p| text.contains(&format!(" {p} "))) {
            for p in phrases {
                if !text.contains(&format!(" {p} ")) && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The FTS5 MATCH expression of the phrases: each quoted (every character
/// literal), joined with OR; `None` when there are none, in which case the
/// keyword ranker finds nothing.
pub fn match_expression(phrases: &[String]) -> Option<String> {
    if phrases.is_empty() {
        return None;
    }
    Some(
        phrases
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR "),
    )
}

/// The phrases a query puts in double quotes (`"reset --hard"` gives
/// `reset hard`), as the index sees their words: a keyword match must hold
/// each, its words side by side in that order. Curly quotes count; an
/// unclosed quote quotes nothing.
pub fn quoted_phrases(query: &str) -> Vec<String> {
    let normalized: String = query
        .chars()
        .map(|c| {
            if matches!(c, '\u{201c}' | '\u{201d}') {
                '"'
            } else {
                c
            }
        })
        .collect();
    let parts: Vec<&str> = normalized.split('"').collect();
    let mut out = Vec::new();
    // Odd parts lie between a pair of quotes; the last one only when closed.
    for (i, part) in parts.iter().enumerate() {
        if i % 2 == 1 && i + 1 < parts.len() {
            let words: Vec<String> = part
                .split(|c: char| !is_word_char(c))
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            let phrase = words.join(" ");
            if !phrase.is_empty() && !out.contains(&phrase) {
                out.push(phrase);
            }
        }
    }
    out
}

/// The query without its quote marks: what the embedding model reads (a
/// quoted phrase is plain words to it).
pub fn unquoted(query: &str) -> std::borrow::Cow<'_, str> {
    if query.contains(['"', '\u{201c}', '\u{201d}']) {
        query.replace(['"', '\u{201c}', '\u{201d}'], "").into()
    } else {
        query.into()
    }
}

/// [`match_expression`] where every one of `required` must match too.
pub fn match_expression_requiring(phrases: &[String], required: &[String]) -> Option<String> {
    let any = match_expression(phrases);
    if required.is_empty() {
        return any;
    }
    let all = required
        .iter()
        .map(|p| format!("\"{}\"", p.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" AND ");
    Some(match any {
        Some(any) => format!("{all} AND ({any})"),
        None => all,
    })
}

/// A query of at least this many words can be a passage copied from a
/// document (a sentence, an error message); shorter ones are a few
/// keywords, whose neighbours say little.
pub const MIN_PASSAGE_WORDS: usize = 5;

/// The FTS5 MATCH expression of the whole query as one phrase: every word,
/// stop words too, side by side in its order (`None` under
/// [`MIN_PASSAGE_WORDS`] words). A chunk it matches holds the passage.
pub fn passage_expression(query: &str) -> Option<String> {
    let words: Vec<String> = unquoted(query)
        .split(|c: char| !is_word_char(c))
        .filter(|w| !w.is_empty())
        .take(MAX_TERMS)
        .map(str::to_lowercase)
        .collect();
    (words.len() >= MIN_PASSAGE_WORDS).then(|| match_expression(&[words.join(" ")]))?
}

/// The FTS5 MATCH expression for a query (see [`keyword_phrases`]).
pub fn fts_query(query: &str, expand: bool) -> Option<String> {
    match_expression(&keyword_phrases(query, expand))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_combining_mark_stays_in_its_word() {
        assert_eq!(
            query_terms("re\u{301}sume\u{301} Mun\u{303}oz"),
            ["re\u{301}sume\u{301}", "mun\u{303}oz"]
        );
        assert_eq!(
            quoted_phrases("\"caf\u{e9} cre\u{300}me\""),
            ["caf\u{e9} cre\u{300}me"]
        );
    }

    #[test]
    fn a_passage_is_one_phrase_of_every_word() {
        assert_eq!(
            passage_expression("The value of \"x\" can't be set"),
            Some("\"the value of x can t be set\"".to_string())
        );
        assert_eq!(passage_expression("net income 2019"), None);
    }

    #[test]
    fn natural_question() {
        assert_eq!(
            fts_query("How do I install git?", true).unwrap(),
            "\"install\" OR \"git\""
        );
    }

    #[test]
    fn syntax_is_neutralised() {
        let q = fts_query(
            "NEAR(foo bar) -baz \"quoted col:val prefix* AND OR NOT",
            true,
        )
        .unwrap();
        assert_eq!(
            q,
            "\"near\" OR \"foo\" OR \"bar\" OR \"baz\" OR \"quoted\" OR \"col\" OR \"val\" OR \"prefix\""
        );
        assert_eq!(fts_query("???", true), None);
        assert_eq!(fts_query("   ", true), None);
    }

    #[test]
    fn quoted_phrases_must_match_word_for_word() {
        assert_eq!(quoted_phrases("git \"reset --hard\" undo"), ["reset hard"]);
        assert_eq!(
            quoted_phrases("\u{201c}Item 7\u{201d} and \"a\" \"A\""),
            ["item 7", "a"]
        );
        assert!(quoted_phrases("an \"unclosed quote").is_empty());
        assert!(quoted_phrases("\"--\" \"\"").is_empty());
        assert_eq!(unquoted("git \"reset --hard\""), "git reset --hard");
        let phrases = keyword_phrases("git \"reset --hard\"", true);
        assert_eq!(
            match_expression_requiring(&phrases, &quoted_phrases("git \"reset --hard\"")).unwrap(),
            "\"reset hard\" AND (\"git\" OR \"reset\" OR \"hard\")"
        );
        assert_eq!(
            match_expression_requiring(&phrases, &[]),
            match_expression(&phrases)
        );
    }

    #[test]
    fn only_stop_words_are_kept() {
        assert_eq!(
            fts_query("to be or not to be", true).unwrap(),
            "\"to\" OR \"be\" OR \"or\" OR \"not\""
        );
    }

    #[test]
    fn synonym_groups_add_the_other_phrases() {
        let groups = vec![
            vec![
                "capex".to_string(),
                "capital expenditures".into(),
                "purchases of property".into(),
            ],
            vec!["cogs".to_string(), "cost of sales".into()],
        ];
        let p = keyword_phrases_with("FY2018 CapEx for Juniper?", true, &groups);
        assert!(p.contains(&"capital expenditures".to_string()), "{p:?}");
        assert!(p.contains(&"purchases of property".to_string()), "{p:?}");
        assert!(!p.contains(&"cost of sales".to_string()), "{p:?}");
        // Whole words only; and not without expansion.
        assert_eq!(synonyms("capexes", &groups), Vec::<String>::new());
        assert!(!keyword_phrases_with("capex", false, &groups)
            .contains(&"capital expenditures".to_string()));
    }

    #[test]
    fn unicode_words() {
        assert_eq!(
            query_terms("Café crème — naïve 東京"),
            vec!["café", "crème", "naïve", "東京"]
        );
    }
}
