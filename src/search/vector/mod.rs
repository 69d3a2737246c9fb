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

//!
//! Here: the ranker as the search runs it; `codes` scans the int8 codes
//! with proven error bounds and re-scores exactly, `floats` reads exact
//! vectors by id (once per search), `index` keeps the codes in memory for
//! `kb mcp`.

mod codes;
mod depth;
mod floats;
mod index;
mod pool;

use std::collections::HashSet;

use super::allowed::Allowed;
use crate::db::{Database, Filters, Reopener, VectorHit};
use crate::error::Result;
use crate::vector_math::dot;

pub(crate) use codes::exact_top_k;
pub use codes::{search_codes, search_codes_with, Approx, CodeSink};
use depth::DepthSink;
pub use floats::{FloatVectors, FloatsRead, ReadFloats};
pub use index::{search_in, IndexFloats, RefreshStats, VectorIndex};
pub use pool::CandidatePool;
use pool::PoolSink;

/// The vector ranker's list as its thread hands it over: exact (with the
/// floats it read), or (from the in-memory index) scored by codes, to be
/// re-scored on the caller's connection; with the candidate pool when
/// feedback applies.
pub(crate) enum Ranked {
    Exact(Vec<VectorHit>, Option<CandidatePool>, FloatsRead),
    Scanned(Vec<Approx>, Option<CandidatePool>),
}

/// What the vector ranker's thread hands over: its list, and the score at
/// the scale's depth (`search.scale_depth`, by code).
pub(crate) struct Scan {
    pub(crate) ranked: Ranked,
    pub(crate) bottom: Option<f64>,
}

/// What one scan fills besides its ranking: the feedback pool, if kept,
/// and the score at the scale's depth.
type Sinks = (Option<PoolSink>, DepthSink);

/// How deep the vector ranker goes: the candidates it ranks (`k`), whether
/// it keeps the feedback pool, and the depth whose score is the bottom of
/// its scale (0: none).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Depths {
    pub(crate) k: usize,
    pub(crate) pooled: bool,
    pub(crate) scale: usize,
}

impl Depths {
    /// The sinks a scan fills: the pool when feedback applies, and the
    /// scale's depth.
    fn sinks(self) -> impl Fn() -> Sinks + Sync {
        move || {
            (
                self.pooled.then(|| PoolSink::new(self.k)),
                DepthSink::new(self.scale),
            )
        }
    }
}

/// The vector ranker's work on a thread of its own: the query embedded,
/// then ranked over the codes on a connection of its own, or in the
/// in-memory index of `kb mcp` among the chunks the filters allow (its
/// candidates are re-scored on the caller's connection afterwards). With
/// `pooled`, the nearest candidates' codes are kept so a refined query is
/// ranked among them without a second scan.
pub(crate) fn rank_on_own_thread(
    query_vector: Vec<f32>,
    reopener: &Reopener,
    in_memory: Option<(&VectorIndex, &Allowed)>,
    filters: &Filters,
    depths: Depths,
) -> Result<Scan> {
    let qv = &query_vector;
    Ok(match in_memory {
        Some((index, allowed)) => {
            let (scored, (pool, depth)) = index.scan(qv, allowed, depths.k, depths.sinks());
            Scan {
                ranked: Ranked::Scanned(scored, pool.map(|p| p.into_pool())),
                bottom: depth.score(),
            }
        }
        None => {
            let own = reopener.open()?;
            let floats = ReadFloats::new(&own);
            let (hits, (pool, depth)) = search_with(&own, &floats, qv, filters, depths)?;
            Scan {
                ranked: Ranked::Exact(hits, pool.map(|p| p.into_pool()), floats.into_read()),
                bottom: depth.score(),
            }
        }
    })
}

/// A one-shot search reads the codes into memory while the model loads up
/// to this many chunks (39 MB at 384 dimensions); past it, the codes are
/// streamed from the database once the query is embedded, and memory stays
/// flat.
const READ_AHEAD_UP_TO: i64 = 100_000;

/// Every vector's code, read on a connection of its own while the query's
/// model loads, so a one-shot search's scan need not wait for the
/// database; `None` past [`READ_AHEAD_UP_TO`] chunks or on any error (the
/// scan then reads the database as it would have).
pub(crate) fn read_ahead(reopener: &Reopener) -> Option<VectorIndex> {
    let _span = crate::timings::span("vector codes read ahead");
    let db = reopener.open().ok()?;
    let _snapshot = db.read_snapshot().ok()?;
    let chunks = db.chunk_count().ok()?;
    if chunks > READ_AHEAD_UP_TO {
        return None;
    }
    VectorIndex::load_codes(&db, chunks).ok()
}

/// The vector ranker over the database's codes, the filters applied first.
pub fn search(db: &Database, query: &[f32], filters: &Filters, k: usize) -> Result<Vec<VectorHit>> {
    let depths = Depths {
        k,
        pooled: false,
        scale: 0,
    };
    Ok(search_with(db, db, query, filters, depths)?.0)
}

/// [`search`] with the bottom of the scale: the score by code at `depth`
/// of the chunks the filters allow (0: none).
pub(crate) fn search_to_depth(
    db: &Database,
    query: &[f32],
    filters: &Filters,
    k: usize,
    depth: usize,
) -> Result<(Vec<VectorHit>, Option<f64>)> {
    let depths = Depths {
        k,
        pooled: false,
        scale: depth,
    };
    let (hits, (_, sink)) = search_with(db, db, query, filters, depths)?;
    Ok((hits, sink.score()))
}

/// The score by code at `depth` of every chunk's vector: the bottom of the
/// vector ranker's scale for `query` (exact-scan benchmarks build their
/// fusion with it).
pub fn scale_bottom(db: &Database, query: &[f32], depth: usize) -> Result<Option<f64>> {
    Ok(search_to_depth(db, query, &Filters::default(), 1, depth)?.1)
}

/// [`search`], filling the sinks `depths` asks for.
fn search_with(
    db: &Database,
    floats: &dyn FloatVectors,
    query: &[f32],
    filters: &Filters,
    depths: Depths,
) -> Result<(Vec<VectorHit>, Sinks)> {
    let sinks = depths.sinks();
    let allowed: Option<HashSet<i64>> = if filters.is_empty() {
        None
    } else {
        let ids = db.filtered_chunk_ids(filters)?;
        if ids.is_empty() {
            return Ok((Vec::new(), sinks()));
        }
        Some(ids.into_iter().collect())
    };
    search_codes_with(db, floats, query, allowed.as_ref(), depths.k, sinks)
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
    use super::codes::scan_codes;
    use super::*;

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
                crate::document::DocType::Note
            } else {
                crate::document::DocType::Markdown
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
                doc_type: Some(crate::document::DocType::Note),
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
