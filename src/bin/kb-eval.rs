//! kb-eval: measures kb's retrieval quality on a BEIR-format dataset.
//!
//! `kb-eval beir DATASET_DIR --data-dir DIR` indexes the dataset's corpus into
//! `DIR/kb.db` through the same library code `kb add` uses for a text note
//! (the notes chunker, the bound embedding model, `Database::write_document`),
//! runs every query of the chosen qrels split through `kb::search::search` in
//! keyword, vector and hybrid mode, and prints nDCG@10 and Recall@100 per mode
//! as a Markdown table.
//!
//! A BEIR dataset directory holds `corpus.jsonl` (`_id`, `title`, `text`),
//! `queries.jsonl` (`_id`, `text`) and `qrels/<split>.tsv` (`query-id`,
//! `corpus-id`, `score`, tab-separated, with a header line).
//!
//! The metrics follow trec_eval (as BEIR computes them with pytrec_eval):
//! nDCG@10 with the qrels grade as the gain and `log2(rank + 1)` as the
//! discount, the ideal ranking taken from the qrels; Recall@100 as the share
//! of relevant documents (grade > 0) found in the first 100. Both are averaged
//! over the queries that have at least one relevant document.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use serde_json::Value;
use sha2::{Digest, Sha256};

use kb::config::{CliOverrides, Config};
use kb::db::{Database, Filters, NewDocument, OpenMode};
use kb::embed::{resolve, Embedder, ModelUse};
use kb::error::{KbError, Result};
use kb::ingest::pipeline::{embed_and_write, ReadyDocument};
use kb::ingest::{self, ChunkContext, DocType};
use kb::search::{self, Mode, SearchRequest};

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

/// kb-eval: retrieval-quality harness for kb (nDCG@10 and Recall@100 of the
/// keyword, vector and hybrid rankers on an information-retrieval benchmark).
#[derive(Debug, Parser)]
#[command(name = "kb-eval", about, long_about = None, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index a BEIR-format dataset and score every search mode on it
    Beir(BeirArgs),
}

#[derive(Debug, Args)]
struct BeirArgs {
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
}

fn main() -> ExitCode {
    kb::embed::runtime::disable_telemetry();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Beir(args) => run_beir(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kb-eval: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_beir(args: &BeirArgs) -> Result<()> {
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

    let config = Config::load(&CliOverrides {
        data_dir: Some(args.data_dir.clone()),
        model: None,
    })?;
    let embedder = load_model(&config, args.model_dir.as_deref())?;
    let db = Database::open(&config.db_path(), OpenMode::Create)?;
    kb::embed::bind(&db, &embedder)?;

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

    let judged = judged_queries(&queries, &qrels);
    let mut rows = Vec::new();
    for mode in [Mode::Keyword, Mode::Vector, Mode::Hybrid] {
        let row = evaluate_mode(&db, &embedder, &judged, mode, config.search.rrf_k)?;
        eprintln!(
            "kb-eval: {}: {} queries in {:.1} s",
            mode_name(mode),
            row.queries,
            row.total.as_secs_f64()
        );
        rows.push(row);
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
        "\nDataset {dataset} (split {}): {} docs, {} chunks; model {} ({onnx}); rrf_k {}; {ingest_note}; \
         search time {}.\n",
        args.split,
        db.document_count()?,
        db.chunk_count()?,
        embedder.spec().name,
        config.search.rrf_k,
        rows.iter()
            .map(|r| format!("{} {:.1} s", mode_name(r.mode), r.total.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| KbError::io("stdout", e))
}

// ---------------------------------------------------------------------------
// The dataset files
// ---------------------------------------------------------------------------

/// One corpus document.
#[derive(Debug, Clone, PartialEq)]
struct CorpusDoc {
    id: String,
    title: String,
    text: String,
}

/// An error in a dataset file, naming the file and the 1-based line.
fn bad_input(path: &Path, line: usize, msg: impl std::fmt::Display) -> KbError {
    KbError::Usage(format!("{}:{line}: {msg}", path.display()))
}

/// Calls `f` with each non-blank line of a text file and its 1-based number.
fn for_each_line(path: &Path, mut f: impl FnMut(usize, &str) -> Result<()>) -> Result<()> {
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => KbError::PathNotFound(path.to_path_buf()),
        _ => KbError::io(path, e),
    })?;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => bad_input(path, i + 1, "not valid UTF-8"),
            _ => KbError::io(path, e),
        })?;
        if !line.trim().is_empty() {
            f(i + 1, &line)?;
        }
    }
    Ok(())
}

