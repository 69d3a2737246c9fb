//! The trec_eval metrics BEIR reports, and medians.

use std::collections::HashMap;
use std::time::Duration;

/// nDCG@k with trec_eval's definition: gain is the qrels grade (grades
/// <= 0 give nothing), the discount of rank r (1-based) is log2(r + 1), and
/// the ideal DCG ranks the judged documents by grade. 0 when nothing is
/// relevant.
pub(crate) fn ndcg_at(ranking: &[String], qrels: &HashMap<String, i64>, k: usize) -> f64 {
    let actual = dcg(
        ranking.iter().map(|d| qrels.get(d).copied().unwrap_or(0)),
        k,
    );
    let mut ideal: Vec<i64> = qrels.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let best = dcg(ideal.into_iter(), k);
    if best > 0.0 {
        actual / best
    } else {
        0.0
    }
}

/// nDCG@k of a result list that may name a document more than once: a
/// repeat gains nothing (it takes a place another document could have had).
pub(crate) fn ndcg_as_listed(listed: &[String], qrels: &HashMap<String, i64>, k: usize) -> f64 {
    let mut seen = std::collections::HashSet::new();
    let firsts: Vec<String> = listed
        .iter()
        .map(|d| {
            if seen.insert(d) {
                d.clone()
            } else {
                String::new()
            }
        })
        .collect();
    ndcg_at(&firsts, qrels, k)
}

/// Discounted cumulative gain of the first `k` grades (negative grades
/// count as 0).
pub(crate) fn dcg(grades: impl Iterator<Item = i64>, k: usize) -> f64 {
    grades
        .take(k)
        .enumerate()
        .map(|(i, g)| g.max(0) as f64 / ((i + 2) as f64).log2())
        .sum()
}

/// Recall@k: the share of relevant documents (grade > 0) in the first k.
pub(crate) fn recall_at(ranking: &[String], qrels: &HashMap<String, i64>, k: usize) -> f64 {
    let relevant = qrels.values().filter(|&&g| g > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = ranking
        .iter()
        .take(k)
        .filter(|d| qrels.get(*d).is_some_and(|&g| g > 0))
        .count();
    found as f64 / relevant as f64
}

pub(crate) fn median(times: &mut [Duration]) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    times.sort_unstable();
    let mid = times.len() / 2;
    if times.len() % 2 == 1 {
        times[mid]
    } else {
        (times[mid - 1] + times[mid]) / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qrels(pairs: &[(&str, i64)]) -> HashMap<String, i64> {
        pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }

    fn ranking(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ndcg_matches_trec_eval() {
        let q = qrels(&[("a", 2), ("b", 1), ("c", 0)]);
        assert!((ndcg_at(&ranking(&["a", "b"]), &q, 10) - 1.0).abs() < 1e-12);
        // b then a: (1/log2 2 + 2/log2 3) / (2/log2 2 + 1/log2 3)
        let expected = (1.0 + 2.0 / 3f64.log2()) / (2.0 + 1.0 / 3f64.log2());
        assert!((ndcg_at(&ranking(&["b", "a"]), &q, 10) - expected).abs() < 1e-12);
        // A relevant document below the cut-off counts for nothing.
        assert_eq!(ndcg_at(&ranking(&["x", "c", "a"]), &q, 2), 0.0);
        assert_eq!(ndcg_at(&ranking(&["a"]), &qrels(&[("a", 0)]), 10), 0.0);
    }

    #[test]
    fn repeats_gain_nothing() {
        let q = qrels(&[("a", 2), ("b", 1)]);
        let once = ndcg_as_listed(&ranking(&["a", "b"]), &q, 10);
        let twice = ndcg_as_listed(&ranking(&["a", "a", "b"]), &q, 10);
        assert!((once - 1.0).abs() < 1e-12);
        assert!(twice < once);
    }

    #[test]
    fn recall_counts_relevant_only() {
        let q = qrels(&[("a", 1), ("b", 2), ("c", 0), ("d", 1)]);
        let r = ranking(&["c", "a", "x", "b"]);
        assert!((recall_at(&r, &q, 100) - 2.0 / 3.0).abs() < 1e-12);
        assert!((recall_at(&r, &q, 2) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn median_of_odd_and_even() {
        let ms = Duration::from_millis;
        assert_eq!(median(&mut [ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(median(&mut [ms(4), ms(1), ms(2), ms(3)]), ms(2) + ms(1) / 2);
        assert_eq!(median(&mut []), Duration::ZERO);
    }
}
