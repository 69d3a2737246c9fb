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
//! kb-bench exact --data-dir DIR --queries queries.jsonl [--runs 100]
//!                                                    `kb search` (hybrid, fresh process) against an exact
//!                                                    float scan fused in-process: identical results?
//! kb-bench mcp    --data-dir DIR [--runs 30]         warm `tools/call search` round trips through `kb mcp` (p50/p95)
//! ```
//! Every figure is a median (and p95 where it says) over repeated runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kb::config::{CliOverrides, Config};
use kb::db::{Database, NewChunk, NewDocument, OpenMode};
use kb::embed::{
    model_spec, resolve, Embed, Embedder, GraphFormat, ModelFiles, ModelUse, TokenCounter,
};
use kb::error::{KbError, Result};

struct Args {
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
}

fn parse_args() -> std::result::Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let cmd = it
        .next()
        .ok_or("usage: kb-bench embed|build|model|vector|cli|mcp [options]")?;
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
        other => Err(KbError::Usage(format!("unknown benchmark {other}"))),
    };
    if let Err(e) = result {
        eprintln!("kb-bench: {e}");
        std::process::exit(e.exit_code());
    }
}

fn config(data_dir: Option<&Path>) -> Result<Config> {
    let tmp = std::env::temp_dir().join("kb-bench-config");
    Config::load_from(
        &CliOverrides {
            data_dir: Some(data_dir.map(Path::to_path_buf).unwrap_or(tmp)),
            model: None,
        },
        &std::env::vars().collect(),
    )
}

/// Questions in the NFCorpus domain, used by the search benchmarks.
const QUERIES: [&str; 5] = [
    "vitamin d deficiency and bone health",
    "does green tea prevent cancer",
    "statins side effects muscle pain",
    "gut bacteria and obesity",
    "how much protein do athletes need",
];

fn need<'a>(p: &'a Option<PathBuf>, flag: &str) -> Result<&'a Path> {
    p.as_deref()
        .ok_or_else(|| KbError::Usage(format!("{flag} is required")))
}

/// The configured model (`KB_MODEL`, default all-MiniLM-L6-v2) from
/// `model_dir`, chosen the way `kb init --model-dir` chooses it.
fn load_model(model_dir: &Path, config: &Config) -> Result<(Embedder, Duration)> {
    let choice = resolve::for_init(config, None, Some(model_dir), None, false)?;
    let t = Instant::now();
    let e = choice.load(config, ModelUse::Passages)?;
    Ok((e, t.elapsed()))
}

/// A models.toml model from `model_dir`, for one use, with the cached graph
/// in `format` (the embed benchmark compares them).
fn load_model_as(
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
fn cpu_seconds() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes into the struct we pass.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn p95(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64) * 0.95).ceil() as usize - 1]
}

/// Real prose: the NFCorpus abstracts if present, else the example corpus.
fn sample_words() -> Vec<String> {
    let nf = Path::new("../shared/eval/nfcorpus/corpus.jsonl");
    let mut text = String::new();
    if let Ok(s) = std::fs::read_to_string(nf) {
        for line in s.lines().take(400) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                text.push_str(v["text"].as_str().unwrap_or(""));
                text.push(' ');
            }
        }
    }
    if text.len() < 10_000 {
        for e in walk(Path::new("examples/corpus")) {
            text.push_str(&std::fs::read_to_string(e).unwrap_or_default());
        }
    }
    text.split_whitespace().map(str::to_string).collect()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Texts of exactly about `tokens` model tokens, from real prose.
fn texts_of(tokens: usize, n: usize, words: &[String], counter: &TokenCounter) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while out.len() < n {
        let mut t = String::new();
        while counter.count(&t) < tokens - 2 {
            t.push_str(&words[i % words.len()]);
            t.push(' ');
            i += 1;
        }
        out.push(t);
    }
    out
}

