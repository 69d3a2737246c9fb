//! The candidate pool of a hybrid search: the int8 codes of the first
//! query's nearest chunks, kept by the scan so the query refined by
//! feedback is ranked among them without a second scan.

use std::cmp::Ordering;

use super::codes::{exact_top_k, Approx, CodeSink, QueryCode};
use super::depth::score_at_depth;
use super::floats::FloatVectors;
use crate::db::VectorHit;
use crate::error::Result;
use crate::vector_math::VectorCode;

/// How many of the first query's nearest chunks (by int8 code) the refined
/// query is ranked among: at least 4,000, and 10 per candidate asked for.
/// A second full scan of the codes cost about 10 ms in a fresh process at
/// 20,000 chunks; ranking this pool costs well under one. The refined query
/// is a mix of the query and its best results, so its nearest chunks lie
/// among the first query's nearest: on NFCorpus dev (9,190 chunks) the pool
/// gives what the full second scan gave (docs/benchmarks.md, Retrieval quality).
pub(super) fn pool_size(k: usize) -> usize {
    (k * 10).max(4000)
}

/// The int8 codes of a first search's nearest candidates.
pub struct CandidatePool {
    entries: Vec<PoolEntry>,
    /// Entry i's code is `codes[i * dim..(i + 1) * dim]`.
    codes: Vec<i8>,
    dim: usize,
}

#[derive(Debug, Clone, Copy)]
struct PoolEntry {
    approx: f32,
    id: i64,
    scale: f32,
    error: f32,
}

/// Stronger first: the higher approximate score; of equal scores the lower
/// chunk id, so the pool does not depend on the order the codes were
/// scanned in.
fn stronger(a: &PoolEntry, b: &PoolEntry) -> Ordering {
    b.approx.total_cmp(&a.approx).then(a.id.cmp(&b.id))
}

impl CandidatePool {
    /// The exact best `k` of the pool for `query`: ranked by the codes,
    /// then re-scored with their floats as [`super::search_codes`]
    /// does, so the result is that of an exact scan of the pool; with the
    /// score by code at `depth` of the pool (the bottom of the refined
    /// list's scale; 0: none).
    pub fn rank(
        &self,
        db: &dyn FloatVectors,
        query: &[f32],
        k: usize,
        depth: usize,
    ) -> Result<(Vec<VectorHit>, Option<f64>)> {
        if k == 0 {
            return Ok((Vec::new(), None));
        }
        let q = QueryCode::new(query);
        let scored: Vec<Approx> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let code = VectorCode {
                    scale: e.scale,
                    error: e.error,
                    codes: &self.codes[i * self.dim..(i + 1) * self.dim],
                };
                q.score(e.id, code)
            })
            .collect();
        let bottom = score_at_depth(scored.iter().map(|a| a.approx), depth);
        // Only the k best are read first (the refined query's order is
        // mostly settled by the codes); the bound adds any doubtful ones.
        Ok((exact_top_k(db, query, scored, k)?, bottom))
    }
}

/// The [`pool_size`] nearest codes seen so far. Entries are appended and,
/// when twice the size are held, cut back to the best `size` (a selection,
/// not a sort); the weakest kept then bars weaker codes at the door. At a
/// million chunks a heap that kept the pool exactly cost a pop and an
/// allocation for each of ~22,000 admissions.
pub(crate) struct PoolSink {
    size: usize,
    entries: Vec<PoolEntry>,
    codes: Vec<i8>,
    dim: usize,
    /// The weakest entry kept at the last cut.
    floor: Option<PoolEntry>,
    /// The buffers of the cut before, reused by the next: a fresh pair per
    /// cut was memory the kernel had to map and zero again.
    spare: (Vec<PoolEntry>, Vec<i8>),
}

impl PoolSink {
    /// A sink for a scan ranking `k` candidates.
    pub(crate) fn new(k: usize) -> PoolSink {
        PoolSink::with_size(pool_size(k))
    }

    fn with_size(size: usize) -> PoolSink {
        PoolSink {
            size: size.max(1),
            entries: Vec::new(),
            codes: Vec::new(),
            dim: 0,
            floor: None,
            spare: Default::default(),
        }
    }

    pub(crate) fn into_pool(mut self) -> CandidatePool {
        self.cut();
        CandidatePool {
            entries: self.entries,
            codes: self.codes,
            dim: self.dim,
        }
    }

