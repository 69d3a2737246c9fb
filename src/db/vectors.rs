//! The vector table `chunks_vec` (sqlite-vec vec0), the model binding in
//! `config`, and the staging table that makes `kb reindex` atomic.

use std::collections::HashSet;

use rusqlite::params;

use super::Database;
use crate::error::{KbError, Result};

/// The `config` key set while documents may hold chunks longer than the
/// bound model reads (a reindex to a model that reads fewer tokens): they
/// are read again, and a reindex interrupted meanwhile finishes the work.
const RESPLIT_PENDING: &str = "resplit_pending";

/// The model an index was built with, as recorded in the `config` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelBinding {
    pub model_name: String,
    pub embedding_dim: usize,
    pub model_max_tokens: usize,
    pub model_fingerprint: String,
    /// Where `kb init` found the model files.
    pub model_dir: Option<String>,
    /// The text put before every chunk embedded (`embedding.passage_prefix`,
    /// else the model's); `None` in a knowledge base bound before it was
    /// recorded.
    pub passage_prefix: Option<String>,
}

/// A vector hit: the chunk and its cosine similarity to the query.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    pub chunk_id: i64,
    pub cosine: f32,
}

/// A chunk stored before context headers, with what its header is made of.
#[derive(Debug, Clone)]
pub struct HeaderlessChunk {
    pub id: i64,
    pub title: String,
    pub path: String,
    pub section: String,
    pub text: String,
}

/// A stored chunk on its way to the model.
#[derive(Debug, Clone)]
pub struct ChunkToEmbed {
    pub id: i64,
    pub document_id: i64,
    /// The header embedded before the text.
    pub context: String,
    pub text: String,
}

impl ChunkToEmbed {
    pub(super) fn from_row(r: &rusqlite::Row) -> rusqlite::Result<ChunkToEmbed> {
        Ok(ChunkToEmbed {
            id: r.get(0)?,
            document_id: r.get(1)?,
            context: r.get(2)?,
            text: r.get(3)?,
        })
    }

    /// What the model embeds: the header, then the text.
    pub fn input(&self) -> std::borrow::Cow<'_, str> {
        crate::text::header::embedding_input(&self.context, &self.text)
    }
}

