//! The bottom of the vector ranker's scale: the score at a fixed depth of
//! its ranking (`search.scale_depth`), read from the int8 codes the scan
//! scores anyway, so the fusion can scale the few candidates it takes
//! against a deep list without reading that list's floats.

use super::codes::CodeSink;
use crate::vector_math::VectorCode;

/// Keeps the `depth` best approximate scores a scan hands over. Scores are
/// appended and, when twice `depth` are held, cut back to the best `depth`;
/// the weakest kept then bars weaker scores at the door. The score at the
/// depth is a value, not a chunk, so it is the same however the scan was
/// split or ordered.
#[derive(Debug, Clone, Default)]
pub(crate) struct DepthSink {
    depth: usize,
    scores: Vec<f32>,
    /// The weakest score kept at the last cut.
    floor: Option<f32>,
}

impl DepthSink {
    /// A sink for the score at `depth` (0: none).
    pub(crate) fn new(depth: usize) -> DepthSink {
        DepthSink {
            depth,
            scores: Vec::new(),
            floor: None,
        }
    }

    /// Keeps one score.
    pub(crate) fn offer(&mut self, score: f32) {
        if self.depth == 0 || self.floor.is_some_and(|f| score <= f) {
            return;
        }
        self.scores.push(score);
        if self.scores.len() >= 2 * self.depth {
            self.cut();
        }
    }

    fn cut(&mut self) {
        if self.scores.len() <= self.depth {
            return;
        }
        self.scores
            .select_nth_unstable_by(self.depth - 1, |a, b| b.total_cmp(a));
        self.scores.truncate(self.depth);
        self.floor = Some(self.scores[self.depth - 1]);
    }

    /// The score at the depth: the `depth`-th best offered, or the worst
    /// when fewer were; `None` when off or nothing was offered.
    pub(crate) fn score(mut self) -> Option<f64> {
        self.cut();
        self.scores
            .iter()
            .copied()
            .reduce(f32::min)
            .map(|s| s as f64)
    }
}

impl CodeSink for DepthSink {
    fn add(&mut self, _: i64, approx: f32, _: VectorCode<'_>) {
        self.offer(approx);
    }

    fn merge(&mut self, other: Self) {
        for s in other.scores {
            self.offer(s);
        }
    }
}

/// The score at `depth` of `scores` (as [`DepthSink::score`]).
pub(crate) fn score_at_depth(scores: impl IntoIterator<Item = f32>, depth: usize) -> Option<f64> {
    let mut sink = DepthSink::new(depth);
    for s in scores {
        sink.offer(s);
    }
    sink.score()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_score_at_depth_is_the_depth_th_best() {
        // 0.000 .. 0.999 in a scrambled order.
        let scores: Vec<f32> = (0..1000)
            .map(|i| ((i * 617) % 1000) as f32 / 1000.0)
            .collect();
        assert_eq!(
            score_at_depth(scores.iter().copied(), 1),
            Some(0.999f32 as f64)
        );
        assert_eq!(
            score_at_depth(scores.iter().copied(), 10),
            Some(0.990f32 as f64)
        );
        assert_eq!(
            score_at_depth(scores.iter().copied(), 600),
            Some(0.400f32 as f64)
        );
        // Fewer scores than the depth: the worst.
        assert_eq!(score_at_depth(scores.iter().copied(), 5000), Some(0.0));
        assert_eq!(score_at_depth(scores.iter().copied(), 0), None);
        assert_eq!(score_at_depth(std::iter::empty(), 10), None);
    }

    #[test]
    fn a_split_scan_gives_the_same_score() {
        let scores: Vec<f32> = (0..3000).map(|i| ((i * 7919) % 3001) as f32).collect();
        let whole = score_at_depth(scores.iter().copied(), 250);
        for split in [1, 499, 1500, 2999] {
            let mut a = DepthSink::new(250);
            let mut b = DepthSink::new(250);
            scores[..split].iter().for_each(|s| a.offer(*s));
            scores[split..].iter().for_each(|s| b.offer(*s));
            a.merge(b);
            assert_eq!(a.score(), whole);
        }
    }

    #[test]
    fn ties_count_once_each() {
        let scores = [0.5f32, 0.5, 0.5, 0.4, 0.3];
        assert_eq!(score_at_depth(scores, 3), Some(0.5));
        assert_eq!(score_at_depth(scores, 4), Some(0.4f32 as f64));
    }
}
