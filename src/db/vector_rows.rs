//! The stored vectors of some chunks, read from sqlite-vec's own tables.
//!
//! vec0 keeps the vectors of 1,024 chunks in one row of
//! `chunks_vec_vector_chunks00` (1.5 MB at 384 dimensions, a chain of about
//! 380 overflow pages), and a point query through the virtual table opens
//! that row for each vector and walks the chain from its start: reading the
//! few hundred vectors a search re-scores cost milliseconds. Here the
//! vectors of one row are read through one blob handle in offset order, so
//! SQLite's cache of the chain's pages takes each read straight to its page.
//! The tables are sqlite-vec 0.1's layout (`chunks_vec_info` names the
//! version that made them); with any other, the virtual table is queried.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, MAIN_DB};

use super::vectors::{blob_to_vector, ChunkToEmbed};
use super::Database;
use crate::error::Result;

/// The versions of sqlite-vec whose tables are read directly.
const KNOWN_LAYOUT: &str = "v0.1.";

/// Where a chunk's vector is: the row of vec0's vector table and its
/// position in that row.
struct Place {
    id: i64,
    row: i64,
    offset: usize,
}

impl Database {
    /// Calls `f` with the vector of each chunk in `ids` that has one, in the
    /// order they are stored (ascending chunk id for chunks written in that
    /// order), not necessarily the order of `ids`.
    pub fn vectors_by_id(&self, ids: &[i64], mut f: impl FnMut(i64, &[f32])) -> Result<()> {
        match self.vector_places(ids)? {
            Some((places, dim)) => self.read_places(&places, dim, f),
            None => self.query_vectors(ids, &mut f),
        }
    }

