//! BEIR datasets (NFCorpus): the corpus indexed as text notes, every
//! judged query searched, nDCG@10 and Recall@100 per mode.

use std::collections::HashSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use sha2::{Digest, Sha256};

use crate::dataset::{
    judged_queries, load_corpus, load_qrels, load_queries, CorpusDoc, JudgedQuery,
};
use crate::halves::Half;
use crate::levers::{Levers, Settings};
use crate::metrics::{median, ndcg_as_listed, ndcg_at, recall_at};
use crate::{load_model, mode_name};
use kb::config::{CliOverrides, Config, PerDocument};
use kb::db::{Database, NewDocument, OpenMode};
use kb::document::DocType;
use kb::embed::Embedder;
use kb::error::{KbError, Result};
use kb::ingest::context::stored_chunks;
use kb::ingest::pipeline::{embed_and_write, ReadyDocument};
use kb::ingest::{self, ChunkContext};
use kb::search::Mode;

/// Documents ranked per query: the depth of Recall@100.
const RANK_DEPTH: usize = 100;
/// The cut-off of nDCG.
const NDCG_CUTOFF: usize = 10;
/// Chunks gathered across documents before one embedding call (as `kb add`).
const EMBED_GROUP_CHUNKS: usize = 256;
/// A progress line is printed every this many documents.
const PROGRESS_EVERY: usize = 500;
/// Prefix of the `source_path` of every indexed corpus document.
const SOURCE_PREFIX: &str = "beir:";
/// The database config key recording the headers setting of the ingest.
const EVAL_HEADERS_KEY: &str = "eval_context_header";

#[derive(Debug, Args)]
pub(crate) struct BeirArgs {
    /// Directory holding corpus.jsonl, queries.jsonl and qrels/<split>.tsv
    #[arg(value_name = "DATASET_DIR")]
    dataset_dir: PathBuf,
    /// Where the evaluation's kb.db lives (created if missing)
    #[arg(long, value_name = "DIR")]
    data_dir: PathBuf,
    /// Local directory holding the model's ONNX file and tokenizer.json
    /// [default: embedding.model_dir, else the Hugging Face cache]
    #[arg(long, value_name = "MODELDIR")]
    model_dir: Option<PathBuf>,
    /// Which qrels file to score: qrels/<SPLIT>.tsv
    #[arg(long, default_value = "test")]
    split: String,
    /// Keep the documents already in DIR/kb.db: skip the ingest when every
    /// corpus document is there, else index only the missing ones
    #[arg(long)]
    reuse: bool,
    /// Index chunks without context headers (embed each chunk's text alone)
    #[arg(long)]
    no_context_header: bool,
    /// Modes to score, comma-separated
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "keyword,vector,hybrid"
    )]
    modes: Vec<Mode>,
    /// Also report how often a search says "no good match", for the
    /// judged queries and for built-in off-topic and nonsense queries
    #[arg(long)]
    confidence: bool,
    /// Which queries to score: all (the full set and both halves), the fit
    /// half or the check half (split by a hash of the query id)
    #[arg(long, value_enum, default_value = "all")]
    half: Half,
    #[command(flatten)]
    levers: Levers,
}

