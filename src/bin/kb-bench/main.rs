//! Speed benchmarks for kb (figures, not pass/fail tests).
//!
//! ```text
//! kb-bench embed  --model-dir DIR                    model load time, chunks/s at 64 and 256 tokens
//! kb-bench build  --data-dir DIR --model-dir DIR --corpus corpus.jsonl [--chunks 20000]
//!                                                    a kb.db of >= N chunks from real text; ingest vs raw model time
//!                 [--random-vectors]                 random unit vectors instead of the model's (synthetic)
//! kb-bench model  --data-dir DIR --model-dir DIR     the model alone on every chunk of a kb.db (what
//!                                                    `kb add` of the same files costs at best)
//!                 [--chunks N] [--dump FILE]         the first N chunks only; write the batches
//!                                                    (for scripts/ort_reference.py)
//! kb-bench vector --data-dir DIR --model-dir DIR     vector search alone (Rust scan, sqlite-vec vec0)
//! kb-bench cli    --data-dir DIR [--runs 30]         `kb search` per process, keyword-only and hybrid (p50/p95)
//!                                                    (KB_BENCH_VECTOR=1: vector-only too)
//!                 [--phases]                         and the median of each phase of a hybrid search
//!                                                    (KB_TIMINGS=1), process start and exit included
//! kb-bench exact --data-dir DIR --queries queries.jsonl [--runs 100]
//!                                                    `kb search` (hybrid, fresh process) against an exact
//!                                                    float scan fused in-process: identical results?
//! kb-bench keywords --data-dir DIR [--queries queries.jsonl] [--runs 30]
//!                                                    kb mcp's in-memory keyword index against FTS5:
//!                                                    load, ranking time each way, identical results?
//! kb-bench mcp    --data-dir DIR [--runs 30]         warm `tools/call search` round trips through `kb mcp` (p50/p95)
//!                 [--queries queries.jsonl]          a different real query every call (default: 5 repeated)
//!                 [--rerank N]                       and N hybrid searches with re-ranking; the server's peak RSS
//! ```
//! Every figure is a median (and p95 where it says) over repeated runs.

mod build;
mod embed;
mod keywords;
mod mcp;
mod search;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kb::config::{CliOverrides, Config};
use kb::embed::{model_spec, resolve, Embedder, GraphFormat, ModelFiles, ModelUse};
use kb::error::{KbError, Result};

use build::{bench_build, bench_model};
use embed::bench_embed;
use keywords::bench_keywords;
use mcp::bench_mcp;
use search::{bench_cli, bench_exact, bench_vector};

pub(crate) struct Args {
    cmd: String,
    data_dir: Option<PathBuf>,
    model_dir: Option<PathBuf>,
    corpus: Option<PathBuf>,
    chunks: usize,
    runs: usize,
    /// A models.toml name (default all-MiniLM-L6-v2).
    model: String,
    /// ort | onnx: the cached graph format (embed).
    format: GraphFormat,
    /// Inference threads (0 = all cores).
    threads: Option<usize>,
    /// build: random unit vectors instead of the model's (synthetic, for
    /// sizes the model would take hours to embed).
    random_vectors: bool,
    /// model: write the model's batches (JSON lines, one batch of texts per
    /// line) to this file, for a plain ONNX Runtime reference on the same
    /// inputs (scripts/ort_reference.py).
    dump: Option<PathBuf>,
    /// cli: also the median of each phase of a fresh hybrid search
    /// (`KB_TIMINGS=1`).
    phases: bool,
    /// mcp: also warm hybrid searches with re-ranking, `--rerank N` calls
    /// (each reads its candidates with the cross-encoder: seconds).
    rerank_runs: usize,
}

