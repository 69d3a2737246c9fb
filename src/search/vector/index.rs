//! The in-memory vector index of a long-running process (`kb mcp`): every
//! vector's int8 code loaded once, refreshed as documents come and go. A
//! search scans the codes in memory and re-scores its candidates with their
//! exact floats from the database, as a one-shot search does
//! ([`super::search_codes`]), so both give the same results.

use std::collections::{HashMap, HashSet};

use super::codes::{exact_top_k, Approx, CodeSink, QueryCode, Scorer};
use super::floats::FloatVectors;
use crate::db::{Database, Filters, VectorHit};
use crate::error::Result;
use crate::search::allowed::Allowed;
use crate::vector_math::{quantize, VectorCode};

/// Vectors from which [`VectorIndex::scan`] uses two threads.
const PARALLEL_SCAN: usize = 100_000;

/// Up to this many vectors the index also keeps their floats (1.5 KB each
/// at 384 dimensions: 300 MB at the limit), so candidates are re-scored
/// without reading vec0 (about 20 µs a vector: 4 ms of a 10 ms search at
/// 20,000 chunks).
const FLOATS_UP_TO: usize = 200_000;

/// Ranks with an in-memory index, the filters applied before ranking.
pub fn search_in(
    index: &VectorIndex,
    db: &Database,
    query: &[f32],
    filters: &Filters,
    k: usize,
) -> Result<Vec<VectorHit>> {
    let (scored, ()) = index.scan(query, &Allowed::of(db, filters)?, k, || ());
    exact_top_k(&index.floats(db), query, scored, k)
}

/// The floats of an index's candidates: its own, or else the database's.
pub struct IndexFloats<'a> {
    index: &'a VectorIndex,
    db: &'a Database,
}

impl FloatVectors for IndexFloats<'_> {
    fn floats_by_id(&self, ids: &[i64], f: &mut dyn FnMut(i64, &[f32])) -> Result<()> {
        match &self.index.floats {
            Some(floats) => {
                for id in ids {
                    if let Some(v) = floats.get(id) {
                        f(*id, v);
                    }
                }
                Ok(())
            }
            None => self.db.vectors_by_id(ids, f),
        }
    }
}

/// Every stored vector's code in memory (int8 values, scale and error
/// bound: 392 bytes for 384 dimensions, a quarter of the floats). At a
/// million chunks that is 0.4 GB, read from the code blocks in about a
/// second; the floats (1.5 GB) stay in the database, and only the
/// candidates' are read.
#[derive(Debug, Default, Clone)]
pub struct VectorIndex {
    dim: usize,
    ids: Vec<i64>,
    codes: Vec<i8>,
    scales: Vec<f32>,
    errors: Vec<f32>,
    /// Every vector's floats, in a small index ([`FLOATS_UP_TO`]).
    floats: Option<HashMap<i64, Box<[f32]>>>,
    /// Every chunk had a code here when last read (none was waiting for
    /// its vector), so a later chunk count tells whether any was removed.
    covers_all: bool,
}

/// What [`VectorIndex::refresh`] changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RefreshStats {
    pub added: usize,
    pub removed: usize,
}

impl VectorIndex {
    /// Reads every vector's code (in the caller's read snapshot).
    pub fn load(db: &Database) -> Result<VectorIndex> {
        let mut index = Self::load_codes(db, db.chunk_count()?)?;
        if index.len() <= FLOATS_UP_TO {
            let mut floats = HashMap::with_capacity(index.len());
            db.for_each_vector(|id, v| {
                floats.insert(id, v.into());
            })?;
            index.floats = Some(floats);
        }
        Ok(index)
    }

    /// Every vector's code without the floats (the candidates' are read
    /// from the database), in the caller's read snapshot, which holds
    /// `chunks` chunks.
    pub fn load_codes(db: &Database, chunks: i64) -> Result<VectorIndex> {
        let mut index = VectorIndex::default();
        // Sized once for every chunk: grown by doubling, the codes were
        // copied and faulted in about twice over.
        let expected = usize::try_from(chunks).unwrap_or(0);
        index.ids.reserve(expected);
        index.scales.reserve(expected);
        index.errors.reserve(expected);
        db.for_each_code(|id, code| {
            if index.dim == 0 {
                index.codes.reserve(expected * code.codes.len());
            }
            index.push(id, code)
        })?;
        index.covers_all = index.len() as i64 == chunks;
        Ok(index)
    }

