//! The rankers a search fuses, and the first phase of every search: each
//! ranker the mode asks for, run at once. The keyword ranker queries the
//! caller's connection (or the in-memory index) while the vector ranker's
//! thread embeds the query and scans the vectors (at a million chunks each
//! takes ~100 ms).
//!
//! A ranker is an entry in [`RankerId`] (its name, weight, mode and tie
//! rank), a variant of [`Ranked`] (its list and how the fusion reads it)
//! and its start in [`rank_in_parallel`]; its weight is a field of
//! `search.weights`. Fusion, feedback, the count and the results go
//! through [`Rankings::lists`], and the results' `by_ranker` names it.

use std::collections::HashSet;

use super::allowed::Allowed;
use super::fusion::{FusionSettings, Ranking};
use super::keyword::{self, KeywordRanking};
use super::keyword_index::KeywordIndex;
use super::page::{self, PageRanking};
use super::passage::{self, PassageRanking};
use super::query;
use super::request::SearchRequest;
use super::vector::{self, exact_top_k, CandidatePool, ReadFloats, VectorIndex};
use crate::config::FusionWeights;
use crate::db::Database;
use crate::error::{Hint, KbError, Result};

/// The rankers, in the order their lists are fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RankerId {
    /// BM25 over the keyword index.
    Keyword,
    /// Cosine similarity of the embeddings.
    Vector,
    /// A page of a paged document scored as a whole (`page`).
    Page,
    /// The chunks that hold the whole query word for word (`passage`).
    Passage,
}

impl RankerId {
    /// Every ranker, in the order their lists are fused.
    pub const ALL: [RankerId; 4] = [
        RankerId::Keyword,
        RankerId::Vector,
        RankerId::Page,
        RankerId::Passage,
    ];

    /// Its name: in `ranked_by`, `score_breakdown.by_ranker` and
    /// `search.weights`.
    pub fn name(self) -> &'static str {
        match self {
            RankerId::Keyword => "keyword",
            RankerId::Vector => "vector",
            RankerId::Page => "page",
            RankerId::Passage => "passage",
        }
    }

    /// The ranker named so.
    pub fn named(name: &str) -> Option<RankerId> {
        RankerId::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Its weight in the fusion (`search.weights`).
    pub fn weight(self, weights: &FusionWeights) -> f64 {
        *self.weight_in(&mut weights.clone())
    }

    /// Its weight's place in `search.weights`.
    pub fn weight_in(self, weights: &mut FusionWeights) -> &mut f64 {
        match self {
            RankerId::Keyword => &mut weights.keyword,
            RankerId::Vector => &mut weights.vector,
            RankerId::Page => &mut weights.page,
            RankerId::Passage => &mut weights.passage,
        }
    }

    /// Whether it ranks by the query's words (keyword mode runs these) or
    /// by its meaning (vector mode); hybrid runs both.
    fn by_words(self) -> bool {
        match self {
            RankerId::Keyword | RankerId::Page | RankerId::Passage => true,
            RankerId::Vector => false,
        }
    }

    /// Whether the request runs it: its mode asks for it, and a ranker
    /// beyond the first two only with a weight (the keyword and vector
    /// lists also order ties and feed the refinement at weight 0; the
    /// passage ranker needs a query long enough to be a passage too, which
    /// its caller reads off the [`QueryPlan`]).
    pub(crate) fn runs(self, req: &SearchRequest) -> bool {
        let asked = if self.by_words() {
            req.mode.uses_keyword()
        } else {
            req.mode.uses_vector()
        };
        asked
            && match self {
                RankerId::Keyword | RankerId::Vector => true,
                RankerId::Page | RankerId::Passage => self.weight(&req.fusion.weights) > 0.0,
            }
    }

    /// Where its own score comes in breaking ties of fused scores: the
    /// cosine first, then BM25.
    fn tie_rank(self) -> usize {
        match self {
            RankerId::Vector => 0,
            RankerId::Keyword => 1,
            RankerId::Page => 2,
            RankerId::Passage => 3,
        }
    }
}

