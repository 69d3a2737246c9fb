//! The keyword ranker's SQL and the lookups that turn chunk ids into results.

use rusqlite::types::Value;
use rusqlite::{params, OptionalExtension};

use super::Database;
use crate::document::{ChunkMeta, DocType};
use crate::error::Result;

/// Restrictions applied inside both rankers' queries, before ranking.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filters {
    /// The document must carry every one of these tags.
    pub tags: Vec<String>,
    /// The document must be of this type.
    pub doc_type: Option<DocType>,
    /// The document must be one of these (`None`: any).
    pub documents: Option<Vec<i64>>,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.doc_type.is_none() && self.documents.is_none()
    }

    /// SQL conditions on the documents alias `d`, with their parameters.
    fn sql(&self, params: &mut Vec<Value>) -> String {
        let mut sql = String::new();
        if let Some(ids) = &self.documents {
            // One parameter however many: a JSON array of the ids.
            params.push(Value::Text(format!(
                "[{}]",
                ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
            )));
            sql.push_str(&format!(
                " AND d.id IN (SELECT value FROM json_each(?{}))",
                params.len()
            ));
        }
        if let Some(t) = &self.doc_type {
            params.push(Value::Text(t.as_str().into()));
            sql.push_str(&format!(" AND d.doc_type = ?{}", params.len()));
        }
        if !self.tags.is_empty() {
            let mut placeholders = Vec::new();
            for t in &self.tags {
                params.push(Value::Text(t.clone()));
                placeholders.push(format!("?{}", params.len()));
            }
            params.push(Value::Integer(self.tags.len() as i64));
            sql.push_str(&format!(
                " AND d.id IN (SELECT dt.document_id FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
                   WHERE t.name IN ({}) GROUP BY dt.document_id HAVING count(*) = ?{})",
                placeholders.join(", "),
                params.len()
            ));
        }
        sql
    }
}

/// A keyword hit: the chunk and its BM25 relevance (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct KeywordHit {
    pub chunk_id: i64,
    pub bm25: f64,
}

/// Everything a search result shows about one chunk.
#[derive(Debug, Clone)]
pub struct ChunkDetails {
    pub chunk_id: i64,
    pub chunk_index: i64,
    pub text: String,
    pub token_count: Option<i64>,
    /// Its place in the document (section, page, lines, symbol).
    pub meta: ChunkMeta,
    pub document_id: i64,
    pub title: String,
    pub path: Option<String>,
    pub doc_type: DocType,
    pub language: Option<String>,
    pub total_chunks: i64,
    pub tags: Vec<String>,
    /// What was recorded of the document's file, to tell whether it changed.
    pub file_size: Option<u64>,
    pub file_mtime: Option<i64>,
    pub content_hash: String,
    /// The link the walks reach the file through, when only through it.
    pub via_link: Option<String>,
}

/// Where a chunk is: its document, and its page in a paged document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkPlace {
    pub document: i64,
    pub page: Option<u32>,
    /// How many chunks the chunk's document holds.
    pub document_chunks: u32,
}

/// BM25 weights of the keyword index's columns (FTS5 `bm25()` arguments,
/// in column order): the chunk's text, its document's title, its section
/// and its extra terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColumnWeights {
    pub text: f64,
    pub title: f64,
    pub section: f64,
    pub terms: f64,
}

impl Default for ColumnWeights {
    /// Chosen on FinanceBench dev and NFCorpus dev (docs/benchmarks.md): a
    /// title or section word counts twice a word of the text. Questions
    /// about long documents name the company and year (the title) and the
    /// statement or part (the section) beside the metric; page hit@1
    /// 0.367 → 0.400 and keyword-only 0.200 → 0.300 against a quarter
    /// weight, NFCorpus dev hybrid 0.3464 → 0.3498.
    fn default() -> Self {
        ColumnWeights {
            text: 1.0,
            title: 2.0,
            section: 2.0,
            terms: 1.0,
        }
    }
}

