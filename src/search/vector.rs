//! The vector ranker: the chunks whose vectors are most cosine-similar to
//! the query, with the filters applied before ranking.
//!
//! A one-shot `kb search` scans the compact int8 codes (`db::codes`: blocks
//! of 1,024 per row) and re-scores the candidates exactly ([`search_codes`]); streaming every
//! float vector out of vec0 into a Rust scan would cost about 185 ms at
//! 20,000 chunks, because vec0 returns vectors row by row. A long-running
//! process (`kb mcp`) reads the codes once and keeps them in a
//! [`VectorIndex`](super::vector_index::VectorIndex); both score the codes
//! with one [`Scorer`] and re-score the candidates the same way.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use crate::db::{quantize, Database, Filters, VectorCode, VectorHit};
use crate::error::{KbError, Result};

pub use super::vector_index::{search_in, RefreshStats, VectorIndex};

pub fn search(db: &Database, query: &[f32], filters: &Filters, k: usize) -> Result<Vec<VectorHit>> {
    let allowed: Option<HashSet<i64>> = if filters.is_empty() {
        None
    } else {
        let ids = db.filtered_chunk_ids(filters)?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        Some(ids.into_iter().collect())
    };
    search_codes(db, query, allowed.as_ref(), k)
}

/// The exact top `k` by cosine, read through the compact codes: one pass
/// over the codes scores every vector approximately with a proven
/// error bound, the best candidates are re-scored with their exact floats,
/// and any vector whose upper bound could still reach the k-th exact score
/// is re-scored too. The result is that of a full float scan (same chunks,
/// same order, same cosines). In a fresh process at 20,000 chunks: about
/// 6 ms for the codes and 4 ms re-scoring 200 vectors read from vec0 by id,
/// against 12-19 ms for vec0's own scan (with SQLite's mmap on; without it
/// the by-id reads cost 20 ms).
pub fn search_codes(
    db: &Database,
    query: &[f32],
    allowed: Option<&HashSet<i64>>,
    k: usize,
) -> Result<Vec<VectorHit>> {
    Ok(search_codes_with(db, db, query, allowed, k, || ())?.0)
}

