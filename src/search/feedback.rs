//! Pseudo-relevance feedback for hybrid search: the query is refined with
//! the vectors of the best fused results and the vector ranker runs again.

use super::fusion::{fuse, Ranking};
use super::rankers::{Rankings, VectorRanking};
use super::request::{Feedback, SearchRequest};
use super::vector::{self, FloatVectors};
use crate::db::Database;
use crate::error::Result;

/// The second phase of a hybrid search: the query refined with the best
/// fused results, and the vector ranker's list replaced by the refined
/// query's `k` candidates (ranked among the first query's candidate pool
/// when there is one, else by a new scan). True when the list was
/// replaced.
pub(crate) fn refine(
    db: &Database,
    req: &SearchRequest,
    k: usize,
    rankings: &mut Rankings,
    floats: &dyn FloatVectors,
) -> Result<bool> {
    if rankings.keyword().is_none() {
        return Ok(false);
    }
    let (_, lists) = rankings.lists(&req.fusion);
    let Some(VectorRanking { query, pool, .. }) = rankings.vector() else {
        return Ok(false);
    };
    let Some(q) = refine_query(floats, query, &lists, req)? else {
        return Ok(false);
    };
    let depth = req.scale_depth;
    let (hits, bottom) = match pool {
        Some(pool) => pool.rank(floats, &q, k, depth)?,
        None => vector::search_to_depth(db, &q, &req.filters, k, depth)?,
    };
    if let Some(v) = rankings.vector_mut() {
        v.hits = hits.iter().map(|x| (x.chunk_id, x.cosine as f64)).collect();
        v.refined = true;
        v.bottom = bottom;
    }
    Ok(true)
}

/// The refined query vector, or `None` when feedback is off or nothing
/// was found to learn from: `query` moved towards the best chunks of the
/// fused `lists`.
pub fn refine_query(
    floats: &dyn FloatVectors,
    query: &[f32],
    lists: &[Ranking],
    req: &SearchRequest,
) -> Result<Option<Vec<f32>>> {
    if !req.refines() {
        return Ok(None);
    }
    let Feedback { chunks, weight } = req.feedback;
    let best: Vec<i64> = fuse(lists, &req.fusion)
        .iter()
        .take(chunks)
        .map(|f| f.chunk_id)
        .collect();
    // Summed in the order of the fused list, not of the ids the floats
    // arrive in: the refined query is then the same, bit for bit, in
    // every knowledge base of the same files.
    let mut found: std::collections::HashMap<i64, Vec<f32>> = Default::default();
    floats.floats_by_id(&best, &mut |id, v| {
        found.insert(id, v.to_vec());
    })?;
    let mut sum = vec![0f32; query.len()];
    let mut n = 0usize;
    for v in best.iter().filter_map(|id| found.get(id)) {
        for (s, x) in sum.iter_mut().zip(v) {
            *s += x;
        }
        n += 1;
    }
    if n == 0 {
        return Ok(None);
    }
    let scale = weight / n as f32;
    let mut q: Vec<f32> = query.iter().zip(&sum).map(|(q, s)| q + scale * s).collect();
    crate::vector_math::normalize(&mut q);
    Ok(Some(q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::ColumnWeights;
    use crate::db::Filters;
    use crate::db::{ModelBinding, NewChunk, OpenMode};
    use crate::search::FusionSettings;
    use crate::search::Mode;

    fn lists<'a>(keyword: &'a [(i64, f64)], vector: &'a [(i64, f64)]) -> [Ranking<'a>; 2] {
        [Ranking::top(keyword, 1.0), Ranking::top(vector, 1.0)]
    }

    fn request(feedback: Feedback) -> SearchRequest {
        SearchRequest {
            query: "q".into(),
            top: 10,
            filters: Filters::default(),
            mode: Mode::Hybrid,
            threshold: None,
            fusion: FusionSettings::rrf(60.0),
            columns: ColumnWeights::default(),
            max_per_document: crate::config::PerDocument::AtMost(0),
            feedback,
            expand: true,
            synonyms: Default::default(),
            pool: 0,
            scale_depth: 0,
            reads: Default::default(),
            weak_cosine: 0.4,
            words_held: 1.0,
            rerank: None,
        }
    }

    #[test]
    fn feedback_moves_the_query_towards_the_best_fused_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        db.bind_model(&ModelBinding {
            model_name: "m".into(),
            embedding_dim: 4,
            model_max_tokens: 16,
            model_fingerprint: "f".into(),
            model_dir: None,
            passage_prefix: None,
        })
        .unwrap();
        let vectors = vec![
            vec![1.0, 0.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0, 0.0],
            vec![0.0, 0.0, 1.0, 0.0],
        ];
        let chunks: Vec<NewChunk> = (0..3)
            .map(|i| NewChunk {
                text: format!("chunk {i}"),
                token_count: 2,
                ..Default::default()
            })
            .collect();
        let doc = crate::db::test_support::note("/d", "h");
        db.write_document(&doc, &chunks, Some(&vectors)).unwrap();
        let ids: Vec<i64> = db
            .chunk_texts(0, 10)
            .unwrap()
            .iter()
            .map(|c| c.id)
            .collect();
        let (a, b, c) = (ids[0], ids[1], ids[2]);
        let query = [0.0, 0.0, 0.0, 1.0];
        // Both rankers put a and b first; c is last.
        let keyword = [(a, 3.0), (b, 2.0), (c, 1.0)];
        let vector = [(b, 0.3), (a, 0.2), (c, 0.1)];
        let on = request(Feedback {
            chunks: 2,
            weight: 1.0,
        });
        let q = refine_query(&db, &query, &lists(&keyword, &vector), &on)
            .unwrap()
            .unwrap();
        // q + 1.0 * mean(a, b) = (0.5, 0.5, 0, 1), normalised.
        let n = (0.25f32 + 0.25 + 1.0).sqrt();
        let want = [0.5 / n, 0.5 / n, 0.0, 1.0 / n];
        for (got, want) in q.iter().zip(want) {
            assert!((got - want).abs() < 1e-6, "{q:?}");
        }
        // Off, or outside hybrid search, the query stays as asked.
        let off = request(Feedback::OFF);
        assert!(refine_query(&db, &query, &lists(&keyword, &vector), &off)
            .unwrap()
            .is_none());
        let keyword_only = SearchRequest {
            mode: Mode::Keyword,
            ..on
        };
        assert!(
            refine_query(&db, &query, &lists(&keyword, &vector), &keyword_only)
                .unwrap()
                .is_none()
        );
    }
}
