//! The rankers a search fuses, and the first phase of every search: each
//! ranker the mode asks for, run at once. The keyword ranker queries the
//! caller's connection (or the in-memory index) while the vector ranker's
//! thread embeds the query and scans the vectors (at a million chunks each
//! takes ~100 ms).
//!
//! A ranker is an entry in [`RankerId`], its list in [`Rankings`] and its
//! start in [`rank_in_parallel`]; fusion, the count and the presentation
//! go through [`Rankings::lists`].

use std::collections::HashSet;

use super::allowed::Allowed;
use super::fusion::{FusionSettings, Ranking};
use super::keyword::{self, KeywordRanking};
use super::keyword_index::KeywordIndex;
use super::query;
use super::request::SearchRequest;
use super::vector::{self, exact_top_k, CandidatePool, ReadFloats, VectorIndex};
use crate::db::Database;
use crate::error::{KbError, Result};

/// The rankers, in the order their lists are fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RankerId {
    /// BM25 over the keyword index.
    Keyword,
    /// Cosine similarity of the embeddings.
    Vector,
}

impl RankerId {
    /// The ranker's weight in the fusion.
    fn weight(self, fusion: &FusionSettings) -> f64 {
        match self {
            RankerId::Keyword => fusion.keyword_weight,
            RankerId::Vector => fusion.vector_weight,
        }
    }

    /// Where its own score comes in breaking ties of fused scores: the
    /// cosine first, then BM25.
    fn tie_rank(self) -> usize {
        match self {
            RankerId::Vector => 0,
            RankerId::Keyword => 1,
        }
    }
}

/// What a long-running process (`kb mcp`) keeps in memory for the rankers.
#[derive(Clone, Copy, Default)]
pub struct InMemory<'a> {
    /// Every vector's code: scanned instead of the database's.
    pub vectors: Option<&'a VectorIndex>,
    /// Every token's postings: ranked instead of asking FTS5.
    pub keywords: Option<&'a KeywordIndex>,
}

/// The query as the keyword ranker sees it, and how deep each ranker goes.
pub(crate) struct QueryPlan {
    /// The words and their extra forms, each a phrase of the MATCH.
    pub(crate) phrases: Vec<String>,
    /// The FTS5 MATCH expression (`None`: no word to match).
    pub(crate) fts: Option<String>,
    /// The query's quoted phrases, each required of a keyword match.
    pub(crate) required: Vec<String>,
    /// Candidates each ranker contributes to the fusion.
    pub(crate) candidates: usize,
}

impl QueryPlan {
    pub(crate) fn of(req: &SearchRequest) -> QueryPlan {
        let phrases = query::keyword_phrases_with(&req.query, req.expand, &req.synonyms);
        let required = query::quoted_phrases(&req.query);
        let fts = query::match_expression_requiring(&phrases, &required);
        QueryPlan {
            phrases,
            fts,
            required,
            candidates: req.candidates(),
        }
    }
}

/// The vector ranker's list, with the query vector it ranked by.
pub(crate) struct VectorRanking {
    /// The query as embedded.
    pub(crate) query: Vec<f32>,
    /// (chunk id, cosine), best first: to the query as embedded, or to the
    /// refined query once feedback has run.
    pub(crate) hits: Vec<(i64, f64)>,
    /// The nearest candidates' codes, for a refined query.
    pub(crate) pool: Option<CandidatePool>,
    /// The hits rank the refined query (their cosines are not the query's).
    pub(crate) refined: bool,
}

/// What each ranker found (`None`: the mode leaves it out).
pub(crate) struct Rankings<'a> {
    pub(crate) keyword: Option<KeywordRanking<'a>>,
    pub(crate) vector: Option<VectorRanking>,
}

impl Rankings<'_> {
    /// The lists to fuse, with their rankers and weights.
    pub(crate) fn lists(&self, fusion: &FusionSettings) -> (Vec<RankerId>, Vec<Ranking<'_>>) {
        let mut ids = Vec::new();
        let mut lists = Vec::new();
        if let Some(kw) = &self.keyword {
            ids.push(RankerId::Keyword);
            lists.push(Ranking {
                hits: &kw.hits,
                complete: kw.complete(),
                weight: RankerId::Keyword.weight(fusion),
                strong: fusion.strong_bm25,
                floor: 0.0,
                tie_rank: RankerId::Keyword.tie_rank(),
            });
        }
        if let Some(v) = &self.vector {
            ids.push(RankerId::Vector);
            lists.push(Ranking {
                strong: fusion.strong_cosine,
                floor: fusion.cosine_floor,
                tie_rank: RankerId::Vector.tie_rank(),
                ..Ranking::top(&v.hits, RankerId::Vector.weight(fusion))
            });
        }
        (ids, lists)
    }

    /// Orders the chunks each ranker scored alike by path and place in
    /// their documents, so a rank never depends on chunk ids (`ties`).
    pub(crate) fn settle_ties(&mut self, db: &Database) -> Result<()> {
        if let Some(kw) = &mut self.keyword {
            super::ties::settle_list(db, &mut kw.hits)?;
        }
        if let Some(v) = &mut self.vector {
            super::ties::settle_list(db, &mut v.hits)?;
        }
        Ok(())
    }

    /// Whether a ranker stopped at `k` candidates with more to give.
    pub(crate) fn cut_short(&self, k: usize) -> bool {
        self.keyword.as_ref().is_some_and(|kw| !kw.complete())
            || self.vector.as_ref().is_some_and(|v| v.hits.len() >= k)
    }

    /// Chunks matched by any ranker: every keyword match plus the vector
    /// ranker's candidates.
    pub(crate) fn matched(&self, db: &Database, plan: &QueryPlan) -> Result<usize> {
        Ok(match (&self.keyword, &self.vector) {
            (Some(kw), Some(v)) => {
                let ids: Vec<i64> = v.hits.iter().map(|h| h.0).collect();
                let already = match &plan.fts {
                    Some(q) => kw.matches_among(db, q, &ids)?,
                    None => 0,
                };
                kw.total + ids.len() - already
            }
            (Some(kw), None) => kw.total,
            (None, Some(v)) => v.hits.len(),
            (None, None) => 0,
        })
    }
}

