//! Sentence embeddings with ONNX Runtime: batch tokenisation at the model's
//! real maximum length, one ONNX call per batch, mean (or CLS) pooling over
//! the attention mask, L2 normalisation.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ndarray::Array2;
use ort::session::Session;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::declared::Declared;
use super::registry::{ModelSpec, Pooling};
use super::sessions::{self, EncoderInputs, GraphFormat, LoadedSessions, SessionPlan};
use super::TokenCounter;
use crate::config::Config;
use crate::error::{KbError, Result};

/// The files of one model on disk.
#[derive(Debug, Clone)]
pub struct ModelFiles {
    /// The directory the files were found in (recorded by `kb init`).
    pub dir: PathBuf,
    pub onnx: PathBuf,
    pub tokenizer: PathBuf,
    /// What the directory's kb-model.json says of the files.
    pub declared: Declared,
    /// Computed on first use: the binding check and the optimised-graph
    /// cache both need it, and it costs a read of 2 MiB.
    fingerprint: std::sync::OnceLock<String>,
}

impl ModelFiles {
    pub fn new(dir: PathBuf, onnx: PathBuf, tokenizer: PathBuf) -> ModelFiles {
        ModelFiles {
            declared: Declared::of(&dir),
            dir,
            onnx,
            tokenizer,
            fingerprint: std::sync::OnceLock::new(),
        }
    }

    /// Finds a model's files in a directory: the ONNX file at the repo's
    /// path, or `model.onnx` at the top or under `onnx/`.
    pub fn in_dir(dir: &Path, spec: &ModelSpec) -> Result<ModelFiles> {
        let onnx_candidates = [
            dir.join(&spec.onnx_file),
            dir.join("model.onnx"),
            dir.join("onnx").join("model.onnx"),
        ];
        let onnx = onnx_candidates.iter().find(|p| p.is_file()).cloned();
        let tokenizer = [dir.join(&spec.tokenizer_file), dir.join("tokenizer.json")]
            .into_iter()
            .find(|p| p.is_file());
        match (onnx, tokenizer) {
            (Some(onnx), Some(tokenizer)) => {
                Ok(ModelFiles::new(dir.to_path_buf(), onnx, tokenizer))
            }
            (onnx, tok) => {
                let mut missing = Vec::new();
                if onnx.is_none() {
                    missing.push(format!("an ONNX file ({} or model.onnx)", spec.onnx_file));
                }
                if tok.is_none() {
                    missing.push("tokenizer.json".to_string());
                }
                Err(KbError::ModelMissing(format!(
                    "{}: the model directory lacks {}; it must hold the model's ONNX file, tokenizer.json and config.json",
                    dir.display(),
                    missing.join(" and ")
                )))
            }
        }
    }

    /// A cheap fingerprint of the ONNX file (size and SHA-256 of its first
    /// and last MiB), so every process can check the binding without hashing
    /// the whole model.
    pub fn fingerprint(&self) -> Result<String> {
        if let Some(f) = self.fingerprint.get() {
            return Ok(f.clone());
        }
        let f = self.compute_fingerprint()?;
        Ok(self.fingerprint.get_or_init(|| f).clone())
    }

    fn compute_fingerprint(&self) -> Result<String> {
        let _span = crate::timings::span("model fingerprint");
        use sha2::{Digest, Sha256};
        use std::io::{Read, Seek, SeekFrom};
        let mut f = std::fs::File::open(&self.onnx).map_err(|e| KbError::io(&self.onnx, e))?;
        let len = f.metadata().map_err(|e| KbError::io(&self.onnx, e))?.len();
        let mut h = Sha256::new();
        h.update(len.to_le_bytes());
        let mut buf = vec![0u8; 1 << 20];
        let n = f.read(&mut buf).map_err(|e| KbError::io(&self.onnx, e))?;
        h.update(&buf[..n]);
        if len > (2 << 20) {
            f.seek(SeekFrom::End(-(1 << 20)))
                .map_err(|e| KbError::io(&self.onnx, e))?;
            f.read_exact(&mut buf)
                .map_err(|e| KbError::io(&self.onnx, e))?;
            h.update(&buf);
        }
        Ok(format!("{len}:{}", &hex::encode(h.finalize())[..16]))
    }
}