/// What a scan of the codes hands every allowed chunk's approximate score
/// and code to, besides the ranking (the feedback pool). A scan on two
/// connections fills one per connection and merges them.
pub trait CodeSink: Send {
    fn add(&mut self, id: i64, approx: f32, code: VectorCode<'_>);
    fn merge(&mut self, other: Self);
}

impl CodeSink for () {
    fn add(&mut self, _: i64, _: f32, _: VectorCode<'_>) {}
    fn merge(&mut self, _: Self) {}
}

/// A sink or none (chosen per search).
impl<S: CodeSink> CodeSink for Option<S> {
    fn add(&mut self, id: i64, approx: f32, code: VectorCode<'_>) {
        if let Some(s) = self {
            s.add(id, approx, code);
        }
    }
    fn merge(&mut self, other: Self) {
        match (self.as_mut(), other) {
            (Some(s), Some(o)) => s.merge(o),
            (None, o) => *self = o,
            (Some(_), None) => {}
        }
    }
}

/// Blocks of codes from which a second connection scans half of them: a
/// connection costs a millisecond or two, a block about 0.2 ms.
const PARALLEL_BLOCKS: usize = 32;

/// [`search_codes`], also filling a [`CodeSink`] (made by `sink`). From
/// [`PARALLEL_BLOCKS`] blocks on, a second connection on another thread
/// takes blocks from the same list: at a million chunks the scan is ~190 ms
/// of CPU, and a fresh `kb search` has the second core free once its
/// keyword ranker is done.
pub fn search_codes_with<S: CodeSink>(
    db: &Database,
    floats: &dyn FloatVectors,
    query: &[f32],
    allowed: Option<&HashSet<i64>>,
    k: usize,
    sink: impl Fn() -> S + Sync,
) -> Result<(Vec<VectorHit>, S)> {
    let (scored, part) = scan_codes(db, query, allowed, k, sink, PARALLEL_BLOCKS)?;
    Ok((exact_top_k(floats, query, scored, k)?, part))
}

/// The scan of [`search_codes_with`] (the candidates, before their exact
/// re-score), with a second connection from `parallel_from` blocks on.
pub(crate) fn scan_codes<S: CodeSink>(
    db: &Database,
    query: &[f32],
    allowed: Option<&HashSet<i64>>,
    k: usize,
    sink: impl Fn() -> S + Sync,
    parallel_from: usize,
) -> Result<(Vec<Approx>, S)> {
    if k == 0 || query.is_empty() {
        return Ok((Vec::new(), sink()));
    }
    let q = QueryCode::new(query);
    // One snapshot for the block list, this connection's share of the
    // blocks and the codes still waiting (a writer may seal or rewrite
    // blocks meanwhile); a second connection scans only if it sees the
    // same generation of blocks.
    let _snapshot = db.read_snapshot()?;
    let generation = db.code_generation()?;
    let blocks = db.code_blocks()?;
    let removed = db.removed_codes()?;
    let next = AtomicUsize::new(0);
    let take = || blocks.get(next.fetch_add(1, AtomicOrdering::Relaxed));
    let scan = |db: &Database, waiting: bool| -> Result<(Vec<Approx>, S)> {
        let mut scorer = Scorer::new(&q, allowed, k, sink());
        db.scan_code_blocks(take, &removed, |id, code| scorer.add(id, code))?;
        if waiting {
            db.scan_waiting_codes(|id, code| scorer.add(id, code))?;
        }
        Ok(scorer.finish())
    };
    let scan = &scan;
    std::thread::scope(|s| -> Result<_> {
        let helper = (blocks.len() >= parallel_from).then(|| {
            let reopener = db.reopener();
            s.spawn(move || {
                // Without a connection, or with other blocks (a writer
                // committed in between), this one scans everything.
                let Ok(own) = reopener.open() else {
                    return Ok(None);
                };
                let _snapshot = own.read_snapshot()?;
                if own.code_generation()? != generation {
                    return Ok(None);
                }
                scan(&own, false).map(Some)
            })
        });
        let (mut scored, mut part) = scan(db, true)?;
        if let Some(helper) = helper {
            let theirs = helper
                .join()
                .map_err(|_| KbError::Db("the vector scan thread crashed".into()))??;
            if let Some((their_scores, their_part)) = theirs {
                scored.extend(their_scores);
                part.merge(their_part);
            }
        }
        Ok((scored, part))
    })
}

/// The query's own int8 code, and what bounds a score read through codes:
/// |q·v - q̂·v̂| <= |q - q̂|·|v| + |q̂|·|v - v̂| for vectors of unit length
/// (the model normalises them; a margin covers float rounding).
pub(crate) struct QueryCode {
    codes: Vec<i8>,
    scale: f32,
    error: f32,
    hat_norm: f32,
}

impl QueryCode {
    pub(crate) fn new(query: &[f32]) -> QueryCode {
        let mut codes = Vec::with_capacity(query.len());
        let (scale, error) = quantize(query, &mut codes);
        let hat_norm = (codes.iter().map(|c| (*c as f32).powi(2)).sum::<f32>()).sqrt() * scale;
        QueryCode {
            codes,
            scale,
            error,
            hat_norm,
        }
    }

    /// The approximate score of a vector by its code, with its bound; `None`
    /// for a code of another width.
    pub(crate) fn score(&self, id: i64, code: VectorCode<'_>) -> Option<Approx> {
        (code.codes.len() == self.codes.len()).then(|| Approx {
            id,
            approx: dot_i8(&self.codes, code.codes) as f32 * self.scale * code.scale,
            bound: self.error + self.hat_norm * code.error + 1e-5,
        })
    }
}

/// Scores codes as a scan hands them over (from the database's blocks or
/// an in-memory index), keeping only the vectors that can still reach the
/// top k, and hands every allowed code to a [`CodeSink`].
pub(crate) struct Scorer<'a, S> {
    query: &'a QueryCode,
    allowed: Option<&'a HashSet<i64>>,
    floor: Floor,
    scored: Vec<Approx>,
    sink: S,
}

impl<'a, S: CodeSink> Scorer<'a, S> {
    pub(crate) fn new(
        query: &'a QueryCode,
        allowed: Option<&'a HashSet<i64>>,
        k: usize,
        sink: S,
    ) -> Scorer<'a, S> {
        Scorer {
            query,
            allowed,
            floor: Floor::new(k),
            scored: Vec::new(),
            sink,
        }
    }

