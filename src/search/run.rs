//! A search, phase by phase:
//!
//! 1. rank: every ranker the mode asks for, at once (`rankers`);
//! 2. refine: a hybrid query moves towards its best fused results and the
//!    vector ranker runs again (`feedback`);
//! 3. fuse the rankers' lists (`fusion`), what scores alike ordered by
//!    path and place in its document (`ties`); the chunks holding an
//!    identifier of the query whole first (`identifiers`);
//! 4. threshold and count: drop what scores under the threshold, count
//!    what matched;
//! 5. re-rank (`search.rerank` on): a cross-encoder reads the best
//!    candidates and moves the better answers up (`rerank`);
//! 6. diversify: at most N chunks of one document (`diversify`), the
//!    places no other document takes filled with more of those listed;
//! 7. present: the chosen chunks with their evidence, weak matches marked
//!    (`present`).
//!
//! A query the embedding model cannot read (`text::script`) skips the
//! vector ranker.

use super::diversify;
use super::feedback;
use super::fusion::{fuse, tied, Fused};
use super::identifiers;
use super::present::{self, SearchResponse};
use super::query;
use super::rankers::{rank_in_parallel, InMemory, QueryPlan, RankerId, Rankings};
use super::request::{Mode, SearchRequest};
use super::rerank;
use super::ties;
use super::vector::{FloatVectors, ReadFloats};
use crate::db::Database;
use crate::error::{Hint, KbError, Result};

/// Runs a search. `embed_query` turns the query into a vector (loading the
/// model if needed); it runs on its own thread while the keyword ranker
/// queries the database, and is required when the mode uses vectors.
pub fn search<F>(
    db: &Database,
    req: &SearchRequest,
    embed_query: Option<F>,
) -> Result<SearchResponse>
where
    F: FnOnce(&str) -> Result<Vec<f32>> + Send,
{
    search_with(db, req, embed_query, InMemory::default())
}

/// [`search`] with the rankers using the in-memory indexes given.
pub fn search_with<F>(
    db: &Database,
    req: &SearchRequest,
    embed_query: Option<F>,
    warm: InMemory<'_>,
) -> Result<SearchResponse>
where
    F: FnOnce(&str) -> Result<Vec<f32>> + Send,
{
    if req.query.trim().is_empty() {
        return Err(KbError::EmptyQuery.hint(Hint::QueryExample));
    }
    // A query the model cannot read would get a vector near whatever the
    // model understands least: its keywords alone answer it.
    let unreadable = req.mode.uses_vector() && !req.embeds_query();
    let asked = req.mode;
    let keyword_only;
    let req = if unreadable {
        keyword_only = SearchRequest {
            mode: Mode::Keyword,
            ..req.clone()
        };
        &keyword_only
    } else {
        req
    };
    let mut plan = QueryPlan::of(req);
    // Every float the search reads (the candidates' re-score, the feedback
    // pool's, the feedback chunks, the cosines shown) is read once: from
    // the in-memory index when it keeps them, else the database.
    let index_floats = warm.vectors.map(|index| index.floats(db));
    let source: &dyn FloatVectors = match &index_floats {
        Some(f) => f,
        None => db,
    };
    let floats = ReadFloats::new(source);

    let reranker = match (req.rerank, warm.reranker) {
        (Some(settings), Some(scorer)) => Some((settings, scorer)),
        (Some(_), None) => {
            return Err(KbError::Internal(
                "re-ranking was asked for without a re-ranker".into(),
            ))
        }
        (None, _) => None,
    };
    let mut judged = rerank::Judged::new();
    // The query is embedded once, however many rounds the rankers take.
    let mut query_vector: Option<Vec<f32>> = None;
    let mut embed_query = embed_query;
    loop {
        let embed = |q: &str| -> Result<Vec<f32>> {
            match &query_vector {
                Some(v) => Ok(v.clone()),
                None => embed_query.take().map_or_else(
                    || Err(KbError::Internal("the query was not embedded".into())),
                    |e| e(q),
                ),
            }
        };
        let embed = RankerId::Vector.runs(req).then_some(embed);
        let mut rankings = rank_in_parallel(db, req, &plan, embed, warm, &floats)?;
        if let Some(v) = rankings.vector() {
            query_vector.get_or_insert_with(|| v.query.clone());
        }
        {
            let _span = crate::timings::span("refine");
            rankings.settle_ties(db)?;
            // As deep as the rankers went: a widened search keeps its depth.
            if feedback::refine(db, req, plan.candidates, &mut rankings, &floats)? {
                rankings.settle_ties(db)?;
            }
        }
        let fusion_span = crate::timings::span("fuse and diversify");
        let mut fused = {
            let (_, lists) = rankings.lists(&req.fusion);
            fuse(&lists, &req.fusion)
        };
        in_listed_order(db, req, &mut fused)?;
        if let Some((settings, scorer)) = reranker {
            let _span = crate::timings::span("re-rank");
            rerank::rerank(db, &req.query, scorer, settings, &mut fused, &mut judged)?;
        }
        // After re-ranking: --threshold reads the score results show.
        let (fused, total_matches) = threshold_and_count(db, req, &plan, &rankings, fused)?;
        let chosen = diversify::diversify(db, fused, req.max_per_document, req.top)?;
        // Results too few to fill the page while the rankers have more:
        // a few large documents filled the candidates. Ask for more. With
        // quoted phrases every result is a keyword match: only that
        // ranker's having more counts (the vector ranker always has).
        let more = if plan.required.is_empty() {
            rankings.cut_short(plan.candidates)
        } else {
            rankings.keyword().is_some_and(|kw| !kw.complete())
        };
        if chosen.len() < req.top && more {
            plan.candidates = plan.candidates.saturating_mul(4);
            continue;
        }
        // What no other document takes goes to more of those listed.
        let chosen = chosen.filled(req.top);
        drop(fusion_span);
        let _span = crate::timings::span("present");
        let mut response =
            present::results(db, req, &plan, &rankings, &floats, chosen, total_matches)?;
        response.query_unreadable = unreadable;
        // The contract's `mode` is the one asked for; `ranked_by` says
        // which rankers ran.
        response.mode = asked;
        return Ok(response);
    }
}