    fn keep(&mut self, entry: PoolEntry, code: &[i8]) {
        if self
            .floor
            .is_some_and(|f| stronger(&entry, &f) != Ordering::Less)
        {
            return;
        }
        if self.entries.is_empty() {
            self.dim = code.len();
            // What it holds before its first cut, allocated once.
            self.entries.reserve(2 * self.size);
            self.codes.reserve(2 * self.size * self.dim);
        }
        if code.len() != self.dim {
            return;
        }
        self.entries.push(entry);
        self.codes.extend_from_slice(code);
        if self.entries.len() >= 2 * self.size {
            self.cut();
        }
    }

    /// Keeps the best `size` entries.
    fn cut(&mut self) {
        if self.entries.len() <= self.size {
            return;
        }
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.select_nth_unstable_by(self.size - 1, |&a, &b| {
            stronger(&self.entries[a], &self.entries[b])
        });
        order.truncate(self.size);
        // Room for the entries up to the next cut, so the pool never grows
        // by copying.
        let (mut entries, mut codes) = std::mem::take(&mut self.spare);
        entries.clear();
        codes.clear();
        entries.reserve(2 * self.size);
        codes.reserve(2 * self.size * self.dim);
        for &i in &order {
            codes.extend_from_slice(&self.codes[i * self.dim..(i + 1) * self.dim]);
            entries.push(self.entries[i]);
        }
        self.floor = entries.last().copied();
        let entries = std::mem::replace(&mut self.entries, entries);
        self.spare = (entries, std::mem::replace(&mut self.codes, codes));
    }
}

impl CodeSink for PoolSink {
    fn add(&mut self, id: i64, approx: f32, code: VectorCode<'_>) {
        let entry = PoolEntry {
            approx,
            id,
            scale: code.scale,
            error: code.error,
        };
        self.keep(entry, code.codes);
    }

    fn merge(&mut self, other: Self) {
        for (i, e) in other.entries.iter().enumerate() {
            self.keep(*e, &other.codes[i * other.dim..(i + 1) * other.dim]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::codes::scan_codes;
    use super::*;

    /// Two connections sharing the blocks keep the same pool as one.
    #[test]
    fn the_pool_does_not_depend_on_how_the_scan_was_split() {
        use crate::db::test_support::{bound_database, write_note};
        let dir = tempfile::tempdir().unwrap();
        let db = bound_database(dir.path(), 8);
        for d in 0..25 {
            // Few distinct vectors, so many codes tie.
            let vectors: Vec<Vec<f32>> = (0..100)
                .map(|i| {
                    let mut v: Vec<f32> = (0..8).map(|j| ((i % 7 + j * 3) % 5) as f32).collect();
                    v[0] += 0.1;
                    crate::vector_math::normalize(&mut v);
                    v
                })
                .collect();
            write_note(&db, &format!("/d{d}"), "h", &vectors);
        }
        let mut q = vec![1.0, 0.5, 0.0, 0.2, 0.0, 0.0, 0.3, 0.1];
        crate::vector_math::normalize(&mut q);
        let pool = |parallel_from| {
            let sink = || PoolSink::with_size(150);
            let (scored, p) = scan_codes(&db, &q, None, 10, sink, parallel_from).unwrap();
            let hits = exact_top_k(&db, &q, scored, 10).unwrap();
            let mut ids: Vec<i64> = p.into_pool().entries.iter().map(|e| e.id).collect();
            ids.sort_unstable();
            (hits, ids)
        };
        let one = pool(usize::MAX);
        assert_eq!(one.1.len(), 150);
        for _ in 0..5 {
            assert_eq!(pool(1), one);
        }
        // The pool is the best 150 codes, ties by chunk id.
        let code = QueryCode::new(&q);
        let mut all: Vec<PoolEntry> = Vec::new();
        db.for_each_code(|id, c| {
            let a = code.score(id, c).unwrap();
            all.push(PoolEntry {
                approx: a.approx,
                id,
                scale: c.scale,
                error: c.error,
            });
        })
        .unwrap();
        all.sort_by(stronger);
        let mut best: Vec<i64> = all[..150].iter().map(|e| e.id).collect();
        best.sort_unstable();
        assert_eq!(one.1, best);
    }
}