/// Runs every ranker the mode asks for at once. `embed_query` turns the
/// query into a vector (loading the model if needed); it is required when
/// the mode uses vectors. Every float read goes through `floats`.
pub(crate) fn rank_in_parallel<'a, F>(
    db: &Database,
    req: &SearchRequest,
    plan: &QueryPlan,
    embed_query: Option<F>,
    warm: InMemory<'a>,
    floats: &ReadFloats,
) -> Result<Rankings<'a>>
where
    F: FnOnce(&str) -> Result<Vec<f32>> + Send,
{
    let k = plan.candidates;
    // Keyword-only search needs only `top` chunks, unless chunks of
    // documents already listed are to be skipped.
    let keyword_limit = if !req.mode.uses_vector()
        && req.max_per_document == crate::config::PerDocument::AtMost(0)
    {
        req.top
    } else {
        k
    };
    let pooled = req.refines();
    let reopener = db.reopener();
    let vectors = warm.vectors.filter(|_| req.mode.uses_vector());
    let keywords = warm.keywords.filter(|_| req.mode.uses_keyword());
    // The in-memory rankers have no connection: the chunks the filters
    // allow are read here, for them.
    let allowed = if vectors.is_some() || keywords.is_some() {
        Some(Allowed::of(db, &req.filters)?)
    } else {
        None
    };
    let in_memory = vectors.zip(allowed.as_ref());
    let embedded = query::unquoted(&req.query);
    let (keyword, vector) = std::thread::scope(|s| -> Result<_> {
        let vector_thread =
            if req.mode.uses_vector() {
                let embed = embed_query.ok_or_else(|| {
                    KbError::ModelMissing(
                        "vector search needs the embedding model; run `kb init`".into(),
                    )
                })?;
                let (filters, reopener, q) = (&req.filters, &reopener, embedded.as_ref());
                let thread = std::thread::Builder::new().name("vector ranker".into());
                let handle = thread.spawn_scoped(s, move || -> Result<_> {
                    let qv = {
                        let _span = crate::timings::span("model load and query");
                        embed(q)?
                    };
                    let _span = crate::timings::span("vector ranker");
                    let ranked = vector::rank_on_own_thread(
                        qv.clone(),
                        reopener,
                        in_memory,
                        filters,
                        k,
                        pooled,
                    )?;
                    Ok((qv, ranked))
                });
                Some(handle.map_err(|e| {
                    KbError::Internal(format!("cannot start the vector ranker: {e}"))
                })?)
            } else {
                None
            };
        let keyword = if req.mode.uses_keyword() {
            // The in-memory index ranks any of the words; a required
            // phrase is FTS5's to check.
            let index = keywords
                .zip(allowed.as_ref())
                .filter(|_| plan.required.is_empty());
            let words = (plan.phrases.as_slice(), plan.fts.as_deref());
            let _span = crate::timings::span("keyword ranker");
            Some(keyword::rank(db, req, words, keyword_limit, index)?)
        } else {
            None
        };
        let vector = match vector_thread {
            Some(handle) => Some(
                handle
                    .join()
                    .map_err(|_| KbError::Model("the embedding thread crashed".into()))??,
            ),
            None => None,
        };
        Ok((keyword, vector))
    })?;
    let vector = match vector {
        Some((qv, vector::Ranked::Exact(hits, pool, read))) => {
            floats.remember(read);
            Some((qv, hits, pool))
        }
        Some((qv, vector::Ranked::Scanned(scored, pool))) => {
            let hits = exact_top_k(floats, &qv, scored, k)?;
            Some((qv, hits, pool))
        }
        None => None,
    };
    Ok(Rankings {
        keyword,
        vector: vector.map(|(query, hits, pool)| VectorRanking {
            query,
            hits: hits.iter().map(|h| (h.chunk_id, h.cosine as f64)).collect(),
            pool,
            refined: false,
        }),
    })
}

/// The chunk ids of a list.
pub(crate) fn ids_of(hits: &[(i64, f64)]) -> HashSet<i64> {
    hits.iter().map(|h| h.0).collect()
}