/// Loads, first query and throughput of one model in one graph format.
/// Session creation is timed twice: for a one-shot search (no weight
/// prepacking) and for ingest; each figure is a fresh session.
fn bench_embed(a: &Args) -> Result<()> {
    let mut config = config(None)?;
    if let Some(t) = a.threads {
        config.embedding.threads = t;
    }
    let model_dir = need(&a.model_dir, "--model-dir")?;
    let t = Instant::now();
    kb::embed::runtime::ensure_loaded(&config)?;
    println!(
        "ONNX Runtime library load: {:.0} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
    let spec = model_spec(&a.model)?;
    let files = ModelFiles::in_dir(model_dir, &spec)?;
    let t = Instant::now();
    let _tok = tokenizers::Tokenizer::from_file(&files.tokenizer)
        .map_err(|e| KbError::Model(e.to_string()))?;
    println!(
        "tokenizer.json load: {:.0} ms",
        t.elapsed().as_secs_f64() * 1000.0
    );
    // The first load may optimise the graph and write the cache.
    let (_, first) = load_model_as(&a.model, model_dir, &config, ModelUse::Passages, a.format)?;
    println!(
        "{} ({:?}): first load in this process {:.0} ms",
        a.model,
        a.format,
        first.as_secs_f64() * 1000.0
    );
    for model_use in [ModelUse::Queries, ModelUse::Passages] {
        let (mut loads, mut firsts, mut cpu) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..a.runs.clamp(3, 20) {
            let c = cpu_seconds();
            let (e, load) = load_model_as(&a.model, model_dir, &config, model_use, a.format)?;
            let t = Instant::now();
            e.embed_query(QUERIES[0])?;
            firsts.push(t.elapsed().as_secs_f64() * 1000.0);
            loads.push(load.as_secs_f64() * 1000.0);
            cpu.push((cpu_seconds() - c) * 1000.0);
        }
        let both: Vec<f64> = loads.iter().zip(&firsts).map(|(a, b)| a + b).collect();
        println!(
            "  {model_use:?}: session creation median {:.0} ms (min {:.0}), first query embedding {:.1} ms \
             (min {:.1}); both: median {:.0} ms (min {:.0}), CPU {:.0} ms; over {} loads",
            median(loads.clone()),
            min(&loads),
            median(firsts.clone()),
            min(&firsts),
            median(both.clone()),
            min(&both),
            median(cpu),
            a.runs.clamp(3, 20)
        );
    }
    let (embedder, _) = load_model_as(&a.model, model_dir, &config, ModelUse::Passages, a.format)?;
    let words = sample_words();
    let counter = embedder.token_counter();
    for tokens in [64usize, 256] {
        let n = if tokens == 64 { 512 } else { 128 };
        let texts = texts_of(tokens, n, &words, &counter);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        embedder.embed_passages(&refs[..32])?; // warm-up
        let (mut rates, mut cpu) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            let (t, c) = (Instant::now(), cpu_seconds());
            embedder.embed_passages(&refs)?;
            rates.push(n as f64 / t.elapsed().as_secs_f64());
            cpu.push((cpu_seconds() - c) * 1000.0 / n as f64);
        }
        println!(
            "  throughput at {tokens} tokens (batch {}, {} threads): median {:.1} chunks/s, {:.1} ms CPU per chunk, over 3 runs of {n}",
            config.embedding.batch_size,
            config.embedding.threads,
            median(rates),
            median(cpu)
        );
    }
    Ok(())
}

/// A pseudo-random unit vector (an LCG and a Box-Muller-free sum of
/// uniforms: isotropic enough for timing and exactness checks).
fn random_unit_vector(seed: &mut u64, dim: usize) -> Vec<f32> {
    let mut next = || {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    };
    let mut v: Vec<f32> = (0..dim).map(|_| next() + next() + next()).collect();
    kb::embed::normalize(&mut v);
    v
}