impl Database {
    /// Runs an FTS5 MATCH expression, best first by BM25 with the given
    /// column weights, with the filters applied in the same statement.
    pub fn keyword_search(
        &self,
        fts_query: &str,
        filters: &Filters,
        weights: &ColumnWeights,
        limit: usize,
    ) -> Result<Vec<KeywordHit>> {
        let mut params = vec![Value::Text(fts_query.to_string())];
        let (join, cond) = if filters.is_empty() {
            (String::new(), String::new())
        } else {
            (
                " JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id"
                    .to_string(),
                filters.sql(&mut params),
            )
        };
        params.push(Value::Integer(limit as i64));
        let w = weights;
        // Weights are numbers kb chose, formatted into the SQL (FTS5 wants
        // them as constant arguments).
        let sql = format!(
            "SELECT chunks_fts.rowid, bm25(chunks_fts, {:?}, {:?}, {:?}, {:?}) AS score
             FROM chunks_fts{join}
             WHERE chunks_fts MATCH ?1{cond} ORDER BY score LIMIT ?{}",
            w.text,
            w.title,
            w.section,
            w.terms,
            params.len()
        );
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| {
            Ok(KeywordHit {
                chunk_id: r.get(0)?,
                // FTS5's bm25() is negative, more negative is better.
                bm25: -r.get::<_, f64>(1)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many chunks match an FTS5 expression under the filters.
    pub fn keyword_count(&self, fts_query: &str, filters: &Filters) -> Result<usize> {
        let mut params = vec![Value::Text(fts_query.to_string())];
        let (join, cond) = if filters.is_empty() {
            (String::new(), String::new())
        } else {
            (
                " JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id"
                    .to_string(),
                filters.sql(&mut params),
            )
        };
        let sql = format!("SELECT count(*) FROM chunks_fts{join} WHERE chunks_fts MATCH ?1{cond}");
        let n: i64 = self
            .conn()
            .query_row(&sql, rusqlite::params_from_iter(params), |r| r.get(0))?;
        Ok(n as usize)
    }

    /// How many of `ids` match an FTS5 expression.
    pub fn keyword_matches_among(&self, fts_query: &str, ids: &[i64]) -> Result<usize> {
        if ids.is_empty() {
            return Ok(0);
        }
        let list = ids
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        // `+rowid` keeps SQLite from handing the IN list to FTS5, which would
        // re-run the whole MATCH once per id (115 ms vs 1.3 ms for 900 ids).
        let sql = format!(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?1 AND +rowid IN ({list})"
        );
        let n: i64 = self.conn().query_row(&sql, [fts_query], |r| r.get(0))?;
        Ok(n as usize)
    }

    /// The chunks among `ids` that `fts_query` matches.
    pub fn keyword_matched_among(
        &self,
        fts_query: &str,
        ids: &[i64],
    ) -> Result<std::collections::HashSet<i64>> {
        if ids.is_empty() {
            return Ok(Default::default());
        }
        let list = ids
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let sql = format!(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?1 AND +rowid IN ({list})"
        );
        let mut stmt = self.conn().prepare(&sql)?;
        let rows = stmt.query_map([fts_query], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The ids of the chunks that pass the filters (for the vector ranker).
    pub fn filtered_chunk_ids(&self, filters: &Filters) -> Result<Vec<i64>> {
        let mut params = Vec::new();
        let cond = filters.sql(&mut params);
        let sql = format!(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE 1 = 1{cond}"
        );
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Loads the details of chunks, in the order of `ids`.
    pub fn chunk_details(&self, ids: &[i64]) -> Result<Vec<ChunkDetails>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT c.id, c.chunk_index, c.text, c.token_count, c.metadata,
                    d.id, d.title, d.source_path, d.doc_type, d.language,
                    (SELECT count(*) FROM chunks c2 WHERE c2.document_id = d.id),
                    (SELECT json_group_array(t.name) FROM (
                        SELECT t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
                        WHERE dt.document_id = d.id ORDER BY t.name) t),
                    d.file_size, d.file_mtime, d.content_hash, d.via_link
             FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?1",
        )?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let row = stmt.query_row([id], |r| {
                let metadata: String = r.get(4)?;
                let tags: String = r.get(11)?;
                Ok(ChunkDetails {
                    chunk_id: r.get(0)?,
                    chunk_index: r.get(1)?,
                    text: r.get(2)?,
                    token_count: r.get(3)?,
                    meta: ChunkMeta::from_json(&metadata),
                    document_id: r.get(5)?,
                    title: r.get(6)?,
                    path: r.get(7)?,
                    doc_type: r.get(8)?,
                    language: r.get(9)?,
                    total_chunks: r.get(10)?,
                    tags: serde_json::from_str(&tags).unwrap_or_default(),
                    file_size: r.get::<_, Option<i64>>(12)?.map(|v| v as u64),
                    file_mtime: r.get(13)?,
                    content_hash: r.get(14)?,
                    via_link: r.get(15)?,
                })
            });
            match row {
                Ok(d) => out.push(d),
                // A chunk deleted by a concurrent ingest between ranking and
                // this lookup is simply left out.
                Err(rusqlite::Error::QueryReturnedNoRows) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(out)
    }

    /// The FTS5 snippet of a chunk's text for a MATCH expression: about 32
    /// tokens around the best match, terms in [MATCH]...[/MATCH]; `None` when
    /// the match is only in another column (title, section, terms).
    pub fn keyword_snippet(&self, fts_query: &str, chunk_id: i64) -> Result<Option<String>> {
        let snippet: Option<String> = self
            .conn()
            .prepare_cached(
                "SELECT snippet(chunks_fts, 0, '[MATCH]', '[/MATCH]', '...', 32)
                 FROM chunks_fts WHERE chunks_fts MATCH ?1 AND rowid = ?2",
            )?
            .query_row(params![fts_query, chunk_id], |r| r.get(0))
            .optional()?;
        Ok(snippet.filter(|s| s.contains("[MATCH]")))
    }

    /// Each chunk's document path (its title for a document without a
    /// file) and place in it: what orders chunks the rankers score alike,
    /// the same in every knowledge base made from the same files.
    pub fn chunk_order_keys(
        &self,
        ids: &[i64],
    ) -> Result<std::collections::HashMap<i64, (String, i64)>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT coalesce(d.source_path, d.title), c.chunk_index
             FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?1",
        )?;
        let mut out = std::collections::HashMap::with_capacity(ids.len());
        for id in ids {
            let key = stmt
                .query_row([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
                .optional()?;
            if let Some(key) = key {
                out.insert(*id, key);
            }
        }
        Ok(out)
    }

    /// The document and page of each chunk in `ids` that still exists.
    pub fn chunk_places(&self, ids: &[i64]) -> Result<std::collections::HashMap<i64, ChunkPlace>> {
        let mut out = std::collections::HashMap::with_capacity(ids.len());
        let mut stmt = self.conn().prepare_cached(
            "SELECT document_id, json_extract(metadata, '$.page') FROM chunks WHERE id = ?1",
        )?;
        let mut count = self
            .conn()
            .prepare_cached("SELECT count(*) FROM chunks WHERE document_id = ?1")?;
        // The candidates of a search are often many chunks of a few long
        // documents: each document is counted once.
        let mut counted: std::collections::HashMap<i64, u32> = Default::default();
        for id in ids {
            let place = stmt
                .query_row([id], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
                })
                .optional()?;
            let Some((document, page)) = place else {
                continue;
            };
            let document_chunks = match counted.get(&document) {
                Some(n) => *n,
                None => {
                    let n: u32 = count.query_row([document], |r| r.get(0))?;
                    counted.insert(document, n);
                    n
                }
            };
            out.insert(
                *id,
                ChunkPlace {
                    document,
                    page: page.map(|p| p as u32),
                    document_chunks,
                },
            );
        }
        Ok(out)
    }
}
