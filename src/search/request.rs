//! What a search is asked to do: the query, how many results, the
//! filters, which rankers and how they are fused. One request is built in
//! one place, [`SearchRequest::build`], from the configuration and what a
//! caller overrides (the CLI's and MCP's arguments, kb-eval's levers).

use crate::config::{Fusion, PerDocument, SearchConfig, MAX_TOP};
use crate::db::{ColumnWeights, Filters};
use crate::error::{Hint, KbError, Result};

use super::fusion::FusionSettings;
use super::rankers::RankerId;

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

/// Pseudo-relevance feedback for hybrid search: the query vector moves
/// towards the mean vector of the best `chunks` fused results by `weight`
/// (`q' = q + weight * mean`, normalised) and the vector ranker runs again
/// with it. The best results of both rankers together are usually on topic,
/// so their vectors say what the question's words alone do not: on NFCorpus
/// dev, 5 chunks at weight 1 lifted hybrid nDCG@10 from 0.336 to 0.345 and
/// Recall@100 from 0.304 to 0.332 (docs/benchmarks.md, Retrieval quality).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Feedback {
    /// Fused results whose vectors refine the query (0: off).
    pub chunks: usize,
    pub weight: f32,
}

impl Feedback {
    pub const OFF: Feedback = Feedback {
        chunks: 0,
        weight: 0.0,
    };
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
    /// How many chunks of one document the results may hold.
    pub max_per_document: PerDocument,
    /// Query refinement from the best fused results (hybrid only).
    pub feedback: Feedback,
    /// Also search the extra forms of the query's numbers, identifiers and
    /// CJK text (`text::terms`) and the synonyms of its phrases; always on
    /// in kb, off only to measure it.
    pub expand: bool,
    /// Groups of phrases that name the same thing (`search.synonyms`).
    pub synonyms: std::sync::Arc<Vec<Vec<String>>>,
    /// At least this many candidates per ranker (`search.candidates`).
    pub pool: usize,
    /// How deep each ranker's scale reaches (`search.scale_depth`; 0: to
    /// its last candidate).
    pub scale_depth: usize,
    /// The scripts the embedding model reads: a query with no word in them
    /// is searched by keywords alone.
    pub reads: crate::text::script::Reads,
    /// A result under this cosine without a keyword match is weak.
    pub weak_cosine: f64,
    /// The share of the query's words a result must hold to count as a
    /// match whatever its cosine.
    pub words_held: f64,
    /// The re-ranking stage (`rerank`): off, or how many candidates and
    /// at what share.
    pub rerank: Option<RerankSettings>,
}

/// How the best fused candidates are re-ranked (`search.rerank` on).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RerankSettings {
    /// The best fused candidates the re-ranker reads.
    pub candidates: usize,
    /// A candidate's score gains this times the re-ranker's probability.
    pub weight: f64,
}

/// What a caller changes of the configured search; `None` keeps the
/// configuration's setting.
#[derive(Debug, Clone, Default)]
pub struct SearchOverrides {
    pub top: Option<usize>,
    pub filters: Filters,
    pub mode: Option<Mode>,
    pub threshold: Option<f64>,
    pub max_per_document: Option<PerDocument>,
    pub fusion: Option<Fusion>,
    pub rrf_k: Option<f64>,
    /// Rankers' weights in place of `search.weights`.
    pub weights: Vec<(RankerId, f64)>,
    pub rank_share: Option<f64>,
    pub strong_cosine: Option<f64>,
    pub strong_bm25: Option<f64>,
    pub cosine_floor: Option<f64>,
    pub columns: Option<ColumnWeights>,
    pub feedback: Option<Feedback>,
    pub expand: Option<bool>,
    pub pool: Option<usize>,
    pub scale_depth: Option<usize>,
    /// Re-ranking on or off in place of `search.rerank`.
    pub rerank: Option<crate::config::Rerank>,
    pub rerank_candidates: Option<usize>,
    pub rerank_weight: Option<f64>,
}

