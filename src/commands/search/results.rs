//! What a search returns: the results as the JSON contract declares them,
//! and as a person reads them.

use schemars::JsonSchema;
use serde::Serialize;

use super::super::document::{file_status, FileStatus, Recorded};
use crate::document::{Citation, DocType};
use crate::output::{display_path, highlight, plural, round, Render, Style};
use crate::search::{Mode, RankerId, SearchHit, SearchResponse};

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
