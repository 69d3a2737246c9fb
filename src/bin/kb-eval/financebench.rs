//! FinanceBench: long PDFs (SEC filings of 80-250 pages) and analysts'
//! questions with the pages their evidence is on. The filings are indexed
//! by the real `kb add` pipeline; each question is searched through
//! `kb::search` with the levers given, and scored as the dataset's
//! `eval.py` scores the CLI: for each question, the first result from the
//! question's filing whose `page`..`page_end` covers an evidence page.
//!
//! - page hit@k: such a result is in the top k;
//! - MRR@10: the mean of 1/rank of that result (0 when none in the top 10);
//! - doc@10: a top-10 result is from the question's filing.
//!
//! A set whose questions carry `names_document` (the manuals set) also gets
//! a row over those with `names_document: false`, which name neither the
//! document nor its program: there the right document must be found by
//! content.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use crate::embed_cache::CachedEmbedder;
use crate::halves::Half;
use crate::levers::{Levers, Settings};
use crate::metrics::median;
use crate::{load_model, mode_name};
use kb::config::{CliOverrides, Config};
use kb::db::{Database, OpenMode};
use kb::embed::Embed;
use kb::error::{KbError, Result};
use kb::ingest::pipeline::{IngestOptions, Ingester, ModelSource};
use kb::search::{Mode, SearchHit};

#[derive(Debug, Args)]
pub(crate) struct FinanceBenchArgs {
    /// The dataset: a folder with questions.jsonl and pdfs/
    #[arg(value_name = "DATASET_DIR")]
    dataset_dir: PathBuf,
    /// Where the evaluation's kb.db lives (created and ingested if missing)
    #[arg(long, value_name = "DIR")]
    data_dir: PathBuf,
    /// Local directory holding the model's ONNX file and tokenizer.json
    #[arg(long, value_name = "MODELDIR")]
    model_dir: Option<PathBuf>,
    /// Modes to score, comma-separated
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "keyword,vector,hybrid"
    )]
    modes: Vec<Mode>,
    /// Results per question
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Print each question the hybrid mode misses at 10, with the pages it
    /// listed from the question's filing
    #[arg(long)]
    misses: bool,
    /// Write every question's results in each mode scored (filing, pages,
    /// fused score, ranker parts, bm25, cosine, weak) as JSON lines to
    /// FILE, for analysis
    #[arg(long, value_name = "FILE")]
    dump: Option<PathBuf>,
    /// Index the filings again from scratch (after a change to reading
    /// or chunking); the knowledge base in DIR is deleted first
    #[arg(long)]
    fresh: bool,
    /// Reuse passage vectors from this file for chunks embedded before
    /// (same model, same text), and add the new ones to it
    #[arg(long, value_name = "FILE")]
    embedding_cache: Option<PathBuf>,
    /// Also report how often a search says "no good match", for the
    /// questions and for built-in off-topic and nonsense queries
    #[arg(long)]
    confidence: bool,
    /// Which questions to score: all (the full set and both halves), the
    /// fit half or the check half (split by a hash of the filing's name)
    #[arg(long, value_enum, default_value = "all")]
    half: Half,
    #[command(flatten)]
    levers: Levers,
}

/// One question of questions.jsonl.
struct Question {
    doc_name: String,
    question: String,
    evidence_pages: Vec<u32>,
    /// `names_document` as the set gives it; FinanceBench has none.
    names_document: Option<bool>,
}

fn load_questions(path: &Path) -> Result<Vec<Question>> {
    let text = std::fs::read_to_string(path).map_err(|e| KbError::io(path, e))?;
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = |what: &str| KbError::Usage(format!("{}:{}: {what}", path.display(), i + 1));
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(&format!("not JSON ({e})")))?;
        let field = |k: &str| {
            v[k].as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("no `{k}`")))
        };
        out.push(Question {
            doc_name: field("doc_name")?,
            question: field("question")?,
            evidence_pages: v["evidence_pages"]
                .as_array()
                .ok_or_else(|| bad("no `evidence_pages`"))?
                .iter()
                .filter_map(|p| p.as_u64().map(|p| p as u32))
                .collect(),
            names_document: v["names_document"].as_bool(),
        });
    }
    Ok(out)
}

/// Where a question's evidence landed in one search.
struct Outcome {
    /// 0-based rank of the first result covering an evidence page.
    first: Option<usize>,
    /// A result from the question's filing in the top 10.
    document: bool,
    took: Duration,
    /// The pages listed from the question's filing, in order.
    pages: Vec<(u32, u32)>,
}

fn file_stem(path: Option<&str>) -> &str {
    let name = path.and_then(|p| p.rsplit('/').next()).unwrap_or("");
    name.strip_suffix(".pdf").unwrap_or(name)
}

