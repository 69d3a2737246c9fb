//! The in-memory vector index of a long-running process (`kb mcp`): every
//! vector loaded once, refreshed as documents come and go, scanned in a
//! millisecond or two at 20,000 chunks.

use std::collections::HashSet;

use super::vector::{dot, dot_i8, top_k};
use crate::db::{quantize, Database, Filters, VectorHit};
use crate::error::Result;

/// Vectors from which [`VectorIndex::search`] uses two threads.
const PARALLEL_SCAN: usize = 100_000;

/// Ranks with an in-memory index, the filters applied before ranking.
pub fn search_in(
    index: &VectorIndex,
    db: &Database,
    query: &[f32],
    filters: &Filters,
    k: usize,
) -> Result<Vec<VectorHit>> {
    Ok(index.search_among(query, &Allowed::of(db, filters)?, k))
}

/// The chunks a filtered search may return, read before ranking (so the
/// ranking itself needs no database and can run on another thread).
pub enum Allowed {
    All,
    Only(HashSet<i64>),
}

impl Allowed {
    pub fn of(db: &Database, filters: &Filters) -> Result<Allowed> {
        Ok(if filters.is_empty() {
            Allowed::All
        } else {
            Allowed::Only(db.filtered_chunk_ids(filters)?.into_iter().collect())
        })
    }
}

/// Every stored vector in memory, in chunk id order: the exact floats, and
/// an int8 copy (one scale per vector) that the scan reads. At 20,000
/// chunks the float scan is bound by memory bandwidth (30 MB, about 3-6 ms
/// here); the int8 copy is a quarter of that. The int8 scores pick the
/// candidates, the floats give their exact cosines, so results and scores
/// are those of an exact scan.
#[derive(Debug, Default, Clone)]
pub struct VectorIndex {
    dim: usize,
    ids: Vec<i64>,
    data: Vec<f32>,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

/// What [`VectorIndex::refresh`] changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RefreshStats {
    pub added: usize,
    pub removed: usize,
}

impl VectorIndex {
    /// Reads every vector (about 250 ms at 20,000 chunks of 384 dimensions).
    pub fn load(db: &Database) -> Result<VectorIndex> {
        let mut rows: Vec<(i64, Vec<f32>)> = Vec::new();
        db.for_each_vector(|id, v| rows.push((id, v.to_vec())))?;
        rows.sort_unstable_by_key(|r| r.0);
        let mut index = VectorIndex::default();
        let dim = rows.first().map(|r| r.1.len()).unwrap_or(0);
        index.ids.reserve(rows.len());
        index.data.reserve(rows.len() * dim);
        index.codes.reserve(rows.len() * dim);
        index.scales.reserve(rows.len());
        for (id, v) in rows {
            index.push(id, &v);
        }
        Ok(index)
    }

