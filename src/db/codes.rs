//! The compact copy of every vector that a fresh process scans (see
//! migrations/005_vector_codes.sql and 008_vector_code_blocks.sql). A code
//! is the vector's scale (f32), the length of its rounding error (f32) and
//! one int8 per dimension, little-endian. Codes live in blocks of
//! [`BLOCK`] per row (`chunk_code_blocks`), the newest in `chunk_codes`
//! one row each until a block's worth is waiting: the scan reads a few
//! hundred long blobs, no virtual table, no float decoding.

use std::collections::HashSet;

use rusqlite::params;

use super::Database;
use crate::error::Result;
use crate::vector_math::{decode, encode, VectorCode};

/// Codes per block row: 1,024 codes of 384 dimensions are 401 KB, so a
/// million chunks are about a thousand rows.
pub const BLOCK: usize = 1024;

/// The `config` key of the blocks' generation.
const GENERATION_KEY: &str = "code_blocks_generation";

/// A block as the scan sees it before reading its codes.
pub struct CodeBlock {
    id: i64,
    width: usize,
    count: usize,
}

/// One block row read back: its chunk ids and their codes, `width` bytes each.
struct Block {
    id: i64,
    width: usize,
    chunk_ids: Vec<i64>,
    codes: Vec<u8>,
}

fn ids_to_blob(ids: &[i64]) -> Vec<u8> {
    ids.iter().flat_map(|id| id.to_le_bytes()).collect()
}

fn blob_to_ids(blob: &[u8]) -> impl Iterator<Item = i64> + '_ {
    blob.chunks_exact(8)
        .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
}

impl Database {
    /// Writes the codes of `vectors` (inside the caller's transaction, the
    /// one that writes the vectors), sealing a block when one is full.
    pub(super) fn insert_codes(&self, chunk_ids: &[i64], vectors: &[Vec<f32>]) -> Result<()> {
        let mut stmt = self
            .conn()
            .prepare_cached("INSERT OR REPLACE INTO chunk_codes(chunk_id, code) VALUES (?1, ?2)")?;
        for (id, v) in chunk_ids.iter().zip(vectors) {
            stmt.execute(params![id, encode(v)])?;
        }
        // A chunk's code is never in a block and the tail at once (a
        // re-written vector of a sealed chunk replaces the old one). New
        // chunks have ids above every block's (AUTOINCREMENT), so one
        // query settles the usual case.
        let last_sealed: Option<i64> =
            self.conn()
                .query_row("SELECT max(last_chunk) FROM chunk_code_blocks", [], |r| {
                    r.get(0)
                })?;
        let resealed: Vec<i64> = chunk_ids
            .iter()
            .copied()
            .filter(|id| last_sealed.is_some_and(|last| *id <= last))
            .collect();
        if !resealed.is_empty() {
            let mut sealed = self.conn().prepare_cached(
                "INSERT OR IGNORE INTO chunk_codes_removed(chunk_id)
                 SELECT ?1 WHERE EXISTS (SELECT 1 FROM chunk_code_blocks
                                         WHERE last_chunk >= ?1 AND first_chunk <= ?1)",
            )?;
            for id in resealed {
                sealed.execute([id])?;
            }
            self.apply_removed_codes()?;
        }
        self.seal_full_blocks()
    }