fn outcome(q: &Question, hits: &[SearchHit], took: Duration) -> Outcome {
    let mut first = None;
    let mut pages = Vec::new();
    for (i, h) in hits.iter().enumerate() {
        if file_stem(h.chunk.path.as_deref()) != q.doc_name {
            continue;
        }
        let p0 = h.chunk.meta.page.unwrap_or(0);
        let p1 = h.chunk.meta.page_end.unwrap_or(p0);
        pages.push((p0, p1));
        if first.is_none() && q.evidence_pages.iter().any(|p| (p0..=p1).contains(p)) {
            first = Some(i);
        }
    }
    Outcome {
        first,
        document: hits
            .iter()
            .take(10)
            .any(|h| file_stem(h.chunk.path.as_deref()) == q.doc_name),
        took,
        pages,
    }
}

pub(crate) fn run(args: &FinanceBenchArgs) -> Result<()> {
    let questions: Vec<Question> = load_questions(&args.dataset_dir.join("questions.jsonl"))?
        .into_iter()
        .filter(|q| args.half.holds(&q.doc_name))
        .collect();
    let pdfs = args.dataset_dir.join("pdfs");
    let config = Config::load(&CliOverrides {
        data_dir: Some(args.data_dir.clone()),
    })?;
    let settings = Settings::of(&args.levers, &config)?;
    let embedder = Arc::new(load_model(&config, args.model_dir.as_deref())?);
    std::fs::create_dir_all(&args.data_dir).map_err(|e| KbError::io(&args.data_dir, e))?;
    if args.fresh {
        for name in ["kb.db", "kb.db-wal", "kb.db-shm"] {
            let p = args.data_dir.join(name);
            if p.exists() {
                std::fs::remove_file(&p).map_err(|e| KbError::io(&p, e))?;
            }
        }
    }
    let db = Database::open(&config.db_path(), OpenMode::Create)?;
    kb::embed::bind(&db, embedder.as_ref())?;
    let filings = std::fs::read_dir(&pdfs)
        .map_err(|e| KbError::io(&pdfs, e))?
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "pdf"))
        })
        .count();
    let ingest_note = if db.document_count()? as usize >= filings {
        "ingest reused".to_string()
    } else {
        let started = Instant::now();
        let model: Arc<dyn Embed> = match &args.embedding_cache {
            Some(path) => Arc::new(CachedEmbedder::open(embedder.clone(), path)?),
            None => embedder.clone(),
        };
        let summary = Ingester::new(&config, &db, ModelSource::Ready(model)).run(
            std::slice::from_ref(&pdfs),
            &IngestOptions {
                tags: Vec::new(),
                exclude: Vec::new(),
                progress: Arc::new(kb::progress::Silent),
                cancel: Arc::new(AtomicBool::new(false)),
                follow_external_links: false,
                follow_everywhere: false,
                reread: false,
            },
        )?;
        format!(
            "ingest {:.0} s ({} filings, {} chunks)",
            started.elapsed().as_secs_f64(),
            summary.added + summary.updated,
            summary.chunks
        )
    };
    embedder.embed_query("warm-up")?;

    let mut out = String::from(
        "| mode | half | questions | hit@1 | hit@5 | hit@10 | MRR@10 | doc@10 | median ms |\n\
         |------|------|----------:|------:|------:|-------:|-------:|-------:|----------:|\n",
    );
    let mut misses = Vec::new();
    let mut dump = String::new();
    for &mode in &args.modes {
        let mut outcomes = Vec::with_capacity(questions.len());
        for q in &questions {
            let req = settings.request(&q.question, mode, args.top, settings.base.max_per_document);
            let started = Instant::now();
            let resp = match mode {
                Mode::Keyword => settings.search(&db, &req, None::<fn(&str) -> Result<Vec<f32>>>),
                _ => settings.search(&db, &req, Some(|t: &str| embedder.embed_query(t))),
            }?;
            let o = outcome(q, &resp.hits, started.elapsed());
            if args.dump.is_some() {
                let hits: Vec<serde_json::Value> = resp
                    .hits
                    .iter()
                    .map(|h| {
                        serde_json::json!({
                            "doc": file_stem(h.chunk.path.as_deref()),
                            "chunk": h.chunk.chunk_id,
                            "page": h.chunk.meta.page,
                            "page_end": h.chunk.meta.page_end,
                            "score": h.score, "fts": h.fts, "vector": h.vector,
                            "bm25": h.bm25, "cosine": h.cosine, "weak": h.weak,
                        })
                    })
                    .collect();
                let line = serde_json::json!({
                    "mode": format!("{mode:?}").to_lowercase(),
                    "doc_name": q.doc_name, "half": Half::of(&q.doc_name).name(),
                    "evidence_pages": q.evidence_pages,
                    "question": q.question, "hits": hits,
                });
                dump.push_str(&line.to_string());
                dump.push('\n');
            }
            if mode == Mode::Hybrid && args.misses && o.first.is_none_or(|r| r >= 10) {
                misses.push(format!(
                    "- {} (evidence p.{:?}): listed {:?}\n  {}\n",
                    q.doc_name, q.evidence_pages, o.pages, q.question
                ));
            }
            outcomes.push(o);
        }
        for &half in args.half.rows() {
            let scored: Vec<&Outcome> = outcomes
                .iter()
                .zip(&questions)
                .filter(|(_, q)| half.holds(&q.doc_name))
                .map(|(o, _)| o)
                .collect();
            out.push_str(&row(mode, half.name(), &scored));
        }
        if let Some(scored) = not_naming(&outcomes, &questions) {
            out.push_str(&row(mode, "not naming", &scored));
        }
    }
    out.push_str(&format!(
        "\nFinanceBench {}: {} questions, {} filings, {} chunks; model {}; {}; {ingest_note}.\n",
        args.dataset_dir.display(),
        questions.len(),
        db.document_count()?,
        db.chunk_count()?,
        embedder.spec().name,
        settings.describe(),
    ));
    if let Some(path) = &args.dump {
        std::fs::write(path, dump).map_err(|e| KbError::io(path, e))?;
    }
    for m in misses {
        out.push_str(&m);
    }
    if args.confidence {
        let real: Vec<&str> = questions.iter().map(|q| q.question.as_str()).collect();
        out.push_str(&crate::confidence::report(
            &db, &embedder, &settings, &real, args.top,
        )?);
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| KbError::io("stdout", e))
}