/// Parses one JSON Lines record into its object.
fn json_object(path: &Path, line: usize, text: &str) -> Result<serde_json::Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(bad_input(path, line, "expected a JSON object")),
        Err(e) => Err(bad_input(path, line, format!("invalid JSON: {e}"))),
    }
}

/// A string field of a record; ids may also be numbers. A missing or null
/// field is `None`.
fn text_field(
    obj: &serde_json::Map<String, Value>,
    key: &str,
    path: &Path,
    line: usize,
) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(bad_input(
            path,
            line,
            format!("field \"{key}\" must be a string"),
        )),
    }
}

fn required_id(obj: &serde_json::Map<String, Value>, path: &Path, line: usize) -> Result<String> {
    match text_field(obj, "_id", path, line)? {
        Some(id) if !id.is_empty() => Ok(id),
        _ => Err(bad_input(path, line, "missing or empty \"_id\"")),
    }
}

/// Reads corpus.jsonl, refusing duplicate ids.
fn load_corpus(path: &Path) -> Result<Vec<CorpusDoc>> {
    let mut docs = Vec::new();
    let mut seen = HashSet::new();
    for_each_line(path, |line, text| {
        let obj = json_object(path, line, text)?;
        let id = required_id(&obj, path, line)?;
        if !seen.insert(id.clone()) {
            return Err(bad_input(path, line, format!("duplicate _id {id:?}")));
        }
        docs.push(CorpusDoc {
            title: text_field(&obj, "title", path, line)?.unwrap_or_default(),
            text: text_field(&obj, "text", path, line)?.unwrap_or_default(),
            id,
        });
        Ok(())
    })?;
    if docs.is_empty() {
        return Err(bad_input(path, 1, "the corpus has no documents"));
    }
    Ok(docs)
}

/// Reads queries.jsonl into id -> text.
fn load_queries(path: &Path) -> Result<HashMap<String, String>> {
    let mut queries = HashMap::new();
    for_each_line(path, |line, text| {
        let obj = json_object(path, line, text)?;
        let id = required_id(&obj, path, line)?;
        let text = text_field(&obj, "text", path, line)?.unwrap_or_default();
        queries.insert(id, text);
        Ok(())
    })?;
    Ok(queries)
}

/// Relevance judgements: query id -> (document id -> grade).
type Qrels = BTreeMap<String, HashMap<String, i64>>;

/// Reads a qrels TSV (`query-id corpus-id score`, the header line optional).
fn load_qrels(path: &Path) -> Result<Qrels> {
    let mut qrels = Qrels::new();
    let mut first = true;
    for_each_line(path, |line, text| {
        let fields: Vec<&str> = text.split('\t').map(str::trim).collect();
        let is_header = std::mem::take(&mut first) && fields.first() == Some(&"query-id");
        if is_header {
            return Ok(());
        }
        let [query, doc, grade] = fields[..] else {
            return Err(bad_input(
                path,
                line,
                format!(
                    "expected 3 tab-separated fields (query-id, corpus-id, score), found {}",
                    fields.len()
                ),
            ));
        };
        let grade: i64 = grade
            .parse()
            .map_err(|_| bad_input(path, line, format!("score {grade:?} is not an integer")))?;
        qrels
            .entry(query.to_string())
            .or_default()
            .insert(doc.to_string(), grade);
        Ok(())
    })?;
    if qrels.is_empty() {
        return Err(bad_input(path, 1, "no relevance judgements"));
    }
    Ok(qrels)
}