impl SearchRequest {
    /// The request for `query`: the configuration's settings with the
    /// caller's overrides, checked (a field at fault is named).
    pub fn build(query: &str, search: &SearchConfig, o: &SearchOverrides) -> Result<SearchRequest> {
        if query.trim().is_empty() {
            return Err(KbError::EmptyQuery.hint(Hint::QueryExample));
        }
        let top = o.top.unwrap_or(search.default_top);
        if !(1..=MAX_TOP).contains(&top) {
            return Err(KbError::invalid(
                "top",
                format!("--top must be from 1 to {MAX_TOP} (got {top})"),
            ));
        }
        let defaults = FusionSettings::of(search);
        let mut weights = defaults.weights;
        for (ranker, w) in &o.weights {
            *ranker.weight_in(&mut weights) = *w;
        }
        let fusion = FusionSettings {
            method: o.fusion.unwrap_or(defaults.method),
            weights,
            rrf_k: o.rrf_k.unwrap_or(defaults.rrf_k),
            rank_share: o.rank_share.unwrap_or(defaults.rank_share),
            strong_cosine: o.strong_cosine.unwrap_or(defaults.strong_cosine),
            strong_bm25: o.strong_bm25.unwrap_or(defaults.strong_bm25),
            cosine_floor: o.cosine_floor.unwrap_or(defaults.cosine_floor),
        };
        for ranker in RankerId::ALL {
            let w = ranker.weight(&fusion.weights);
            if !(w.is_finite() && w >= 0.0) {
                return Err(KbError::invalid(
                    "weights",
                    format!(
                        "the {} weight must be a number from 0 up (got {w})",
                        ranker.name()
                    ),
                ));
            }
        }
        if !(fusion.rrf_k.is_finite() && fusion.rrf_k > 0.0) {
            return Err(KbError::invalid("rrf_k", "must be a positive number"));
        }
        if let Some(t) = o.threshold {
            if !(t.is_finite() && t >= 0.0) {
                return Err(KbError::invalid(
                    "threshold",
                    format!(
                        "--threshold must be a number from 0 up (got {t}); fused scores are at \
                         most {:.4} with the configured fusion",
                        fusion.max_score()
                    ),
                ));
            }
        }
        Ok(SearchRequest {
            // Composed (NFC), as most text is: a word pasted from a
            // decomposed source (macOS file names, some PDFs) is the same
            // word to every ranker and to the snippets' marks.
            query: unicode_normalization::UnicodeNormalization::nfc(query).collect(),
            top,
            filters: o.filters.clone(),
            mode: o.mode.unwrap_or(Mode::Hybrid),
            threshold: o.threshold,
            fusion,
            columns: o.columns.unwrap_or_default(),
            max_per_document: o.max_per_document.unwrap_or(search.max_per_document),
            feedback: o.feedback.unwrap_or(Feedback {
                chunks: search.feedback.chunks,
                weight: search.feedback.weight,
            }),
            expand: o.expand.unwrap_or(true),
            synonyms: std::sync::Arc::new(search.synonyms.clone()),
            pool: o.pool.unwrap_or(search.candidates),
            scale_depth: o.scale_depth.unwrap_or(search.scale_depth),
            reads: Default::default(),
            weak_cosine: search.evidence.weak_cosine,
            words_held: 1.0,
            rerank: (o.rerank.unwrap_or(search.rerank) == crate::config::Rerank::On).then(|| {
                RerankSettings {
                    candidates: o.rerank_candidates.unwrap_or(search.rerank_candidates),
                    weight: o.rerank_weight.unwrap_or(search.rerank_weight),
                }
            }),
        })
    }

    /// Whether the query is embedded: the mode uses vectors and the model
    /// reads a word of it (else keyword matches alone answer it).
    pub fn embeds_query(&self) -> bool {
        self.mode.uses_vector() && self.reads.any_word_in(&self.query)
    }

    /// Whether the query is refined from the best fused results.
    pub fn refines(&self) -> bool {
        self.mode == Mode::Hybrid && self.feedback.chunks > 0 && self.feedback.weight > 0.0
    }

    /// Candidates each ranker contributes to the fusion at first: 3x the
    /// results asked for, at least `pool`; twice that when chunks of
    /// documents already listed are skipped. (More are fetched when these
    /// cannot fill the results.)
    pub fn candidates(&self) -> usize {
        let n = self.top.saturating_mul(3).max(self.pool).max(1);
        if self.max_per_document == PerDocument::AtMost(0) {
            n
        } else {
            n.saturating_mul(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_the_configuration_with_the_overrides_checked() {
        let config = SearchConfig::default();
        let req = SearchRequest::build("rotate keys", &config, &Default::default()).unwrap();
        assert_eq!(req.top, config.default_top);
        assert_eq!(req.mode, Mode::Hybrid);
        assert_eq!(req.max_per_document, config.max_per_document);
        let capped = SearchOverrides {
            max_per_document: Some(PerDocument::AtMost(2)),
            ..Default::default()
        };
        assert_eq!(
            SearchRequest::build("x", &config, &capped)
                .unwrap()
                .max_per_document,
            PerDocument::AtMost(2)
        );
        assert!(req.expand);
        let o = SearchOverrides {
            top: Some(3),
            mode: Some(Mode::Keyword),
            weights: vec![(RankerId::Keyword, 2.0)],
            ..Default::default()
        };
        let req = SearchRequest::build("x", &config, &o).unwrap();
        assert_eq!(
            (req.top, req.mode, req.fusion.weights.keyword),
            (3, Mode::Keyword, 2.0)
        );
        assert_eq!(req.fusion.weights.vector, config.weights.vector);
        let bad = |o: SearchOverrides| SearchRequest::build("x", &config, &o).unwrap_err();
        assert_eq!(
            bad(SearchOverrides {
                top: Some(0),
                ..Default::default()
            })
            .field(),
            Some("top")
        );
        assert_eq!(
            bad(SearchOverrides {
                threshold: Some(-1.0),
                ..Default::default()
            })
            .field(),
            Some("threshold")
        );
        assert_eq!(
            bad(SearchOverrides {
                weights: vec![(RankerId::Vector, -1.0)],
                ..Default::default()
            })
            .field(),
            Some("weights")
        );
        assert_eq!(
            bad(SearchOverrides {
                rrf_k: Some(0.0),
                ..Default::default()
            })
            .field(),
            Some("rrf_k")
        );
        assert_eq!(
            SearchRequest::build("  ", &config, &Default::default())
                .unwrap_err()
                .code(),
            "E_EMPTY_QUERY"
        );
    }

    #[test]
    fn each_ranker_gives_search_candidates_or_three_times_top() {
        let at = |candidates: usize, top: usize, per_document: PerDocument| {
            let config = SearchConfig {
                candidates,
                max_per_document: per_document,
                ..Default::default()
            };
            let o = SearchOverrides {
                top: Some(top),
                ..Default::default()
            };
            SearchRequest::build("x", &config, &o).unwrap().candidates()
        };
        assert_eq!(at(30, 10, PerDocument::AtMost(0)), 30);
        assert_eq!(at(30, 50, PerDocument::AtMost(0)), 150);
        assert_eq!(at(300, 10, PerDocument::AtMost(0)), 300);
        // Twice as many while a document's places are shared out.
        assert_eq!(at(300, 10, PerDocument::Auto), 600);
    }
}
