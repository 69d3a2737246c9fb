//! The page ranker: a page of a paged document (PDF, slides, images)
//! scored as a whole. A question's words are often spread over a page's
//! paragraphs, its table's title and its rows, each chunk holding a few
//! of them; the page holds them all. A page's score is the sum of the
//! BM25 of its chunks that match the query (the page's chunks' keyword
//! evidence combined), and every candidate chunk on the page gets it, so
//! the fusion lifts the chunks of the best pages and the result stays a
//! chunk: the best one of a winning page.
//!
//! Off unless `search.weights.page` is above 0 (docs/benchmarks.md).

use std::collections::{HashMap, HashSet};

use super::request::SearchRequest;
use crate::db::Database;
use crate::error::Result;

/// How many of the best keyword matches the pages' scores are summed
/// from: a page none of whose chunks is among them scores nothing.
const DEPTH: usize = 1000;

/// The page ranker's list.
pub(crate) struct PageRanking {
    /// (chunk id, its page's score), best first: the keyword matches and
    /// the other candidates (`also`) that are on a scored page.
    pub(crate) hits: Vec<(i64, f64)>,
}

/// Scores the pages holding the query's keyword matches (`fts`, `None`
/// when the query has no word to match); `also` are other rankers'
/// candidates, given their page's score when it has one.
pub(crate) fn rank(
    db: &Database,
    req: &SearchRequest,
    fts: Option<&str>,
    also: &[i64],
) -> Result<PageRanking> {
    let Some(q) = fts else {
        return Ok(PageRanking { hits: Vec::new() });
    };
    let matches: Vec<(i64, f64)> = db
        .keyword_search(q, &req.filters, &req.columns, DEPTH)?
        .into_iter()
        .map(|h| (h.chunk_id, h.bm25))
        .collect();
    let ids: Vec<i64> = matches
        .iter()
        .map(|h| h.0)
        .chain(also.iter().copied())
        .collect();
    let places = db.chunk_places(&ids)?;
    let page_of = |id: &i64| {
        places
            .get(id)
            .and_then(|p| p.page.map(|page| (p.document, page)))
    };
    Ok(PageRanking {
        hits: page_scores(&matches, also, page_of),
    })
}

/// Each page's score (the sum of its matches' BM25) given to its matches
/// and to the candidates `also` on it, best first (the chunks of one page
/// in the order given; the search settles them by place).
fn page_scores(
    matches: &[(i64, f64)],
    also: &[i64],
    page_of: impl Fn(&i64) -> Option<(i64, u32)>,
) -> Vec<(i64, f64)> {
    let mut pages: HashMap<(i64, u32), f64> = HashMap::new();
    for (id, bm25) in matches {
        if let Some(page) = page_of(id) {
            *pages.entry(page).or_default() += bm25;
        }
    }
    let mut seen = HashSet::new();
    let mut hits: Vec<(i64, f64)> = matches
        .iter()
        .map(|m| &m.0)
        .chain(also)
        .filter(|id| seen.insert(**id))
        .filter_map(|id| page_of(id).and_then(|p| pages.get(&p)).map(|s| (*id, *s)))
        .collect();
    hits.sort_by(|a, b| b.1.total_cmp(&a.1));
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page whose chunks each match a little outranks a page with one
    /// stronger match; chunks off any page (notes) are not listed.
    #[test]
    fn a_page_scores_the_sum_of_its_chunks() {
        // Chunks 1-3 on page (7, 2), chunk 4 alone on page (7, 5),
        // chunk 9 in a document without pages.
        let page_of = |id: &i64| match id {
            1..=3 => Some((7, 2)),
            4 => Some((7, 5)),
            _ => None,
        };
        let matches = [(1, 2.0), (2, 1.5), (4, 3.0), (9, 8.0)];
        // Chunk 3 matched no word but another ranker found it on the best
        // page; chunk 2 is listed once.
        let hits = page_scores(&matches, &[3, 2, 9], page_of);
        assert_eq!(hits, [(1, 3.5), (2, 3.5), (3, 3.5), (4, 3.0)]);
    }
}