/// A stored vector's floats into `out` (cleared first): the inverse of
/// [`vector_to_blob`].
pub(super) fn blob_to_vector(blob: &[u8], out: &mut Vec<f32>) {
    out.clear();
    out.extend(
        blob.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
}

pub fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

impl Database {
    pub fn model_binding(&self) -> Result<Option<ModelBinding>> {
        let Some(model_name) = self.get_config("model_name")? else {
            return Ok(None);
        };
        let num = |key: &str| -> Result<usize> {
            let v = self.get_config(key)?.unwrap_or_default();
            v.parse().map_err(|_| KbError::DbCorrupt {
                path: self.path().to_path_buf(),
                reason: format!("config {key} is not a number: {v:?}"),
            })
        };
        Ok(Some(ModelBinding {
            model_name,
            embedding_dim: num("embedding_dim")?,
            model_max_tokens: num("model_max_tokens")?,
            model_fingerprint: self.get_config("model_fingerprint")?.unwrap_or_default(),
            model_dir: self.get_config("model_dir")?,
            passage_prefix: self.get_config("passage_prefix")?,
        }))
    }

    fn write_binding(&self, b: &ModelBinding) -> Result<()> {
        self.set_config("model_name", &b.model_name)?;
        self.set_config("embedding_dim", &b.embedding_dim.to_string())?;
        self.set_config("model_max_tokens", &b.model_max_tokens.to_string())?;
        self.set_config("model_fingerprint", &b.model_fingerprint)?;
        for (key, value) in [
            ("model_dir", &b.model_dir),
            ("passage_prefix", &b.passage_prefix),
        ] {
            match value {
                Some(v) => self.set_config(key, v)?,
                None => {
                    self.conn()
                        .execute("DELETE FROM config WHERE key = ?1", [key])?;
                }
            }
        }
        Ok(())
    }

    pub fn has_vector_table(&self) -> Result<bool> {
        Ok(self.conn().query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec')",
            [],
            |r| r.get(0),
        )?)
    }

    fn create_vector_table(&self, dim: usize) -> Result<()> {
        self.conn().execute_batch(&format!(
            "CREATE VIRTUAL TABLE chunks_vec USING vec0(
                 chunk_id INTEGER PRIMARY KEY,
                 embedding FLOAT[{dim}] distance_metric=cosine
             );
             CREATE TRIGGER chunks_vec_ad AFTER DELETE ON chunks BEGIN
                 DELETE FROM chunks_vec WHERE chunk_id = old.id;
             END;"
        ))?;
        Ok(())
    }

    fn drop_vector_table(&self) -> Result<()> {
        self.conn().execute_batch(
            "DROP TRIGGER IF EXISTS chunks_vec_ad; DROP TABLE IF EXISTS chunks_vec;",
        )?;
        self.clear_codes()
    }

    /// Binds a model to an index that has no vectors yet (kb init on a new or
    /// keyword-only database). Refuses to re-bind when chunks exist without
    /// vectors of that model: that is `kb reindex`'s job.
    pub fn bind_model(&self, binding: &ModelBinding) -> Result<()> {
        let tx = self.begin_write()?;
        if self.has_vector_table()? {
            self.drop_vector_table()?;
        }
        self.create_vector_table(binding.embedding_dim)?;
        self.write_binding(binding)?;
        tx.commit()?;
        Ok(())
    }

    /// Records another file of the bound model, one that gives the same
    /// vectors (its fingerprint and where it is); the vectors stay.
    pub fn record_model_file(&self, fingerprint: &str, dir: Option<&str>) -> Result<()> {
        let tx = self.begin_write()?;
        self.set_config("model_fingerprint", fingerprint)?;
        if let Some(d) = dir {
            self.set_config("model_dir", d)?;
        }
        tx.commit()?;
        Ok(())
    }

    pub fn insert_vectors(&self, chunk_ids: &[i64], vectors: &[Vec<f32>]) -> Result<()> {
        if chunk_ids.len() != vectors.len() {
            return Err(KbError::Model(format!(
                "{} vectors for {} chunks",
                vectors.len(),
                chunk_ids.len()
            )));
        }
        let mut stmt = self
            .conn()
            .prepare_cached("INSERT INTO chunks_vec(chunk_id, embedding) VALUES (?1, ?2)")?;
        for (id, v) in chunk_ids.iter().zip(vectors) {
            stmt.execute(params![id, vector_to_blob(v)])?;
        }
        self.insert_codes(chunk_ids, vectors)
    }

    /// Chunks in id order, a page at a time (for benchmarks that re-embed
    /// what an ingest wrote).
    pub fn chunk_texts(&self, after_id: i64, limit: usize) -> Result<Vec<ChunkToEmbed>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT id, document_id, context, text FROM chunks WHERE id > ?1 ORDER BY id LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![after_id, limit as i64], ChunkToEmbed::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Chunks that have no vector (written before a model was bound).
    pub fn chunks_without_vectors(&self, limit: usize) -> Result<Vec<ChunkToEmbed>> {
        let mut stmt = self.conn().prepare(
            "SELECT c.id, c.document_id, c.context, c.text FROM chunks c
             WHERE NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.chunk_id = c.id)
             ORDER BY c.id LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit as i64], ChunkToEmbed::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Calls `f` with every stored vector, decoding into one reused buffer.
    pub fn for_each_vector(&self, mut f: impl FnMut(i64, &[f32])) -> Result<()> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT chunk_id, embedding FROM chunks_vec")?;
        let mut rows = stmt.query([])?;
        let mut buf: Vec<f32> = Vec::new();
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let blob = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            blob_to_vector(blob, &mut buf);
            f(id, &buf);
        }
        Ok(())
    }

    /// sqlite-vec's k-nearest-neighbour scan, best first, over every chunk
    /// or only over the chunks in `among`.
    pub fn vector_knn(
        &self,
        query: &[f32],
        k: usize,
        among: Option<&[i64]>,
    ) -> Result<Vec<VectorHit>> {
        let blob = vector_to_blob(query);
        let to_hit = |r: &rusqlite::Row| -> rusqlite::Result<VectorHit> {
            let d: f64 = r.get(1)?;
            Ok(VectorHit {
                chunk_id: r.get(0)?,
                cosine: (1.0 - d) as f32,
            })
        };
        let hits = match among {
            None => self
                .conn()
                .prepare_cached(
                    "SELECT chunk_id, distance FROM chunks_vec
                     WHERE embedding MATCH ?1 AND k = ?2 ORDER BY distance",
                )?
                .query_map(params![blob, k as i64], to_hit)?
                .collect::<rusqlite::Result<_>>()?,
            Some(ids) => self
                .conn()
                .prepare_cached(
                    "SELECT chunk_id, distance FROM chunks_vec
                     WHERE embedding MATCH ?1 AND k = ?2
                       AND chunk_id IN (SELECT value FROM json_each(?3))
                     ORDER BY distance",
                )?
                .query_map(
                    params![
                        blob,
                        k as i64,
                        serde_json::to_string(ids).unwrap_or_default()
                    ],
                    to_hit,
                )?
                .collect::<rusqlite::Result<_>>()?,
        };
        Ok(hits)
    }

    // --- reindex: new vectors are staged beside the old ones, then swapped.

    /// Whether the chunks predate context headers (schema 4): their headers
    /// are to be filled and every chunk re-embedded by `kb reindex`.
    pub fn headers_pending(&self) -> Result<bool> {
        Ok(self.get_config("headers_pending")?.is_some())
    }

    /// Whether the headers of those chunks are still to be filled.
    pub fn headers_to_fill(&self) -> Result<bool> {
        Ok(self.get_config("headers_pending")?.as_deref() == Some("1"))
    }

    /// Chunks whose header is still to be filled, in id order.
    pub fn chunks_without_headers(
        &self,
        after_id: i64,
        limit: usize,
    ) -> Result<Vec<HeaderlessChunk>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT c.id, d.title, d.source_path, c.section, c.text
             FROM chunks c JOIN documents d ON d.id = c.document_id
             WHERE c.id > ?1 AND c.context = '' ORDER BY c.id LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![after_id, limit as i64], |r| {
            Ok(HeaderlessChunk {
                id: r.get(0)?,
                title: r.get(1)?,
                path: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                section: r.get(3)?,
                text: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Stores a chunk's header, search title and extra terms (the keyword
    /// index follows through its trigger).
    pub fn set_chunk_header(
        &self,
        id: i64,
        context: &str,
        doc_title: &str,
        terms: &str,
    ) -> Result<()> {
        self.conn()
            .prepare_cached(
                "UPDATE chunks SET context = ?2, doc_title = ?3, terms = ?4 WHERE id = ?1",
            )?
            .execute(params![id, context, doc_title, terms])?;
        Ok(())
    }

    /// Starts over a reindex whose staged vectors were embedded without
    /// headers.
    pub fn discard_staged_vectors(&self) -> Result<()> {
        self.conn().execute_batch(
            "DROP TABLE IF EXISTS reindex_vectors;
             DELETE FROM config WHERE key = 'reindex_target';",
        )?;
        Ok(())
    }

    /// Prepares the staging table for a reindex to `target`. A staging table
    /// left by an interrupted reindex to the same model is kept, so the
    /// re-run continues where it stopped.
    pub fn begin_reindex(&self, target: &ModelBinding) -> Result<()> {
        let previous = self.get_config("reindex_target")?;
        // Vectors staged with another passage prefix are other vectors.
        let key = format!(
            "{}:{}:{:?}",
            target.model_name, target.model_fingerprint, target.passage_prefix
        );
        let tx = self.begin_write()?;
        if previous.as_deref() != Some(key.as_str()) {
            self.conn().execute_batch(
                "DROP TABLE IF EXISTS reindex_vectors;
                 CREATE TABLE reindex_vectors (chunk_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL);",
            )?;
            self.set_config("reindex_target", &key)?;
        } else {
            self.conn().execute_batch(
                "CREATE TABLE IF NOT EXISTS reindex_vectors (chunk_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL);",
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Chunks not yet embedded for the reindex, in id order.
    pub fn reindex_pending(&self, after_id: i64, limit: usize) -> Result<Vec<ChunkToEmbed>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT c.id, c.document_id, c.context, c.text FROM chunks c
             WHERE c.id > ?1 AND NOT EXISTS (SELECT 1 FROM reindex_vectors r WHERE r.chunk_id = c.id)
             ORDER BY c.id LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![after_id, limit as i64], ChunkToEmbed::from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Whether documents may hold chunks longer than the model reads:
    /// the model the reindex that left them switched from, if so.
    pub fn resplit_pending(&self) -> Result<Option<String>> {
        self.get_config(RESPLIT_PENDING)
    }

    pub fn resplit_done(&self) -> Result<()> {
        self.conn()
            .execute("DELETE FROM config WHERE key = ?1", [RESPLIT_PENDING])?;
        Ok(())
    }

    pub fn reindex_counts(&self) -> Result<(usize, usize)> {
        let done: i64 = self.conn().query_row(
            "SELECT count(*) FROM reindex_vectors r JOIN chunks c ON c.id = r.chunk_id",
            [],
            |r| r.get(0),
        )?;
        Ok((done as usize, self.chunk_count()? as usize))
    }

    pub fn stage_vectors(&self, chunk_ids: &[i64], vectors: &[Vec<f32>]) -> Result<()> {
        let tx = self.begin_write()?;
        {
            let mut stmt = self.conn().prepare_cached(
                "INSERT OR REPLACE INTO reindex_vectors(chunk_id, embedding) VALUES (?1, ?2)",
            )?;
            for (id, v) in chunk_ids.iter().zip(vectors) {
                stmt.execute(params![id, vector_to_blob(v)])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Swaps the staged vectors in and records the new model, in one
    /// transaction: until it commits, searches see the old index whole.
    /// Swaps the staged vectors in and binds `target`. The chunks of the
    /// documents `unembedded` (read again next, see `resplit`) may have
    /// none: they are left without vectors, and `resplit_pending` is set
    /// until they are read.
    pub fn finish_reindex(&self, target: &ModelBinding, unembedded: &HashSet<i64>) -> Result<()> {
        let tx = self.begin_write()?;
        let mut missing = 0i64;
        {
            let mut stmt = self.conn().prepare(
                "SELECT c.document_id, count(*) FROM chunks c WHERE NOT EXISTS
                    (SELECT 1 FROM reindex_vectors r WHERE r.chunk_id = c.id) GROUP BY c.document_id",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))?;
            for row in rows {
                let (document, chunks) = row?;
                if !unembedded.contains(&document) {
                    missing += chunks;
                }
            }
        }
        if missing > 0 {
            return Err(KbError::Db(format!(
                "{missing} chunks were added while reindexing; run `kb reindex` again"
            )));
        }
        self.drop_vector_table()?;
        self.create_vector_table(target.embedding_dim)?;
        self.conn().execute(
            "INSERT INTO chunks_vec(chunk_id, embedding)
             SELECT r.chunk_id, r.embedding FROM reindex_vectors r JOIN chunks c ON c.id = r.chunk_id",
            [],
        )?;
        self.rebuild_codes()?;
        self.conn().execute_batch("DROP TABLE reindex_vectors;")?;
        self.conn().execute(
            "DELETE FROM config WHERE key IN ('reindex_target', 'headers_pending')",
            [],
        )?;
        if !unembedded.is_empty() {
            let from = self
                .model_binding()?
                .map(|b| b.model_name)
                .unwrap_or_default();
            self.set_config(RESPLIT_PENDING, &from)?;
        }
        self.write_binding(target)?;
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{NewChunk, OpenMode};

    #[test]
    fn knn_with_and_without_a_filter() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        db.bind_model(&ModelBinding {
            model_name: "m".into(),
            embedding_dim: 4,
            model_max_tokens: 16,
            model_fingerprint: "f".into(),
            model_dir: None,
            passage_prefix: None,
        })
        .unwrap();
        let chunks: Vec<NewChunk> = (0..6)
            .map(|i| NewChunk {
                text: format!("chunk {i}"),
                token_count: 2,
                ..Default::default()
            })
            .collect();
        let vectors: Vec<Vec<f32>> = (0..6)
            .map(|i| {
                let mut v = vec![0.0, 0.0, 0.0, 0.0];
                v[i % 4] = 1.0;
                v[(i + 1) % 4] = 0.1 * i as f32;
                crate::vector_math::normalize(&mut v);
                v
            })
            .collect();
        let doc = crate::db::test_support::note("/t", "h");
        db.write_document(&doc, &chunks, Some(&vectors)).unwrap();
        let q = vec![1.0, 0.0, 0.0, 0.0];
        let all = db.vector_knn(&q, 3, None).unwrap();
        assert_eq!(all[0].chunk_id, 1);
        assert!((all[0].cosine - 1.0).abs() < 1e-5);
        let some = db.vector_knn(&q, 3, Some(&[2, 3, 6])).unwrap();
        assert!(
            some.iter().all(|h| [2, 3, 6].contains(&h.chunk_id)),
            "{some:?}"
        );
        assert_eq!(some.len(), 3);
        assert_eq!(some[0].chunk_id, 6);
    }

    #[test]
    fn a_reindex_resumed_with_another_passage_prefix_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        let target = |prefix: &str| ModelBinding {
            model_name: "m".into(),
            embedding_dim: 2,
            model_max_tokens: 16,
            model_fingerprint: "1:f".into(),
            model_dir: None,
            passage_prefix: Some(prefix.into()),
        };
        db.bind_model(&target("")).unwrap();
        let doc = crate::db::test_support::note("/t", "h");
        let chunk = NewChunk {
            text: "a chunk".into(),
            token_count: 2,
            ..Default::default()
        };
        db.write_document(&doc, &[chunk], Some(&[vec![1.0, 0.0]]))
            .unwrap();
        db.begin_reindex(&target("passage: ")).unwrap();
        db.stage_vectors(&[1], &[vec![0.0, 1.0]]).unwrap();
        db.begin_reindex(&target("passage: ")).unwrap();
        assert_eq!(db.reindex_counts().unwrap(), (1, 1));
        db.begin_reindex(&target("")).unwrap();
        assert_eq!(db.reindex_counts().unwrap(), (0, 1));
        assert_eq!(db.unfinished_reindex().unwrap().as_deref(), Some("m"));
    }
}
