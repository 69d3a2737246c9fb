//! `kb-bench embed`: model load time and throughput at 64 and 256 tokens.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use kb::embed::{model_spec, ModelFiles, ModelUse, TokenCounter};
use kb::error::{KbError, Result};

use crate::*;

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
pub(crate) fn bench_embed(a: &Args) -> Result<()> {
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
    // The tokenizers crate's reader against kb's (the median of five).
    let json =
        std::fs::read_to_string(&files.tokenizer).map_err(|e| KbError::io(&files.tokenizer, e))?;
    let time = |read: &dyn Fn() -> Result<()>| -> Result<f64> {
        let mut ms = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            read()?;
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        Ok(median(ms))
    };
    let crate_ms = time(&|| {
        tokenizers::Tokenizer::from_str(&json)
            .map(drop)
            .map_err(|e| KbError::Model(e.to_string()))
    })?;
    let kb_ms = time(&|| {
        kb::embed::parse_tokenizer(&json)
            .map(drop)
            .map_err(KbError::Model)
    })?;
    println!(
        "tokenizer.json read: {kb_ms:.1} ms (the tokenizers crate's reader: {crate_ms:.1} ms)"
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
