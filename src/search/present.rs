//! The last phase of a search: the chosen chunks as results, each with
//! what the rankers said of it (its fused score, each ranker's part, BM25
//! and cosine), its details and a snippet.

use std::collections::HashMap;

use super::fusion::Fused;
use super::rankers::{ids_of, QueryPlan, RankerId, Rankings};
use super::request::{Mode, SearchRequest};
use super::vector::FloatVectors;
use super::{query, snippet};
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
    /// Each ranker that ran, with its contribution (0 when the chunk is
    /// not in its list), in the order the lists were fused.
    pub by_ranker: Vec<(RankerId, f64)>,
    /// Absolute relevance: BM25 (higher is better) and cosine similarity.
    pub bm25: Option<f64>,
    pub cosine: Option<f32>,
    /// What the re-ranker made of the chunk, when it read it.
    pub reranked: Option<super::rerank::Reranked>,
    /// The best-matching passage, query words in [MATCH]...[/MATCH].
    pub snippet: String,
    /// The chunk (with its title and section) holds every word of the
    /// query (or the share `SearchRequest::words_held` asks for).
    pub every_word: bool,
    /// A weak match: the vector ranker ran and the chunk's cosine is under
    /// the weak threshold, and it does not hold every word of the query;
    /// or, keywords alone ranking, it matched no word.
    pub weak: bool,
}

#[derive(Debug, Clone)]
pub struct SearchResponse {
    pub query: String,
    pub mode: Mode,
    pub hits: Vec<SearchHit>,
    /// Chunks matched by either ranker: every keyword match plus the vector
    /// ranker's candidates.
    pub total_matches: usize,
    /// The rankers whose lists were fused.
    pub ranked_by: Vec<RankerId>,
    /// The embedding model reads no word of the query: keywords alone
    /// answered it.
    pub query_unreadable: bool,
    /// The re-ranker read the best candidates.
    pub reranked: bool,
}

/// A passage of fewer words than this is close in meaning to any question
/// holding one of them (`dependencies = {}` reaches a cosine of 0.43 with
/// "which dependencies does a happy family have"): its cosine vouches for
/// nothing, only holding every word of the query does.
const MIN_WORDS_FOR_COSINE: usize = 12;

impl SearchHit {
    /// Whether the hit is weak at cosine `t`: the vector ranker ran, the
    /// chunk does not hold the query's words, and it is under `t` or too
    /// short for its cosine to mean anything; or, keywords alone ranking,
    /// it matched no word.
    pub fn weak_at(&self, t: f64) -> bool {
        if self.vector.is_some() {
            let tiny = self
                .chunk
                .text
                .split_whitespace()
                .nth(MIN_WORDS_FOR_COSINE - 1)
                .is_none();
            !self.every_word && (tiny || self.cosine.is_none_or(|c| f64::from(c) < t))
        } else {
            self.bm25.is_none()
        }
    }
}

impl SearchResponse {
    /// Nothing came back, or only weak matches.
    pub fn no_good_match(&self) -> bool {
        self.hits.iter().all(|h| h.weak)
    }
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
    let ids: Vec<i64> = fused.iter().map(|f| f.chunk_id).collect();
    // A chunk holding every word of the query is evidence whatever its
    // cosine (an identifier, an error code); one sharing a common word with
    // an off-topic question is not.
    let every_word = match rankings.keyword() {
        Some(_) => holding_the_words(db, &req.query, req.words_held, &ids)?,
        None => Default::default(),
    };
    let part = |f: &Fused, r: RankerId| rankers.iter().position(|x| *x == r).map(|i| f.parts[i]);
    let bm25: HashMap<i64, f64> = rankings
        .keyword()
        .map(|kw| kw.hits.iter().cloned().collect())
        .unwrap_or_default();
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
        let (bm25, cosine, every_word) = (
            bm25.get(&f.chunk_id).copied(),
            cosine.get(&f.chunk_id).copied(),
            every_word.contains(&f.chunk_id),
        );
        let mut hit = SearchHit {
            score: f.score,
            fts: part(&f, RankerId::Keyword),
            vector: part(&f, RankerId::Vector),
            by_ranker: rankers
                .iter()
                .copied()
                .zip(f.parts.iter().copied())
                .collect(),
            bm25,
            cosine,
            reranked: f.reranked,
            snippet,
            every_word,
            weak: false,
            chunk,
        };
        hit.weak = hit.weak_at(req.weak_cosine);
        hits.push(hit);
    }
    Ok(SearchResponse {
        query: req.query.clone(),
        mode: req.mode,
        hits,
        total_matches,
        ranked_by: rankers,
        query_unreadable: false,
        reranked: req.rerank.is_some(),
    })
}

/// The chunks among `ids` holding at least the share `share` of the query's
/// words (with their title and section): one query when every word is
/// asked for, one per word otherwise.
fn holding_the_words(
    db: &Database,
    query: &str,
    share: f64,
    ids: &[i64],
) -> Result<std::collections::HashSet<i64>> {
    let words = query::query_terms(query);
    let phrase = |w: &String| format!("\"{}\"", w.replace('"', "\"\""));
    if words.is_empty() {
        return Ok(Default::default());
    }
    if share >= 1.0 {
        let all: Vec<String> = words.iter().map(phrase).collect();
        return db.keyword_matched_among(&all.join(" AND "), ids);
    }
    let needed = ((words.len() as f64 * share).ceil() as usize).max(1);
    let mut held: HashMap<i64, usize> = HashMap::new();
    for w in &words {
        for id in db.keyword_matched_among(&phrase(w), ids)? {
            *held.entry(id).or_default() += 1;
        }
    }
    Ok(held
        .into_iter()
        .filter(|(_, n)| *n >= needed)
        .map(|(id, _)| id)
        .collect())
}

/// The cosine shown is always to the query as asked: for the chunks a
/// refined query ranked it is computed from their vectors.
fn cosines(
    rankings: &Rankings,
    floats: &dyn FloatVectors,
    ids: &[i64],
) -> Result<HashMap<i64, f32>> {
    let Some(v) = rankings.vector() else {
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
