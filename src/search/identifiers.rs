//! Identifiers as the user typed them: a query naming a hyphenated,
//! dotted, underscored or camelCase identifier (`rust-version`,
//! `package.rust-version`, `parse_config`) lists first the chunks that hold
//! it whole, in any spelling (`text::terms` indexes every spelling under
//! one word), before those that only share its parts (`rust`, `version`).
//! Among themselves, and among the rest, the fused order stands. Only a
//! lookup moves them: in a question of more words, a compound
//! ("year-over-year") or a name ("JnJ") is one word of many, and the
//! fused order of all of them stands.

use super::fusion::Fused;
use super::request::SearchRequest;
use crate::db::Database;
use crate::error::Result;

/// The most words a lookup has: a name and a few words around it
/// ("where is parse_config defined"). Chosen on the fit halves of
/// FinanceBench dev and NFCorpus dev between 4, 8 and no limit.
const LOOKUP_WORDS: usize = 4;

/// Moves the chunks holding every identifier of the query whole ahead of
/// the others (a stable partition); nothing moves when the query names
/// none, is no lookup, or keywords did not rank.
pub(crate) fn first(db: &Database, req: &SearchRequest, fused: &mut Vec<Fused>) -> Result<()> {
    if !req.mode.uses_keyword() || fused.is_empty() || !lookup(&req.query) {
        return Ok(());
    }
    let names = crate::text::terms::query_identifiers(&req.query);
    if names.is_empty() {
        return Ok(());
    }
    let all: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let ids: Vec<i64> = fused.iter().map(|f| f.chunk_id).collect();
    let holding = db.keyword_matched_among(&all.join(" AND "), &ids)?;
    if holding.is_empty() || holding.len() == fused.len() {
        return Ok(());
    }
    let (mut whole, rest): (Vec<Fused>, Vec<Fused>) = std::mem::take(fused)
        .into_iter()
        .partition(|f| holding.contains(&f.chunk_id));
    whole.extend(rest);
    *fused = whole;
    Ok(())
}

/// A query short enough to be a name looked up, not a question in words.
fn lookup(query: &str) -> bool {
    query.split_whitespace().count() <= LOOKUP_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_is_a_name_and_a_few_words() {
        assert!(lookup("rust-version"));
        assert!(lookup("where is parse_config defined"));
        assert!(!lookup(
            "What is Adobe's year-over-year change in operating income from FY2015 to FY2016?"
        ));
        assert!(!lookup(
            "How much cash did JnJ realise from the separation of Kenvue?"
        ));
    }
}