    fn push(&mut self, id: i64, v: &[f32]) {
        if self.dim == 0 {
            self.dim = v.len();
        }
        // A vector of another width cannot be compared; the binding check
        // reloads the whole index when the model changes.
        if v.len() == self.dim && self.dim > 0 {
            self.ids.push(id);
            self.data.extend_from_slice(v);
            let (scale, _) = quantize(v, &mut self.codes);
            self.scales.push(scale);
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Rebuilds the arrays keeping the entries at `order` (in that order).
    fn reorder(&mut self, order: &[usize]) {
        let dim = self.dim;
        let mut next = VectorIndex {
            dim,
            ids: Vec::with_capacity(order.len()),
            data: Vec::with_capacity(order.len() * dim),
            codes: Vec::with_capacity(order.len() * dim),
            scales: Vec::with_capacity(order.len()),
        };
        for &i in order {
            next.ids.push(self.ids[i]);
            next.data
                .extend_from_slice(&self.data[i * dim..(i + 1) * dim]);
            next.codes
                .extend_from_slice(&self.codes[i * dim..(i + 1) * dim]);
            next.scales.push(self.scales[i]);
        }
        *self = next;
    }

    /// Brings the index in step with the chunks table after other writers
    /// committed: drops vectors of deleted chunks and fetches those of new
    /// ones by id. Chunk ids only grow (AUTOINCREMENT), so a changed
    /// document shows up as removed ids plus new ones. Returns `None` when
    /// so much changed that a full [`VectorIndex::load`] is cheaper.
    pub fn refresh(&mut self, db: &Database) -> Result<Option<RefreshStats>> {
        let current = db.chunk_ids()?;
        let current_set: HashSet<i64> = current.iter().copied().collect();
        let loaded: HashSet<i64> = self.ids.iter().copied().collect();
        let new_ids: Vec<i64> = current
            .iter()
            .copied()
            .filter(|id| !loaded.contains(id))
            .collect();
        if new_ids.len() > 256 && new_ids.len() * 4 > current.len() {
            return Ok(None);
        }
        let mut stats = RefreshStats::default();
        let keep: Vec<usize> = (0..self.ids.len())
            .filter(|&i| current_set.contains(&self.ids[i]))
            .collect();
        if keep.len() < self.ids.len() {
            stats.removed = self.ids.len() - keep.len();
            self.reorder(&keep);
        }
        let before = self.ids.len();
        let mut fetched: Vec<(i64, Vec<f32>)> = Vec::new();
        db.vectors_by_id(&new_ids, |id, v| fetched.push((id, v.to_vec())))?;
        let needs_sort = fetched
            .first()
            .is_some_and(|f| self.ids.last().is_some_and(|last| f.0 < *last));
        for (id, v) in fetched {
            self.push(id, &v);
        }
        stats.added = self.ids.len() - before;
        if needs_sort {
            let mut order: Vec<usize> = (0..self.ids.len()).collect();
            order.sort_unstable_by_key(|&i| self.ids[i]);
            self.reorder(&order);
        }
        Ok(Some(stats))
    }

    /// [`VectorIndex::search`] among the chunks `allowed`.
    pub fn search_among(&self, query: &[f32], allowed: &Allowed, k: usize) -> Vec<VectorHit> {
        match allowed {
            Allowed::All => self.search(query, None, k),
            Allowed::Only(ids) if ids.is_empty() => Vec::new(),
            Allowed::Only(ids) => self.search(query, Some(ids), k),
        }
    }

    /// The `k` vectors most similar to `query` (all, or those in `allowed`),
    /// best first, with exact cosines.
    pub fn search(
        &self,
        query: &[f32],
        allowed: Option<&HashSet<i64>>,
        k: usize,
    ) -> Vec<VectorHit> {
        let dim = self.dim;
        if dim == 0 || query.len() != dim || k == 0 {
            return Vec::new();
        }
        let mut q = Vec::with_capacity(dim);
        quantize(query, &mut q);
        // Enough candidates that int8 rounding cannot push a true top-k
        // vector out: the gap it would have to cross is far larger than
        // the rounding error (about 0.002 in cosine).
        let candidates = (k * 4).max(200);
        // The best `candidates` of the vectors in `range`, by their codes.
        let best = |range: std::ops::Range<usize>| {
            let mut approx: Vec<(f32, u32)> = range
                .filter(|i| allowed.is_none_or(|a| a.contains(&self.ids[*i])))
                .map(|i| {
                    let c = &self.codes[i * dim..(i + 1) * dim];
                    (dot_i8(&q, c) as f32 * self.scales[i], i as u32)
                })
                .collect();
            if approx.len() > candidates {
                approx.select_nth_unstable_by(candidates, |a, b| b.0.total_cmp(&a.0));
                approx.truncate(candidates);
            }
            approx
        };
        let n = self.ids.len();
        // A large index is scanned in two halves, one on another thread: at
        // a million chunks one thread takes ~50 ms.
        let approx = if n >= PARALLEL_SCAN {
            let (first, second) = std::thread::scope(|s| {
                let other = s.spawn(|| best(n / 2..n));
                (best(0..n / 2), other.join())
            });
            match second {
                Ok(mut second) => {
                    second.extend(first);
                    second
                }
                // A panicking half loses nothing: scan it here.
                Err(_) => {
                    let mut all = first;
                    all.extend(best(n / 2..n));
                    all
                }
            }
        } else {
            best(0..n)
        };
        let hits = approx
            .iter()
            .map(|&(_, i)| {
                let i = i as usize;
                VectorHit {
                    chunk_id: self.ids[i],
                    cosine: dot(query, &self.data[i * dim..(i + 1) * dim]),
                }
            })
            .collect();
        top_k(hits, k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `n` random vectors and the vectors themselves.
    fn random_index(n: i64, dim: usize, seed: u64) -> (VectorIndex, Vec<(i64, Vec<f32>)>) {
        let mut next = crate::db::test_support::unit_vectors(seed, dim);
        let mut index = VectorIndex::default();
        let all: Vec<(i64, Vec<f32>)> = (0..n).map(|id| (id, next())).collect();
        for (id, v) in &all {
            index.push(*id, v);
        }
        (index, all)
    }

    /// The top `k` of `all` for `q` by brute force.
    fn exact(all: &[(i64, Vec<f32>)], q: &[f32], k: usize) -> Vec<VectorHit> {
        let hits = all
            .iter()
            .map(|(id, v)| VectorHit {
                chunk_id: *id,
                cosine: dot(q, v),
            })
            .collect();
        top_k(hits, k)
    }

    #[test]
    fn int8_candidates_give_the_exact_top_k() {
        let dim = 384;
        let (mut index, all) = random_index(3000, dim, 42);
        let mut next = crate::db::test_support::unit_vectors(43, dim);
        for _ in 0..5 {
            let q = next();
            let exact = exact(&all, &q, 30);
            assert_eq!(index.search(&q, None, 30), exact);
            let allowed: HashSet<i64> = (0..3000).filter(|i| i % 3 == 0).collect();
            let got = index.search(&q, Some(&allowed), 30);
            assert_eq!(got.len(), 30);
            assert!(got.iter().all(|h| allowed.contains(&h.chunk_id)));
        }
        let mut order: Vec<usize> = (0..index.len()).rev().collect();
        order.truncate(10);
        index.reorder(&order);
        assert_eq!(index.len(), 10);
        assert_eq!(index.ids[0], 2999);
        assert_eq!(index.data.len(), 10 * dim);
        assert_eq!(index.codes.len(), 10 * dim);
    }

    #[test]
    fn a_large_index_scanned_in_two_halves_gives_the_exact_top_k() {
        let (index, all) = random_index(PARALLEL_SCAN as i64 + 1, 16, 7);
        let mut next = crate::db::test_support::unit_vectors(8, 16);
        for _ in 0..3 {
            let q = next();
            let exact = exact(&all, &q, 10);
            assert_eq!(index.search(&q, None, 10), exact);
        }
    }
}
