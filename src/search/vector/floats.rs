//! Reading exact vectors by id: from the database or an in-memory index,
//! each at most once in a search.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::db::{Database, VectorHit};
use crate::error::Result;
use crate::vector_math::dot;

/// Where the exact floats of candidates are read by id: the database, or
/// the in-memory index of a small knowledge base.
pub trait FloatVectors {
    fn floats_by_id(&self, ids: &[i64], f: &mut dyn FnMut(i64, &[f32])) -> Result<()>;
}

impl FloatVectors for Database {
    fn floats_by_id(&self, ids: &[i64], f: &mut dyn FnMut(i64, &[f32])) -> Result<()> {
        self.vectors_by_id(ids, f)
    }
}

/// Floats read in one search, by chunk id.
pub type FloatsRead = HashMap<i64, Vec<f32>>;

/// Reads each vector's floats through `source` at most once in a search:
/// a hybrid search re-scores its candidates, then the feedback pool's, then
/// reads the feedback chunks and the cosines it shows, and these overlap
/// (at a million chunks a read from vec0 costs tens of microseconds: it
/// walks the vector's 1.5 MB row page by page).
pub struct ReadFloats<'a> {
    source: &'a dyn FloatVectors,
    read: RefCell<FloatsRead>,
}

impl<'a> ReadFloats<'a> {
    pub fn new(source: &'a dyn FloatVectors) -> ReadFloats<'a> {
        ReadFloats::with(source, FloatsRead::new())
    }

    /// Starting from floats read earlier (on another connection).
    pub fn with(source: &'a dyn FloatVectors, read: FloatsRead) -> ReadFloats<'a> {
        ReadFloats {
            source,
            read: RefCell::new(read),
        }
    }

    pub fn into_read(self) -> FloatsRead {
        self.read.into_inner()
    }

    /// Adds floats read elsewhere.
    pub fn remember(&self, read: FloatsRead) {
        self.read.borrow_mut().extend(read);
    }
}

impl FloatVectors for ReadFloats<'_> {
    fn floats_by_id(&self, ids: &[i64], f: &mut dyn FnMut(i64, &[f32])) -> Result<()> {
        let missing: Vec<i64> = {
            let read = self.read.borrow();
            ids.iter()
                .copied()
                .filter(|id| !read.contains_key(id))
                .collect()
        };
        if !missing.is_empty() {
            let mut read = self.read.borrow_mut();
            self.source.floats_by_id(&missing, &mut |id, v| {
                read.insert(id, v.to_vec());
            })?;
        }
        let read = self.read.borrow();
        for id in ids {
            if let Some(v) = read.get(id) {
                f(*id, v);
            }
        }
        Ok(())
    }
}

/// Exact cosines of the chunks in `ids` (their float vectors by id).
pub(super) fn rescore(
    db: &dyn FloatVectors,
    query: &[f32],
    ids: impl Iterator<Item = i64>,
) -> Result<Vec<VectorHit>> {
    let mut ids: Vec<i64> = ids.collect();
    ids.sort_unstable();
    let mut hits = Vec::with_capacity(ids.len());
    db.floats_by_id(&ids, &mut |id, v| {
        hits.push(VectorHit {
            chunk_id: id,
            cosine: dot(query, v),
        })
    })?;
    Ok(hits)
}