/// The outcomes of the questions marked `names_document: false`, when the
/// set marks any (within the half scored).
fn not_naming<'a>(outcomes: &'a [Outcome], questions: &[Question]) -> Option<Vec<&'a Outcome>> {
    let scored: Vec<&Outcome> = outcomes
        .iter()
        .zip(questions)
        .filter(|(_, q)| q.names_document == Some(false))
        .map(|(o, _)| o)
        .collect();
    (!scored.is_empty()).then_some(scored)
}

/// One line of the table: the metrics over the questions of one half (or
/// another subset, named by `label`).
fn row(mode: Mode, label: &str, outcomes: &[&Outcome]) -> String {
    let n = outcomes.len().max(1) as f64;
    let hit = |k: usize| {
        outcomes
            .iter()
            .filter(|o| o.first.is_some_and(|r| r < k))
            .count() as f64
            / n
    };
    let mrr = outcomes
        .iter()
        .filter_map(|o| o.first.filter(|r| *r < 10))
        .map(|r| 1.0 / (r + 1) as f64)
        .sum::<f64>()
        / n;
    let doc = outcomes.iter().filter(|o| o.document).count() as f64 / n;
    let mut times: Vec<Duration> = outcomes.iter().map(|o| o.took).collect();
    format!(
        "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.1} |\n",
        mode_name(mode),
        label,
        outcomes.len(),
        hit(1),
        hit(5),
        hit(10),
        mrr,
        doc,
        median(&mut times).as_secs_f64() * 1000.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome_at(first: Option<usize>) -> Outcome {
        Outcome {
            first,
            document: first.is_some(),
            took: Duration::ZERO,
            pages: Vec::new(),
        }
    }

    #[test]
    fn questions_not_naming_their_document_get_their_own_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("questions.jsonl");
        let line = |doc: &str, names: &str| {
            format!(
                "{{\"doc_name\": \"{doc}\", \"question\": \"q\", \"evidence_pages\": [3]{names}}}\n"
            )
        };
        std::fs::write(
            &path,
            line("a", ", \"names_document\": true")
                + &line("b", ", \"names_document\": false")
                + &line("c", ""),
        )
        .unwrap();
        let questions = load_questions(&path).unwrap();
        let marks: Vec<Option<bool>> = questions.iter().map(|q| q.names_document).collect();
        assert_eq!(marks, [Some(true), Some(false), None]);

        let outcomes = vec![outcome_at(Some(0)), outcome_at(Some(4)), outcome_at(None)];
        let scored = not_naming(&outcomes, &questions).unwrap();
        assert_eq!(scored.len(), 1);
        assert_eq!(scored[0].first, Some(4));
        let line = row(Mode::Hybrid, "not naming", &scored);
        assert!(
            line.contains("| not naming | 1 | 0.000 | 1.000 | 1.000 | 0.200 | 1.000 |"),
            "{line}"
        );

        // FinanceBench marks none: no such row.
        assert!(not_naming(&outcomes, &questions[2..]).is_none());
    }
}
