//! Diversifying the fused list: how many chunks of one document the
//! results may hold, the next best documents filling the places freed.
//!
//! `auto` fits short and long documents alike. A long document may fill
//! about as many places as it holds among the best `2 × top` fused
//! candidates (half its count there, at least one): a question about one
//! long filing lists several of its best pages, a broad question one
//! passage of each of many documents. A short document (an abstract, a
//! note of a few paragraphs) is listed once: its other chunks are the same
//! passage's neighbours, one `kb show` away. A few places (a third of them, at most 3) stay open for
//! documents not listed yet, so an agent always sees what else matched.
//! A page already listed is not listed again: its other chunks are one
//! `kb show --context` away, and the place goes to another page.
//! Chosen on FinanceBench dev and NFCorpus dev (docs/benchmarks.md).
//!
//! These rules only share out the places: when the other documents cannot
//! fill them (a knowledge base of a few long PDFs, a keyword that only one
//! short note holds), the chunks passed over fill the page, new pages
//! first, so `--top N` returns N whenever N chunks match.

use std::collections::{HashMap, HashSet};

use super::fusion::Fused;
use crate::config::PerDocument;
use crate::db::{ChunkPlace, Database};
use crate::error::Result;

/// The chunks a diversified page keeps, and those it passed over, each
/// with its place in the fused list.
pub(crate) struct Diversified {
    kept: Vec<Placed>,
    passed: Vec<Placed>,
}

/// A chunk with its place in the fused list and its page (document, page).
type Placed = (usize, Fused, Option<(i64, u32)>);

impl Diversified {
    /// How many chunks the rules kept.
    pub(crate) fn len(&self) -> usize {
        self.kept.len()
    }

    /// The kept chunks, best first, with passed-over ones added (those
    /// of a page not listed yet first) until `top` are listed or none is
    /// left; the page stays in the fused order.
    pub(crate) fn filled(self, top: usize) -> Vec<Fused> {
        let Diversified { mut kept, passed } = self;
        if kept.len() < top {
            let mut pages: HashSet<(i64, u32)> = kept.iter().filter_map(|k| k.2).collect();
            let mut later = Vec::new();
            for placed in passed {
                if kept.len() == top {
                    break;
                }
                match placed.2 {
                    Some(p) if !pages.insert(p) => later.push(placed),
                    _ => kept.push(placed),
                }
            }
            let room = top.saturating_sub(kept.len());
            kept.extend(later.into_iter().take(room));
            kept.sort_by_key(|k| k.0);
        }
        kept.into_iter().map(|k| k.1).collect()
    }
}

/// The chosen chunks, best first, at most `top`, and those passed over.
pub(crate) fn diversify(
    db: &Database,
    fused: Vec<Fused>,
    rule: PerDocument,
    top: usize,
) -> Result<Diversified> {
    if rule == PerDocument::AtMost(0) {
        let mut fused = fused;
        fused.truncate(top);
        return Ok(Diversified {
            kept: fused
                .into_iter()
                .enumerate()
                .map(|(i, f)| (i, f, None))
                .collect(),
            passed: Vec::new(),
        });
    }
    let ids: Vec<i64> = fused.iter().map(|f| f.chunk_id).collect();
    let places = db.chunk_places(&ids)?;
    // A chunk deleted meanwhile has no place; chunk_details drops it.
    let place_of = |f: &Fused| {
        places.get(&f.chunk_id).copied().unwrap_or(ChunkPlace {
            document: -f.chunk_id,
            page: None,
            document_chunks: 1,
        })
    };
    let places: Vec<ChunkPlace> = fused.iter().map(place_of).collect();
    Ok(match rule {
        PerDocument::AtMost(max) => {
            // A limit the user set holds even when the page is not full.
            let mut kept = keep(fused, &places, top, |_, n| n < max, top, false);
            kept.passed.clear();
            kept
        }
        PerDocument::Auto => {
            let quota = auto_quotas(&places, top);
            let open = (top / 3).min(3);
            keep(fused, &places, top, |d, n| n < quota(d), top - open, true)
        }
    })
}

/// Chunks a document holds from which it counts as long: several pages or
/// sections, so that two of its chunks are two places worth listing. An
/// NFCorpus abstract holds 1-5 chunks; listing a second chunk of one cost
/// nDCG@10 as listed 0.366 → 0.327 on its test split.
const LONG_DOCUMENT_CHUNKS: u32 = 8;

/// Each document's quota under `auto`: for a long document half its count
/// among the best `2 × top` candidates, at least one; one for the others.
fn auto_quotas(places: &[ChunkPlace], top: usize) -> impl Fn(i64) -> usize {
    let mut counts: HashMap<i64, usize> = HashMap::new();
    for p in places.iter().take(top.saturating_mul(2)) {
        if p.document_chunks >= LONG_DOCUMENT_CHUNKS {
            *counts.entry(p.document).or_default() += 1;
        }
    }
    move |d| counts.get(&d).map_or(1, |c| c.div_ceil(2).max(1))
}