pub(crate) fn parse_args() -> std::result::Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let cmd = it
        .next()
        .ok_or("usage: kb-bench embed|build|model|vector|cli|exact|keywords|mcp [options]")?;
    let mut a = Args {
        cmd,
        data_dir: None,
        model_dir: None,
        corpus: None,
        chunks: 20_000,
        runs: 30,
        model: "all-MiniLM-L6-v2".into(),
        format: GraphFormat::Ort,
        threads: None,
        random_vectors: false,
        dump: None,
        phases: false,
        rerank_runs: 0,
    };
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--data-dir" => a.data_dir = Some(value()?.into()),
            "--model-dir" => a.model_dir = Some(value()?.into()),
            "--corpus" | "--queries" => a.corpus = Some(value()?.into()),
            "--chunks" => a.chunks = value()?.parse().map_err(|e| format!("--chunks: {e}"))?,
            "--runs" => a.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--model" => a.model = value()?,
            "--random-vectors" => a.random_vectors = true,
            "--phases" => a.phases = true,
            "--rerank" => a.rerank_runs = value()?.parse().map_err(|e| format!("--rerank: {e}"))?,
            "--dump" => a.dump = Some(value()?.into()),
            "--threads" => {
                a.threads = Some(value()?.parse().map_err(|e| format!("--threads: {e}"))?)
            }
            "--format" => {
                a.format = match value()?.as_str() {
                    "ort" => GraphFormat::Ort,
                    "onnx" => GraphFormat::Onnx,
                    other => return Err(format!("--format: ort or onnx, not {other}")),
                }
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(a)
}

fn main() {
    kb::embed::runtime::disable_telemetry();
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("kb-bench: {e}");
            std::process::exit(1);
        }
    };
    let result = match args.cmd.as_str() {
        "embed" => bench_embed(&args),
        "build" => bench_build(&args),
        "model" => bench_model(&args),
        "vector" => bench_vector(&args),
        "cli" => bench_cli(&args),
        "exact" => bench_exact(&args),
        "mcp" => bench_mcp(&args),
        "keywords" => bench_keywords(&args),
        other => Err(KbError::Usage(format!("unknown benchmark {other}"))),
    };
    if let Err(e) = result {
        eprintln!("kb-bench: {e}");
        std::process::exit(e.exit_code());
    }
}

pub(crate) fn config(data_dir: Option<&Path>) -> Result<Config> {
    let tmp = std::env::temp_dir().join("kb-bench-config");
    Config::load_from(
        &CliOverrides {
            data_dir: Some(data_dir.map(Path::to_path_buf).unwrap_or(tmp)),
        },
        &std::env::vars().collect(),
    )
}

/// Questions in the NFCorpus domain, used by the search benchmarks.
pub(crate) const QUERIES: [&str; 5] = [
    "vitamin d deficiency and bone health",
    "does green tea prevent cancer",
    "statins side effects muscle pain",
    "gut bacteria and obesity",
    "how much protein do athletes need",
];

/// The `text` of every line of a BEIR queries.jsonl.
pub(crate) fn read_queries(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| KbError::io(path, e))?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .collect())
}

/// The queries of `--queries FILE`, else [`QUERIES`].
pub(crate) fn queries(a: &Args) -> Result<Vec<String>> {
    match &a.corpus {
        Some(path) => read_queries(path),
        None => Ok(QUERIES.iter().map(|q| q.to_string()).collect()),
    }
}

pub(crate) fn need<'a>(p: &'a Option<PathBuf>, flag: &str) -> Result<&'a Path> {
    p.as_deref()
        .ok_or_else(|| KbError::Usage(format!("{flag} is required")))
}

/// The configured model (`KB_MODEL`, default all-MiniLM-L6-v2) from
/// `model_dir`, chosen the way `kb init --model-dir` chooses it.
pub(crate) fn load_model(model_dir: &Path, config: &Config) -> Result<(Embedder, Duration)> {
    let choice = resolve::for_init(config, None, Some(model_dir), None, false)?;
    let t = Instant::now();
    let e = choice.load(config, ModelUse::Passages)?;
    Ok((e, t.elapsed()))
}

/// A models.toml model from `model_dir`, for one use, with the cached graph
/// in `format` (the embed benchmark compares them).
pub(crate) fn load_model_as(
    name: &str,
    model_dir: &Path,
    config: &Config,
    model_use: ModelUse,
    format: GraphFormat,
) -> Result<(Embedder, Duration)> {
    let spec = model_spec(name)?;
    let files = ModelFiles::in_dir(model_dir, &spec)?;
    let t = Instant::now();
    let e = Embedder::load_as(&spec, &files, config, model_use, format)?;
    Ok((e, t.elapsed()))
}

/// CPU seconds this process has used (user + system, all threads).
pub(crate) fn cpu_seconds() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes into the struct we pass.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

pub(crate) fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

pub(crate) fn p95(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64) * 0.95).ceil() as usize - 1]
}