/// A query to score, with its judgements.
struct JudgedQuery<'a> {
    id: &'a str,
    text: &'a str,
    qrels: &'a HashMap<String, i64>,
}

/// The queries that have qrels and at least one relevant document (as
/// trec_eval, queries without relevant documents are not scored).
fn judged_queries<'a>(
    queries: &'a HashMap<String, String>,
    qrels: &'a Qrels,
) -> Vec<JudgedQuery<'a>> {
    let mut out = Vec::new();
    let mut unknown = 0;
    for (id, judgements) in qrels {
        if !judgements.values().any(|&g| g > 0) {
            continue;
        }
        match queries.get(id) {
            Some(text) => out.push(JudgedQuery {
                id,
                text,
                qrels: judgements,
            }),
            None => unknown += 1,
        }
    }
    if unknown > 0 {
        eprintln!("kb-eval: warning: {unknown} queries in the qrels are not in queries.jsonl; they are skipped");
    }
    out
}

// ---------------------------------------------------------------------------
// Indexing
// ---------------------------------------------------------------------------

/// Chooses and loads the configured model the way `kb init` does.
fn load_model(config: &Config, model_dir: Option<&Path>) -> Result<Embedder> {
    let choice = resolve::for_init(config, None, model_dir, None, false)?;
    let embedder = choice.load(config, ModelUse::Passages)?;
    eprintln!(
        "kb-eval: model {} from {}",
        choice.spec.name,
        choice.files.onnx.display()
    );
    Ok(embedder)
}

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

/// Indexes the corpus like `kb add` indexes text notes: `title\n\ntext`
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
        match prepare_document(doc, &ctx) {
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
) -> std::result::Result<ReadyDocument, String> {
    let text = format!("{}\n\n{}", doc.title, doc.text);
    let bytes = text.as_bytes();
    let parsed = ingest::parse(
        DocType::Note,
        Path::new(&format!("{}.txt", doc.id)),
        bytes,
        ctx,
    )
    .map_err(|e| e.to_string())?;
    let document = NewDocument {
        title: doc.id.clone(),
        source_path: source_path(&doc.id),
        content_hash: hex::encode(Sha256::digest(bytes)),
        doc_type: DocType::Note.as_str().to_string(),
        language: None,
        file_size: bytes.len() as u64,
        file_mtime: 0,
        metadata: "{}".to_string(),
        tags: Vec::new(),
        content: None,
    };
    let chunks = parsed.chunks.iter().map(|c| c.to_new_chunk()).collect();
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

/// One row of the results table.
struct ModeResult {
    mode: Mode,
    ndcg: f64,
    recall: f64,
    queries: usize,
    total: Duration,
    median: Duration,
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Keyword => "keyword",
        Mode::Vector => "vector",
        Mode::Hybrid => "hybrid",
    }
}

