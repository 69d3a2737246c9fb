//! Fusing ranked lists (one per ranker, each with its weight) into one.
//!
//! - Reciprocal Rank Fusion: `score(d) = sum over rankers of w / (k + rank)`.
//!   Only ranks count, so the rankers' score scales never need to agree.
//! - Convex: each ranker's scores are min-max normalised over its own
//!   candidates (best 1, worst 0) and `score = w_kw * kw + w_vec * vec`;
//!   how much better the best hit is than the rest survives, which ranks
//!   alone throw away. When a list holds every chunk its ranker matched
//!   (a keyword query that matched only a few chunks), the bottom of the
//!   scale is 0, what an unmatched chunk scores, not the list's last hit:
//!   otherwise a chunk that matched a query word counts no more than one
//!   that matched none.
//!
//! Convex fusion also weighs evidence, not only rank: a list's scale tops at
//! its best score or at the score its ranker calls a strong match,
//! whichever is higher (`strong` below), so a list whose best candidate is
//! a weak match (a cosine of 0.25 for a query the corpus knows nothing
//! about) no longer gives it full marks beside a real keyword match. Of two
//! chunks with the same score, the one more rankers list goes first, then
//! the one whose rankers scored it higher (cosine first, then BM25): a
//! vector-only search lists the chunks whose cosine is under the floor
//! (fused score 0) by cosine. What is still equal the search orders by
//! path and place in the document (`ties`), never by chunk id, which
//! follows the order files happened to be parsed in.
//!
//! A chunk missing from one ranker's list gets 0 from it. Each list's
//! contribution is kept for `score_breakdown`.

use std::collections::HashMap;

use crate::config::{Fusion, FusionWeights};

/// How to fuse, with the weight of each ranker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FusionSettings {
    pub method: Fusion,
    /// Each ranker's weight (`RankerId::weight` reads it).
    pub weights: FusionWeights,
    /// The RRF constant (rrf only).
    pub rrf_k: f64,
    /// The share of a convex contribution that comes from the rank alone
    /// (`(rrf_k + 1) / (rrf_k + rank)`) rather than the score (0: none).
    pub rank_share: f64,
    /// A cosine the vector ranker calls a strong match (convex only): its
    /// list's scale tops at the higher of this and its best cosine (0: off).
    pub strong_cosine: f64,
    /// A BM25 score the keyword ranker calls a strong match, likewise.
    pub strong_bm25: f64,
    /// A cosine at or under which the vector ranker contributes nothing
    /// (convex; 0: the list's worst).
    pub cosine_floor: f64,
}

impl FusionSettings {
    /// The fusion the configuration asks for.
    pub fn of(search: &crate::config::SearchConfig) -> FusionSettings {
        FusionSettings {
            method: search.fusion,
            weights: search.weights,
            rrf_k: search.rrf_k,
            rank_share: search.rank_share,
            strong_cosine: search.evidence.strong_cosine,
            strong_bm25: search.evidence.strong_bm25,
            cosine_floor: search.evidence.cosine_floor,
        }
    }

    /// The highest fused score a chunk can get (first in every list).
    pub fn max_score(&self) -> f64 {
        let weights = self.weights.total();
        match self.method {
            Fusion::Rrf => weights / (self.rrf_k + 1.0),
            Fusion::Convex => weights,
        }
    }

    /// Plain RRF with equal weights.
    pub fn rrf(k: f64) -> FusionSettings {
        FusionSettings {
            method: Fusion::Rrf,
            weights: FusionWeights::keyword_and_vector(),
            rrf_k: k,
            rank_share: 0.0,
            strong_cosine: 0.0,
            strong_bm25: 0.0,
            cosine_floor: 0.0,
        }
    }
}

