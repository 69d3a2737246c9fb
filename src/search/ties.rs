//! A total order on what a search lists. Chunk ids follow the order in
//! which files happened to finish parsing, so two knowledge bases made
//! from the same files number their chunks differently; a list ordered
//! by id where scores are equal would differ between them. Chunks a
//! ranker scores alike, and fused chunks nothing else tells apart, are
//! therefore ordered by their document's path and their place in it:
//! the same files give the same list in every knowledge base, whichever
//! mode ranks them.

use std::cmp::Ordering;
use std::ops::Range;

use crate::db::Database;
use crate::error::Result;

/// Orders each run of neighbours `tie` calls equal by path and place
/// (then chunk id, for a chunk deleted meanwhile). `items` is sorted
/// already, so ties are neighbours.
pub(crate) fn settle<T>(
    db: &Database,
    items: &mut [T],
    id: impl Fn(&T) -> i64,
    tie: impl Fn(&T, &T) -> bool,
) -> Result<()> {
    let runs = runs(items, &tie);
    if runs.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = runs
        .iter()
        .flat_map(|r| items[r.clone()].iter().map(&id))
        .collect();
    let keys = db.chunk_order_keys(&ids)?;
    for run in runs {
        items[run].sort_by(|a, b| {
            let (a, b) = (id(a), id(b));
            match (keys.get(&a), keys.get(&b)) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
            .then(a.cmp(&b))
        });
    }
    Ok(())
}

/// Orders a ranker's list, (chunk id, score) best first, where scores are
/// equal.
pub(crate) fn settle_list(db: &Database, hits: &mut [(i64, f64)]) -> Result<()> {
    settle(db, hits, |h| h.0, |a, b| a.1 == b.1)
}

/// The runs of two or more neighbours that `tie` calls equal.
fn runs<T>(items: &[T], tie: impl Fn(&T, &T) -> bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < items.len() {
        let mut end = start + 1;
        while end < items.len() && tie(&items[start], &items[end]) {
            end += 1;
        }
        if end - start > 1 {
            out.push(start..end);
        }
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::test_support::{chunks, note};
    use crate::db::OpenMode;

    #[test]
    fn equal_scores_go_by_path_and_place_not_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        // Written in the opposite order of their paths: ids disagree.
        db.write_document(&note("/z.md", "z"), &chunks("zulu", 2), None)
            .unwrap();
        db.write_document(&note("/a.md", "a"), &chunks("alpha", 2), None)
            .unwrap();
        let ids = db.chunk_ids().unwrap();
        let (z0, z1, a0, a1) = (ids[0], ids[1], ids[2], ids[3]);
        let mut hits = vec![(z1, 0.5), (z0, 0.5), (a1, 0.5), (a0, 0.5), (z0 + 100, 0.4)];
        settle_list(&db, &mut hits).unwrap();
        let order: Vec<i64> = hits.iter().map(|h| h.0).collect();
        assert_eq!(order, [a0, a1, z0, z1, z0 + 100]);
        // Unequal neighbours keep their order.
        let mut hits = vec![(z1, 0.9), (a0, 0.5)];
        settle_list(&db, &mut hits).unwrap();
        assert_eq!(hits, [(z1, 0.9), (a0, 0.5)]);
    }
}
