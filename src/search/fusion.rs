//! Reciprocal Rank Fusion: `score(d) = sum over rankers of 1 / (k + rank)`.

use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub chunk_id: i64,
    pub score: f64,
    /// The keyword ranker's contribution (0 when absent from its list, `None`
    /// when it did not run).
    pub fts: Option<f64>,
    pub vector: Option<f64>,
}

/// Fuses two ranked lists (best first, 1-based ranks). Ties are broken by
/// chunk id so results are stable.
pub fn rrf(keyword: Option<&[i64]>, vector: Option<&[i64]>, k: f64) -> Vec<Fused> {
    let mut map: HashMap<i64, Fused> = HashMap::new();
    let mut order: Vec<i64> = Vec::new();
    let lists = [(keyword, true), (vector, false)];
    for (list, is_keyword) in lists {
        let Some(list) = list else { continue };
        for (i, id) in list.iter().enumerate() {
            let contribution = 1.0 / (k + (i + 1) as f64);
            let entry = map.entry(*id).or_insert_with(|| {
                order.push(*id);
                Fused {
                    chunk_id: *id,
                    score: 0.0,
                    fts: keyword.map(|_| 0.0),
                    vector: vector.map(|_| 0.0),
                }
            });
            entry.score += contribution;
            if is_keyword {
                entry.fts = Some(contribution);
            } else {
                entry.vector = Some(contribution);
            }
        }
    }
    let mut out: Vec<Fused> = order.into_iter().filter_map(|id| map.remove(&id)).collect();
    out.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.chunk_id.cmp(&b.chunk_id))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuses_by_reciprocal_rank() {
        let f = rrf(Some(&[1, 2, 3]), Some(&[3, 1, 4]), 60.0);
        assert_eq!(f[0].chunk_id, 1); // 1/61 + 1/62
        assert_eq!(f[1].chunk_id, 3); // 1/63 + 1/61
        assert!((f[0].score - (1.0 / 61.0 + 1.0 / 62.0)).abs() < 1e-12);
        let four = f.iter().find(|x| x.chunk_id == 4).unwrap();
        assert_eq!(four.fts, Some(0.0));
        assert!((four.vector.unwrap() - 1.0 / 63.0).abs() < 1e-12);
    }

    #[test]
    fn one_sided_has_null_other_side() {
        let f = rrf(Some(&[7, 8]), None, 60.0);
        assert_eq!(f[0].vector, None);
        assert_eq!(f[0].fts, Some(1.0 / 61.0));
        assert_eq!(f[0].score, 1.0 / 61.0);
    }
}
