//! The vector ranker: cosine similarity of the query to every stored chunk
//! vector (the vectors are L2-normalised, so cosine is a dot product),
//! scanned in Rust, with the filters applied before ranking.

use std::collections::HashSet;

use crate::db::{Database, Filters, VectorHit};
use crate::error::Result;

pub fn search(db: &Database, query: &[f32], filters: &Filters, k: usize) -> Result<Vec<VectorHit>> {
    let allowed: Option<HashSet<i64>> = if filters.is_empty() {
        None
    } else {
        Some(db.filtered_chunk_ids(filters)?.into_iter().collect())
    };
    let mut hits = Vec::new();
    db.for_each_vector(|id, v| {
        if allowed.as_ref().is_some_and(|a| !a.contains(&id)) {
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
    fn dot_matches_naive() {
        let a: Vec<f32> = (0..384).map(|i| (i as f32).sin()).collect();
        let b: Vec<f32> = (0..384).map(|i| (i as f32).cos()).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
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
