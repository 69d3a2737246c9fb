//! Scanning the int8 codes: every allowed vector scored approximately with
//! a proven error bound, the candidates that can still reach the top k
//! re-scored exactly (the result is that of an exact float scan).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use super::floats::{rescore, FloatVectors};
use super::top_k;
use crate::db::{Database, VectorHit};
use crate::error::{KbError, Result};
use crate::vector_math::{dot_i8, quantize, VectorCode};

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

/// Two sinks filled by one scan (the feedback pool and the scale's depth).
impl<A: CodeSink, B: CodeSink> CodeSink for (A, B) {
    fn add(&mut self, id: i64, approx: f32, code: VectorCode<'_>) {
        self.0.add(id, approx, code);
        self.1.add(id, approx, code);
    }
    fn merge(&mut self, other: Self) {
        self.0.merge(other.0);
        self.1.merge(other.1);
    }
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