    /// The floats its candidates are re-scored with.
    pub fn floats<'a>(&'a self, db: &'a Database) -> IndexFloats<'a> {
        IndexFloats { index: self, db }
    }

    fn push(&mut self, id: i64, code: VectorCode<'_>) {
        if self.dim == 0 {
            self.dim = code.codes.len();
        }
        // A code of another width cannot be compared; the binding check
        // reloads the whole index when the model changes.
        if code.codes.len() == self.dim && self.dim > 0 {
            self.ids.push(id);
            self.codes.extend_from_slice(code.codes);
            self.scales.push(code.scale);
            self.errors.push(code.error);
        }
    }

    fn code(&self, i: usize) -> VectorCode<'_> {
        VectorCode {
            scale: self.scales[i],
            error: self.errors[i],
            codes: &self.codes[i * self.dim..(i + 1) * self.dim],
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

    /// Keeps the codes at `order` (in that order); the floats, keyed by id,
    /// are the caller's to prune.
    fn reorder(&mut self, order: &[usize]) {
        let mut next = VectorIndex {
            dim: self.dim,
            ids: Vec::with_capacity(order.len()),
            codes: Vec::with_capacity(order.len() * self.dim),
            scales: Vec::with_capacity(order.len()),
            errors: Vec::with_capacity(order.len()),
            floats: self.floats.take(),
            covers_all: self.covers_all,
        };
        for &i in order {
            next.push(self.ids[i], self.code(i));
        }
        *self = next;
    }

    /// Brings the index in step with the chunks table after other writers
    /// committed: drops the codes of deleted chunks and makes those of new
    /// ones from their vectors, read by id (the same codes as stored: the
    /// write path encodes the same floats). Chunk ids only grow
    /// (AUTOINCREMENT), so a changed document shows up as removed ids plus
    /// new ones. Returns `None` when so much changed that a full
    /// [`VectorIndex::load`] is cheaper.
    pub fn refresh(&mut self, db: &Database) -> Result<Option<RefreshStats>> {
        let last = self.ids.iter().copied().max().unwrap_or(i64::MIN);
        let new_ids = db.chunk_ids_after(last)?;
        let chunks = db.chunk_count()? as usize;
        if crate::search::allowed::reload_is_cheaper(new_ids.len(), chunks) {
            return Ok(None);
        }
        // When every chunk had a code here and the chunks are those plus the
        // new ones (ids only grow), nothing was removed: told without
        // reading a million ids (any other process's commit, even a search
        // log line, brings the server here).
        if self.covers_all && self.ids.len() + new_ids.len() == chunks {
            let added = self.add_new(db, &new_ids)?;
            self.covers_all = added == new_ids.len();
            return Ok(Some(RefreshStats { added, removed: 0 }));
        }
        // Otherwise the chunks are compared by id: removed ones go, and any
        // chunk without a code here is new (also an older one whose vector
        // came later).
        let current = db.chunk_ids()?;
        let current_set: HashSet<i64> = current.iter().copied().collect();
        let loaded: HashSet<i64> = self.ids.iter().copied().collect();
        let new_ids: Vec<i64> = current
            .iter()
            .copied()
            .filter(|id| !loaded.contains(id))
            .collect();
        let mut stats = RefreshStats::default();
        let keep: Vec<usize> = (0..self.ids.len())
            .filter(|&i| current_set.contains(&self.ids[i]))
            .collect();
        if keep.len() < self.ids.len() {
            stats.removed = self.ids.len() - keep.len();
            self.reorder(&keep);
            if let Some(floats) = self.floats.as_mut() {
                floats.retain(|id, _| current_set.contains(id));
            }
        }
        stats.added = self.add_new(db, &new_ids)?;
        self.covers_all = self.len() == current.len();
        Ok(Some(stats))
    }

    /// Makes the codes of new chunks from their vectors (the same codes as
    /// stored: the write path encodes the same floats); how many it added.
    fn add_new(&mut self, db: &Database, new_ids: &[i64]) -> Result<usize> {
        let before = self.ids.len();
        let mut codes = Vec::new();
        let mut floats = self.floats.take();
        db.vectors_by_id(new_ids, |id, v| {
            if let Some(floats) = floats.as_mut() {
                floats.insert(id, v.into());
            }
            codes.clear();
            let (scale, error) = quantize(v, &mut codes);
            self.push(
                id,
                VectorCode {
                    scale,
                    error,
                    codes: &codes,
                },
            );
        })?;
        self.floats = floats.filter(|_| self.len() <= FLOATS_UP_TO);
        Ok(self.ids.len() - before)
    }

    /// Scores every allowed code for `query`: the vectors that can still
    /// reach the top `k` (for [`rescore`]), and the sink `sink` made, which
    /// saw every allowed code. A large index is scanned in two halves, one
    /// on another thread (at a million chunks one thread takes ~50 ms).
    pub fn scan<S: CodeSink>(
        &self,
        query: &[f32],
        allowed: &Allowed,
        k: usize,
        sink: impl Fn() -> S + Sync,
    ) -> (Vec<Approx>, S) {
        self.scan_from(query, allowed, k, sink, PARALLEL_SCAN)
    }

    /// [`VectorIndex::scan`], in two halves from `parallel_from` vectors.
    fn scan_from<S: CodeSink>(
        &self,
        query: &[f32],
        allowed: &Allowed,
        k: usize,
        sink: impl Fn() -> S + Sync,
        parallel_from: usize,
    ) -> (Vec<Approx>, S) {
        let allowed = match allowed {
            Allowed::All => None,
            Allowed::Only(ids) if ids.is_empty() => return (Vec::new(), sink()),
            Allowed::Only(ids) => Some(ids),
        };
        if self.dim == 0 || query.len() != self.dim || k == 0 {
            return (Vec::new(), sink());
        }
        let q = QueryCode::new(query);
        let part = |range: std::ops::Range<usize>| {
            let mut scorer = Scorer::new(&q, allowed, k, sink());
            for i in range {
                scorer.add(self.ids[i], self.code(i));
            }
            scorer.finish()
        };
        let n = self.ids.len();
        if n < parallel_from.max(2) {
            return part(0..n);
        }
        let (first, second) = std::thread::scope(|s| {
            let other = s.spawn(|| part(n / 2..n));
            (part(0..n / 2), other.join())
        });
        // A panicking half loses nothing: it is scanned here.
        let (theirs, their_sink) = second.unwrap_or_else(|_| part(n / 2..n));
        let (mut scored, mut sink) = first;
        scored.extend(theirs);
        sink.merge(their_sink);
        (scored, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::test_support::{bound_database, unit_vectors, write_note};
    use crate::search::vector::scan as exact_scan;

    /// `notes` notes of 100 chunks each, their vectors drawn from `next`.
    fn write_notes(db: &Database, next: &mut impl FnMut() -> Vec<f32>, notes: usize) {
        for d in 0..notes {
            let vectors: Vec<Vec<f32>> = (0..100).map(|_| next()).collect();
            write_note(db, &format!("/d{d}"), "h", &vectors);
        }
    }

    /// Every entry, sorted by chunk id (to compare two indexes).
    fn entries(index: &VectorIndex) -> Vec<(i64, Vec<i8>, f32, f32)> {
        let mut all: Vec<_> = (0..index.len())
            .map(|i| {
                let c = index.code(i);
                (index.ids[i], c.codes.to_vec(), c.scale, c.error)
            })
            .collect();
        all.sort_by_key(|e| e.0);
        all
    }

    /// The bottom of the vector ranker's scale is the same value whether
    /// the codes are scanned in memory (in one part or two) or from the
    /// database: the score by code at the depth.
    #[test]
    fn the_score_at_the_scale_depth_does_not_depend_on_where_the_codes_are() {
        use crate::search::vector::depth::{score_at_depth, DepthSink};
        let dir = tempfile::tempdir().unwrap();
        let dim = 64;
        let db = bound_database(dir.path(), dim);
        let mut next = unit_vectors(7, dim);
        write_notes(&db, &mut next, 12);
        let index = VectorIndex::load(&db).unwrap();
        for _ in 0..3 {
            let q = next();
            let code = QueryCode::new(&q);
            let mut all = Vec::new();
            db.for_each_code(|id, c| all.push(code.score(id, c).unwrap().approx))
                .unwrap();
            for depth in [1, 30, 900, 5000] {
                let want = score_at_depth(all.iter().copied(), depth);
                assert!(want.is_some());
                let from_db =
                    super::super::search_to_depth(&db, &q, &Filters::default(), 10, depth)
                        .unwrap()
                        .1;
                assert_eq!(from_db, want, "depth {depth}");
                for parallel_from in [1, usize::MAX] {
                    let sink = || DepthSink::new(depth);
                    let (_, got) = index.scan_from(&q, &Allowed::All, 10, sink, parallel_from);
                    assert_eq!(got.score(), want, "depth {depth}");
                }
            }
        }
    }

    #[test]
    fn the_in_memory_codes_give_the_exact_top_k() {
        let dir = tempfile::tempdir().unwrap();
        let dim = 384;
        let db = bound_database(dir.path(), dim);
        let mut next = unit_vectors(42, dim);
        // Two sealed blocks and codes still waiting.
        write_notes(&db, &mut next, 25);
        let index = VectorIndex::load(&db).unwrap();
        assert_eq!(index.len(), 2500);
        for _ in 0..5 {
            let q = next();
            for k in [1, 10, 30, 300] {
                let exact = exact_scan(&db, &q, None, k).unwrap();
                assert_eq!(
                    search_in(&index, &db, &q, &Filters::default(), k).unwrap(),
                    exact
                );
                // In two halves.
                let (scored, ()) = index.scan_from(&q, &Allowed::All, k, || (), 1);
                assert_eq!(
                    exact_top_k(&index.floats(&db), &q, scored, k).unwrap(),
                    exact
                );
            }
            let allowed: HashSet<i64> = index.ids.iter().copied().filter(|i| i % 3 == 0).collect();
            let (scored, ()) = index.scan(&q, &Allowed::Only(allowed.clone()), 30, || ());
            assert_eq!(
                exact_top_k(&index.floats(&db), &q, scored, 30).unwrap(),
                exact_scan(&db, &q, Some(&allowed), 30).unwrap()
            );
            let none = Allowed::Only(HashSet::new());
            assert!(index.scan(&q, &none, 30, || ()).0.is_empty());
        }
    }

    #[test]
    fn a_refreshed_index_equals_a_fresh_load() {
        let dir = tempfile::tempdir().unwrap();
        let dim = 16;
        let db = bound_database(dir.path(), dim);
        let mut next = unit_vectors(5, dim);
        write_notes(&db, &mut next, 12);
        let mut index = VectorIndex::load(&db).unwrap();
        // One document removed from a sealed block, one rewritten, one new.
        let gone = db.find_document_by_path("/d2").unwrap().unwrap().id;
        db.remove_documents(&[gone]).unwrap();
        let vectors: Vec<Vec<f32>> = (0..100).map(|_| next()).collect();
        write_note(&db, "/d5", "h2", &vectors);
        let vectors: Vec<Vec<f32>> = (0..40).map(|_| next()).collect();
        write_note(&db, "/new", "h", &vectors);
        let stats = index.refresh(&db).unwrap().unwrap();
        assert_eq!(
            stats,
            RefreshStats {
                added: 140,
                removed: 200
            }
        );
        let loaded = VectorIndex::load(&db).unwrap();
        assert_eq!(entries(&index), entries(&loaded));
        let keys = |i: &VectorIndex| {
            let mut k: Vec<i64> = i.floats.as_ref().unwrap().keys().copied().collect();
            k.sort_unstable();
            k
        };
        assert_eq!(keys(&index), keys(&loaded));
        let q = next();
        assert_eq!(
            search_in(&index, &db, &q, &Filters::default(), 20).unwrap(),
            exact_scan(&db, &q, None, 20).unwrap()
        );
        // Only new chunks: told by the count, without comparing ids.
        assert!(index.covers_all);
        let vectors: Vec<Vec<f32>> = (0..30).map(|_| next()).collect();
        write_note(&db, "/newer", "h", &vectors);
        let stats = index.refresh(&db).unwrap().unwrap();
        assert_eq!(
            stats,
            RefreshStats {
                added: 30,
                removed: 0
            }
        );
        assert_eq!(entries(&index), entries(&VectorIndex::load(&db).unwrap()));
        // A chunk without a vector leaves the index not covering every
        // chunk, so the next refresh compares ids again.
        db.write_document(
            &crate::db::test_support::note("/bare", "h"),
            &crate::db::test_support::chunks("bare", 2),
            None,
        )
        .unwrap();
        index.refresh(&db).unwrap();
        assert!(!index.covers_all);
        let gone = db.find_document_by_path("/newer").unwrap().unwrap().id;
        db.remove_documents(&[gone]).unwrap();
        let stats = index.refresh(&db).unwrap().unwrap();
        assert_eq!(stats.removed, 30);
        assert_eq!(entries(&index), entries(&VectorIndex::load(&db).unwrap()));
    }
}
