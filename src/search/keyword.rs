//! The keyword ranker: FTS5's BM25 over the chunk's text, its document's
//! title and section, and the extra forms of `text::terms` (the query's
//! phrases from `query`), with the filters applied in the same statement;
//! or, in `kb mcp`, the in-memory index that ranks exactly as FTS5 does.

use super::allowed::Allowed;
use super::keyword_index::{self, KeywordIndex, MatchedRows};
use super::request::SearchRequest;
use crate::db::Database;
use crate::error::Result;

/// The keyword ranker's answer: its best hits, how many chunks matched
/// under the filters, and how to ask whether other chunks matched.
pub(crate) struct KeywordRanking<'a> {
    /// (chunk id, bm25), best first.
    pub(crate) hits: Vec<(i64, f64)>,
    pub(crate) total: usize,
    /// The BM25 at the scale's depth, or 0 (an unmatched chunk's score)
    /// when fewer chunks matched; `None` without a depth.
    pub(crate) bottom: Option<f64>,
    /// From the in-memory index; else FTS5 answers.
    matched: Option<MatchedRows<'a>>,
}

impl KeywordRanking<'_> {
    /// Every matching chunk is in `hits`.
    pub(crate) fn complete(&self) -> bool {
        self.total <= self.hits.len()
    }

    /// How many of `ids` match the query, filters aside.
    pub(crate) fn matches_among(&self, db: &Database, fts: &str, ids: &[i64]) -> Result<usize> {
        match &self.matched {
            Some(m) => Ok(m.among(ids)),
            None => db.keyword_matches_among(fts, ids),
        }
    }
}

/// The best `limit` keyword hits for the query's phrases (`fts` is their
/// MATCH expression, `None` when the query has no word to match), how
/// many chunks matched and the score at `depth` (0: none): from the
/// in-memory index when there is one and it can rank the query (the same
/// results), else from FTS5.
pub(crate) fn rank<'a>(
    db: &Database,
    req: &SearchRequest,
    (phrases, fts): (&[String], Option<&str>),
    (limit, depth): (usize, usize),
    index: Option<(&'a KeywordIndex, &Allowed)>,
) -> Result<KeywordRanking<'a>> {
    let Some(q) = fts else {
        return Ok(KeywordRanking {
            hits: Vec::new(),
            total: 0,
            bottom: None,
            matched: None,
        });
    };
    if let Some((index, allowed)) = index {
        if let Some(tokens) = keyword_index::query_tokens(db, phrases)? {
            let ranked = index.rank(&tokens, &req.columns, allowed, (limit, depth));
            return Ok(KeywordRanking {
                hits: ranked.hits,
                total: ranked.total,
                bottom: ranked.bottom,
                matched: Some(ranked.matched),
            });
        }
    }
    // One statement gives the hits and the score at the depth; a query
    // that matched fewer chunks than it asked for needs no count.
    let asked = limit.max(depth);
    let mut hits = db.keyword_search(q, &req.filters, &req.columns, asked)?;
    let total = if hits.len() < asked {
        hits.len()
    } else {
        db.keyword_count(q, &req.filters)?
    };
    let at_depth = depth.checked_sub(1).and_then(|i| hits.get(i));
    let bottom = keyword_index::bottom_at(depth, at_depth.map(|h| h.bm25));
    hits.truncate(limit);
    Ok(KeywordRanking {
        hits: hits.into_iter().map(|h| (h.chunk_id, h.bm25)).collect(),
        total,
        bottom,
        matched: None,
    })
}
