//! `kb-bench build` (a kb.db of real text, ingest against raw model time) and
//! `kb-bench model` (the model alone on a knowledge base's chunks).

use std::time::Instant;

use kb::db::{Database, NewChunk, NewDocument, OpenMode};
use kb::embed::Embed;
use kb::error::{KbError, Result};

use crate::*;

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
    kb::vector_math::normalize(&mut v);
    v
}

pub(crate) fn bench_build(a: &Args) -> Result<()> {
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
                doc_type: kb::document::DocType::Note,
                language: None,
                file_size: 0,
                file_mtime: Some(0),
                metadata: Default::default(),
                tags: vec![],
                content: None,
                reader_version: kb::ingest::readers::version(kb::document::DocType::Note),
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
pub(crate) fn bench_model(a: &Args) -> Result<()> {
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