    /// The vectors of document `document_id`'s chunks, each under what the
    /// model embedded for it (header and text): a new version of the
    /// document keeps the vector of every chunk whose input is unchanged,
    /// since the model gives the same input the same vector bit for bit.
    pub fn earlier_vectors(&self, document_id: i64) -> Result<HashMap<String, Vec<f32>>> {
        // One snapshot for the chunks, their places and the vectors read
        // there: the writer may replace a document meanwhile (a copy's
        // source edited in the same run), and the places found must be
        // read as they were when found.
        let _snapshot = self.read_snapshot()?;
        let mut stmt = self.conn().prepare_cached(
            "SELECT id, document_id, context, text FROM chunks WHERE document_id = ?1",
        )?;
        let chunks = stmt
            .query_map([document_id], ChunkToEmbed::from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let inputs: HashMap<i64, String> = chunks
            .iter()
            .map(|c| (c.id, c.input().into_owned()))
            .collect();
        let ids: Vec<i64> = chunks.iter().map(|c| c.id).collect();
        let mut out = HashMap::with_capacity(ids.len());
        self.vectors_by_id(&ids, |id, v| {
            if let Some(input) = inputs.get(&id) {
                out.insert(input.clone(), v.to_vec());
            }
        })?;
        Ok(out)
    }

    /// Where the vectors of `ids` are, in reading order, and their
    /// dimensions; `None` when the tables are not a layout kb reads.
    fn vector_places(&self, ids: &[i64]) -> Result<Option<(Vec<Place>, usize)>> {
        let version: Option<String> = self
            .conn()
            .prepare_cached("SELECT value FROM chunks_vec_info WHERE key = 'CREATE_VERSION'")
            .and_then(|mut s| s.query_row([], |r| r.get(0)).optional())
            .unwrap_or(None);
        let dim = self
            .get_config("embedding_dim")?
            .and_then(|d| d.parse().ok());
        let (Some(version), Some(dim)) = (version, dim) else {
            return Ok(None);
        };
        if !version.starts_with(KNOWN_LAYOUT) {
            return Ok(None);
        }
        let mut stmt = self.conn().prepare_cached(
            "SELECT chunk_id, chunk_offset FROM chunks_vec_rowids WHERE rowid = ?1",
        )?;
        let mut places = Vec::with_capacity(ids.len());
        for &id in ids {
            let place = stmt
                .query_row([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                .optional()?;
            if let Some((row, offset)) = place {
                let offset = usize::try_from(offset).unwrap_or(usize::MAX);
                places.push(Place { id, row, offset });
            }
        }
        places.sort_unstable_by_key(|p| (p.row, p.offset));
        Ok(Some((places, dim)))
    }

    fn read_places(
        &self,
        places: &[Place],
        dim: usize,
        mut f: impl FnMut(i64, &[f32]),
    ) -> Result<()> {
        let width = dim * 4;
        let mut bytes = vec![0u8; width];
        let mut floats: Vec<f32> = Vec::with_capacity(dim);
        let mut open: Option<(i64, rusqlite::blob::Blob<'_>)> = None;
        for place in places {
            let blob = match &mut open {
                Some((row, blob)) if *row == place.row => blob,
                _ => {
                    let blob = self.conn().blob_open(
                        MAIN_DB,
                        c"chunks_vec_vector_chunks00",
                        c"vectors",
                        place.row,
                        true,
                    )?;
                    &mut open.insert((place.row, blob)).1
                }
            };
            blob.read_at_exact(&mut bytes, place.offset.saturating_mul(width))?;
            blob_to_vector(&bytes, &mut floats);
            f(place.id, &floats);
        }
        Ok(())
    }

    /// The same through the virtual table, one query per chunk.
    fn query_vectors(&self, ids: &[i64], f: &mut impl FnMut(i64, &[f32])) -> Result<()> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT embedding FROM chunks_vec WHERE chunk_id = ?1")?;
        let mut buf: Vec<f32> = Vec::new();
        for id in ids {
            let mut rows = stmt.query([id])?;
            if let Some(row) = rows.next()? {
                let blob = row.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?;
                blob_to_vector(blob, &mut buf);
                f(*id, &buf);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::test_support::{bound_database, unit_vectors, write_note};

    /// Each chunk's vector as the virtual table gives it.
    fn queried(db: &Database, ids: &[i64]) -> Vec<(i64, Vec<f32>)> {
        let mut out = Vec::new();
        db.query_vectors(ids, &mut |id, v| out.push((id, v.to_vec())))
            .unwrap();
        out.sort_by_key(|(id, _)| *id);
        out
    }

    #[test]
    fn reads_the_same_vectors_as_the_virtual_table_across_rows() {
        let dir = tempfile::tempdir().unwrap();
        let db = bound_database(dir.path(), 8);
        let mut next = unit_vectors(7, 8);
        // Over two of vec0's rows of 1,024 vectors, and a removed document.
        let first: Vec<Vec<f32>> = (0..1500).map(|_| next()).collect();
        write_note(&db, "/a", "a", &first);
        let second: Vec<Vec<f32>> = (0..700).map(|_| next()).collect();
        write_note(&db, "/b", "b", &second);
        let b = db.chunk_ids().unwrap()[1500..].to_vec();
        db.conn()
            .execute("DELETE FROM chunks WHERE id = ?1", [b[3]])
            .unwrap();
        let mut ids: Vec<i64> = vec![b[3], 2100, 5, 1030, 1024, 1, 99_999, 1025, 2200];
        ids.extend(b.iter().step_by(50));
        let mut read = Vec::new();
        db.vectors_by_id(&ids, |id, v| read.push((id, v.to_vec())))
            .unwrap();
        assert!(read.windows(2).all(|w| w[0].0 < w[1].0), "in stored order");
        assert!(db.vector_places(&ids).unwrap().is_some(), "read directly");
        let expected = queried(&db, &ids);
        assert!(!expected.iter().any(|(id, _)| *id == b[3] || *id == 99_999));
        assert_eq!(read, expected);
    }

    #[test]
    fn earlier_vectors_are_keyed_by_what_the_model_read() {
        let dir = tempfile::tempdir().unwrap();
        let db = bound_database(dir.path(), 4);
        let mut next = unit_vectors(5, 4);
        let a: Vec<Vec<f32>> = (0..3).map(|_| next()).collect();
        write_note(&db, "/a", "a", &a);
        write_note(&db, "/b", "b", &[next()]);
        let id = db.find_document_by_path("/a").unwrap().unwrap().id;
        let earlier = db.earlier_vectors(id).unwrap();
        assert_eq!(earlier.len(), 3, "only /a's chunks");
        for (i, v) in a.iter().enumerate() {
            assert_eq!(&earlier[&format!("/a {i}")], v);
        }
        assert!(db.earlier_vectors(99).unwrap().is_empty());
    }

    #[test]
    fn another_layout_is_read_through_the_virtual_table() {
        let dir = tempfile::tempdir().unwrap();
        let db = bound_database(dir.path(), 4);
        let vectors: Vec<Vec<f32>> = (0..3).map(|_| unit_vectors(3, 4)()).collect();
        write_note(&db, "/a", "a", &vectors);
        db.conn()
            .execute(
                "UPDATE chunks_vec_info SET value = 'v9.0.0' WHERE key = 'CREATE_VERSION'",
                [],
            )
            .unwrap();
        assert!(db.vector_places(&[1]).unwrap().is_none());
        let mut read = Vec::new();
        db.vectors_by_id(&[3, 1], |id, v| read.push((id, v.to_vec())))
            .unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].1, vectors[0]);
    }
}
