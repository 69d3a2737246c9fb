//! The last phase of a search: the chosen chunks as results, each with
//! what the rankers said of it (its fused score, each ranker's part, BM25
//! and cosine), its details and a snippet.

use std::collections::HashMap;

use super::fusion::Fused;
use super::rankers::{ids_of, QueryPlan, RankerId, Rankings};
use super::request::{Mode, SearchRequest};
use super::snippet;
use super::vector::FloatVectors;
use crate::db::{ChunkDetails, Database};
use crate::error::Result;
use crate::vector_math::dot;

/// One ranked chunk with the evidence behind its score.
#[derive(Debug, Clone)]
pub struct SearchHit {
    pub chunk: ChunkDetails,
    /// The fused score.
    pub score: f64,
    /// Each ranker's contribution to it: 0 when the chunk is not in its list,
    /// `None` when that ranker did not run.
    pub fts: Option<f64>,
    pub vector: Option<f64>,
    /// Absolute relevance: BM25 (higher is better) and cosine similarity.
    pub bm25: Option<f64>,
    pub cosine: Option<f32>,
    /// The best-matching passage, query words in [MATCH]...[/MATCH].
    pub snippet: String,
}

#[derive(Debug, Clone)]
pub struct SearchResponse {
    pub query: String,
    pub mode: Mode,
    pub hits: Vec<SearchHit>,
    /// Chunks matched by either ranker: every keyword match plus the vector
    /// ranker's candidates.
    pub total_matches: usize,
}

/// The results for the chosen chunks (`fused`, in order).
pub(crate) fn results(
    db: &Database,
    req: &SearchRequest,
    plan: &QueryPlan,
    rankings: &Rankings,
    floats: &dyn FloatVectors,
    fused: Vec<Fused>,
    total_matches: usize,
) -> Result<SearchResponse> {
    let (rankers, _) = rankings.lists(&req.fusion);
    let part = |f: &Fused, r: RankerId| rankers.iter().position(|x| *x == r).map(|i| f.parts[i]);
    let bm25: HashMap<i64, f64> = rankings
        .keyword
        .as_ref()
        .map(|kw| kw.hits.iter().cloned().collect())
        .unwrap_or_default();
    let ids: Vec<i64> = fused.iter().map(|f| f.chunk_id).collect();
    let cosine = cosines(rankings, floats, &ids)?;
    let details = db.chunk_details(&ids)?;
    let by_id: HashMap<i64, ChunkDetails> = details.into_iter().map(|d| (d.chunk_id, d)).collect();
    let mut hits = Vec::with_capacity(fused.len());
    for f in fused {
        let Some(chunk) = by_id.get(&f.chunk_id).cloned() else {
            continue;
        };
        let keyword_snippet = match (&plan.fts, bm25.contains_key(&f.chunk_id)) {
            (Some(q), true) => db.keyword_snippet(q, f.chunk_id)?,
            _ => None,
        };
        let snippet =
            keyword_snippet.unwrap_or_else(|| snippet::lexical_snippet(&chunk.text, &req.query));
        hits.push(SearchHit {
            score: f.score,
            fts: part(&f, RankerId::Keyword),
            vector: part(&f, RankerId::Vector),
            bm25: bm25.get(&f.chunk_id).copied(),
            cosine: cosine.get(&f.chunk_id).copied(),
            snippet,
            chunk,
        });
    }
    Ok(SearchResponse {
        query: req.query.clone(),
        mode: req.mode,
        hits,
        total_matches,
    })
}

/// The cosine shown is always to the query as asked: for the chunks a
/// refined query ranked it is computed from their vectors.
fn cosines(
    rankings: &Rankings,
    floats: &dyn FloatVectors,
    ids: &[i64],
) -> Result<HashMap<i64, f32>> {
    let Some(v) = &rankings.vector else {
        return Ok(HashMap::new());
    };
    if !v.refined {
        return Ok(v.hits.iter().map(|(id, c)| (*id, *c as f32)).collect());
    }
    let listed = ids_of(&v.hits);
    let wanted: Vec<i64> = ids
        .iter()
        .copied()
        .filter(|id| listed.contains(id))
        .collect();
    let mut out = HashMap::with_capacity(wanted.len());
    floats.floats_by_id(&wanted, &mut |id, vec| {
        out.insert(id, dot(&v.query, vec));
    })?;
    Ok(out)
}