    pub(crate) fn add(&mut self, id: i64, code: VectorCode<'_>) {
        if self.allowed.is_some_and(|a| !a.contains(&id)) {
            return;
        }
        let Some(a) = self.query.score(id, code) else {
            return;
        };
        self.sink.add(id, a.approx, code);
        // A vector whose best possible score is below the floor is out: k
        // others are sure to score at least that.
        if a.approx + a.bound < self.floor.get() {
            return;
        }
        self.floor.offer(a.approx - a.bound);
        self.scored.push(a);
    }

    /// The vectors that can still reach the top k, and the sink.
    pub(crate) fn finish(self) -> (Vec<Approx>, S) {
        (self.scored, self.sink)
    }
}

/// The k-th best lower bound (approximate score minus its error bound)
/// seen so far: at least k vectors score that or more exactly, so one whose
/// upper bound stays below it cannot be in the top k. Keeping only the
/// others spares the scan a million-entry list (its memory and sorting)
/// without changing the result.
struct Floor {
    k: usize,
    lows: BinaryHeap<Reverse<TotalF32>>,
}

impl Floor {
    fn new(k: usize) -> Floor {
        Floor {
            k,
            lows: BinaryHeap::with_capacity(k + 1),
        }
    }

    fn get(&self) -> f32 {
        match self.lows.peek() {
            Some(Reverse(TotalF32(low))) if self.lows.len() == self.k => *low,
            _ => f32::NEG_INFINITY,
        }
    }

    fn offer(&mut self, low: f32) {
        if self.lows.len() < self.k {
            self.lows.push(Reverse(TotalF32(low)));
        } else if low > self.get() {
            self.lows.pop();
            self.lows.push(Reverse(TotalF32(low)));
        }
    }
}

/// An f32 ordered by `total_cmp`.
#[derive(PartialEq)]
struct TotalF32(f32);

impl Eq for TotalF32 {}
impl PartialOrd for TotalF32 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for TotalF32 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The exact top `k` from approximate scores with error bounds: the best
/// `k` by code are re-scored with their floats, then every vector whose
/// upper bound could still reach the k-th exact score. Each float read
/// costs tens of microseconds at a million chunks (a walk through the
/// vector's row in vec0), so no more are read than the bound asks for:
/// re-scoring the best max(4k, 200) first read 240 for a top 10, where the
/// best 60 and the ~100 the bound leaves in doubt do (warm hybrid search
/// at a million chunks 49.5 -> 47 ms).
pub(crate) fn exact_top_k(
    db: &dyn FloatVectors,
    query: &[f32],
    mut scored: Vec<Approx>,
    k: usize,
) -> Result<Vec<VectorHit>> {
    if k == 0 {
        return Ok(Vec::new());
    }
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, |a, b| b.approx.total_cmp(&a.approx));
    }
    let first = scored.len().min(k);
    let mut exact = rescore(db, query, scored[..first].iter().map(|a| a.id))?;
    let mut hits = top_k(exact.clone(), k);
    // The k-th exact score; a vector left out is safe only if its upper
    // bound stays below it.
    if hits.len() == k {
        let kth = hits[k - 1].cosine;
        let doubtful: Vec<i64> = scored[first..]
            .iter()
            .filter(|a| a.approx + a.bound >= kth)
            .map(|a| a.id)
            .collect();
        if !doubtful.is_empty() {
            exact.extend(rescore(db, query, doubtful.into_iter())?);
            hits = top_k(exact, k);
        }
    } else if scored.len() > first {
        // Fewer than k candidates had vectors: rank everything exactly.
        exact.extend(rescore(db, query, scored[first..].iter().map(|a| a.id))?);
        hits = top_k(exact, k);
    }
    Ok(hits)
}

/// A vector's approximate score from its code and the most the exact
/// score can exceed it.
pub struct Approx {
    pub id: i64,
    pub approx: f32,
    pub bound: f32,
}

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
fn rescore(
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

/// The dot product of two int8 codes (of values in -127..=127, as
/// `quantize` makes them), with AVX2 where the CPU has it: the scan's inner
/// loop, run once per stored vector.
pub(crate) fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked above).
            return unsafe { dot_i8_avx2(a, b) };
        }
    }
    dot_i8_portable(a, b)
}

fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    // Sixteen independent lanes let the compiler vectorise the loop.
    let mut acc = [0i32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let mut sum: i32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| *x as i32 * *y as i32)
        .sum();
    for (x, y) in ca.zip(cb) {
        for j in 0..16 {
            acc[j] += x[j] as i32 * y[j] as i32;
        }
    }
    sum += acc.iter().sum::<i32>();
    sum
}

/// 32 pairs per step: |a| (unsigned) times b with a's sign, summed in
/// pairs to i16 (at most 2·127·127 = 32,258, so nothing saturates for codes
/// in -127..=127), then to i32.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i8_avx2(a: &[i8], b: &[i8]) -> i32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let steps = n / 32;
    let ones = _mm256_set1_epi16(1);
    let mut acc = _mm256_setzero_si256();
    for i in 0..steps {
        // SAFETY: 32 bytes from i * 32 lie within both slices (i < n / 32).
        let x = _mm256_loadu_si256(a.as_ptr().add(i * 32) as *const __m256i);
        let y = _mm256_loadu_si256(b.as_ptr().add(i * 32) as *const __m256i);
        let pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(x), _mm256_sign_epi8(y, x));
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
    }
    let mut lanes = [0i32; 8];
    _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc);
    let tail = dot_i8_portable(&a[steps * 32..n], &b[steps * 32..n]);
    lanes.iter().sum::<i32>() + tail
}

