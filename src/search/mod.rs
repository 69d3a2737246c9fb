//! Ranking: the keyword ranker (FTS5 BM25 over the chunk's text, its
//! document's title and section, and the extra forms of `text::terms`), the
//! vector ranker (cosine over the stored embeddings) and their fusion (RRF or
//! convex, `fusion`), at most N chunks per document when asked.

pub mod feedback;
pub mod fusion;
pub mod keyword_index;
pub mod query;
pub mod snippet;
pub mod vector;
pub mod vector_index;

use std::collections::{HashMap, HashSet};

use crate::db::{ChunkDetails, ColumnWeights, Database, Filters};
use crate::error::{KbError, Result};
use vector::FloatVectors;

pub use feedback::Feedback;
pub use fusion::{fuse, Fused, FusionSettings, Ranking};

/// The most results one search returns (`--top`): a stated limit, so that a
/// huge number is an error rather than an overflow (the vector ranker scans
/// the codes itself and has no limit of sqlite-vec's k <= 4096 to meet).
pub const MAX_TOP: usize = 4096;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Hybrid,
    Keyword,
    Vector,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Keyword => "keyword",
            Mode::Vector => "vector",
        }
    }

    pub fn uses_keyword(self) -> bool {
        matches!(self, Mode::Hybrid | Mode::Keyword)
    }
    pub fn uses_vector(self) -> bool {
        matches!(self, Mode::Hybrid | Mode::Vector)
    }
}

#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    pub top: usize,
    pub filters: Filters,
    pub mode: Mode,
    /// Results with a fused score below this are dropped.
    pub threshold: Option<f64>,
    pub fusion: FusionSettings,
    /// BM25 weights of the keyword index's columns.
    pub columns: ColumnWeights,
    /// At most this many chunks of one document (0: no limit).
    pub max_per_document: usize,
    /// Query refinement from the best fused results (hybrid only).
    pub feedback: Feedback,
    /// Also search the extra forms of the query's numbers, identifiers and
    /// CJK text (`text::terms`); always on in kb, off only to measure it.
    pub expand: bool,
    /// Build match snippets for the results (bulk callers such as the
    /// evaluation harness skip them).
    pub snippets: bool,
}

impl SearchRequest {
    /// Candidates each ranker contributes to the fusion: 3x the results
    /// asked for, at least 30; twice that when chunks of documents already
    /// listed are skipped.
    pub fn candidates(&self) -> usize {
        let n = self.top.saturating_mul(3).max(30);
        if self.max_per_document > 0 {
            n.saturating_mul(2)
        } else {
            n
        }
    }
}

/// Whether a warm in-memory index had better be read again than refreshed
/// with `added` new rows out of `rows`: past a quarter of them (and a few
/// hundred), one full read is cheaper than adding them one by one.
pub(crate) fn reload_is_cheaper(added: usize, rows: usize) -> bool {
    added > 256 && added * 4 > rows
}

/// The chunks a filtered search may return, read before ranking (so the
/// in-memory rankers need no database and can run on another thread).
pub enum Allowed {
    All,
    Only(HashSet<i64>),
}

impl Allowed {
    pub fn of(db: &Database, filters: &Filters) -> Result<Allowed> {
        Ok(if filters.is_empty() {
            Allowed::All
        } else {
            Allowed::Only(db.filtered_chunk_ids(filters)?.into_iter().collect())
        })
    }
}

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

/// The keyword ranker's answer: its best hits, how many chunks matched
/// under the filters, and how to ask whether other chunks matched.
struct KeywordSide<'a> {
    hits: Vec<(i64, f64)>,
    total: usize,
    /// From the in-memory index; else FTS5 answers.
    matched: Option<keyword_index::MatchedRows<'a>>,
}

impl KeywordSide<'_> {
    /// The keyword ranker's list for fusion: complete when it holds every
    /// matching chunk.
    fn ranking(&self) -> Ranking<'_> {
        Ranking {
            hits: &self.hits,
            complete: self.total <= self.hits.len(),
        }
    }

    /// How many of `ids` match the query, filters aside.
    fn matches_among(&self, db: &Database, fts: &str, ids: &[i64]) -> Result<usize> {
        match &self.matched {
            Some(m) => Ok(m.among(ids)),
            None => db.keyword_matches_among(fts, ids),
        }
    }
}