fn bench_build(a: &Args) -> Result<()> {
    let data_dir = need(&a.data_dir, "--data-dir")?;
    let corpus = need(&a.corpus, "--corpus")?;
    let config = config(Some(data_dir))?;
    let (embedder, _) = load_model(need(&a.model_dir, "--model-dir")?, &config)?;
    let db = Database::open(&config.db_path(), OpenMode::Create)?;
    if db.chunk_count()? as usize >= a.chunks {
        println!(
            "{} already holds {} chunks",
            db.path().display(),
            db.chunk_count()?
        );
        return Ok(());
    }
    if db.model_binding()?.is_none() {
        db.bind_model(&embedder.binding()?)?;
    }
    let text = std::fs::read_to_string(corpus).map_err(|e| KbError::io(corpus, e))?;
    let counter = embedder.token_counter();
    // Windows of about 48 words: a typical chunk of a note or a PDF paragraph.
    let mut docs: Vec<(String, Vec<String>)> = Vec::new();
    let mut total = 0;
    'outer: for round in 0.. {
        for (n, line) in text.lines().enumerate() {
            let v: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| KbError::Usage(format!("{}:{}: {e}", corpus.display(), n + 1)))?;
            let words: Vec<&str> = v["text"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            let windows: Vec<String> = words.chunks(48).map(|w| w.join(" ")).collect();
            total += windows.len();
            docs.push((
                format!("{}#{round}", v["_id"].as_str().unwrap_or("?")),
                windows,
            ));
            if total >= a.chunks {
                break 'outer;
            }
        }
    }
    let (mut embed_s, mut write_s) = (0f64, 0f64);
    let dim = embedder.dim();
    let mut seed = 0x5eed_u64;
    let started = Instant::now();
    let mut group: Vec<(String, Vec<String>)> = Vec::new();
    let mut written = 0;
    let mut flush = |group: &mut Vec<(String, Vec<String>)>,
                     embed_s: &mut f64,
                     write_s: &mut f64|
     -> Result<usize> {
        let texts: Vec<&str> = group
            .iter()
            .flat_map(|(_, w)| w.iter().map(String::as_str))
            .collect();
        let t = Instant::now();
        let vectors = if a.random_vectors {
            texts
                .iter()
                .map(|_| random_unit_vector(&mut seed, dim))
                .collect()
        } else {
            embedder.embed_passages(&texts)?
        };
        *embed_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut off = 0;
        let tx = db.begin_write()?;
        for (id, windows) in group.drain(..) {
            let chunks: Vec<NewChunk> = windows
                .iter()
                .map(|w| NewChunk {
                    text: w.clone(),
                    token_count: counter.count(w),
                    metadata: "{}".into(),
                    // What kb add stores beside the text, so the keyword
                    // index has the columns a real knowledge base has.
                    doc_title: id.clone(),
                    terms: kb::text::terms::index_terms(w),
                    ..Default::default()
                })
                .collect();
            let doc = NewDocument {
                title: id.clone(),
                source_path: format!("bench:{id}"),
                content_hash: id.clone(),
                doc_type: "note".into(),
                language: None,
                file_size: 0,
                file_mtime: 0,
                metadata: "{}".into(),
                tags: vec![],
                content: None,
            };
            db.write_document_in_tx(&doc, &chunks, Some(&vectors[off..off + chunks.len()]))?;
            off += chunks.len();
        }
        tx.commit()?;
        *write_s += t.elapsed().as_secs_f64();
        Ok(off)
    };
    let mut group_chunks = 0;
    for d in docs {
        group_chunks += d.1.len();
        group.push(d);
        if group_chunks >= 256 {
            written += flush(&mut group, &mut embed_s, &mut write_s)?;
            group_chunks = 0;
            eprint!(
                "\r{written} chunks, {:.0} chunks/s",
                written as f64 / started.elapsed().as_secs_f64()
            );
        }
    }
    written += flush(&mut group, &mut embed_s, &mut write_s)?;
    let wall = started.elapsed().as_secs_f64();
    eprintln!();
    println!(
        "built {} with {written} chunks in {wall:.1} s ({:.1} chunks/s); model time {embed_s:.1} s, \
         writing {write_s:.1} s: ingest is {:.1}% slower than the model alone",
        db.path().display(),
        written as f64 / wall,
        (wall / embed_s - 1.0) * 100.0
    );
    Ok(())
}

