//! Rendering: the JSON contract (stable: fields may be added, never removed
//! or renamed) and the human layout.

mod human;
mod inspect;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::search::{SearchHit, SearchResponse};

pub use human::*;
pub use inspect::*;

#[derive(Debug, Serialize)]
pub struct SearchJson {
    pub query: String,
    pub results: Vec<ResultJson>,
    pub total_matches: usize,
    pub returned: usize,
    /// hybrid, keyword or vector (additive).
    pub mode: crate::search::Mode,
}

#[derive(Debug, Serialize)]
pub struct ResultJson {
    pub chunk_id: i64,
    pub score: f64,
    pub score_breakdown: ScoreBreakdown,
    pub text: String,
    pub source: SourceJson,
    /// The best-matching passage, about 32 tokens, query words wrapped in
    /// [MATCH]...[/MATCH], "..." at cut ends (additive).
    pub snippet: String,
}

#[derive(Debug, Serialize)]
pub struct ScoreBreakdown {
    /// The keyword ranker's RRF contribution; null when it did not run.
    pub fts: Option<f64>,
    /// The vector ranker's RRF contribution; null when it did not run.
    pub vector: Option<f64>,
    /// Absolute BM25 relevance (higher is better); null when the chunk did
    /// not match by keyword (additive).
    pub bm25: Option<f64>,
    /// Cosine similarity of the chunk to the query; null when the vector
    /// ranker did not score it (additive).
    pub cosine: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct SourceJson {
    pub document_id: i64,
    pub title: String,
    pub path: Option<String>,
    #[serde(rename = "type")]
    pub doc_type: String,
    pub page: Option<u64>,
    pub chunk_index: i64,
    pub total_chunks: i64,
    pub tags: Vec<String>,
    /// The heading chain the chunk sits under (additive).
    pub section: Option<String>,
    /// Programming language of a code document (additive).
    pub language: Option<String>,
    /// Code chunks only (additive, absent otherwise): the symbol the chunk
    /// holds (`parse_config`, `Foo.bar`, `Server.Start`), its kind
    /// (function, method, class, type, module) and its 1-based inclusive
    /// line range in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_end: Option<u64>,
}

fn round(x: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}

pub fn search_json(resp: &SearchResponse) -> SearchJson {
    let results: Vec<ResultJson> = resp.hits.iter().map(result_json).collect();
    SearchJson {
        query: resp.query.clone(),
        returned: results.len(),
        results,
        total_matches: resp.total_matches,
        mode: resp.mode,
    }
}

fn result_json(h: &SearchHit) -> ResultJson {
    let c = &h.chunk;
    ResultJson {
        chunk_id: c.chunk_id,
        score: round(h.score, 6),
        score_breakdown: ScoreBreakdown {
            fts: h.fts.map(|x| round(x, 6)),
            vector: h.vector.map(|x| round(x, 6)),
            bm25: h.bm25.map(|x| round(x, 4)),
            cosine: h.cosine.map(|x| round(x as f64, 4)),
        },
        text: c.text.clone(),
        snippet: h.snippet.clone(),
        source: SourceJson {
            document_id: c.document_id,
            title: c.title.clone(),
            path: c.path.clone(),
            doc_type: c.doc_type.clone(),
            page: c.metadata.get("page").and_then(Value::as_u64),
            chunk_index: c.chunk_index,
            total_chunks: c.total_chunks,
            tags: c.tags.clone(),
            section: c
                .metadata
                .get("section")
                .and_then(Value::as_str)
                .map(str::to_string),
            language: c.language.clone(),
            symbol_name: meta_str(&c.metadata, "symbol_name"),
            symbol_kind: meta_str(&c.metadata, "symbol_kind"),
            line_start: c.metadata.get("line_start").and_then(Value::as_u64),
            line_end: c.metadata.get("line_end").and_then(Value::as_u64),
        },
    }
}

fn meta_str(m: &Value, key: &str) -> Option<String> {
    m.get(key).and_then(Value::as_str).map(str::to_string)
}

#[derive(Debug, Serialize)]
pub struct StatusJson {
    /// Document counts by type (every type listed, zeros included).
    pub documents: BTreeMap<String, i64>,
    pub total_documents: i64,
    pub total_chunks: i64,
    pub db_size_bytes: u64,
    pub model_name: Option<String>,
    pub embedding_dim: Option<usize>,
    pub schema_version: i64,
    pub last_ingest_at: Option<String>,
    /// Indexed documents whose source file changed or vanished since.
    pub stale_documents: usize,
    pub db_path: String,
}

#[derive(Debug, Serialize)]
pub struct TagJson {
    pub name: String,
    pub count: i64,
}

/// Pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(v: &T) -> String {
    let mut s =
        serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// The JSON object printed on stderr for an error.
pub fn error_json(message: &str, code: &str, exit_code: i32) -> String {
    let mut s =
        serde_json::json!({ "error": message, "code": code, "exit_code": exit_code }).to_string();
    s.push('\n');
    s
}