/// Keyword hits for a request, plus the total number of keyword matches:
/// from the in-memory index when there is one and it can rank the query
/// (the same results), else from FTS5.
fn keyword_side<'a>(
    db: &Database,
    phrases: &[String],
    fts: Option<&str>,
    req: &SearchRequest,
    limit: usize,
    index: Option<(&'a keyword_index::KeywordIndex, &Allowed)>,
) -> Result<KeywordSide<'a>> {
    let Some(q) = fts else {
        return Ok(KeywordSide {
            hits: Vec::new(),
            total: 0,
            matched: None,
        });
    };
    if let Some((index, allowed)) = index {
        if let Some(tokens) = keyword_index::query_tokens(db, phrases)? {
            let ranked = index.rank(&tokens, &req.columns, allowed, limit);
            return Ok(KeywordSide {
                hits: ranked.hits,
                total: ranked.total,
                matched: Some(ranked.matched),
            });
        }
    }
    let filters = &req.filters;
    let hits = db.keyword_search(q, filters, &req.columns, limit)?;
    let total = if hits.len() < limit {
        hits.len()
    } else {
        db.keyword_count(q, filters)?
    };
    Ok(KeywordSide {
        hits: hits.into_iter().map(|h| (h.chunk_id, h.bm25)).collect(),
        total,
        matched: None,
    })
}

/// The vector ranker's list as its thread hands it over: exact (with the
/// floats it read), or (from the in-memory index) scored by codes, to be
/// re-scored on the caller's connection; with the candidate pool when
/// feedback applies.
enum VectorRanked {
    Exact(
        Vec<crate::db::VectorHit>,
        Option<feedback::CandidatePool>,
        vector::FloatsRead,
    ),
    Scanned(Vec<vector::Approx>, Option<feedback::CandidatePool>),
}

/// Keeps at most `max` chunks of each document, in order, until `top` are
/// kept: the next best documents fill the places freed.
fn per_document(db: &Database, fused: Vec<Fused>, max: usize, top: usize) -> Result<Vec<Fused>> {
    let ids: Vec<i64> = fused.iter().map(|f| f.chunk_id).collect();
    let documents = db.chunk_documents(&ids)?;
    let mut seen: HashMap<i64, usize> = HashMap::new();
    let mut kept = Vec::with_capacity(top);
    for f in fused {
        if kept.len() == top {
            break;
        }
        // A chunk deleted meanwhile has no document; chunk_details drops it.
        let doc = documents.get(&f.chunk_id).copied().unwrap_or(-f.chunk_id);
        let n = seen.entry(doc).or_insert(0);
        if *n < max {
            *n += 1;
            kept.push(f);
        }
    }
    Ok(kept)
}

/// Runs a search. `embed_query` turns the query into a vector (loading the
/// model if needed); it runs on its own thread while the keyword ranker
/// queries the database, and is required when the mode uses vectors.
pub fn search<F>(
    db: &Database,
    req: &SearchRequest,
    embed_query: Option<F>,
) -> Result<SearchResponse>
where
    F: FnOnce(&str) -> Result<Vec<f32>> + Send,
{
    search_with(db, req, embed_query, InMemory::default())
}

/// What a long-running process (`kb mcp`) keeps in memory for the rankers.
#[derive(Clone, Copy, Default)]
pub struct InMemory<'a> {
    /// Every vector's code: scanned instead of the database's.
    pub vectors: Option<&'a vector::VectorIndex>,
    /// Every token's postings: ranked instead of asking FTS5.
    pub keywords: Option<&'a keyword_index::KeywordIndex>,
}