/// What a model is loaded for, which decides how its sessions are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelUse {
    /// Many chunks (ingest, reindex): one single-threaded session per
    /// inference thread, each embedding its own share of a batch of
    /// chunks. On 2 cores that took 0.76 of the CPU per chunk of one
    /// session running two threads (NFCorpus abstracts of ~240 tokens,
    /// int8), whose threads wait for each other at every operator.
    Passages,
    /// A few queries (a one-shot search): one inference thread unless
    /// `embedding.threads` says otherwise.
    Queries,
    /// One query at a time in a long-running process (`kb mcp`): weights
    /// prepacked. Its inference threads sleep between calls instead of
    /// spinning (as every use's do), so they leave the CPU to the keyword
    /// ranker that runs at the same time (hybrid p50 17 ms instead of 27 ms
    /// at 20,000 chunks on 2 busy cores).
    Server,
}

/// A loaded embedding model.
pub struct Embedder {
    spec: ModelSpec,
    files: ModelFiles,
    /// One per inference thread; a query uses the first.
    sessions: Vec<Mutex<Session>>,
    /// Truncates at the model's max length and pads each batch to its longest.
    tokenizer: Tokenizer,
    /// Counts without truncation, for chunk sizing: made from `tokenizer`
    /// on first use (a search never needs it).
    counter: std::sync::OnceLock<Arc<Tokenizer>>,
    query_prefix: String,
    passage_prefix: String,
    batch_size: usize,
    /// Most tokens in one call (chunks x the longest); 0: no limit.
    batch_tokens: usize,
    wants_token_type_ids: bool,
    output_name: String,
    /// The mapped ORT-format file the sessions read their weights from;
    /// declared after `sessions` so it is unmapped after they are gone.
    _model_bytes: Option<memmap2::Mmap>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("model", &self.spec.name)
            .field("onnx", &self.files.onnx)
            .finish()
    }
}

impl Embedder {
    /// Loads a model for embedding many passages (ingest, reindex).
    pub fn load(spec: &ModelSpec, files: &ModelFiles, config: &Config) -> Result<Embedder> {
        Self::load_for(spec, files, config, ModelUse::Passages)
    }

    /// Loads a model for a query or two: weight prepacking is skipped, which
    /// makes the session about 40% quicker to create and a long batch
    /// about 7% slower.
    pub fn load_for(
        spec: &ModelSpec,
        files: &ModelFiles,
        config: &Config,
        model_use: ModelUse,
    ) -> Result<Embedder> {
        Self::load_as(spec, files, config, model_use, GraphFormat::Ort)
    }

    /// [`Embedder::load_for`] with the cached graph in a chosen format (the
    /// benchmarks compare them).
    pub fn load_as(
        spec: &ModelSpec,
        files: &ModelFiles,
        config: &Config,
        model_use: ModelUse,
        format: GraphFormat,
    ) -> Result<Embedder> {
        let plan = session_plan(config, model_use, format);
        // The tokenizer is parsed on a second thread while ONNX Runtime
        // loads and builds the session: each takes tens of milliseconds,
        // and a one-shot `kb search` waits for the longer.
        let (tokenizer, session) = std::thread::scope(|s| {
            let tok = s.spawn(|| {
                let _span = crate::timings::span("tokenizer");
                load_tokenizer(spec, files)
            });
            let session = (|| {
                let env = {
                    // Loads it, or waits for the thread that started it.
                    let _span = crate::timings::span("onnx runtime ready");
                    super::runtime::ensure_loaded(config)?
                };
                let _span = crate::timings::span("model session");
                sessions::create(env, files, plan)
            })();
            let tokenizer = tok
                .join()
                .unwrap_or_else(|_| Err(KbError::Model("the tokenizer loader crashed".into())));
            (tokenizer, session)
        });
        let tokenizer = tokenizer?;
        let LoadedSessions { sessions, bytes } = session?;
        let session = sessions
            .first()
            .ok_or_else(|| KbError::Internal("no model session was built".into()))?;
        let model_err =
            |e: String| KbError::Model(format!("{}: cannot load model: {e}", files.onnx.display()));
        let wants_token_type_ids = session
            .inputs()
            .iter()
            .any(|i| i.name() == "token_type_ids");
        let output_name = session
            .outputs()
            .iter()
            .map(|o| o.name().to_string())
            .find(|n| n == "last_hidden_state")
            .or_else(|| session.outputs().first().map(|o| o.name().to_string()))
            .ok_or_else(|| model_err("the model has no outputs".into()))?;

        let query_prefix = config
            .embedding
            .query_prefix
            .clone()
            .unwrap_or_else(|| spec.query_prefix.clone());
        let passage_prefix = spec.passage_prefix_in(config);
        Ok(Embedder {
            spec: spec.clone(),
            files: files.clone(),
            sessions: sessions.into_iter().map(Mutex::new).collect(),
            tokenizer,
            counter: std::sync::OnceLock::new(),
            query_prefix,
            passage_prefix,
            batch_size: if model_use != ModelUse::Queries && quantises_whole_batches(&files.onnx) {
                1
            } else {
                config.embedding.batch_size.max(1)
            },
            batch_tokens: config.embedding.batch_tokens,
            wants_token_type_ids,
            output_name,
            _model_bytes: bytes,
        })
    }