pub(crate) fn run_beir(args: &BeirArgs) -> Result<()> {
    let dir = &args.dataset_dir;
    if !dir.is_dir() {
        return Err(KbError::PathNotFound(dir.clone()));
    }
    let corpus = load_corpus(&dir.join("corpus.jsonl"))?;
    let queries = load_queries(&dir.join("queries.jsonl"))?;
    let qrels = load_qrels(&dir.join("qrels").join(format!("{}.tsv", args.split)))?;
    eprintln!(
        "kb-eval: {}: {} documents, {} queries, {} queries with qrels in {}",
        dir.display(),
        corpus.len(),
        queries.len(),
        qrels.len(),
        args.split
    );

    let mut config = Config::load(&CliOverrides {
        data_dir: Some(args.data_dir.clone()),
    })?;
    config.chunking.context_header = !args.no_context_header;
    let settings = Settings::of(&args.levers, &config)?;
    let embedder = load_model(&config, args.model_dir.as_deref())?;
    let db = Database::open(&config.db_path(), OpenMode::Create)?;
    kb::embed::bind(&db, &embedder)?;

    // A reused index must have been built with the same headers setting.
    let headers = if config.chunking.context_header {
        "on"
    } else {
        "off"
    };
    match db.get_config(EVAL_HEADERS_KEY)? {
        Some(built) if built != headers => {
            return Err(KbError::Usage(format!(
                "{} was indexed with context headers {built}; use another --data-dir for headers {headers}",
                db.path().display()
            )))
        }
        _ => db.set_config(EVAL_HEADERS_KEY, headers)?,
    }

    let have = db.document_count()?;
    let ingest_time = if args.reuse && have == corpus.len() as i64 {
        eprintln!(
            "kb-eval: {} already holds all {have} documents; skipping the ingest",
            db.path().display()
        );
        None
    } else {
        let started = Instant::now();
        ingest_corpus(&db, &embedder, &config, &corpus, args.reuse)?;
        Some(started.elapsed())
    };

    // The first inference call pays for ONNX Runtime's warm-up; keep it out
    // of the per-query timings.
    embedder.embed_query("warm-up")?;

    let judged: Vec<JudgedQuery> = judged_queries(&queries, &qrels)
        .into_iter()
        .filter(|q| args.half.holds(q.id))
        .collect();
    let mut rows = Vec::new();
    for &mode in &args.modes {
        let scores = evaluate_mode(&db, &embedder, &judged, mode, &settings)?;
        let total: Duration = scores.iter().map(|s| s.took).sum();
        eprintln!(
            "kb-eval: {}: {} queries in {:.1} s",
            mode_name(mode),
            scores.len(),
            total.as_secs_f64()
        );
        for &half in args.half.rows() {
            let scored: Vec<&QueryScore> = scores
                .iter()
                .zip(&judged)
                .filter(|(_, q)| half.holds(q.id))
                .map(|(s, _)| s)
                .collect();
            rows.push(ModeResult::of(mode, half, &scored));
        }
    }

    let dataset = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    let onnx = embedder
        .files()
        .onnx
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ingest_note = match ingest_time {
        Some(t) => format!("ingest {:.0} s", t.as_secs_f64()),
        None => "ingest reused".to_string(),
    };
    let mut out = markdown_table(&rows);
    out.push_str(&format!(
        "\nDataset {dataset} (split {}): {} docs, {} chunks; model {} ({onnx}); context headers {headers}; \
         {}; {ingest_note}; search time {}.\n",
        args.split,
        db.document_count()?,
        db.chunk_count()?,
        embedder.spec().name,
        settings.describe(),
        rows.iter()
            .filter(|r| r.half == args.half)
            .map(|r| format!("{} {:.1} s", mode_name(r.mode), r.total.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if args.confidence {
        let real: Vec<&str> = judged.iter().map(|q| q.text).collect();
        out.push_str(&crate::confidence::report(
            &db, &embedder, &settings, &real, 10,
        )?);
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| KbError::io("stdout", e))
}

// ---------------------------------------------------------------------------
// Indexing
// ---------------------------------------------------------------------------

/// Counts and timing of an ingest, for the progress lines.
struct IngestProgress {
    started: Instant,
    written: usize,
    chunks: usize,
    next_report: usize,
}

impl IngestProgress {
    fn report(&mut self, total: usize, force: bool) {
        if !force && self.written < self.next_report {
            return;
        }
        while self.next_report <= self.written {
            self.next_report += PROGRESS_EVERY;
        }
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        eprintln!(
            "kb-eval: indexed {}/{total} documents ({} chunks), {:.1} docs/s, {:.1} chunks/s",
            self.written,
            self.chunks,
            self.written as f64 / secs,
            self.chunks as f64 / secs
        );
    }
}

/// Indexes the corpus like `kb add` indexes text notes (`title\n\ntext`,
/// the corpus title as the document's title)
/// chunked by the notes chunker, embedded in groups of about
/// [`EMBED_GROUP_CHUNKS`] chunks, each document written in its own
/// transaction. With `reuse`, documents already indexed are kept.
fn ingest_corpus(
    db: &Database,
    embedder: &Embedder,
    config: &Config,
    corpus: &[CorpusDoc],
    reuse: bool,
) -> Result<()> {
    let tokens = embedder.token_counter();
    let ctx = ChunkContext::for_run(config, &tokens, embedder.max_chunk_tokens());
    let mut progress = IngestProgress {
        started: Instant::now(),
        written: 0,
        chunks: 0,
        next_report: PROGRESS_EVERY,
    };
    let mut kept = 0;
    let mut failed = 0;
    let mut pending: Vec<ReadyDocument> = Vec::new();
    let mut pending_chunks = 0;
    let todo: Vec<&CorpusDoc> = if reuse {
        let mut todo = Vec::new();
        for doc in corpus {
            if db.find_document_by_path(&source_path(&doc.id))?.is_none() {
                todo.push(doc);
            }
        }
        kept = corpus.len() - todo.len();
        todo
    } else {
        corpus.iter().collect()
    };
    if kept > 0 {
        eprintln!(
            "kb-eval: {kept} documents already indexed; indexing the other {}",
            todo.len()
        );
    }
    for doc in &todo {
        match prepare_document(
            doc,
            &ctx,
            config.chunking.context_header,
            embedder.max_chunk_tokens(),
        ) {
            Ok(ready) => {
                pending_chunks += ready.chunks.len();
                pending.push(ready);
            }
            Err(reason) => {
                failed += 1;
                eprintln!("kb-eval: warning: document {}: {reason}; skipped", doc.id);
            }
        }
        if pending_chunks >= EMBED_GROUP_CHUNKS {
            write_group(db, embedder, std::mem::take(&mut pending), &mut progress)?;
            pending_chunks = 0;
            progress.report(todo.len(), false);
        }
    }
    write_group(db, embedder, pending, &mut progress)?;
    progress.report(todo.len(), true);
    if failed > 0 {
        eprintln!("kb-eval: warning: {failed} documents could not be indexed");
    }
    Ok(())
}

fn source_path(id: &str) -> String {
    format!("{SOURCE_PREFIX}{id}")
}

/// Chunks one corpus document with the notes chunker.
fn prepare_document(
    doc: &CorpusDoc,
    ctx: &ChunkContext,
    headers: bool,
    model_max: usize,
) -> std::result::Result<ReadyDocument, String> {
    let text = format!("{}\n\n{}", doc.title, doc.text);
    let bytes = text.as_bytes();
    let path = PathBuf::from(format!("{}.txt", doc.id));
    let mut parsed = ingest::parse(DocType::Note, &path, bytes, ctx).map_err(|e| e.to_string())?;
    parsed.title = if doc.title.trim().is_empty() {
        doc.id.clone()
    } else {
        doc.title.clone()
    };
    let document = NewDocument {
        title: parsed.title.clone(),
        source_path: source_path(&doc.id),
        content_hash: hex::encode(Sha256::digest(bytes)),
        doc_type: DocType::Note,
        language: None,
        file_size: bytes.len() as u64,
        file_mtime: Some(0),
        metadata: Default::default(),
        tags: Vec::new(),
        content: None,
        reader_version: kb::ingest::readers::version(DocType::Note),
    };
    let chunks = stored_chunks(&parsed, &path, headers, ctx.tokens, model_max);
    Ok(ReadyDocument { document, chunks })
}

/// Embeds and writes a group through the same code as `kb add`.
fn write_group(
    db: &Database,
    embedder: &Embedder,
    group: Vec<ReadyDocument>,
    progress: &mut IngestProgress,
) -> Result<()> {
    for (_, n) in embed_and_write(db, Some(embedder), group)? {
        progress.written += 1;
        progress.chunks += n;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Searching and scoring
// ---------------------------------------------------------------------------

/// One row of the results table: a mode's metrics over one half.
struct ModeResult {
    mode: Mode,
    half: Half,
    ndcg: f64,
    /// nDCG@10 of the first ten results as `kb search --top 10` lists them:
    /// a document listed again gains nothing.
    listed: f64,
    recall: f64,
    queries: usize,
    total: Duration,
    median: Duration,
}

impl ModeResult {
    fn of(mode: Mode, half: Half, scores: &[&QueryScore]) -> ModeResult {
        let n = scores.len().max(1) as f64;
        let mean = |f: fn(&QueryScore) -> f64| scores.iter().map(|s| f(s)).sum::<f64>() / n;
        let mut times: Vec<Duration> = scores.iter().map(|s| s.took).collect();
        ModeResult {
            mode,
            half,
            ndcg: mean(|s| s.ndcg),
            listed: mean(|s| s.listed),
            recall: mean(|s| s.recall),
            queries: scores.len(),
            total: times.iter().sum(),
            median: median(&mut times),
        }
    }
}

/// One query's metrics in one mode.
struct QueryScore {
    ndcg: f64,
    listed: f64,
    recall: f64,
    took: Duration,
}

fn evaluate_mode(
    db: &Database,
    embedder: &Embedder,
    queries: &[JudgedQuery],
    mode: Mode,
    settings: &Settings,
) -> Result<Vec<QueryScore>> {
    let mut scores = Vec::with_capacity(queries.len());
    for q in queries {
        let started = Instant::now();
        let ranking = rank_documents(db, embedder, q, mode, settings)?;
        let took = started.elapsed();
        let top = listed_documents(db, embedder, q, mode, settings)?;
        scores.push(QueryScore {
            ndcg: ndcg_at(&ranking, q.qrels, NDCG_CUTOFF),
            listed: ndcg_as_listed(&top, q.qrels, NDCG_CUTOFF),
            recall: recall_at(&ranking, q.qrels, RANK_DEPTH),
            took,
        });
    }
    Ok(scores)
}

/// The first [`RANK_DEPTH`] distinct documents for a query, best first.
///
/// The search ranks chunks, and a document may have several, so it asks for
/// 3x the depth in chunks and keeps each document's best chunk; when that
/// yields too few documents while more chunks exist, it asks again for twice
/// as many. As BEIR's evaluation does, a document with the query's own id is
/// left out.
fn rank_documents(
    db: &Database,
    embedder: &Embedder,
    query: &JudgedQuery,
    mode: Mode,
    settings: &Settings,
) -> Result<Vec<String>> {
    let mut top = RANK_DEPTH * 3;
    loop {
        let hits = search_documents(
            db,
            embedder,
            query,
            mode,
            settings,
            top,
            PerDocument::AtMost(0),
        )?;
        let exhausted = hits.len() < top;
        let mut seen = HashSet::new();
        let mut docs = Vec::new();
        for id in hits {
            if seen.insert(id.clone()) {
                docs.push(id);
            }
        }
        if docs.len() >= RANK_DEPTH || exhausted {
            docs.truncate(RANK_DEPTH);
            return Ok(docs);
        }
        top *= 2;
    }
}
/// The documents of the first [`NDCG_CUTOFF`] results as a search lists
/// them (with `max_per_document` as set), repeats included.
fn listed_documents(
    db: &Database,
    embedder: &Embedder,
    query: &JudgedQuery,
    mode: Mode,
    settings: &Settings,
) -> Result<Vec<String>> {
    // One more than the cut-off, as the query's own document is left out.
    let per_document = settings.base.max_per_document;
    let mut docs = search_documents(
        db,
        embedder,
        query,
        mode,
        settings,
        NDCG_CUTOFF + 1,
        per_document,
    )?;
    docs.truncate(NDCG_CUTOFF);
    Ok(docs)
}

/// The document of each hit of one search, best first, without the
/// query's own document (as BEIR's evaluation does).
fn search_documents(
    db: &Database,
    embedder: &Embedder,
    query: &JudgedQuery,
    mode: Mode,
    settings: &Settings,
    top: usize,
    max_per_document: PerDocument,
) -> Result<Vec<String>> {
    let req = settings.request(query.text, mode, top, max_per_document);
    let resp = match mode {
        Mode::Keyword => settings.search(db, &req, None::<fn(&str) -> Result<Vec<f32>>>),
        Mode::Vector | Mode::Hybrid => {
            settings.search(db, &req, Some(|q: &str| embedder.embed_query(q)))
        }
    };
    let hits = match resp {
        Ok(r) => r.hits,
        // A blank query finds nothing; it still counts, with score 0.
        Err(KbError::EmptyQuery) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(hits
        .into_iter()
        .filter_map(|hit| {
            hit.chunk
                .path
                .as_deref()
                .and_then(|p| p.strip_prefix(SOURCE_PREFIX))
                .filter(|id| *id != query.id)
                .map(str::to_string)
        })
        .collect())
}

fn markdown_table(rows: &[ModeResult]) -> String {
    let mut out = String::from(
        "| mode | half | nDCG@10 | nDCG@10 as listed | Recall@100 | queries | median ms/query |\n\
         |------|------|--------:|------------------:|-----------:|--------:|----------------:|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {:.4} | {:.4} | {:.4} | {} | {:.1} |\n",
            mode_name(r.mode),
            r.half.name(),
            r.ndcg,
            r.listed,
            r.recall,
            r.queries,
            r.median.as_secs_f64() * 1000.0
        ));
    }
    out
}