fn evaluate_mode(
    db: &Database,
    embedder: &Embedder,
    queries: &[JudgedQuery],
    mode: Mode,
    rrf_k: f64,
) -> Result<ModeResult> {
    let mut ndcg = 0.0;
    let mut recall = 0.0;
    let mut times = Vec::with_capacity(queries.len());
    for q in queries {
        let started = Instant::now();
        let ranking = rank_documents(db, embedder, q, mode, rrf_k)?;
        times.push(started.elapsed());
        ndcg += ndcg_at(&ranking, q.qrels, NDCG_CUTOFF);
        recall += recall_at(&ranking, q.qrels, RANK_DEPTH);
    }
    let n = queries.len().max(1) as f64;
    Ok(ModeResult {
        mode,
        ndcg: ndcg / n,
        recall: recall / n,
        queries: queries.len(),
        total: times.iter().sum(),
        median: median(&mut times),
    })
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
    rrf_k: f64,
) -> Result<Vec<String>> {
    let mut top = RANK_DEPTH * 3;
    loop {
        let req = SearchRequest {
            query: query.text.to_string(),
            top,
            filters: Filters::default(),
            mode,
            threshold: None,
            rrf_k,
            snippets: false,
        };
        let resp = match mode {
            Mode::Keyword => search::search(db, &req, None::<fn(&str) -> Result<Vec<f32>>>),
            Mode::Vector | Mode::Hybrid => {
                search::search(db, &req, Some(|q: &str| embedder.embed_query(q)))
            }
        };
        let hits = match resp {
            Ok(r) => r.hits,
            // A blank query finds nothing; it still counts, with score 0.
            Err(KbError::EmptyQuery) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let exhausted = hits.len() < top;
        let mut seen = HashSet::new();
        let mut docs = Vec::new();
        for hit in hits {
            let Some(id) = hit
                .chunk
                .path
                .as_deref()
                .and_then(|p| p.strip_prefix(SOURCE_PREFIX))
            else {
                continue;
            };
            if id != query.id && seen.insert(id.to_string()) {
                docs.push(id.to_string());
            }
        }
        if docs.len() >= RANK_DEPTH || exhausted {
            docs.truncate(RANK_DEPTH);
            return Ok(docs);
        }
        top *= 2;
    }
}

/// nDCG@k with trec_eval's definition: gain is the qrels grade (grades
/// <= 0 give nothing), the discount of rank r (1-based) is log2(r + 1), and
/// the ideal DCG ranks the judged documents by grade. 0 when nothing is
/// relevant.
fn ndcg_at(ranking: &[String], qrels: &HashMap<String, i64>, k: usize) -> f64 {
    let actual = dcg(
        ranking.iter().map(|d| qrels.get(d).copied().unwrap_or(0)),
        k,
    );
    let mut ideal: Vec<i64> = qrels.values().copied().filter(|&g| g > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let best = dcg(ideal.into_iter(), k);
    if best > 0.0 {
        actual / best
    } else {
        0.0
    }
}

/// Discounted cumulative gain of the first `k` grades (negative grades
/// count as 0).
fn dcg(grades: impl Iterator<Item = i64>, k: usize) -> f64 {
    grades
        .take(k)
        .enumerate()
        .map(|(i, g)| g.max(0) as f64 / ((i + 2) as f64).log2())
        .sum()
}

/// Recall@k: the share of relevant documents (grade > 0) in the first k.
fn recall_at(ranking: &[String], qrels: &HashMap<String, i64>, k: usize) -> f64 {
    let relevant = qrels.values().filter(|&&g| g > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = ranking
        .iter()
        .take(k)
        .filter(|d| qrels.get(*d).is_some_and(|&g| g > 0))
        .count();
    found as f64 / relevant as f64
}

fn median(times: &mut [Duration]) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    times.sort_unstable();
    let mid = times.len() / 2;
    if times.len() % 2 == 1 {
        times[mid]
    } else {
        (times[mid - 1] + times[mid]) / 2
    }
}

fn markdown_table(rows: &[ModeResult]) -> String {
    let mut out = String::from(
        "| mode | nDCG@10 | Recall@100 | queries | median ms/query |\n\
         |------|--------:|-----------:|--------:|----------------:|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {:.4} | {:.4} | {} | {:.1} |\n",
            mode_name(r.mode),
            r.ndcg,
            r.recall,
            r.queries,
            r.median.as_secs_f64() * 1000.0
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qrels(pairs: &[(&str, i64)]) -> HashMap<String, i64> {
        pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }

    fn ranking(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ndcg_matches_trec_eval() {
        let q = qrels(&[("a", 2), ("b", 1), ("c", 0)]);
        assert!((ndcg_at(&ranking(&["a", "b"]), &q, 10) - 1.0).abs() < 1e-12);
        // b then a: (1/log2 2 + 2/log2 3) / (2/log2 2 + 1/log2 3)
        let expected = (1.0 + 2.0 / 3f64.log2()) / (2.0 + 1.0 / 3f64.log2());
        assert!((ndcg_at(&ranking(&["b", "a"]), &q, 10) - expected).abs() < 1e-12);
        // A relevant document below the cut-off counts for nothing.
        assert_eq!(ndcg_at(&ranking(&["x", "c", "a"]), &q, 2), 0.0);
        assert_eq!(ndcg_at(&ranking(&["a"]), &qrels(&[("a", 0)]), 10), 0.0);
    }

    #[test]
    fn recall_counts_relevant_only() {
        let q = qrels(&[("a", 1), ("b", 2), ("c", 0), ("d", 1)]);
        let r = ranking(&["c", "a", "x", "b"]);
        assert!((recall_at(&r, &q, 100) - 2.0 / 3.0).abs() < 1e-12);
        assert!((recall_at(&r, &q, 2) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn median_of_odd_and_even() {
        let ms = Duration::from_millis;
        assert_eq!(median(&mut [ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(median(&mut [ms(4), ms(1), ms(2), ms(3)]), ms(2) + ms(1) / 2);
        assert_eq!(median(&mut []), Duration::ZERO);
    }

    #[test]
    fn dataset_files_parse_and_errors_name_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = dir.path().join("corpus.jsonl");
        std::fs::write(
            &corpus,
            "{\"_id\": \"d1\", \"title\": \"T\", \"text\": \"body\"}\n\n{\"_id\": 7, \"text\": \"x\"}\n",
        )
        .unwrap();
        let docs = load_corpus(&corpus).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].id, "7");
        assert_eq!(docs[1].title, "");

        std::fs::write(&corpus, "{\"_id\": \"d1\"}\n{\"title\": \"no id\"}\n").unwrap();
        let err = load_corpus(&corpus).unwrap_err().to_string();
        assert!(
            err.contains("corpus.jsonl:2:") && err.contains("_id"),
            "{err}"
        );
        std::fs::write(&corpus, "{\"_id\": \"d1\"}\nnot json\n").unwrap();
        let err = load_corpus(&corpus).unwrap_err().to_string();
        assert!(err.contains("corpus.jsonl:2: invalid JSON"), "{err}");

        let tsv = dir.path().join("test.tsv");
        std::fs::write(&tsv, "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n").unwrap();
        let q = load_qrels(&tsv).unwrap();
        assert_eq!(q["q1"]["d1"], 2);
        assert_eq!(q["q1"].len(), 2);
        std::fs::write(&tsv, "query-id\tcorpus-id\tscore\nq1\td1\thigh\n").unwrap();
        let err = load_qrels(&tsv).unwrap_err().to_string();
        assert!(err.contains("test.tsv:2:") && err.contains("high"), "{err}");
        std::fs::write(&tsv, "q1 d1\n").unwrap();
        let err = load_qrels(&tsv).unwrap_err().to_string();
        assert!(
            err.contains("test.tsv:1:") && err.contains("3 tab-separated"),
            "{err}"
        );
        assert_eq!(
            load_qrels(&dir.path().join("missing.tsv"))
                .unwrap_err()
                .code(),
            "E_PATH_NOT_FOUND"
        );
    }

    #[test]
    fn judged_queries_skip_unjudged_and_unknown() {
        let queries: HashMap<String, String> = [("q1", "one"), ("q2", "two")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let mut all = Qrels::new();
        all.insert("q1".into(), qrels(&[("d1", 1)]));
        all.insert("q2".into(), qrels(&[("d1", 0)]));
        all.insert("q3".into(), qrels(&[("d1", 1)]));
        let judged = judged_queries(&queries, &all);
        assert_eq!(judged.len(), 1);
        assert_eq!(judged[0].id, "q1");
        assert_eq!(judged[0].text, "one");
    }
}