/// Walks the fused list keeping a chunk while its document may take one
/// more (`allow(document, already kept)`); a document's first chunk is
/// always allowed, its further ones only while fewer than `extras_until`
/// places are filled. With `one_per_page`, a chunk of a page already
/// listed is passed over.
fn keep(
    fused: Vec<Fused>,
    places: &[ChunkPlace],
    top: usize,
    allow: impl Fn(i64, usize) -> bool,
    extras_until: usize,
    one_per_page: bool,
) -> Diversified {
    let mut seen: HashMap<i64, usize> = HashMap::new();
    let mut pages: HashSet<(i64, u32)> = HashSet::new();
    let mut kept = Vec::with_capacity(top);
    let mut passed = Vec::new();
    let mut extras = 0;
    for (i, (f, p)) in fused.into_iter().zip(places).enumerate() {
        if kept.len() == top {
            break;
        }
        let d = p.document;
        let page = p.page.map(|page| (d, page));
        if one_per_page && page.is_some_and(|page| pages.contains(&page)) {
            passed.push((i, f, page));
            continue;
        }
        let n = seen.entry(d).or_insert(0);
        let first = *n == 0;
        if !allow(d, *n) || (!first && extras >= extras_until) {
            passed.push((i, f, page));
            continue;
        }
        if !first {
            extras += 1;
        }
        *n += 1;
        if let Some(page) = page {
            pages.insert(page);
        }
        kept.push((i, f, page));
    }
    Diversified { kept, passed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fused(n: usize) -> Vec<Fused> {
        (0..n as i64)
            .map(|i| Fused {
                chunk_id: i,
                score: 1.0 - i as f64 / 100.0,
                parts: vec![],
                own: vec![],
                reranked: None,
            })
            .collect()
    }

    fn ids(kept: &Diversified) -> Vec<i64> {
        kept.kept.iter().map(|k| k.1.chunk_id).collect()
    }

    /// Places in documents of `chunks` chunks each.
    fn places_sized(docs: &[i64], chunks: u32) -> Vec<ChunkPlace> {
        docs.iter()
            .map(|d| ChunkPlace {
                document: *d,
                page: None,
                document_chunks: chunks,
            })
            .collect()
    }

    fn places(docs: &[i64]) -> Vec<ChunkPlace> {
        places_sized(docs, 100)
    }

    #[test]
    fn a_dominant_document_fills_its_share_and_others_keep_places() {
        // Chunks 0..12 are from document 7, then one each of 8, 9, 10, 11.
        let docs: Vec<i64> = (0..12).map(|_| 7).chain([8, 9, 10, 11, 12]).collect();
        let quota = auto_quotas(&places(&docs), 10);
        assert_eq!(quota(7), 6, "12 of the best 20, halved");
        assert_eq!(quota(8), 1);
        let kept = keep(
            fused(17),
            &places(&docs),
            10,
            |d, n| n < quota(d),
            10 - 3,
            true,
        );
        // Document 7's six best, then one of each other document.
        assert_eq!(ids(&kept), [0, 1, 2, 3, 4, 5, 12, 13, 14, 15]);
    }

    #[test]
    fn a_broad_question_lists_many_documents() {
        let docs: Vec<i64> = (0..30).map(|i| i % 15).collect();
        let quota = auto_quotas(&places(&docs), 10);
        let kept = keep(
            fused(30),
            &places(&docs),
            10,
            |d, n| n < quota(d),
            10 - 3,
            true,
        );
        let distinct: std::collections::HashSet<i64> =
            ids(&kept).iter().map(|id| docs[*id as usize]).collect();
        assert_eq!(distinct.len(), 10, "{:?}", ids(&kept));
    }

    #[test]
    fn a_short_document_is_listed_once() {
        // Three abstracts of three chunks each fill the best candidates.
        let docs: Vec<i64> = vec![1, 1, 2, 1, 2, 2, 3, 3, 3];
        let quota = auto_quotas(&places_sized(&docs, 3), 10);
        assert_eq!((quota(1), quota(2), quota(3)), (1, 1, 1));
        let long = auto_quotas(&places_sized(&docs, 40), 10);
        assert_eq!(long(1), 2);
    }

    #[test]
    fn a_fixed_cap_keeps_its_meaning() {
        let docs: Vec<i64> = vec![1, 1, 1, 2, 2, 3];
        let kept = keep(fused(6), &places(&docs), 10, |_, n| n < 2, 10, false);
        assert_eq!(ids(&kept), [0, 1, 3, 4, 5]);
    }

    #[test]
    fn a_page_is_listed_once() {
        let places: Vec<ChunkPlace> = [(1, 4), (1, 4), (1, 5), (2, 4)]
            .iter()
            .map(|(d, p)| ChunkPlace {
                document: *d,
                page: Some(*p),
                document_chunks: 100,
            })
            .collect();
        let kept = keep(fused(4), &places, 10, |_, _| true, 10, true);
        assert_eq!(ids(&kept), [0, 2, 3]);
    }

    /// Three long documents cannot fill the places kept for others: the
    /// chunks passed over fill the page, in the fused order, new pages
    /// before a second chunk of a page listed.
    #[test]
    fn places_no_other_document_takes_are_filled() {
        let places: Vec<ChunkPlace> = [(1, 1), (1, 1), (1, 2), (1, 3), (2, 1), (1, 4), (1, 5)]
            .iter()
            .map(|(d, p)| ChunkPlace {
                document: *d,
                page: Some(*p),
                document_chunks: 100,
            })
            .collect();
        let kept = keep(fused(7), &places, 5, |_, n| n < 2, 5 - 1, true);
        assert_eq!(ids(&kept), [0, 2, 4]);
        let page: Vec<i64> = kept.filled(5).iter().map(|f| f.chunk_id).collect();
        assert_eq!(page, [0, 2, 3, 4, 5]);
        let all = keep(fused(7), &places, 7, |_, n| n < 2, 7 - 1, true);
        let page: Vec<i64> = all.filled(7).iter().map(|f| f.chunk_id).collect();
        assert_eq!(page, [0, 1, 2, 3, 4, 5, 6]);
    }
}