/// A fused list put in the order results are listed: tied scores by the
/// one total order, then the chunks holding the query's identifiers whole
/// ahead of the rest. Public so that the exact-scan benchmark orders its
/// own fusion the way a search does.
pub fn in_listed_order(db: &Database, req: &SearchRequest, fused: &mut Vec<Fused>) -> Result<()> {
    ties::settle(db, fused, |f| f.chunk_id, |a, b| tied(a, b).is_eq())?;
    identifiers::first(db, req, fused)
}

/// Drops the chunks under the threshold, and those without the query's
/// quoted phrases (the vector ranker finds chunks by meaning, phrase or
/// not); counts the chunks that matched. With a positive threshold only
/// the fused candidates can pass it (a chunk outside every ranker's list
/// scores 0), so they are the count; with quoted phrases, the keyword
/// matches are (each holds them), or without the keyword ranker the
/// candidates that hold them.
fn threshold_and_count(
    db: &Database,
    req: &SearchRequest,
    plan: &QueryPlan,
    rankings: &Rankings,
    mut fused: Vec<Fused>,
) -> Result<(Vec<Fused>, usize)> {
    if let Some(t) = req.threshold {
        // The score as results show it (six decimals): a result shown at
        // 0.5 passes --threshold 0.5.
        fused.retain(|f| (f.score * 1e6).round() / 1e6 >= t);
    }
    let quoted = keep_quoted(db, &plan.required, &mut fused)?;
    let total = match (rankings.keyword(), quoted) {
        _ if req.threshold.is_some_and(|t| t > 0.0) => fused.len(),
        (Some(kw), true) => kw.total,
        (None, true) => fused.len(),
        _ => rankings.matched(db, plan)?,
    };
    Ok((fused, total))
}

/// Keeps the fused chunks that hold every one of the query's quoted
/// phrases (`required`); whether there were any. Public so that the
/// exact-scan benchmark filters its own fusion the way a search does.
pub fn keep_quoted(db: &Database, required: &[String], fused: &mut Vec<Fused>) -> Result<bool> {
    let Some(expr) = query::match_expression_requiring(required, required) else {
        return Ok(false);
    };
    let ids: Vec<i64> = fused.iter().map(|f| f.chunk_id).collect();
    let holding = db.keyword_matched_among(&expr, &ids)?;
    fused.retain(|f| holding.contains(&f.chunk_id));
    Ok(true)
}