    pub fn spec(&self) -> &ModelSpec {
        &self.spec
    }

    pub fn files(&self) -> &ModelFiles {
        &self.files
    }

    pub fn dim(&self) -> usize {
        self.spec.dim
    }

    /// How many passages go into one model call (1 for a graph that
    /// quantises activations over the whole batch).
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    pub fn token_counter(&self) -> TokenCounter {
        let counter = self.counter.get_or_init(|| {
            let mut counter = self.tokenizer.clone();
            counter.with_padding(None);
            // Only fails for a stride longer than the maximum, and there is
            // no maximum now.
            let _ = counter.with_truncation(None);
            Arc::new(counter)
        });
        TokenCounter::Model(counter.clone())
    }

    /// The most tokens a chunk may have: the model's limit less its two
    /// special tokens and the passage prefix.
    pub fn max_chunk_tokens(&self) -> usize {
        let prefix = if self.passage_prefix.is_empty() {
            0
        } else {
            self.token_counter().count(&self.passage_prefix)
        };
        self.spec.max_chunk_tokens(prefix)
    }

    pub fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        let _span = crate::timings::span("query embedding");
        let text = format!("{}{}", self.query_prefix, query);
        let mut v = self.embed_batch(&self.sessions[0], &[text.as_str()])?;
        Ok(v.pop().unwrap_or_default())
    }

    /// Embeds chunks (passage prefix applied), in batches of similar length
    /// so little time goes to padding, the batches shared out among the
    /// sessions (longest first, each session taking the next as it is
    /// free); results are in input order. A text's vector never depends on
    /// its batch or its session.
    pub fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let prefixed: Vec<String> = texts
            .iter()
            .map(|t| format!("{}{}", self.passage_prefix, t))
            .collect();
        let counter = self.token_counter();
        let tokens: Vec<usize> = prefixed
            .iter()
            .map(|t| (counter.count(t) + 2).min(self.spec.max_tokens))
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(tokens[i]));
        let batches = batches(&order, &tokens, self.batch_size, self.batch_tokens);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = |session: &Mutex<Session>| -> Result<Embedded> {
            let mut done = Vec::new();
            loop {
                let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(batch) = batches.get(b) else {
                    return Ok(done);
                };
                let items: Vec<&str> = batch.iter().map(|&i| prefixed[i].as_str()).collect();
                done.extend(
                    batch
                        .iter()
                        .copied()
                        .zip(self.embed_batch(session, &items)?),
                );
            }
        };
        let workers = self.sessions.len().min(batches.len()).max(1);
        let results: Vec<Result<Embedded>> = if workers == 1 {
            vec![work(&self.sessions[0])]
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = self.sessions[..workers]
                    .iter()
                    .map(|session| s.spawn(|| work(session)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(KbError::Model("an inference thread crashed".into()))
                        })
                    })
                    .collect()
            })
        };
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for part in results {
            for (i, v) in part? {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// One model call on one session.
    fn embed_batch(&self, session: &Mutex<Session>, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| KbError::Model(format!("tokenizer failed: {e}")))?;
        let batch = encodings.len();
        let seq = encodings.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = Array2::<i64>::zeros((batch, seq));
        let mut mask = Array2::<i64>::zeros((batch, seq));
        let mut types = Array2::<i64>::zeros((batch, seq));
        for (b, enc) in encodings.iter().enumerate() {
            for (j, ((&id, &m), &t)) in enc
                .get_ids()
                .iter()
                .zip(enc.get_attention_mask())
                .zip(enc.get_type_ids())
                .enumerate()
            {
                ids[[b, j]] = id as i64;
                mask[[b, j]] = m as i64;
                types[[b, j]] = t as i64;
            }
        }
        let run_err = |e: String| KbError::Model(format!("inference failed: {e}"));
        let mut session = session
            .lock()
            .map_err(|_| run_err("the model was poisoned by an earlier failure".into()))?;
        let inputs = EncoderInputs { ids, mask, types };
        let outputs = sessions::run_encoder(&mut session, &inputs, self.wants_token_type_ids)
            .map_err(run_err)?;
        let hidden = outputs[self.output_name.as_str()]
            .try_extract_array::<f32>()
            .map_err(|e| run_err(e.to_string()))?;
        let shape = hidden.shape().to_vec();
        if shape.len() != 3 || shape[0] != batch || shape[2] != self.spec.dim {
            return Err(run_err(format!(
                "unexpected output shape {shape:?}; models.toml says dimension {}",
                self.spec.dim
            )));
        }
        let mut out = Vec::with_capacity(batch);
        for b in 0..batch {
            let mut v = vec![0f32; self.spec.dim];
            match self.spec.pooling {
                Pooling::Cls => {
                    for (d, x) in v.iter_mut().enumerate() {
                        *x = hidden[[b, 0, d]];
                    }
                }
                Pooling::Mean => {
                    let mut n = 0f32;
                    for j in 0..shape[1].min(seq) {
                        if inputs.mask[[b, j]] == 0 {
                            continue;
                        }
                        n += 1.0;
                        for (d, x) in v.iter_mut().enumerate() {
                            *x += hidden[[b, j, d]];
                        }
                    }
                    let n = n.max(1.0);
                    v.iter_mut().for_each(|x| *x /= n);
                }
            }
            if self.spec.normalize {
                crate::vector_math::normalize(&mut v);
            }
            out.push(v);
        }
        Ok(out)
    }
}