    /// Moves the oldest waiting codes into blocks while a block's worth waits.
    pub(super) fn seal_full_blocks(&self) -> Result<()> {
        let mut waiting: i64 =
            self.conn()
                .query_row("SELECT count(*) FROM chunk_codes", [], |r| r.get(0))?;
        // Every block is written before any row leaves chunk_codes: pages
        // freed first would be reused, scattering a block's pages through
        // the file (migration 008 seals a million codes at once, and a
        // fresh search reads a contiguous block with a fraction of the
        // page faults).
        let mut last: Option<i64> = None;
        while waiting as usize >= BLOCK {
            let rows: Vec<(i64, Vec<u8>)> = {
                let mut stmt = self.conn().prepare_cached(
                    "SELECT chunk_id, code FROM chunk_codes WHERE chunk_id > ?1
                     ORDER BY chunk_id LIMIT ?2",
                )?;
                let rows = stmt
                    .query_map(params![last.unwrap_or(i64::MIN), BLOCK as i64], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            // One width per block: a block stops before a code of another
            // width (vectors of two models never share a table, but a
            // block must not depend on that).
            let width = rows[0].1.len();
            let n = rows.iter().take_while(|r| r.1.len() == width).count();
            self.write_block(&rows[..n])?;
            last = Some(rows[n - 1].0);
            waiting -= n as i64;
        }
        if let Some(last) = last {
            self.conn()
                .execute("DELETE FROM chunk_codes WHERE chunk_id <= ?1", [last])?;
        }
        Ok(())
    }

    /// Stores `rows` (ascending chunk ids, codes of one width) as one block.
    fn write_block(&self, rows: &[(i64, Vec<u8>)]) -> Result<()> {
        let ids: Vec<i64> = rows.iter().map(|r| r.0).collect();
        let codes: Vec<u8> = rows.iter().flat_map(|r| r.1.iter().copied()).collect();
        self.conn()
            .prepare_cached(
                "INSERT INTO chunk_code_blocks(first_chunk, last_chunk, width, chunk_ids, codes)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                ids[0],
                ids[ids.len() - 1],
                rows[0].1.len() as i64,
                ids_to_blob(&ids),
                codes
            ])?;
        self.bump_code_generation()
    }

    /// Every change to the blocks bumps this number, in the transaction
    /// that makes it: a scan on two connections compares it to know that
    /// both see the same blocks.
    fn bump_code_generation(&self) -> Result<()> {
        self.conn().execute(
            "INSERT INTO config(key, value) VALUES (?1, '1')
             ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
            [GENERATION_KEY],
        )?;
        Ok(())
    }

    /// The blocks' generation as this connection sees them (see
    /// [`Database::bump_code_generation`]).
    pub fn code_generation(&self) -> Result<i64> {
        Ok(self
            .get_config(GENERATION_KEY)?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
    }

    /// Rewrites the blocks that hold codes of deleted chunks without them
    /// (the delete trigger notes them). Runs in the caller's transaction,
    /// the one that deleted the chunks, so a block never outlives its
    /// chunks in a committed state the scan must filter.
    pub(super) fn apply_removed_codes(&self) -> Result<()> {
        let removed = self.removed_codes()?;
        if removed.is_empty() {
            return Ok(());
        }
        let mut blocks: Vec<i64> = Vec::new();
        {
            let mut stmt = self.conn().prepare_cached(
                "SELECT id FROM chunk_code_blocks WHERE last_chunk >= ?1 AND first_chunk <= ?1",
            )?;
            for id in &removed {
                for block in stmt.query_map([id], |r| r.get(0))? {
                    blocks.push(block?);
                }
            }
        }
        blocks.sort_unstable();
        blocks.dedup();
        for id in blocks {
            let block = self.read_block(id)?;
            let kept: Vec<(i64, Vec<u8>)> = block
                .chunk_ids
                .iter()
                .zip(block.codes.chunks_exact(block.width.max(1)))
                .filter(|(id, _)| !removed.contains(id))
                .map(|(id, code)| (*id, code.to_vec()))
                .collect();
            self.conn()
                .execute("DELETE FROM chunk_code_blocks WHERE id = ?1", [block.id])?;
            self.bump_code_generation()?;
            if !kept.is_empty() {
                self.write_block(&kept)?;
            }
        }
        self.conn().execute("DELETE FROM chunk_codes_removed", [])?;
        Ok(())
    }

    fn read_block(&self, id: i64) -> Result<Block> {
        Ok(self.conn().query_row(
            "SELECT width, chunk_ids, codes FROM chunk_code_blocks WHERE id = ?1",
            [id],
            |r| {
                let width: i64 = r.get(0)?;
                let ids: Vec<u8> = r.get(1)?;
                Ok(Block {
                    id,
                    width: width as usize,
                    chunk_ids: blob_to_ids(&ids).collect(),
                    codes: r.get(2)?,
                })
            },
        )?)
    }

    /// Rebuilds every code from chunks_vec (a migration that finds codes
    /// missing, and a reindex that swaps the vectors). Runs in the caller's
    /// transaction.
    pub(super) fn rebuild_codes(&self) -> Result<()> {
        self.clear_codes()?;
        if !self.has_vector_table()? {
            return Ok(());
        }
        let mut rows: Vec<(i64, Vec<u8>)> = Vec::new();
        self.for_each_vector(|id, v| rows.push((id, encode(v))))?;
        rows.sort_unstable_by_key(|r| r.0);
        let mut stmt = self
            .conn()
            .prepare_cached("INSERT INTO chunk_codes(chunk_id, code) VALUES (?1, ?2)")?;
        for (id, code) in rows {
            stmt.execute(params![id, code])?;
        }
        self.seal_full_blocks()
    }

    pub(super) fn clear_codes(&self) -> Result<()> {
        self.conn().execute_batch(
            "DELETE FROM chunk_codes; DELETE FROM chunk_code_blocks; DELETE FROM chunk_codes_removed;",
        )?;
        self.bump_code_generation()?;
        Ok(())
    }

    /// Calls `f` with every chunk's code: the blocks in the order they were
    /// sealed, then the codes waiting in `chunk_codes`.
    pub fn for_each_code(&self, mut f: impl FnMut(i64, VectorCode<'_>)) -> Result<()> {
        let blocks = self.code_blocks()?;
        let removed = self.removed_codes()?;
        let mut next = blocks.iter();
        self.scan_code_blocks(|| next.next(), &removed, &mut f)?;
        self.scan_waiting_codes(&mut f)
    }

    /// Every block's id, code width and number of codes (its chunk ids and
    /// codes are read by [`Database::scan_code_blocks`], possibly on other
    /// connections).
    pub fn code_blocks(&self) -> Result<Vec<CodeBlock>> {
        // length() of a blob reads no overflow page.
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT id, width, length(chunk_ids) / 8 FROM chunk_code_blocks")?;
        let rows = stmt.query_map([], |r| {
            let width: i64 = r.get(1)?;
            let count: i64 = r.get(2)?;
            Ok(CodeBlock {
                id: r.get(0)?,
                width: width as usize,
                count: count as usize,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Chunks deleted whose codes are still in a block: empty unless a
    /// delete bypassed the transactions that apply them.
    pub fn removed_codes(&self) -> Result<HashSet<i64>> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT chunk_id FROM chunk_codes_removed")?;
        let ids = stmt.query_map([], |r| r.get(0))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// Calls `f` with the codes of each block `next` hands out, until it
    /// hands out none (two connections can share one list of blocks).
    pub fn scan_code_blocks<'b>(
        &self,
        mut next: impl FnMut() -> Option<&'b CodeBlock>,
        removed: &HashSet<i64>,
        mut f: impl FnMut(i64, VectorCode<'_>),
    ) -> Result<()> {
        // Ids and codes are read into reused buffers through SQLite's blob
        // handles: a 400 KB column value would be a fresh allocation per
        // block, and zeroing those pages cost more than the copy.
        let mut handles: Option<(rusqlite::blob::Blob<'_>, rusqlite::blob::Blob<'_>)> = None;
        let (mut id_bytes, mut codes): (Vec<u8>, Vec<u8>) = (Vec::new(), Vec::new());
        while let Some(block) = next() {
            if let Some((ids, cs)) = handles.as_mut() {
                ids.reopen(block.id)?;
                cs.reopen(block.id)?;
            } else {
                let open = |column| {
                    self.conn().blob_open(
                        rusqlite::MAIN_DB,
                        "chunk_code_blocks",
                        column,
                        block.id,
                        true,
                    )
                };
                handles = Some((open("chunk_ids")?, open("codes")?));
            }
            let Some((ids, cs)) = handles.as_ref() else {
                continue;
            };
            let width = block.width;
            if width < 8 || ids.len() != 8 * block.count || cs.len() != width * block.count {
                continue;
            }
            id_bytes.resize(ids.len(), 0);
            ids.read_at_exact(&mut id_bytes, 0)?;
            codes.resize(cs.len(), 0);
            cs.read_at_exact(&mut codes, 0)?;
            for (id, code) in blob_to_ids(&id_bytes).zip(codes.chunks_exact(width)) {
                if removed.is_empty() || !removed.contains(&id) {
                    if let Some(code) = decode(code) {
                        f(id, code);
                    }
                }
            }
        }
        Ok(())
    }

    /// Calls `f` with the codes not sealed in a block yet (a deleted
    /// chunk's code leaves `chunk_codes` with it).
    pub fn scan_waiting_codes(&self, mut f: impl FnMut(i64, VectorCode<'_>)) -> Result<()> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT chunk_id, code FROM chunk_codes")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let blob = row.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?;
            if let Some(code) = decode(blob) {
                f(id, code);
            }
        }
        Ok(())
    }

    /// How many codes and how many vectors are stored (they must agree).
    pub fn code_and_vector_counts(&self) -> Result<(i64, i64)> {
        let codes: i64 = self.conn().query_row(
            "SELECT (SELECT count(*) FROM chunk_codes)
                  + (SELECT coalesce(sum(length(chunk_ids) / 8), 0) FROM chunk_code_blocks)
                  - (SELECT count(*) FROM chunk_codes_removed)",
            [],
            |r| r.get(0),
        )?;
        let vectors: i64 = if self.has_vector_table()? {
            self.conn()
                .query_row("SELECT count(*) FROM chunks_vec", [], |r| r.get(0))?
        } else {
            0
        };
        Ok((codes, vectors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::db::test_support::{bound_database, chunks, note};
    use crate::db::OpenMode;

    fn knowledge_base(dir: &std::path::Path) -> Database {
        bound_database(dir, 4)
    }

    /// Writes document `path` with `n` chunks (vectors made from the text).
    fn write(db: &Database, path: &str, n: usize, version: &str) {
        let vectors: Vec<Vec<f32>> = (0..n)
            .map(|i| {
                let mut v = vec![1.0, i as f32, path.len() as f32, version.len() as f32];
                crate::vector_math::normalize(&mut v);
                v
            })
            .collect();
        let chunks = chunks(&format!("{path} {version}"), n);
        db.write_document(&note(path, version), &chunks, Some(&vectors))
            .unwrap();
    }

    /// Every code the scan sees, checked against the stored vectors: same
    /// chunk ids, each once, each code that of its chunk's vector.
    fn assert_codes_match_vectors(db: &Database) {
        let mut vectors = std::collections::HashMap::new();
        db.for_each_vector(|id, v| {
            vectors.insert(id, encode(v));
        })
        .unwrap();
        let mut seen = HashSet::new();
        db.for_each_code(|id, code| {
            assert!(seen.insert(id), "chunk {id} scanned twice");
            let mut stored = code.scale.to_le_bytes().to_vec();
            stored.extend_from_slice(&code.error.to_le_bytes());
            stored.extend(code.codes.iter().map(|c| *c as u8));
            assert_eq!(vectors.get(&id), Some(&stored), "chunk {id}");
        })
        .unwrap();
        assert_eq!(seen.len(), vectors.len());
        let (codes, stored) = db.code_and_vector_counts().unwrap();
        assert_eq!((codes, stored), (seen.len() as i64, seen.len() as i64));
    }

    fn blocks(db: &Database) -> i64 {
        db.conn()
            .query_row("SELECT count(*) FROM chunk_code_blocks", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn codes_are_sealed_in_blocks_and_follow_removes_and_rewrites() {
        let dir = tempfile::tempdir().unwrap();
        let db = knowledge_base(dir.path());
        for d in 0..25 {
            write(&db, &format!("/d{d}"), 100, "v1");
        }
        assert_eq!(blocks(&db), 2, "2,500 codes: two blocks of {BLOCK}");
        assert_codes_match_vectors(&db);
        // A removed document inside a block, and one in the waiting codes.
        let inside = db.find_document_by_path("/d3").unwrap().unwrap().id;
        let waiting = db.find_document_by_path("/d24").unwrap().unwrap().id;
        db.remove_documents(&[inside, waiting]).unwrap();
        assert_codes_match_vectors(&db);
        // A rewritten document: its old chunks leave their block.
        write(&db, "/d5", 40, "v2");
        assert_codes_match_vectors(&db);
        let removed: i64 = db
            .conn()
            .query_row("SELECT count(*) FROM chunk_codes_removed", [], |r| r.get(0))
            .unwrap();
        assert_eq!(removed, 0, "the writes applied every removal");
        // Everything removed: no block is left.
        let all: Vec<i64> = (0..25)
            .filter_map(|d| db.find_document_by_path(&format!("/d{d}")).unwrap())
            .map(|d| d.id)
            .collect();
        db.remove_documents(&all).unwrap();
        assert_eq!(blocks(&db), 0);
        assert_codes_match_vectors(&db);
    }

    /// A knowledge base of schema 7 (every code a row of its own, or none
    /// at all before schema 5) has its codes sealed when it is opened.
    #[test]
    fn migration_8_seals_the_codes_already_stored() {
        for codes_missing in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            {
                let db = knowledge_base(dir.path());
                for d in 0..25 {
                    write(&db, &format!("/d{d}"), 100, "v1");
                }
                let mut rows = Vec::new();
                db.for_each_code(|id, c| {
                    let mut b = c.scale.to_le_bytes().to_vec();
                    b.extend_from_slice(&c.error.to_le_bytes());
                    b.extend(c.codes.iter().map(|x| *x as u8));
                    rows.push((id, b));
                })
                .unwrap();
                db.conn()
                    .execute_batch(
                        "DELETE FROM chunk_codes;
                         DROP TRIGGER chunk_codes_ad;
                         DROP TABLE chunk_code_blocks;
                         DROP TABLE chunk_codes_removed;
                         CREATE TRIGGER chunk_codes_ad AFTER DELETE ON chunks BEGIN
                             DELETE FROM chunk_codes WHERE chunk_id = old.id;
                         END;
                         ALTER TABLE documents DROP COLUMN via_link;
                         ALTER TABLE documents DROP COLUMN reader_version;
                         ALTER TABLE roots DROP COLUMN tags;
                         ALTER TABLE roots DROP COLUMN follow_external_links;
                         UPDATE config SET value = '7' WHERE key = 'schema_version';",
                    )
                    .unwrap();
                if !codes_missing {
                    for (id, b) in rows {
                        db.conn()
                            .execute(
                                "INSERT INTO chunk_codes(chunk_id, code) VALUES (?1, ?2)",
                                params![id, b],
                            )
                            .unwrap();
                    }
                }
            }
            let db = Database::open(&dir.path().join("kb.db"), OpenMode::Existing).unwrap();
            assert_eq!(blocks(&db), 2, "codes missing: {codes_missing}");
            assert_codes_match_vectors(&db);
        }
    }

    /// A knowledge base of schema 9 (document types checked by the
    /// schema) takes the new types after it is opened, chunks kept.
    #[test]
    fn migration_10_lets_every_document_type_in_and_keeps_the_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let chunks = |db: &Database| -> i64 {
            db.conn()
                .query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))
                .unwrap()
        };
        let before = {
            let db = knowledge_base(dir.path());
            write(&db, "/d0", 10, "v1");
            db.conn()
                .execute_batch(
                    "ALTER TABLE documents DROP COLUMN via_link;
                         ALTER TABLE documents DROP COLUMN reader_version;
                         ALTER TABLE roots DROP COLUMN tags;
                         ALTER TABLE roots DROP COLUMN follow_external_links;
                     PRAGMA writable_schema = ON;
                     UPDATE sqlite_master SET sql = replace(sql, 'doc_type TEXT NOT NULL,',
                         'doc_type TEXT NOT NULL CHECK (doc_type IN (''pdf'', ''markdown'', ''code'', ''note'')),')
                     WHERE type = 'table' AND name = 'documents';
                     PRAGMA writable_schema = OFF;
                     UPDATE config SET value = '9' WHERE key = 'schema_version';",
                )
                .unwrap();
            chunks(&db)
        };
        {
            let old = rusqlite::Connection::open(dir.path().join("kb.db")).unwrap();
            assert!(old
                .execute("UPDATE documents SET doc_type = 'html'", [])
                .is_err());
        }
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Existing).unwrap();
        db.conn()
            .execute("UPDATE documents SET doc_type = 'html'", [])
            .unwrap();
        assert_eq!(chunks(&db), before);
        // And the link column of 11 is there.
        db.set_via_links(&[(1, Some("/l".into()))]).unwrap();
        assert!(before > 0);
    }
}
