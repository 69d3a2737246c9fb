//! `kb-bench vector`, `cli` and `exact`: vector search alone, `kb search` per
//! process, and fresh-process results against an exact scan.

use std::path::Path;
use std::time::Instant;

use kb::db::{Database, OpenMode};
use kb::embed::{resolve, ModelUse};
use kb::error::{KbError, Result};

use crate::*;

pub(crate) fn bench_vector(a: &Args) -> Result<()> {
    let data_dir = need(&a.data_dir, "--data-dir")?;
    let config = config(Some(data_dir))?;
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let (embedder, _) = load_model(need(&a.model_dir, "--model-dir")?, &config)?;
    let qvecs: Vec<Vec<f32>> = QUERIES
        .iter()
        .map(|q| embedder.embed_query(q))
        .collect::<Result<_>>()?;
    let n = db.chunk_count()?;
    let mut embed_ms = Vec::new();
    for i in 0..a.runs.max(5) {
        let t = Instant::now();
        embedder.embed_query(QUERIES[i % QUERIES.len()])?;
        embed_ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let t = Instant::now();
    let index = kb::search::vector::VectorIndex::load(&db)?;
    let load_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mut memory = Vec::new();
    for i in 0..a.runs.max(5) {
        let t = Instant::now();
        kb::search::vector::search_in(
            &index,
            &db,
            &qvecs[i % qvecs.len()],
            &Default::default(),
            30,
        )?;
        memory.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "query embedding (warm session, short query): median {:.2} ms (p95 {:.2}); \
         in-memory index of {} vectors: load {load_ms:.0} ms, top-30 search (code scan + exact re-score) median {:.2} ms (p95 {:.2})",
        median(embed_ms.clone()),
        p95(embed_ms),
        index.len(),
        median(memory.clone()),
        p95(memory)
    );
    let (mut scan, mut knn) = (Vec::new(), Vec::new());
    for i in 0..a.runs.max(5) {
        let q = &qvecs[i % qvecs.len()];
        let t = Instant::now();
        let hits = kb::search::vector::scan(&db, q, None, 30)?;
        scan.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let hits2 = db.vector_knn(q, 30, None)?;
        knn.push(t.elapsed().as_secs_f64() * 1000.0);
        if i == 0 {
            let a: Vec<i64> = hits.iter().take(10).map(|h| h.chunk_id).collect();
            let b: Vec<i64> = hits2.iter().take(10).map(|h| h.chunk_id).collect();
            if a != b {
                eprintln!("note: scan and vec0 top-10 differ: {a:?} vs {b:?}");
            }
        }
    }
    let mut codes = Vec::new();
    for i in 0..a.runs.max(5) {
        let q = &qvecs[i % qvecs.len()];
        let t = Instant::now();
        let hits = kb::search::vector::search_codes(&db, q, None, 30)?;
        codes.push(t.elapsed().as_secs_f64() * 1000.0);
        if i < qvecs.len() && hits != kb::search::vector::scan(&db, q, None, 30)? {
            return Err(KbError::Usage(format!(
                "the codes scan differs from the exact scan for {:?}",
                QUERIES[i]
            )));
        }
    }
    let mut read = Vec::new();
    for _ in 0..a.runs.max(5) {
        let t = Instant::now();
        let mut count = 0usize;
        db.for_each_code(|_, c| count += c.codes.len())?;
        read.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let ids: Vec<i64> = db.chunk_ids()?.into_iter().step_by(97).take(200).collect();
    let mut by_id = Vec::new();
    for _ in 0..a.runs.max(5) {
        let t = Instant::now();
        db.vectors_by_id(&ids, |_, _| {})?;
        by_id.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "  of which: reading every code {:.2} ms; 200 float vectors by id from vec0 {:.2} ms",
        median(read),
        median(by_id)
    );
    println!(
        "vector search over {n} chunks, top 30: chunk_codes scan + exact re-score (what kb search uses) \
         median {:.2} ms (p95 {:.2}), identical to the exact scan",
        median(codes.clone()),
        p95(codes)
    );
    println!(
        "vector search over {n} chunks, top 30: sqlite-vec vec0 median {:.2} ms (p95 {:.2}); Rust scan streaming vectors out of vec0 median {:.2} ms (p95 {:.2})",
        median(knn.clone()),
        p95(knn),
        median(scan.clone()),
        p95(scan)
    );
    Ok(())
}

pub(crate) fn bench_cli(a: &Args) -> Result<()> {
    let data_dir = need(&a.data_dir, "--data-dir")?;
    let exe = std::env::current_exe().map_err(|e| KbError::io("kb-bench", e))?;
    let kb = exe.with_file_name("kb");
    let modes: &[(&str, Option<&str>)] = if std::env::var_os("KB_BENCH_VECTOR").is_some() {
        &[
            ("keyword-only", Some("--fts-only")),
            ("vector-only", Some("--vec-only")),
            ("hybrid", None),
        ]
    } else {
        &[("keyword-only", Some("--fts-only")), ("hybrid", None)]
    };
    for &(label, extra) in modes {
        let mut times = Vec::new();
        for i in 0..a.runs + 2 {
            let mut cmd = std::process::Command::new(&kb);
            cmd.arg("--data-dir")
                .arg(data_dir)
                .arg("search")
                .arg(QUERIES[i % QUERIES.len()]);
            if let Some(x) = extra {
                cmd.arg(x);
            }
            let t = Instant::now();
            let out = cmd.output().map_err(|e| KbError::io(&kb, e))?;
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if !out.status.success() {
                return Err(KbError::Usage(format!(
                    "kb search failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                )));
            }
            if i >= 2 {
                times.push(ms); // the first two warm the page cache
            }
        }
        println!(
            "kb search {label}, fresh process: p50 {:.1} ms, p95 {:.1} ms over {} runs",
            median(times.clone()),
            p95(times.clone()),
            times.len()
        );
    }
    if a.phases {
        phases(&kb, data_dir, a.runs)?;
    }
    Ok(())
}

/// The median start and length of each phase of a fresh hybrid search, as
/// `KB_TIMINGS=1` reports them, and what the process costs outside them
/// (exec, dynamic loading, exit): the wall time less kb's own total.
fn phases(kb: &Path, data_dir: &Path, runs: usize) -> Result<()> {
    let mut seen: Vec<String> = Vec::new();
    let mut by_phase: std::collections::HashMap<String, (Vec<f64>, Vec<f64>)> = Default::default();
    let mut outside = Vec::new();
    for i in 0..runs + 2 {
        let t = Instant::now();
        let out = std::process::Command::new(kb)
            .arg("--data-dir")
            .arg(data_dir)
            .args(["search", QUERIES[i % QUERIES.len()]])
            .env(kb::timings::VARIABLE, "1")
            .output()
            .map_err(|e| KbError::io(kb, e))?;
        let wall = t.elapsed().as_secs_f64() * 1000.0;
        if i < 2 {
            continue;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        for (name, start, took) in stderr.lines().filter_map(kb::timings::parse_line) {
            if name == "total" {
                outside.push(wall - took);
            }
            if !seen.iter().any(|s| s == name) {
                seen.push(name.to_string());
            }
            let e = by_phase.entry(name.to_string()).or_default();
            e.0.push(start);
            e.1.push(took);
        }
    }
    println!(
        "phases of a fresh hybrid search (median over {runs} runs; ms from the start of main):"
    );
    println!("  {:<28} {:>8} {:>8}", "phase", "start", "took");
    for name in &seen {
        let (starts, took) = &by_phase[name];
        println!(
            "  {name:<28} {:>8.1} {:>8.1}",
            median(starts.clone()),
            median(took.clone())
        );
    }
    if !outside.is_empty() {
        println!(
            "  {:<28} {:>8} {:>8.1}",
            "process start and exit",
            "",
            median(outside)
        );
    }
    Ok(())
}

/// `kb search` as an agent runs it (a fresh process, hybrid, top 10) on
/// real queries, against the same search done exactly in this process: the
/// keyword ranking from the database, the vector ranking from a full scan
/// of every float vector, fused with the same RRF. Fails on any difference
/// in chunks, order or cosine.
pub(crate) fn bench_exact(a: &Args) -> Result<()> {
    let data_dir = need(&a.data_dir, "--data-dir")?;
    let queries_path = need(&a.corpus, "--queries")?;
    let config = config(Some(data_dir))?;
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let binding = db
        .model_binding()?
        .ok_or_else(|| KbError::Usage("the knowledge base has no model".into()))?;
    let embedder = resolve::for_binding(&config, &binding)?.load(&config, ModelUse::Queries)?;
    let mut queries = read_queries(queries_path)?;
    queries.truncate(a.runs);
    let mut all: Vec<(i64, Vec<f32>)> = Vec::new();
    db.for_each_vector(|id, v| all.push((id, v.to_vec())))?;
    let exe = std::env::current_exe().map_err(|e| KbError::io("kb-bench", e))?;
    let kb = exe.with_file_name("kb");
    let top = 10;
    let mut same = 0;
    for q in &queries {
        let out = std::process::Command::new(&kb)
            .arg("--data-dir")
            .arg(data_dir)
            // The exact scan checks the vector ranker, so the query is not
            // refined (a refined query is ranked by the same code again).
            .env("KB_SEARCH_FEEDBACK_CHUNKS", "0")
            .args(["search", "--top", "10", "--max-per-document", "0", "--"])
            .arg(q)
            .output()
            .map_err(|e| KbError::io(&kb, e))?;
        if !out.status.success() {
            return Err(KbError::Usage(format!(
                "kb search failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| KbError::Usage(format!("kb search output: {e}")))?;
        let got: Vec<(i64, Option<f64>)> = v["results"]
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|h| {
                        (
                            h["chunk_id"].as_i64().unwrap_or(-1),
                            h["score_breakdown"]["cosine"].as_f64(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        // The exact search.
        let req = kb::search::SearchRequest::build(
            q,
            &config.search,
            &kb::search::SearchOverrides {
                top: Some(top),
                mode: Some(kb::search::Mode::Hybrid),
                max_per_document: Some(kb::config::PerDocument::AtMost(0)),
                feedback: Some(kb::search::Feedback::OFF),
                ..Default::default()
            },
        )?;
        let k = req.candidates();
        // The keyword ranker's best `top`, as a keyword-only search lists them.
        let keyword_search = |top: usize| {
            kb::search::search_with(
                &db,
                &kb::search::SearchRequest {
                    top,
                    mode: kb::search::Mode::Keyword,
                    ..req.clone()
                },
                None::<fn(&str) -> Result<Vec<f32>>>,
                Default::default(),
            )
        };
        let keyword = keyword_search(k)?;
        let keyword_ranked: Vec<(i64, f64)> = keyword
            .hits
            .iter()
            .map(|h| (h.chunk.chunk_id, h.bm25.unwrap_or(0.0)))
            .collect();
        // Each scale's bottom: the score at its depth (by code for the
        // vectors, as the search reads it), or a keyword score of 0 when
        // fewer chunks matched.
        let depth = req.scale_depth;
        let keyword_bottom = if depth > 0 {
            let deep = keyword_search(depth)?;
            let scores = deep.hits.iter().map(|h| h.bm25.unwrap_or(0.0));
            Some(if deep.hits.len() >= depth {
                scores.fold(f64::INFINITY, f64::min)
            } else {
                0.0
            })
        } else {
            None
        };
        // A search embeds the query without its quote marks.
        let qv = embedder.embed_query(&kb::search::query::unquoted(q))?;
        let exact = kb::search::vector::top_k(
            all.iter()
                .map(|(id, v)| kb::db::VectorHit {
                    chunk_id: *id,
                    cosine: kb::vector_math::dot(&qv, v),
                })
                .collect(),
            k,
        );
        let vector_ranked: Vec<(i64, f64)> = exact
            .iter()
            .map(|h| (h.chunk_id, h.cosine as f64))
            .collect();
        let cosine: std::collections::HashMap<i64, f32> =
            exact.iter().map(|h| (h.chunk_id, h.cosine)).collect();
        let keyword_list = kb::search::Ranking {
            hits: &keyword_ranked,
            complete: keyword.total_matches <= keyword_ranked.len(),
            weight: req.fusion.weights.keyword,
            strong: req.fusion.strong_bm25,
            floor: 0.0,
            bottom: keyword_bottom,
            tie_rank: 1,
        };
        let vector_list = kb::search::Ranking {
            strong: req.fusion.strong_cosine,
            floor: req.fusion.cosine_floor,
            bottom: kb::search::vector::scale_bottom(&db, &qv, depth)?,
            ..kb::search::Ranking::top(&vector_ranked, req.fusion.weights.vector)
        };
        let mut fused = kb::search::fuse(&[keyword_list, vector_list], &req.fusion);
        kb::search::in_listed_order(&db, &req, &mut fused)?;
        let required = kb::search::query::quoted_phrases(q);
        kb::search::keep_quoted(&db, &required, &mut fused)?;
        fused.truncate(top);
        let want: Vec<(i64, Option<f64>)> = fused
            .iter()
            .map(|f| (f.chunk_id, cosine.get(&f.chunk_id).map(|c| *c as f64)))
            .collect();
        let ids = |v: &[(i64, Option<f64>)]| v.iter().map(|x| x.0).collect::<Vec<_>>();
        let cos_ok = got.iter().zip(&want).all(|(g, w)| match (g.1, w.1) {
            // kb search prints cosines to 4 decimals.
            (Some(a), Some(b)) => (a - b).abs() <= 0.5e-4 + 1e-6,
            (None, None) => true,
            _ => false,
        });
        if ids(&got) == ids(&want) && cos_ok {
            same += 1;
        } else {
            println!("DIFFERENT: {q:?}\n  kb search: {got:?}\n  exact:     {want:?}");
        }
    }
    println!(
        "{same} of {} hybrid queries: kb search (fresh process) identical to an exact scan",
        queries.len()
    );
    if same != queries.len() {
        return Err(KbError::Usage("results differ from the exact scan".into()));
    }
    Ok(())
}