/// What one session embedded: (the text's place in the input, its vector).
type Embedded = Vec<(usize, Vec<f32>)>;

/// Cuts `order` (longest first) into model calls of at most `size` chunks
/// whose chunks times the longest come to at most `budget` tokens (0: no
/// budget); a chunk over the budget goes alone.
fn batches<'a>(
    order: &'a [usize],
    tokens: &[usize],
    size: usize,
    budget: usize,
) -> Vec<&'a [usize]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let longest = tokens[order[start]].max(1);
        let by_budget = if budget == 0 {
            usize::MAX
        } else {
            (budget / longest).max(1)
        };
        let end = (start + size.max(1).min(by_budget)).min(order.len());
        out.push(&order[start..end]);
        start = end;
    }
    out
}

/// How many sessions a use of the model gets, and how many threads each
/// (`embedding.threads` 0: as many as the machine has cores).
fn session_plan(config: &Config, model_use: ModelUse, format: GraphFormat) -> SessionPlan {
    let cores = || {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    };
    let (count, threads) = match (model_use, config.embedding.threads) {
        // One short query gains nothing from a thread pool: creating it
        // and spinning it beside the keyword ranker cost more (hybrid `kb
        // search` p50 104 ms with one thread, 115 ms with two, 2 cores at
        // load 4).
        (ModelUse::Queries, 0) => (1, 1),
        (ModelUse::Server, 0) => (1, cores()),
        (ModelUse::Queries | ModelUse::Server, n) => (1, n),
        (ModelUse::Passages, 0) => (cores(), 1),
        (ModelUse::Passages, n) => (n, 1),
    };
    SessionPlan {
        count,
        threads,
        model_use,
        format,
    }
}