/// Embeds every chunk of a knowledge base again, in id order and in the
/// groups `kb add` uses, timing only the model: the floor for an ingest of
/// the same files.
fn bench_model(a: &Args) -> Result<()> {
    use std::io::Write;
    let data_dir = need(&a.data_dir, "--data-dir")?;
    let mut config = config(Some(data_dir))?;
    if let Some(t) = a.threads {
        config.embedding.threads = t;
    }
    let (embedder, load) = load_model(need(&a.model_dir, "--model-dir")?, &config)?;
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let mut dump = match &a.dump {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| KbError::io(p, e))?,
        )),
        None => None,
    };
    let batch = config.embedding.batch_size.max(1);
    let (mut after, mut chunks, mut model_s, mut cpu_s) = (0i64, 0usize, 0f64, 0f64);
    while chunks < a.chunks {
        let page = db.chunk_texts(after, 256)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        let inputs: Vec<_> = page.iter().map(|c| c.input()).collect();
        let texts: Vec<&str> = inputs.iter().map(|t| t.as_ref()).collect();
        if let Some(out) = dump.as_mut() {
            // The batches embed_passages makes: shortest first, `batch` at a time.
            let mut order: Vec<usize> = (0..texts.len()).collect();
            order.sort_by_key(|&i| texts[i].len());
            for part in order.chunks(batch) {
                let b: Vec<&str> = part.iter().map(|&i| texts[i]).collect();
                writeln!(out, "{}", serde_json::to_string(&b).unwrap_or_default())
                    .map_err(|e| KbError::io("--dump", e))?;
            }
        }
        let (t, c) = (Instant::now(), cpu_seconds());
        embedder.embed_passages(&texts)?;
        model_s += t.elapsed().as_secs_f64();
        cpu_s += cpu_seconds() - c;
        chunks += texts.len();
        eprint!("\r{chunks} chunks, {:.1} chunks/s", chunks as f64 / model_s);
    }
    eprintln!();
    println!(
        "model alone (kb's embedder, batch {batch}, {} threads): {chunks} chunks in {:.1} s ({:.1} chunks/s, \
         {:.1} ms CPU per chunk), plus {:.2} s to load the model",
        config.embedding.threads,
        model_s,
        chunks as f64 / model_s.max(1e-9),
        cpu_s * 1000.0 / chunks.max(1) as f64,
        load.as_secs_f64()
    );
    Ok(())
}

fn bench_vector(a: &Args) -> Result<()> {
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
        index.search(&qvecs[i % qvecs.len()], None, 30);
        memory.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "query embedding (warm session, short query): median {:.2} ms (p95 {:.2}); \
         in-memory index of {} vectors: load {load_ms:.0} ms, top-30 scan median {:.2} ms (p95 {:.2})",
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

fn bench_cli(a: &Args) -> Result<()> {
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
    Ok(())
}

/// One line of JSON-RPC to the server and the response with the same id.
struct McpClient {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl McpClient {
    fn send(&mut self, msg: &serde_json::Value) -> Result<()> {
        use std::io::Write;
        let mut line = msg.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.flush())
            .map_err(|e| KbError::io("kb mcp stdin", e))
    }

    fn request(&mut self, method: &str, params: serde_json::Value) -> Result<serde_json::Value> {
        use std::io::BufRead;
        self.next_id += 1;
        let id = self.next_id;
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )?;
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| KbError::io("kb mcp stdout", e))?;
            if n == 0 {
                return Err(KbError::Usage("kb mcp closed stdout".into()));
            }
            let v: serde_json::Value = serde_json::from_str(&line).map_err(|e| {
                KbError::Usage(format!("kb mcp printed a non-JSON line ({e}): {line}"))
            })?;
            if v["id"] == id {
                return Ok(v);
            }
        }
    }
}

