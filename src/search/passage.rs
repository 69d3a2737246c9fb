//! The passage ranker: the chunks that hold the whole query word for word.
//! A sentence or an error message copied from a document is its own best
//! evidence, but its words are mostly common ones (`the expression can be
//! referred to using the`): BM25 scores them one by one and the vector
//! ranker reads their meaning, and both rank other chunks that use the same
//! words above the one that says it. Holding the passage is a yes or no, so
//! every chunk that holds it scores 1 and the other rankers order them.
//!
//! It runs only for a query of at least `query::MIN_PASSAGE_WORDS` words; a
//! question is rarely written word for word in a document, so it seldom
//! matches one.

use super::request::SearchRequest;
use crate::db::Database;
use crate::error::Result;

/// The passage ranker's list.
pub(crate) struct PassageRanking {
    /// (chunk id, 1), the best keyword matches of the passage first.
    pub(crate) hits: Vec<(i64, f64)>,
}

/// The chunks (at most `limit`) that match `passage`, the whole query as
/// one FTS5 phrase.
pub(crate) fn rank(
    db: &Database,
    req: &SearchRequest,
    passage: &str,
    limit: usize,
) -> Result<PassageRanking> {
    let hits = db
        .keyword_search(passage, &req.filters, &req.columns, limit)?
        .into_iter()
        .map(|h| (h.chunk_id, 1.0))
        .collect();
    Ok(PassageRanking { hits })
}