/// Whether a graph quantises activations over its whole input (ONNX's
/// `DynamicQuantizeLinear`, what `onnxruntime.quantization.quantize_dynamic`
/// puts before each weight matrix, as in the int8 exports on the Hugging
/// Face hub): one scale for a whole padded batch, so a text's vector would
/// depend on what it is batched with. Such a model embeds passages one at a
/// time, so the same files always give the same vectors.
/// kb's own int8 copy quantises each row apart and batches as usual.
fn quantises_whole_batches(onnx: &Path) -> bool {
    let Ok(file) = std::fs::File::open(onnx) else {
        return false;
    };
    // SAFETY: read-only mapping of a model file kb does not write; a file
    // truncated meanwhile fails the session load anyway.
    let Ok(bytes) = (unsafe { memmap2::Mmap::map(&file) }) else {
        return false;
    };
    memchr::memmem::find(&bytes, b"DynamicQuantizeLinear").is_some()
}

/// The tokenizer for inference: truncating at the model's maximum length,
/// padding each batch to its longest item.
fn load_tokenizer(spec: &ModelSpec, files: &ModelFiles) -> Result<Tokenizer> {
    let cannot = |e: String| {
        KbError::Model(format!(
            "{}: cannot read tokenizer: {e}",
            files.tokenizer.display()
        ))
    };
    let json = std::fs::read_to_string(&files.tokenizer).map_err(|e| cannot(e.to_string()))?;
    let mut tokenizer = super::tokenizer_file::parse(&json).map_err(cannot)?;
    // The shipped tokenizer.json truncates and pads at 128: replace both.
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: spec.max_tokens,
            ..Default::default()
        }))
        .map_err(|e| KbError::Model(e.to_string()))?;
    let pad_id = tokenizer.token_to_id("[PAD]").unwrap_or(0);
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        pad_id,
        pad_token: "[PAD]".into(),
        ..Default::default()
    }));
    Ok(tokenizer)
}

impl super::Embed for Embedder {
    fn model_name(&self) -> &str {
        &self.spec.name
    }

    fn dim(&self) -> usize {
        self.spec.dim
    }

    fn max_chunk_tokens(&self) -> usize {
        Embedder::max_chunk_tokens(self)
    }

    fn token_counter(&self) -> TokenCounter {
        Embedder::token_counter(self)
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        Embedder::embed_query(self, query)
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Embedder::embed_passages(self, texts)
    }

    fn binding(&self) -> Result<crate::db::ModelBinding> {
        Ok(crate::db::ModelBinding {
            model_name: self.spec.name.clone(),
            embedding_dim: self.spec.dim,
            model_max_tokens: self.spec.max_tokens,
            model_fingerprint: self.files.fingerprint()?,
            model_dir: Some(self.files.dir.display().to_string()),
            passage_prefix: Some(self.passage_prefix.clone()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_chunks_go_alone_and_short_ones_together() {
        // Longest first, as embed_passages orders them.
        let tokens = [256, 200, 64, 64, 64, 64, 64, 16, 16, 16];
        let order: Vec<usize> = (0..tokens.len()).collect();
        let sizes = |size, budget| -> Vec<usize> {
            batches(&order, &tokens, size, budget)
                .iter()
                .map(|b| b.len())
                .collect()
        };
        assert_eq!(sizes(32, 256), [1, 1, 4, 4]);
        assert_eq!(sizes(2, 256), [1, 1, 2, 2, 2, 2]);
        assert_eq!(sizes(32, 0), [10]);
        assert_eq!(sizes(1, 0), [1; 10]);
        // Every chunk once, in order.
        let all: Vec<usize> = batches(&order, &tokens, 3, 128).concat();
        assert_eq!(all, order);
    }

    #[test]
    fn a_graph_quantising_whole_batches_is_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let per_tensor = dir.path().join("a.onnx");
        let mut bytes = vec![7u8; 1 << 20];
        bytes.extend_from_slice(b"\x12\x15DynamicQuantizeLinear\x22");
        bytes.extend(vec![1u8; 4096]);
        std::fs::write(&per_tensor, &bytes).unwrap();
        assert!(quantises_whole_batches(&per_tensor));
        let per_row = dir.path().join("b.onnx");
        std::fs::write(&per_row, b"\x12\x0eQuantizeLinear MatMulIntegerToFloat").unwrap();
        assert!(!quantises_whole_batches(&per_row));
        assert!(!quantises_whole_batches(&dir.path().join("missing.onnx")));
    }
}