fn bench_mcp(a: &Args) -> Result<()> {
    let data_dir = need(&a.data_dir, "--data-dir")?;
    // The server writes its search log into kb.db: work on a copy so the
    // benchmark database stays as it was.
    let tmp = std::env::temp_dir().join(format!("kb-bench-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| KbError::io(&tmp, e))?;
    let src = data_dir.join("kb.db");
    std::fs::copy(&src, tmp.join("kb.db")).map_err(|e| KbError::io(&src, e))?;
    let exe = std::env::current_exe().map_err(|e| KbError::io("kb-bench", e))?;
    let kb = exe.with_file_name("kb");
    let mut child = std::process::Command::new(&kb)
        .arg("--data-dir")
        .arg(&tmp)
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .map_err(|e| KbError::io(&kb, e))?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let mut c = McpClient {
        child,
        stdin,
        stdout,
        next_id: 0,
    };
    let t = Instant::now();
    let init = c.request(
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "kb-bench", "version": "0"}}),
    )?;
    let init_ms = t.elapsed().as_secs_f64() * 1000.0;
    c.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let search = |c: &mut McpClient, query: &str, mode: &str| -> Result<(f64, f64)> {
        let t = Instant::now();
        let r = c.request(
            "tools/call",
            serde_json::json!({"name": "search", "arguments": {"query": query, "mode": mode}}),
        )?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if r["result"]["isError"] == true || r.get("error").is_some() {
            return Err(KbError::Usage(format!("search failed: {r}")));
        }
        Ok((
            ms,
            r["result"]["_meta"]["kb/took_ms"]
                .as_f64()
                .unwrap_or(f64::NAN),
        ))
    };
    let (first, _) = search(&mut c, QUERIES[0], "hybrid")?;
    println!(
        "kb mcp on {} chunks (protocol {}): initialize {init_ms:.1} ms; first hybrid search (loads the model and the vectors) {first:.0} ms",
        Database::open(&tmp.join("kb.db"), OpenMode::Existing)?.chunk_count()?,
        init["result"]["protocolVersion"]
    );
    for mode in ["hybrid", "keyword", "vector"] {
        let (mut round_trip, mut server) = (Vec::new(), Vec::new());
        for i in 0..a.runs + 3 {
            let (ms, took) = search(&mut c, QUERIES[(i + 1) % QUERIES.len()], mode)?;
            if i >= 3 {
                round_trip.push(ms);
                server.push(took);
            }
        }
        println!(
            "warm {mode} search through kb mcp: round trip p50 {:.1} ms, p95 {:.1} ms (in the server p50 {:.1} ms) over {} calls",
            median(round_trip.clone()),
            p95(round_trip),
            median(server),
            a.runs
        );
    }
    drop(c.stdin);
    let status = c.child.wait().map_err(|e| KbError::io(&kb, e))?;
    let _ = std::fs::remove_dir_all(&tmp);
    if !status.success() {
        return Err(KbError::Usage(format!("kb mcp exited with {status}")));
    }
    Ok(())
}

/// `kb search` as an agent runs it (a fresh process, hybrid, top 10) on
/// real queries, against the same search done exactly in this process: the
/// keyword ranking from the database, the vector ranking from a full scan
/// of every float vector, fused with the same RRF. Fails on any difference
/// in chunks, order or cosine.
fn bench_exact(a: &Args) -> Result<()> {
    let data_dir = need(&a.data_dir, "--data-dir")?;
    let queries_path = need(&a.corpus, "--queries")?;
    let config = config(Some(data_dir))?;
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let binding = db
        .model_binding()?
        .ok_or_else(|| KbError::Usage("the knowledge base has no model".into()))?;
    let embedder = resolve::for_binding(&config, &binding)?.load(&config, ModelUse::Queries)?;
    let text = std::fs::read_to_string(queries_path).map_err(|e| KbError::io(queries_path, e))?;
    let queries: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .take(a.runs)
        .collect();
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
        let req = kb::search::SearchRequest {
            query: q.clone(),
            top,
            filters: Default::default(),
            mode: kb::search::Mode::Hybrid,
            threshold: None,
            fusion: kb::search::FusionSettings::of(&config.search),
            columns: Default::default(),
            max_per_document: 0,
            feedback: kb::search::Feedback::OFF,
            expand: true,
            snippets: false,
        };
        let k = req.candidates();
        let keyword = kb::search::search_with(
            &db,
            &kb::search::SearchRequest {
                top: k,
                mode: kb::search::Mode::Keyword,
                ..req.clone()
            },
            None::<fn(&str) -> Result<Vec<f32>>>,
            None,
        )?;
        let keyword_ranked: Vec<(i64, f64)> = keyword
            .hits
            .iter()
            .map(|h| (h.chunk.chunk_id, h.bm25.unwrap_or(0.0)))
            .collect();
        let qv = embedder.embed_query(q)?;
        let exact = kb::search::vector::top_k(
            all.iter()
                .map(|(id, v)| kb::db::VectorHit {
                    chunk_id: *id,
                    cosine: kb::search::vector::dot(&qv, v),
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
        };
        let mut fused = kb::search::fuse(
            Some(keyword_list),
            Some(kb::search::Ranking::top(&vector_ranked)),
            &req.fusion,
        );
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