/// One ranker's list of `(chunk id, score)`, best first, with its weight.
#[derive(Debug, Clone, Copy)]
pub struct Ranking<'a> {
    pub hits: &'a [(i64, f64)],
    /// Every chunk the ranker matched is in `hits`, and a chunk outside it
    /// scores 0 (a keyword list shorter than its limit).
    pub complete: bool,
    pub weight: f64,
    /// The score of a strong match: the top of the scale is at least this
    /// (convex; 0: the list's best).
    pub strong: f64,
    /// The bottom of the scale is at least this: a score at or under it
    /// contributes nothing (convex; 0: the list's worst).
    pub floor: f64,
    /// The ranker's score at the scale's depth (`search.scale_depth`): the
    /// bottom of the scale is at most this, so a short list of candidates
    /// is scaled as if it went that deep (convex; `None`: the list's worst).
    pub bottom: Option<f64>,
    /// Where the list's own scores come among those that break a tie of
    /// fused scores (lower first: the vector ranker's cosine is 0, the
    /// keyword ranker's BM25 1).
    pub tie_rank: usize,
}

impl<'a> Ranking<'a> {
    /// The best part of a longer ranking (a vector ranker's top k).
    pub fn top(hits: &'a [(i64, f64)], weight: f64) -> Ranking<'a> {
        Ranking {
            hits,
            complete: false,
            weight,
            strong: 0.0,
            floor: 0.0,
            bottom: None,
            tie_rank: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub chunk_id: i64,
    pub score: f64,
    /// Each list's contribution to the score, in the order of the lists
    /// fused (0 for a list the chunk is not in).
    pub parts: Vec<f64>,
    /// Each list's own score of the chunk (cosine, BM25), in the order
    /// they break ties (`Ranking::tie_rank`); -inf for a list the chunk is
    /// not in.
    pub own: Vec<f64>,
    /// What the re-ranker made of the chunk, when it read it (`rerank`);
    /// its share is in `score`.
    pub reranked: Option<super::rerank::Reranked>,
}

/// Fuses ranked lists into one, best first (see [`best_first`]).
pub fn fuse(lists: &[Ranking], how: &FusionSettings) -> Vec<Fused> {
    let mut map: HashMap<i64, Fused> = HashMap::new();
    let mut order: Vec<i64> = Vec::new();
    // Where each list's own score goes in `own`.
    let mut by_tie_rank: Vec<usize> = (0..lists.len()).collect();
    by_tie_rank.sort_by_key(|&i| (lists[i].tie_rank, i));
    let slot = |list: usize| by_tie_rank.iter().position(|&i| i == list).unwrap_or(list);
    for (i, ranking) in lists.iter().enumerate() {
        let list = ranking.hits;
        let contributions = match how.method {
            Fusion::Rrf => reciprocal_ranks(list.len(), how.rrf_k),
            Fusion::Convex if how.rank_share > 0.0 => {
                // Part of each contribution from the rank alone, scaled so
                // the first gets 1: score gaps count, but less.
                let b = how.rank_share.min(1.0);
                min_max(*ranking)
                    .into_iter()
                    .zip(reciprocal_ranks(list.len(), how.rrf_k))
                    .map(|(m, r)| (1.0 - b) * m + b * r * (how.rrf_k + 1.0))
                    .collect()
            }
            Fusion::Convex => min_max(*ranking),
        };
        for ((id, own), c) in list.iter().zip(contributions) {
            let contribution = ranking.weight * c;
            let entry = map.entry(*id).or_insert_with(|| {
                order.push(*id);
                Fused {
                    chunk_id: *id,
                    score: 0.0,
                    parts: vec![0.0; lists.len()],
                    own: vec![f64::NEG_INFINITY; lists.len()],
                    reranked: None,
                }
            });
            entry.score += contribution;
            entry.parts[i] = contribution;
            entry.own[slot(i)] = *own;
        }
    }
    let mut out: Vec<Fused> = order.into_iter().filter_map(|id| map.remove(&id)).collect();
    best_first(&mut out);
    out
}

/// Orders fused chunks best first: by score, then by how many rankers list
/// them, then by the rankers' own scores; chunks equal in all of these by
/// chunk id, until the search orders them by path (`ties`).
pub(crate) fn best_first(fused: &mut [Fused]) {
    fused.sort_by(|a, b| tied(a, b).then(a.chunk_id.cmp(&b.chunk_id)));
}

/// How two fused chunks compare before their chunk ids: `Equal` when
/// nothing the rankers said tells them apart.
pub(crate) fn tied(a: &Fused, b: &Fused) -> std::cmp::Ordering {
    let support = |f: &Fused| f.parts.iter().filter(|p| **p > 0.0).count();
    let own = |a: &Fused, b: &Fused| {
        a.own
            .iter()
            .zip(&b.own)
            .map(|(x, y)| y.total_cmp(x))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    };
    b.score
        .partial_cmp(&a.score)
        .unwrap_or(std::cmp::Ordering::Equal)
        .then(support(b).cmp(&support(a)))
        .then_with(|| own(a, b))
}

/// `1 / (k + rank)` for 1-based ranks.
fn reciprocal_ranks(n: usize, k: f64) -> Vec<f64> {
    (1..=n).map(|rank| 1.0 / (k + rank as f64)).collect()
}

/// Scores scaled to 0..1 over the list (all 1 when they are equal); the
/// bottom is 0 for a complete list, and at most the score at the scale's
/// depth.
fn min_max(ranking: Ranking) -> Vec<f64> {
    let list = ranking.hits;
    let (lo, hi) = list
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, s)| {
            (lo.min(*s), hi.max(*s))
        });
    let lo = if ranking.complete { lo.min(0.0) } else { lo };
    let lo = ranking.bottom.map_or(lo, |b| lo.min(b));
    let lo = if ranking.floor > 0.0 {
        lo.max(ranking.floor)
    } else {
        lo
    };
    let hi = hi.max(ranking.strong);
    list.iter()
        .map(|(_, s)| {
            if hi > lo {
                ((s - lo) / (hi - lo)).max(0.0)
            } else if *s > lo || ranking.floor <= 0.0 {
                1.0
            } else {
                0.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(list: &[(i64, f64)]) -> Ranking<'_> {
        Ranking::top(list, 1.0)
    }

    fn ranked(ids: &[i64]) -> Vec<(i64, f64)> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| (*id, 10.0 - i as f64))
            .collect()
    }

    #[test]
    fn fuses_by_reciprocal_rank() {
        let (a, b) = (ranked(&[1, 2, 3]), ranked(&[3, 1, 4]));
        let f = fuse(&[top(&a), top(&b)], &FusionSettings::rrf(60.0));
        assert_eq!(f[0].chunk_id, 1); // 1/61 + 1/62
        assert_eq!(f[1].chunk_id, 3); // 1/63 + 1/61
        assert!((f[0].score - (1.0 / 61.0 + 1.0 / 62.0)).abs() < 1e-12);
        let four = f.iter().find(|x| x.chunk_id == 4).unwrap();
        assert_eq!(four.parts[0], 0.0);
        assert!((four.parts[1] - 1.0 / 63.0).abs() < 1e-12);
    }

    #[test]
    fn one_list_has_one_part() {
        let a = ranked(&[7, 8]);
        let f = fuse(&[top(&a)], &FusionSettings::rrf(60.0));
        assert_eq!(f[0].parts, [1.0 / 61.0]);
        assert_eq!(f[0].score, 1.0 / 61.0);
    }

    #[test]
    fn weights_scale_each_side() {
        let (a, b) = (ranked(&[1, 2]), ranked(&[2, 1]));
        let f = fuse(
            &[top(&a), Ranking::top(&b, 0.0)],
            &FusionSettings::rrf(10.0),
        );
        assert_eq!(f[0].chunk_id, 1);
        assert_eq!(f[0].parts[1], 0.0);
    }

    #[test]
    fn convex_keeps_score_gaps() {
        // Keyword: 1 far ahead of 2 and 3; vector: 3 just ahead of 2, 1.
        let kw = [(1, 20.0), (2, 2.0), (3, 1.0)];
        let vec = [(3, 0.60), (2, 0.59), (1, 0.50)];
        let how = FusionSettings {
            method: Fusion::Convex,
            ..FusionSettings::rrf(60.0)
        };
        let f = fuse(&[top(&kw), top(&vec)], &how);
        // 1: 1.0 + 0.0; 2: ~0.053 + 0.9; 3: 0.0 + 1.0
        assert_eq!(f.iter().map(|x| x.chunk_id).collect::<Vec<_>>(), [1, 3, 2]);
        assert!((f[0].parts[0] - 1.0).abs() < 1e-12);
        assert_eq!(f[0].parts[1], 0.0);
        // RRF puts the chunk both rankers hold second first.
        let r = fuse(&[top(&kw), top(&vec)], &FusionSettings::rrf(60.0));
        assert_eq!(r[0].chunk_id, 1);
    }

    #[test]
    fn a_complete_keyword_list_is_scaled_from_zero() {
        // Two keyword matches in all: the weaker one still counts, as
        // against the vector side's chunk 3 that matched no query word.
        let kw = [(1, 4.0), (2, 2.0)];
        let vec = [(3, 0.60), (2, 0.58), (1, 0.40)];
        let how = FusionSettings {
            method: Fusion::Convex,
            ..FusionSettings::rrf(60.0)
        };
        let complete = Ranking {
            hits: &kw,
            complete: true,
            weight: 1.0,
            strong: 0.0,
            floor: 0.0,
            bottom: None,
            tie_rank: 0,
        };
        let f = fuse(&[complete, top(&vec)], &how);
        assert_eq!(f[0].chunk_id, 2, "{f:?}");
        assert!((f[0].parts[0] - 0.5).abs() < 1e-12);
        // Cut from a longer list, its last hit is the bottom.
        let f = fuse(&[top(&kw), top(&vec)], &how);
        assert_eq!(f.iter().find(|x| x.chunk_id == 2).unwrap().parts[0], 0.0);
    }

    /// A list scaled to its depth's score: the narrow lead of one ranker's
    /// first candidate over its last no longer reads as full marks against
    /// the other ranker's wide lead.
    #[test]
    fn the_scale_reaches_down_to_its_depth() {
        let how = FusionSettings {
            method: Fusion::Convex,
            ..FusionSettings::rrf(60.0)
        };
        // Vector: 3 just ahead of 1; keyword: 1 well ahead of 3.
        let kw = [(1, 10.0), (3, 6.0)];
        let vec = [(3, 0.52), (1, 0.50)];
        let f = fuse(&[top(&kw), top(&vec)], &how);
        assert_eq!(f[0].chunk_id, 1);
        assert_eq!(f[0].score, 1.0);
        // Both lists went 600 deep: cosines fall to 0.30, BM25 to 2.
        let deep = |hits, bottom| Ranking {
            bottom: Some(bottom),
            ..top(hits)
        };
        let f = fuse(&[deep(&kw, 2.0), deep(&vec, 0.30)], &how);
        assert_eq!(f[0].chunk_id, 1, "{f:?}");
        assert!((f[0].parts[0] - 1.0).abs() < 1e-12);
        assert!((f[0].parts[1] - 0.20 / 0.22).abs() < 1e-9);
        assert!((f[1].parts[0] - 0.5).abs() < 1e-12);
        // A bottom above the list's worst leaves the worst at 0.
        let f = fuse(&[deep(&kw, 8.0)], &how);
        assert_eq!(f[1].parts[0], 0.0);
    }

    /// A weak best cosine no longer gets full marks beside a keyword match;
    /// a tie goes to the chunk both rankers list.
    #[test]
    fn weak_evidence_is_not_full_marks() {
        let how = FusionSettings {
            method: Fusion::Convex,
            ..FusionSettings::rrf(60.0)
        };
        // Keyword: only chunk 1 matched. Vector: chunk 9 is nearest, weakly.
        let kw = [(1, 8.8)];
        let vec = [(9, 0.25), (1, 0.20), (5, 0.15)];
        let keyword = Ranking {
            hits: &kw,
            complete: true,
            weight: 1.0,
            strong: 0.0,
            floor: 0.0,
            bottom: None,
            tie_rank: 0,
        };
        let plain = fuse(&[keyword, top(&vec)], &how);
        assert_eq!(plain[0].chunk_id, 1, "{plain:?}");
        assert_eq!(plain[1].score, 1.0, "the weak cosine gets full marks");
        let vector = Ranking {
            strong: 0.5,
            ..top(&vec)
        };
        let weighed = fuse(&[keyword, vector], &how);
        assert_eq!(weighed[0].chunk_id, 1);
        let nine = weighed.iter().find(|f| f.chunk_id == 9).unwrap();
        assert!(
            (nine.score - (0.25 - 0.15) / (0.5 - 0.15)).abs() < 1e-12,
            "{weighed:?}"
        );
        // Equal scores: the chunk both lists hold first.
        let a = [(3, 2.0), (4, 1.5), (6, 1.0)];
        let b = [(8, 0.9), (4, 0.8), (9, 0.7)];
        let tie = fuse(&[top(&a), top(&b)], &how);
        let order: Vec<i64> = tie.iter().take(3).map(|f| f.chunk_id).collect();
        assert_eq!(order, [4, 3, 8], "{tie:?}");
    }

    /// Chunks with equal fused scores go by their rankers' own scores
    /// (cosine, then BM25), not by chunk id.
    #[test]
    fn equal_scores_go_by_cosine_then_bm25() {
        let how = FusionSettings {
            method: Fusion::Convex,
            ..FusionSettings::rrf(60.0)
        };
        // Under the floor every cosine contributes 0.
        let vec = [(9, 0.30), (2, 0.16), (1, 0.15), (7, 0.12)];
        let floored = Ranking {
            floor: 0.2,
            ..top(&vec)
        };
        let ids = |f: &[Fused]| f.iter().map(|x| x.chunk_id).collect::<Vec<_>>();
        assert_eq!(ids(&fuse(&[floored], &how)), [9, 2, 1, 7]);
        // Hybrid: the keyword list (tie rank 1) breaks what the cosines
        // (tie rank 0) leave equal, whatever the order of the lists.
        let kw = [(5, 3.0), (4, 2.0), (3, 1.0)];
        let keyword = Ranking {
            weight: 0.0,
            tie_rank: 1,
            ..top(&kw)
        };
        let vec = [(3, 0.5), (4, 0.5), (5, 0.1)];
        let vector = Ranking {
            weight: 0.0,
            ..top(&vec)
        };
        assert_eq!(ids(&fuse(&[keyword, vector], &how)), [4, 3, 5]);
    }

    /// Under the floor the vector side adds nothing; above it the scale
    /// starts at the floor.
    #[test]
    fn a_cosine_under_the_floor_adds_nothing() {
        let how = FusionSettings {
            method: Fusion::Convex,
            ..FusionSettings::rrf(60.0)
        };
        let vec = [(1, 0.6), (2, 0.3), (3, 0.1)];
        let floored = Ranking {
            strong: 0.5,
            floor: 0.2,
            ..top(&vec)
        };
        let f = fuse(&[floored], &how);
        let part = |id: i64| f.iter().find(|x| x.chunk_id == id).unwrap().parts[0];
        assert_eq!(part(1), 1.0);
        assert!((part(2) - (0.3 - 0.2) / (0.6 - 0.2)).abs() < 1e-12);
        assert_eq!(part(3), 0.0);
        // A list wholly under its floor: nothing from it.
        let weak = [(4, 0.15), (5, 0.12)];
        let f = fuse(
            &[Ranking {
                floor: 0.2,
                ..top(&weak)
            }],
            &how,
        );
        assert!(f.iter().all(|x| x.parts[0] == 0.0), "{f:?}");
    }
}