/// What a long-running process (`kb mcp`) keeps in memory for the rankers,
/// and the loaded re-ranker.
#[derive(Clone, Copy, Default)]
pub struct InMemory<'a> {
    /// Every vector's code: scanned instead of the database's.
    pub vectors: Option<&'a VectorIndex>,
    /// Every token's postings: ranked instead of asking FTS5.
    pub keywords: Option<&'a KeywordIndex>,
    /// Without `vectors`: read the codes into memory while the model
    /// loads (a one-shot search, whose model load leaves a core free).
    pub read_codes_ahead: bool,
    /// The cross-encoder a request with re-ranking on reads its best
    /// candidates with (required then).
    pub reranker: Option<&'a dyn crate::embed::ScorePairs>,
}

/// The query as the keyword ranker sees it, and how deep each ranker goes.
pub(crate) struct QueryPlan {
    /// The words and their extra forms, each a phrase of the MATCH.
    pub(crate) phrases: Vec<String>,
    /// The FTS5 MATCH expression (`None`: no word to match).
    pub(crate) fts: Option<String>,
    /// The whole query as one phrase (`None`: too short to be a passage).
    pub(crate) passage: Option<String>,
    /// The query's quoted phrases, each required of a keyword match.
    pub(crate) required: Vec<String>,
    /// Candidates each ranker contributes to the fusion.
    pub(crate) candidates: usize,
    /// The depth whose score is the bottom of each ranker's scale (0:
    /// none).
    pub(crate) depth: usize,
}

impl QueryPlan {
    pub(crate) fn of(req: &SearchRequest) -> QueryPlan {
        let phrases = query::keyword_phrases_with(&req.query, req.expand, &req.synonyms);
        let required = query::quoted_phrases(&req.query);
        let fts = query::match_expression_requiring(&phrases, &required);
        QueryPlan {
            phrases,
            fts,
            passage: query::passage_expression(&req.query),
            required,
            candidates: req.candidates(),
            depth: req.scale_depth,
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
    /// The score by code at the scale's depth, of the query the hits rank.
    pub(crate) bottom: Option<f64>,
}

/// One ranker's list, with what else that ranker knows.
pub(crate) enum Ranked<'a> {
    Keyword(KeywordRanking<'a>),
    Vector(VectorRanking),
    Page(PageRanking),
    Passage(PassageRanking),
}

impl Ranked<'_> {
    pub(crate) fn id(&self) -> RankerId {
        match self {
            Ranked::Keyword(_) => RankerId::Keyword,
            Ranked::Vector(_) => RankerId::Vector,
            Ranked::Page(_) => RankerId::Page,
            Ranked::Passage(_) => RankerId::Passage,
        }
    }

    /// (chunk id, the ranker's own score), best first.
    pub(crate) fn hits(&self) -> &[(i64, f64)] {
        match self {
            Ranked::Keyword(kw) => &kw.hits,
            Ranked::Vector(v) => &v.hits,
            Ranked::Page(p) => &p.hits,
            Ranked::Passage(p) => &p.hits,
        }
    }

    fn hits_mut(&mut self) -> &mut Vec<(i64, f64)> {
        match self {
            Ranked::Keyword(kw) => &mut kw.hits,
            Ranked::Vector(v) => &mut v.hits,
            Ranked::Page(p) => &mut p.hits,
            Ranked::Passage(p) => &mut p.hits,
        }
    }

    /// The list as the fusion takes it: its weight, and how its scores
    /// read as evidence.
    fn ranking(&self, fusion: &FusionSettings) -> Ranking<'_> {
        let id = self.id();
        let list = Ranking {
            tie_rank: id.tie_rank(),
            ..Ranking::top(self.hits(), id.weight(&fusion.weights))
        };
        match self {
            Ranked::Keyword(kw) => Ranking {
                complete: kw.complete(),
                strong: fusion.strong_bm25,
                bottom: kw.bottom,
                ..list
            },
            Ranked::Vector(v) => Ranking {
                strong: fusion.strong_cosine,
                floor: fusion.cosine_floor,
                bottom: v.bottom,
                ..list
            },
            // A chunk on no scored page, or not holding the passage,
            // scores 0: the scale starts there.
            Ranked::Page(_) | Ranked::Passage(_) => Ranking {
                complete: true,
                ..list
            },
        }
    }

