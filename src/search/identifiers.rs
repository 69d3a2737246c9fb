//! Identifiers as the user typed them: a query naming a hyphenated,
//! dotted, underscored or camelCase identifier (`rust-version`,
//! `package.rust-version`, `parse_config`) lists first the chunks that hold
//! it whole, in any spelling (`text::terms` indexes every spelling under
//! one word), before those that only share its parts (`rust`, `version`).
//! Among themselves, and among the rest, the fused order stands.

use super::fusion::Fused;
use super::request::SearchRequest;
use crate::db::Database;
use crate::error::Result;

/// Moves the chunks holding every identifier of the query whole ahead of
/// the others (a stable partition); nothing moves when the query names
/// none or keywords did not rank.
pub(crate) fn first(db: &Database, req: &SearchRequest, fused: &mut Vec<Fused>) -> Result<()> {
    if !req.mode.uses_keyword() || fused.is_empty() {
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
