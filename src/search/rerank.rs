//! Re-ranking (`search.rerank` on): a cross-encoder reads the query with
//! each of the best fused candidates (the chunk under its document's title
//! and section) and scores how well it answers (a logit). Its scores are
//! read as convex fusion reads a ranker's: min-max normalised over the
//! candidates and weighted (`search.rerank_weight`), added to the fused
//! score. The weight decides how far the re-ranker overrules the rankers;
//! chunks past the candidates keep their fused scores, under every
//! candidate's.

use std::collections::HashMap;

use super::fusion::Fused;
use super::request::RerankSettings;
use super::snippet::query_word_marks;
use crate::db::Database;
use crate::embed::{Passage, ScorePairs};
use crate::error::Result;

/// What the re-ranker said of the chunks it read (its logit), by chunk id.
/// Kept over a search's rounds, so a chunk is read once.
pub(crate) type Judged = HashMap<i64, f64>;

/// What the re-ranker made of a candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reranked {
    /// Its probability that the chunk answers the query (the logistic of
    /// its logit): comparable across searches.
    pub probability: f64,
    /// What it added to the chunk's score: the weight times its logit
    /// min-max normalised over the candidates.
    pub share: f64,
}

/// Re-orders the best `settings.candidates` of `fused` (best first) by
/// their fused score plus the re-ranker's share.
pub(super) fn rerank(
    db: &Database,
    query: &str,
    scorer: &dyn ScorePairs,
    settings: RerankSettings,
    fused: &mut [Fused],
    judged: &mut Judged,
) -> Result<()> {
    let n = settings.candidates.min(fused.len());
    let unread: Vec<i64> = fused[..n]
        .iter()
        .map(|f| f.chunk_id)
        .filter(|id| !judged.contains_key(id))
        .collect();
    if !unread.is_empty() {
        let details = db.chunk_details(&unread)?;
        let headers: Vec<std::borrow::Cow<'_, str>> = details
            .iter()
            .map(|c| header(&c.title, c.meta.section.as_deref()))
            .collect();
        let marks: Vec<_> = details
            .iter()
            .map(|c| query_word_marks(&c.text, query))
            .collect();
        let passages: Vec<Passage<'_>> = details
            .iter()
            .zip(&headers)
            .zip(&marks)
            .map(|((c, header), marks)| Passage {
                header: header.as_ref(),
                text: &c.text,
                marks,
            })
            .collect();
        let logits = scorer.score(query, &passages)?;
        for (c, logit) in details.iter().zip(logits) {
            judged.insert(c.chunk_id, f64::from(logit));
        }
    }
    // A chunk gone since it was ranked (a concurrent ingest) is judged the
    // least of all.
    let logits: Vec<Option<f64>> = fused[..n]
        .iter()
        .map(|f| judged.get(&f.chunk_id).copied())
        .collect();
    let (low, high) = logits
        .iter()
        .flatten()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &l| {
            (lo.min(l), hi.max(l))
        });
    let range = high - low;
    for (f, logit) in fused[..n].iter_mut().zip(logits) {
        let normalised = match logit {
            Some(l) if range > 0.0 => (l - low) / range,
            _ => 0.0,
        };
        let share = settings.weight * normalised;
        f.reranked = Some(Reranked {
            probability: logit.map_or(0.0, logistic),
            share,
        });
        f.score += share;
    }
    // Stable: what the re-ranker scores alike keeps the fused order.
    fused[..n].sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(())
}

/// What the re-ranker reads above a chunk's text: its document's title and
/// section (what a reader sees above it).
fn header<'a>(title: &'a str, section: Option<&'a str>) -> std::borrow::Cow<'a, str> {
    match section.filter(|s| !s.is_empty() && *s != title) {
        Some(section) => format!("{title}: {section}").into(),
        None => title.into(),
    }
}