    /// Whether it stopped at `k` candidates with more to give.
    fn cut_short(&self, k: usize) -> bool {
        match self {
            Ranked::Keyword(kw) => !kw.complete(),
            Ranked::Vector(v) => v.hits.len() >= k,
            Ranked::Page(_) | Ranked::Passage(_) => false,
        }
    }
}

/// What each ranker the mode ran found, in the order of [`RankerId::ALL`].
pub(crate) struct Rankings<'a> {
    pub(crate) lists: Vec<Ranked<'a>>,
}

impl<'a> Rankings<'a> {
    /// The keyword ranker's list, when it ran.
    pub(crate) fn keyword(&self) -> Option<&KeywordRanking<'a>> {
        self.lists.iter().find_map(|r| match r {
            Ranked::Keyword(kw) => Some(kw),
            _ => None,
        })
    }

    /// The vector ranker's list, when it ran.
    pub(crate) fn vector(&self) -> Option<&VectorRanking> {
        self.lists.iter().find_map(|r| match r {
            Ranked::Vector(v) => Some(v),
            _ => None,
        })
    }

    pub(crate) fn vector_mut(&mut self) -> Option<&mut VectorRanking> {
        self.lists.iter_mut().find_map(|r| match r {
            Ranked::Vector(v) => Some(v),
            _ => None,
        })
    }

    /// The lists to fuse, with their rankers and weights.
    pub(crate) fn lists(&self, fusion: &FusionSettings) -> (Vec<RankerId>, Vec<Ranking<'_>>) {
        self.lists
            .iter()
            .map(|r| (r.id(), r.ranking(fusion)))
            .unzip()
    }

    /// Orders the chunks each ranker scored alike by path and place in
    /// their documents, so a rank never depends on chunk ids (`ties`).
    pub(crate) fn settle_ties(&mut self, db: &Database) -> Result<()> {
        for list in &mut self.lists {
            super::ties::settle_list(db, list.hits_mut())?;
        }
        Ok(())
    }

    /// Whether a ranker stopped at `k` candidates with more to give.
    pub(crate) fn cut_short(&self, k: usize) -> bool {
        self.lists.iter().any(|r| r.cut_short(k))
    }

    /// Chunks matched by the keyword and vector rankers: every keyword
    /// match plus the vector ranker's candidates (the other rankers
    /// re-weigh what these find).
    pub(crate) fn matched(&self, db: &Database, plan: &QueryPlan) -> Result<usize> {
        Ok(match (self.keyword(), self.vector()) {
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
    let keyword_limit = if !RankerId::Vector.runs(req)
        && req.max_per_document == crate::config::PerDocument::AtMost(0)
    {
        req.top
    } else {
        k
    };
    let pooled = req.refines();
    let reopener = db.reopener();
    let vectors = warm.vectors.filter(|_| RankerId::Vector.runs(req));
    let keywords = warm.keywords.filter(|_| RankerId::Keyword.runs(req));
    let read_ahead = warm.read_codes_ahead && vectors.is_none() && RankerId::Vector.runs(req);
    // The in-memory rankers have no connection: the chunks the filters
    // allow are read here, for them.
    let allowed = if vectors.is_some() || keywords.is_some() || read_ahead {
        Some(Allowed::of(db, &req.filters)?)
    } else {
        None
    };
    let in_memory = vectors.zip(allowed.as_ref());
    let embedded = query::unquoted(&req.query);
    let (keyword, passage, vector) = std::thread::scope(|s| -> Result<_> {
        let ahead = read_ahead.then(|| s.spawn(|| vector::read_ahead(&reopener)));
        let vector_thread = if RankerId::Vector.runs(req) {
            let embed = embed_query.ok_or_else(|| {
                KbError::ModelMissing("vector search needs the embedding model".into())
                    .hint(Hint::BindModel)
            })?;
            let (filters, reopener, q) = (&req.filters, &reopener, embedded.as_ref());
            let allowed = allowed.as_ref();
            let thread = std::thread::Builder::new().name("vector ranker".into());
            let handle = thread.spawn_scoped(s, move || -> Result<_> {
                let qv = {
                    let _span = crate::timings::span("model load and query");
                    embed(q)?
                };
                let _span = crate::timings::span("vector ranker");
                let ahead = ahead.and_then(|h| h.join().ok().flatten());
                let in_memory = in_memory.or(ahead.as_ref().zip(allowed));
                let depths = vector::Depths {
                    k,
                    pooled,
                    scale: plan.depth,
                };
                let ranked =
                    vector::rank_on_own_thread(qv.clone(), reopener, in_memory, filters, depths)?;
                Ok((qv, ranked))
            });
            Some(
                handle.map_err(|e| {
                    KbError::Internal(format!("cannot start the vector ranker: {e}"))
                })?,
            )
        } else {
            None
        };
        let keyword = if RankerId::Keyword.runs(req) {
            // The in-memory index ranks any of the words; a required
            // phrase is FTS5's to check.
            let index = keywords
                .zip(allowed.as_ref())
                .filter(|_| plan.required.is_empty());
            let words = (plan.phrases.as_slice(), plan.fts.as_deref());
            let _span = crate::timings::span("keyword ranker");
            let depths = (keyword_limit, plan.depth);
            Some(keyword::rank(db, req, words, depths, index)?)
        } else {
            None
        };
        // While the vector thread embeds the query.
        let passage = match plan.passage.as_deref() {
            Some(phrase) if RankerId::Passage.runs(req) => {
                let _span = crate::timings::span("passage ranker");
                Some(passage::rank(db, req, phrase, k)?)
            }
            _ => None,
        };
        let vector = match vector_thread {
            Some(handle) => Some(
                handle
                    .join()
                    .map_err(|_| KbError::Model("the embedding thread crashed".into()))??,
            ),
            None => None,
        };
        Ok((keyword, passage, vector))
    })?;
    let vector = match vector {
        Some((qv, scan)) => {
            let ranked = match scan.ranked {
                vector::Ranked::Exact(hits, pool, read) => {
                    floats.remember(read);
                    (hits, pool)
                }
                vector::Ranked::Scanned(scored, pool) => {
                    let _span = crate::timings::span("vector re-score");
                    (exact_top_k(floats, &qv, scored, k)?, pool)
                }
            };
            Some((qv, scan.bottom, ranked))
        }
        None => None,
    };
    let vector = vector.map(|(query, bottom, (hits, pool))| VectorRanking {
        query,
        hits: hits.iter().map(|h| (h.chunk_id, h.cosine as f64)).collect(),
        pool,
        refined: false,
        bottom,
    });
    // The page ranker scores the pages of the keyword matches, and gives
    // the vector ranker's candidates on them their page's score.
    let page = if RankerId::Page.runs(req) {
        let _span = crate::timings::span("page ranker");
        let also: Vec<i64> = vector
            .iter()
            .flat_map(|v| v.hits.iter().map(|h| h.0))
            .collect();
        Some(page::rank(db, req, plan.fts.as_deref(), &also)?)
    } else {
        None
    };
    let mut lists = Vec::new();
    lists.extend(keyword.map(Ranked::Keyword));
    lists.extend(vector.map(Ranked::Vector));
    lists.extend(page.map(Ranked::Page));
    lists.extend(passage.map(Ranked::Passage));
    Ok(Rankings { lists })
}

/// The chunk ids of a list.
pub(crate) fn ids_of(hits: &[(i64, f64)]) -> HashSet<i64> {
    hits.iter().map(|h| h.0).collect()
}