/// Ranks every stored vector in memory (all of them, or those in `allowed`).
pub fn scan(
    db: &Database,
    query: &[f32],
    allowed: Option<&HashSet<i64>>,
    k: usize,
) -> Result<Vec<VectorHit>> {
    let mut hits = Vec::new();
    db.for_each_vector(|id, v| {
        if allowed.is_some_and(|a| !a.contains(&id)) {
            return;
        }
        hits.push(VectorHit {
            chunk_id: id,
            cosine: dot(query, v),
        });
    })?;
    Ok(top_k(hits, k))
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight independent accumulators let the compiler vectorise the loop.
    let mut acc = [0f32; 8];
    let chunks = a.len() / 8;
    for i in 0..chunks {
        for j in 0..8 {
            acc[j] += a[i * 8 + j] * b[i * 8 + j];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for i in chunks * 8..a.len().min(b.len()) {
        sum += a[i] * b[i];
    }
    sum
}

/// The `k` best hits, best first (ties by chunk id).
pub fn top_k(mut hits: Vec<VectorHit>, k: usize) -> Vec<VectorHit> {
    let cmp = |a: &VectorHit, b: &VectorHit| {
        b.cosine
            .partial_cmp(&a.cosine)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.chunk_id.cmp(&b.chunk_id))
    };
    if hits.len() > k {
        hits.select_nth_unstable_by(k, cmp);
        hits.truncate(k);
    }
    hits.sort_by(cmp);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_i8_matches_naive_at_every_length_and_extreme() {
        let mut state = 17u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % 255) as i32 - 127
        };
        for len in [0, 1, 31, 32, 33, 63, 64, 65, 100, 128, 384, 385, 768] {
            let a: Vec<i8> = (0..len).map(|_| next() as i8).collect();
            let b: Vec<i8> = (0..len).map(|_| next() as i8).collect();
            let naive: i32 = a.iter().zip(&b).map(|(x, y)| *x as i32 * *y as i32).sum();
            assert_eq!(dot_i8(&a, &b), naive, "length {len}");
            assert_eq!(dot_i8_portable(&a, &b), naive, "length {len}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                assert_eq!(unsafe { dot_i8_avx2(&a, &b) }, naive, "length {len}");
            }
        }
        // The largest products, all of one sign: nothing saturates.
        for (x, y) in [(127i8, 127i8), (-127, -127), (127, -127), (-127, 127)] {
            let (a, b) = (vec![x; 384], vec![y; 384]);
            assert_eq!(dot_i8(&a, &b), 384 * x as i32 * y as i32);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                assert_eq!(unsafe { dot_i8_avx2(&a, &b) }, 384 * x as i32 * y as i32);
            }
        }
    }

    #[test]
    fn dot_matches_naive() {
        let a: Vec<f32> = (0..384).map(|i| (i as f32).sin()).collect();
        let b: Vec<f32> = (0..384).map(|i| (i as f32).cos()).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
    }

    #[test]
    fn the_codes_scan_equals_an_exact_scan() {
        use crate::db::test_support::{bound_database, chunks, note};
        let dir = tempfile::tempdir().unwrap();
        let dim = 384;
        let db = bound_database(dir.path(), dim);
        let mut next = crate::db::test_support::unit_vectors(7, dim);
        for d in 0..20 {
            let vectors: Vec<Vec<f32>> = (0..150).map(|_| next()).collect();
            let chunks = chunks(&format!("chunk {d}"), 150);
            let mut doc = note(&format!("/d{d}"), &format!("h{d}"));
            doc.doc_type = if d % 2 == 0 {
                crate::ingest::DocType::Note
            } else {
                crate::ingest::DocType::Markdown
            };
            db.write_document(&doc, &chunks, Some(&vectors)).unwrap();
        }
        // A removed document takes its codes with it.
        let removed = db.find_document_by_path("/d3").unwrap().unwrap();
        db.remove_documents(&[removed.id]).unwrap();
        assert_eq!(db.code_and_vector_counts().unwrap(), (2850, 2850));
        for q in (0..8).map(|_| next()) {
            for k in [1, 10, 30, 300] {
                let exact = scan(&db, &q, None, k).unwrap();
                assert_eq!(search_codes(&db, &q, None, k).unwrap(), exact);
                // Two connections sharing the blocks (two blocks here).
                let (two, _) = scan_codes(&db, &q, None, k, || (), 1).unwrap();
                let two = exact_top_k(&db, &q, two, k).unwrap();
                assert_eq!(two, exact);
            }
            let filters = Filters {
                doc_type: Some(crate::ingest::DocType::Note),
                ..Default::default()
            };
            let allowed: HashSet<i64> = db
                .filtered_chunk_ids(&filters)
                .unwrap()
                .into_iter()
                .collect();
            assert_eq!(
                search(&db, &q, &filters, 30).unwrap(),
                scan(&db, &q, Some(&allowed), 30).unwrap()
            );
        }
    }

    /// A writer that rewrites blocks while a search holds its snapshot:
    /// the second connection sees other blocks and leaves the scan to the
    /// first, which ranks exactly what its snapshot holds.
    #[test]
    fn a_scan_keeps_one_snapshot_while_a_writer_rewrites_blocks() {
        use crate::db::test_support::{bound_database, write_note};
        let dir = tempfile::tempdir().unwrap();
        let dim = 16;
        let db = bound_database(dir.path(), dim);
        let mut next = crate::db::test_support::unit_vectors(11, dim);
        // Ten blocks; the removed documents are in the last five.
        for d in 0..103 {
            let vectors: Vec<Vec<f32>> = (0..100).map(|_| next()).collect();
            write_note(&db, &format!("/d{d}"), "h", &vectors);
        }
        let q = next();
        let snapshot = db.begin_read().unwrap();
        let before = scan(&db, &q, None, 50).unwrap();
        let writer = db.reopener().open().unwrap();
        let gone: Vec<i64> = [55, 65, 75, 85, 95]
            .iter()
            .map(|d| {
                let path = format!("/d{d}");
                writer.find_document_by_path(&path).unwrap().unwrap().id
            })
            .collect();
        writer.remove_documents(&gone).unwrap();
        let (two, _) = scan_codes(&db, &q, None, 50, || (), 1).unwrap();
        assert_eq!(exact_top_k(&db, &q, two, 50).unwrap(), before);
        drop(snapshot);
        let after = scan(&db, &q, None, 50).unwrap();
        assert_eq!(db.code_blocks().unwrap().len(), 10);
        let (two, _) = scan_codes(&db, &q, None, 50, || (), 1).unwrap();
        assert_eq!(exact_top_k(&db, &q, two, 50).unwrap(), after);
    }

    #[test]
    fn top_k_orders() {
        let hits = (0..100)
            .map(|i| VectorHit {
                chunk_id: i,
                cosine: (i % 10) as f32,
            })
            .collect();
        let t = top_k(hits, 5);
        assert_eq!(t.len(), 5);
        assert!(t.iter().all(|h| h.cosine == 9.0));
        assert_eq!(t[0].chunk_id, 9);
    }
}