fn logistic(logit: f64) -> f64 {
    1.0 / (1.0 + (-logit).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores a passage by how many of its words the search marked as the
    /// query's.
    struct CountingScorer;

    impl ScorePairs for CountingScorer {
        fn score(&self, _query: &str, passages: &[Passage<'_>]) -> Result<Vec<f32>> {
            Ok(passages
                .iter()
                .map(|p| p.marks.len() as f32 * 4.0 - 2.0)
                .collect())
        }
    }

    fn fused(id: i64, score: f64) -> Fused {
        Fused {
            chunk_id: id,
            score,
            parts: vec![score],
            own: vec![score],
            reranked: None,
        }
    }

    /// A database holding one note whose chunks are `texts`, and their ids.
    fn db_with(texts: &[&str]) -> (tempfile::TempDir, Database, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let db = crate::db::test_support::bound_database(dir.path(), 2);
        let chunks: Vec<crate::db::NewChunk> = texts
            .iter()
            .map(|t| crate::db::NewChunk {
                text: t.to_string(),
                token_count: 2,
                ..Default::default()
            })
            .collect();
        let vectors = vec![vec![1.0, 0.0]; texts.len()];
        let doc = crate::db::test_support::note("/fruit", "h");
        db.write_document(&doc, &chunks, Some(&vectors)).unwrap();
        let ids = db
            .chunk_texts(0, 100)
            .unwrap()
            .iter()
            .map(|c| c.id)
            .collect();
        (dir, db, ids)
    }

    #[test]
    fn the_candidates_are_reordered_and_the_rest_stays_under_them() {
        let (_dir, db, ids) = db_with(&[
            "nothing here",
            "kiwi once",
            "kiwi kiwi kiwi",
            "a kiwi kiwi kiwi kiwi kiwi past the candidates",
        ]);
        let mut list: Vec<Fused> = ids
            .iter()
            .zip([0.9, 0.8, 0.7, 0.6])
            .map(|(&id, s)| fused(id, s))
            .collect();
        let settings = RerankSettings {
            candidates: 3,
            weight: 2.0,
        };
        let mut judged = Judged::new();
        rerank(
            &db,
            "kiwi",
            &CountingScorer,
            settings,
            &mut list,
            &mut judged,
        )
        .unwrap();
        let order: Vec<i64> = list.iter().map(|f| f.chunk_id).collect();
        assert_eq!(order, vec![ids[2], ids[1], ids[0], ids[3]]);
        // The fourth was not read, and keeps its fused score under the rest.
        assert_eq!(list[3].reranked, None);
        assert_eq!(list[3].score, 0.6);
        assert!(list[2].score > list[3].score);
        assert_eq!(judged.len(), 3);
        // Score = fused + weight x the logit normalised over the
        // candidates (10, 2 and -2: 1, 1/3, 0).
        let best = list[0].reranked.unwrap();
        assert_eq!(best.share, 2.0);
        assert!((list[0].score - 2.7).abs() < 1e-12);
        assert!((list[1].reranked.unwrap().share - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(list[2].reranked.unwrap().share, 0.0);
        assert!(best.probability > 0.99);
    }

    #[test]
    fn at_weight_zero_the_fused_order_stands() {
        let (_dir, db, ids) = db_with(&["plain", "kiwi kiwi"]);
        let mut list = vec![fused(ids[0], 0.9), fused(ids[1], 0.5)];
        let settings = RerankSettings {
            candidates: 30,
            weight: 0.0,
        };
        rerank(
            &db,
            "kiwi",
            &CountingScorer,
            settings,
            &mut list,
            &mut Judged::new(),
        )
        .unwrap();
        assert_eq!(list[0].chunk_id, ids[0]);
        let (first, second) = (list[0].reranked.unwrap(), list[1].reranked.unwrap());
        assert!(second.probability > first.probability);
        assert_eq!((first.share, second.share), (0.0, 0.0));
    }

    #[test]
    fn the_header_carries_title_and_section() {
        assert_eq!(header("Guide", Some("Install")), "Guide: Install");
        assert_eq!(header("Guide", Some("Guide")), "Guide");
        assert_eq!(header("Guide", None), "Guide");
    }
}