/// [`search`] with the rankers using the in-memory indexes given.
pub fn search_with<F>(
    db: &Database,
    req: &SearchRequest,
    embed_query: Option<F>,
    warm: InMemory<'_>,
) -> Result<SearchResponse>
where
    F: FnOnce(&str) -> Result<Vec<f32>> + Send,
{
    if req.query.trim().is_empty() {
        return Err(KbError::EmptyQuery);
    }
    let k = req.candidates();
    let phrases = query::keyword_phrases(&req.query, req.expand);
    let fts = query::match_expression(&phrases);
    // Keyword-only search needs only `top` chunks, unless chunks of
    // documents already listed are to be skipped.
    let keyword_limit = if req.mode == Mode::Keyword && req.max_per_document == 0 {
        req.top
    } else {
        k
    };

    // With feedback on, the vector ranker keeps its nearest candidates'
    // codes so the refined query is ranked among them without a second
    // scan (see `feedback::CandidatePool`).
    let pooled = feedback::applies(req);
    // The query embedding runs on another thread while the keyword ranker
    // queries the database, and that thread then ranks the vectors too (at
    // a million chunks each ranker takes ~100 ms): over the codes on a
    // connection of its own, or in the in-memory index of `kb mcp`, among
    // the chunks the filters allow (read here, since the thread has no
    // connection; its candidates are re-scored here afterwards).
    let reopener = db.reopener();
    let vectors = warm.vectors.filter(|_| req.mode.uses_vector());
    let keywords = warm.keywords.filter(|_| req.mode.uses_keyword());
    let allowed = if vectors.is_some() || keywords.is_some() {
        Some(Allowed::of(db, &req.filters)?)
    } else {
        None
    };
    let in_memory = vectors.zip(allowed.as_ref());
    let (keyword, vector_side) = std::thread::scope(|s| -> Result<_> {
        let embedding = if req.mode.uses_vector() {
            let embed = embed_query.ok_or_else(|| {
                KbError::ModelMissing(
                    "vector search needs the embedding model; run `kb init`".into(),
                )
            })?;
            let filters = &req.filters;
            let q = req.query.as_str();
            Some(s.spawn(move || -> Result<_> {
                let qv = embed(q)?;
                let ranked = match &in_memory {
                    Some((index, allowed)) => {
                        let sink = || pooled.then(|| feedback::PoolSink::new(k));
                        let (scored, pool) = index.scan(&qv, allowed, k, sink);
                        VectorRanked::Scanned(scored, pool.map(|p| p.into_pool()))
                    }
                    None => {
                        let own = reopener.open()?;
                        if pooled {
                            let floats = vector::ReadFloats::new(&own);
                            let (hits, p) =
                                feedback::search_pooled(&own, &floats, &qv, filters, k)?;
                            VectorRanked::Exact(hits, Some(p), floats.into_read())
                        } else {
                            let hits = vector::search(&own, &qv, filters, k)?;
                            VectorRanked::Exact(hits, None, Default::default())
                        }
                    }
                };
                Ok((qv, ranked))
            }))
        } else {
            None
        };
        let keyword = if req.mode.uses_keyword() {
            let index = keywords.zip(allowed.as_ref());
            Some(keyword_side(
                db,
                &phrases,
                fts.as_deref(),
                req,
                keyword_limit,
                index,
            )?)
        } else {
            None
        };
        let vector_side = match embedding {
            Some(handle) => Some(
                handle
                    .join()
                    .map_err(|_| KbError::Model("the embedding thread crashed".into()))??,
            ),
            None => None,
        };
        Ok((keyword, vector_side))
    })?;

    // Every float the rest of the search reads (the candidates' re-score,
    // the feedback pool's, the feedback chunks, the cosines shown) is read
    // once: from the in-memory index when it keeps them, else the database.
    let index_floats = warm.vectors.map(|index| index.floats(db));
    let source: &dyn vector::FloatVectors = match &index_floats {
        Some(f) => f,
        None => db,
    };
    let floats = vector::ReadFloats::new(source);
    let (query_vec, vector_hits, pool) = match vector_side {
        Some((qv, VectorRanked::Exact(hits, pool, read))) => {
            floats.remember(read);
            (Some(qv), Some(hits), pool)
        }
        Some((qv, VectorRanked::Scanned(scored, pool))) => {
            let hits = vector::exact_top_k(&floats, &qv, scored, k)?;
            (Some(qv), Some(hits), pool)
        }
        None => (None, None, None),
    };

    let mut vector_ranked: Option<Vec<(i64, f64)>> = vector_hits
        .as_ref()
        .map(|h| h.iter().map(|x| (x.chunk_id, x.cosine as f64)).collect());
    // Pseudo-relevance feedback: the query moves towards the best fused
    // chunks and the vector ranker runs again with it (see `Feedback`).
    let mut refined: Option<Vec<f32>> = None;
    if let (Some(kw), Some(vr), Some(qv)) = (&keyword, &vector_ranked, &query_vec) {
        if let Some(q) = feedback::refine_query(&floats, qv, kw.ranking(), vr, req)? {
            let hits = match &pool {
                Some(pool) => pool.rank(&floats, &q, k)?,
                None => vector::search(db, &q, &req.filters, k)?,
            };
            vector_ranked = Some(hits.iter().map(|x| (x.chunk_id, x.cosine as f64)).collect());
            refined = Some(q);
        }
    }
    let mut fused = fuse(
        keyword.as_ref().map(KeywordSide::ranking),
        vector_ranked.as_deref().map(Ranking::top),
        &req.fusion,
    );
    if let Some(t) = req.threshold {
        fused.retain(|f| f.score >= t);
    }

    // With a positive threshold only the fused candidates can pass it (a
    // chunk outside both rankers' lists scores 0), so they are the count.
    let total_matches = match (&keyword, &vector_ranked) {
        _ if req.threshold.is_some_and(|t| t > 0.0) => fused.len(),
        (Some(kw), Some(vr)) => {
            let ids: Vec<i64> = vr.iter().map(|h| h.0).collect();
            let already = match &fts {
                Some(q) => kw.matches_among(db, q, &ids)?,
                None => 0,
            };
            kw.total + ids.len() - already
        }
        (Some(kw), None) => kw.total,
        (None, Some(vr)) => vr.len(),
        (None, None) => 0,
    };

    if req.max_per_document > 0 {
        fused = per_document(db, fused, req.max_per_document, req.top)?;
    }
    fused.truncate(req.top);
    let bm25: HashMap<i64, f64> = keyword
        .as_ref()
        .map(|kw| kw.hits.iter().cloned().collect())
        .unwrap_or_default();
    let ids: Vec<i64> = fused.iter().map(|f| f.chunk_id).collect();
    // The cosine shown is always to the query as asked: for the refined
    // ranker's chunks it is computed from their vectors.
    let cosine: HashMap<i64, f32> = match (&refined, &query_vec, &vector_ranked) {
        (Some(_), Some(qv), Some(vr)) => {
            let listed: std::collections::HashSet<i64> = vr.iter().map(|x| x.0).collect();
            let wanted: Vec<i64> = ids
                .iter()
                .copied()
                .filter(|id| listed.contains(id))
                .collect();
            let mut out = HashMap::with_capacity(wanted.len());
            floats.floats_by_id(&wanted, &mut |id, v| {
                out.insert(id, vector::dot(qv, v));
            })?;
            out
        }
        _ => vector_hits
            .as_ref()
            .map(|h| h.iter().map(|x| (x.chunk_id, x.cosine)).collect())
            .unwrap_or_default(),
    };
    let details = db.chunk_details(&ids)?;
    let by_id: HashMap<i64, ChunkDetails> = details.into_iter().map(|d| (d.chunk_id, d)).collect();
    let mut hits = Vec::with_capacity(fused.len());
    for f in fused {
        let Some(chunk) = by_id.get(&f.chunk_id).cloned() else {
            continue;
        };
        let keyword_snippet = match (&fts, bm25.contains_key(&f.chunk_id)) {
            (Some(q), true) => db.keyword_snippet(q, f.chunk_id)?,
            _ => None,
        };
        let snippet =
            keyword_snippet.unwrap_or_else(|| snippet::lexical_snippet(&chunk.text, &req.query));
        hits.push(SearchHit {
            score: f.score,
            fts: f.fts,
            vector: f.vector,
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
