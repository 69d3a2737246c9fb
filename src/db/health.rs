//! What `kb doctor` asks the database: SQLite's own integrity check and
//! whether the keyword and vector indexes cover every chunk.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::Database;
use crate::error::Result;

/// Row counts of the chunks and of the indexes over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexCounts {
    pub chunks: i64,
    /// Rows in the FTS5 keyword index.
    pub keyword_rows: i64,
    /// Rows in the vector table (None before a model is bound).
    pub vector_rows: Option<i64>,
    /// Chunks without a vector (None before a model is bound).
    pub chunks_without_vectors: Option<i64>,
}

impl Database {
    /// SQLite's `PRAGMA quick_check`: `["ok"]` for a sound file, else the
    /// problems it found (at most 20).
    pub fn quick_check(&self) -> Result<Vec<String>> {
        Ok(quick_check(self.conn(), 20)?)
    }

    /// What SQLite's quick check finds wrong with the file at `path`, read
    /// through a connection of its own (read-only): `None` for a sound file
    /// or one that cannot be read that way. For naming a failure that
    /// does not say whether the file is damaged (sqlite-vec's "could not
    /// open validity blob"); it reads every page, so only on a failure.
    pub fn damage(path: &Path) -> Option<String> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).ok()?;
        match quick_check(&conn, 3) {
            Ok(problems) if problems == ["ok"] => None,
            Ok(problems) => Some(problems.join("; ")),
            // The check itself failing on the file's content says as much.
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                Some(e.to_string())
            }
            Err(_) => None,
        }
    }

    pub fn index_counts(&self) -> Result<IndexCounts> {
        let chunks = self.chunk_count()?;
        // The FTS5 table keeps one docsize row per indexed chunk.
        let keyword_rows: i64 =
            self.conn()
                .query_row("SELECT count(*) FROM chunks_fts_docsize", [], |r| r.get(0))?;
        let (vector_rows, chunks_without_vectors) = if self.has_vector_table()? {
            let rows: i64 = self
                .conn()
                .query_row("SELECT count(*) FROM chunks_vec", [], |r| r.get(0))?;
            let missing: i64 = self.conn().query_row(
                "SELECT count(*) FROM chunks c
                 WHERE NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.chunk_id = c.id)",
                [],
                |r| r.get(0),
            )?;
            (Some(rows), Some(missing))
        } else {
            (None, None)
        };
        Ok(IndexCounts {
            chunks,
            keyword_rows,
            vector_rows,
            chunks_without_vectors,
        })
    }

    /// The name of the model an interrupted `kb reindex` was switching to,
    /// if any.
    pub fn unfinished_reindex(&self) -> Result<Option<String>> {
        let target: Option<String> = self
            .conn()
            .query_row(
                "SELECT value FROM config WHERE key = 'reindex_target'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        // Stored as `name:fingerprint`; the fingerprint is kb's business.
        Ok(target.map(|t| match t.split_once(':') {
            Some((name, _)) => name.to_string(),
            None => t,
        }))
    }
}

/// `PRAGMA quick_check(limit)` as one problem per line: SQLite writes
/// several in one row under a `*** in database main ***` heading.
fn quick_check(conn: &Connection, limit: u32) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA quick_check({limit})"))?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let heading = |l: &str| l.starts_with("*** in database") && l.ends_with("***");
    let mut problems = Vec::new();
    for row in rows {
        problems.extend(
            row?.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !heading(l))
                .map(str::to_string),
        );
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{ModelBinding, NewChunk, OpenMode};

    #[test]
    fn counts_see_missing_vectors_and_a_sound_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        assert_eq!(db.quick_check().unwrap(), ["ok"]);
        db.bind_model(&ModelBinding {
            model_name: "m".into(),
            embedding_dim: 2,
            model_max_tokens: 8,
            model_fingerprint: "f".into(),
            model_dir: None,
            passage_prefix: None,
        })
        .unwrap();
        let doc = crate::db::test_support::note("/t", "h");
        let chunk = |t: &str| NewChunk {
            text: t.into(),
            token_count: 1,
            ..Default::default()
        };
        db.write_document(&doc, &[chunk("a b"), chunk("c d")], None)
            .unwrap();
        let c = db.index_counts().unwrap();
        assert_eq!(c.chunks, 2);
        assert_eq!(c.keyword_rows, 2);
        assert_eq!(c.vector_rows, Some(0));
        assert_eq!(c.chunks_without_vectors, Some(2));
        assert_eq!(db.unfinished_reindex().unwrap(), None);
    }
}
