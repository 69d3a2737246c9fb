//! `kb-bench keywords`: the in-memory keyword index of `kb mcp` against
//! FTS5 on the same knowledge base: its load time and size, the time of
//! one ranking each way, and whether the two agree on every query (same
//! chunks, same bm25 to the bit, same order, same count).

use std::time::Instant;

use kb::db::{ColumnWeights, Database, Filters, OpenMode};
use kb::error::{KbError, Result};
use kb::search::keyword_index::{query_tokens, KeywordIndex};
use kb::search::{query, Allowed};

use crate::*;

pub(crate) fn bench_keywords(a: &Args) -> Result<()> {
    let data_dir = need(&a.data_dir, "--data-dir")?;
    let config = config(Some(data_dir))?;
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let queries = queries(a)?;
    let t = Instant::now();
    let index = {
        let _snapshot = db.begin_read()?;
        KeywordIndex::load(&db)?
    };
    println!(
        "keyword index of {} chunks: loaded in {:.0} ms, {:.1} MB of postings",
        index.len(),
        t.elapsed().as_secs_f64() * 1000.0,
        index.posting_bytes() as f64 / 1e6
    );
    let weights = ColumnWeights::default();
    let filters = Filters::default();
    // A hybrid search's keyword list: 60 candidates for the top 10, and
    // the score at the scale's depth.
    let limit = 60;
    let depth = kb::config::DEFAULT_SCALE_DEPTH;
    let (mut memory, mut fts, mut matched) = (Vec::new(), Vec::new(), Vec::new());
    let mut same = 0;
    let mut ranked = 0;
    for q in queries.iter().take(a.runs) {
        let phrases = query::keyword_phrases(q, true);
        let Some(expr) = query::match_expression(&phrases) else {
            continue;
        };
        let t = Instant::now();
        let Some(tokens) = query_tokens(&db, &phrases)? else {
            continue;
        };
        let ours = index.rank(&tokens, &weights, &Allowed::All, (limit, depth));
        memory.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let asked = limit.max(depth);
        let mut theirs: Vec<(i64, f64)> = db
            .keyword_search(&expr, &filters, &weights, asked)?
            .into_iter()
            .map(|h| (h.chunk_id, h.bm25))
            .collect();
        let total = if theirs.len() < asked {
            theirs.len()
        } else {
            db.keyword_count(&expr, &filters)?
        };
        let bottom = (depth > 0).then(|| theirs.get(depth - 1).map_or(0.0, |h| h.1));
        theirs.truncate(limit);
        fts.push(t.elapsed().as_secs_f64() * 1000.0);
        matched.push(total as f64);
        ranked += 1;
        if ours.hits == theirs && ours.total == total && ours.bottom == bottom {
            same += 1;
        } else {
            println!(
                "DIFFERENT: {q:?}\n  in memory: {:?} ({}, {:?})\n  FTS5:      {theirs:?} ({total}, {bottom:?})",
                ours.hits, ours.total, ours.bottom
            );
        }
    }
    println!(
        "{ranked} queries, top {limit}: in memory median {:.2} ms (p95 {:.2}); FTS5 bm25 + count median {:.1} ms (p95 {:.1}); \
         median {:.0} chunks matched; {same} of {ranked} identical",
        median(memory.clone()),
        p95(memory),
        median(fts.clone()),
        p95(fts),
        median(matched),
    );
    if same != ranked {
        return Err(KbError::Usage(format!(
            "{} queries ranked differently",
            ranked - same
        )));
    }
    Ok(())
}
