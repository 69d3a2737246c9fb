//! Sentence embeddings with ONNX Runtime: batch tokenisation at the model's
//! real maximum length, one ONNX call per batch, mean (or CLS) pooling over
//! the attention mask, L2 normalisation.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ndarray::Array2;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::registry::{ModelSpec, Pooling};
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
    /// Computed on first use: the binding check and the optimised-graph
    /// cache both need it, and it costs a read of 2 MiB.
    fingerprint: std::sync::OnceLock<String>,
}

impl ModelFiles {
    pub fn new(dir: PathBuf, onnx: PathBuf, tokenizer: PathBuf) -> ModelFiles {
        ModelFiles {
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

/// What a model is loaded for, which decides how its session is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelUse {
    /// Many chunks (ingest, reindex).
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
    session: Mutex<Session>,
    /// Truncates at the model's max length and pads each batch to its longest.
    tokenizer: Tokenizer,
    /// Counts without truncation, for chunk sizing.
    counter: Arc<Tokenizer>,
    query_prefix: String,
    passage_prefix: String,
    batch_size: usize,
    wants_token_type_ids: bool,
    output_name: String,
    /// The mapped ORT-format file the session reads its weights from;
    /// declared after `session` so it is unmapped after the session is gone.
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
        let env = super::runtime::ensure_loaded(config)?;
        let threads = match config.embedding.threads {
            // One short query gains nothing from a thread pool: creating it
            // and spinning it beside the keyword ranker cost more (hybrid
            // `kb search` p50 104 ms with one thread, 115 ms with two, 2
            // cores at load 4).
            0 if model_use == ModelUse::Queries => 1,
            0 => std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            n => n,
        };
        // The tokenizer is parsed on a second thread while ONNX Runtime
        // builds the session: both take tens of milliseconds, and a one-shot
        // `kb search` pays for both.
        let (tokenizers, session) = std::thread::scope(|s| {
            let tok = s.spawn(|| load_tokenizers(spec, files));
            let session = create_session(env, files, threads, model_use, format);
            let tokenizers = tok
                .join()
                .unwrap_or_else(|_| Err(KbError::Model("the tokenizer loader crashed".into())));
            (tokenizers, session)
        });
        let (tokenizer, counter) = tokenizers?;
        let LoadedSession { session, bytes } = session?;
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
        let passage_prefix = config
            .embedding
            .passage_prefix
            .clone()
            .unwrap_or_else(|| spec.passage_prefix.clone());
        Ok(Embedder {
            spec: spec.clone(),
            files: files.clone(),
            session: Mutex::new(session),
            tokenizer,
            counter: Arc::new(counter),
            query_prefix,
            passage_prefix,
            batch_size: if model_use != ModelUse::Queries && quantises_whole_batches(&files.onnx) {
                1
            } else {
                config.embedding.batch_size.max(1)
            },
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
        TokenCounter::Model(self.counter.clone())
    }

    /// The most tokens a chunk may have: the model's limit less its two
    /// special tokens and the passage prefix.
    pub fn max_chunk_tokens(&self) -> usize {
        let prefix = if self.passage_prefix.is_empty() {
            0
        } else {
            self.token_counter().count(&self.passage_prefix)
        };
        self.spec.max_tokens.saturating_sub(2 + prefix).max(8)
    }

    pub fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        let text = format!("{}{}", self.query_prefix, query);
        let mut v = self.embed_batch(&[text.as_str()])?;
        Ok(v.pop().unwrap_or_default())
    }

    /// Embeds chunks (passage prefix applied), in batches of similar length
    /// so little time goes to padding; results are in input order.
    pub fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let prefixed: Vec<String> = texts
            .iter()
            .map(|t| format!("{}{}", self.passage_prefix, t))
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| prefixed[i].len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for batch in order.chunks(self.batch_size) {
            let items: Vec<&str> = batch.iter().map(|&i| prefixed[i].as_str()).collect();
            let vecs = self.embed_batch(&items)?;
            for (&i, v) in batch.iter().zip(vecs) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// One model call.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
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
        let mut session = self
            .session
            .lock()
            .map_err(|_| run_err("the model was poisoned by an earlier failure".into()))?;
        let ids_t = TensorRef::from_array_view(&ids).map_err(|e| run_err(e.to_string()))?;
        let mask_t = TensorRef::from_array_view(&mask).map_err(|e| run_err(e.to_string()))?;
        let outputs = if self.wants_token_type_ids {
            let types_t = TensorRef::from_array_view(&types).map_err(|e| run_err(e.to_string()))?;
            session.run(ort::inputs![
                "input_ids" => ids_t,
                "attention_mask" => mask_t,
                "token_type_ids" => types_t
            ])
        } else {
            session.run(ort::inputs![
                "input_ids" => ids_t,
                "attention_mask" => mask_t
            ])
        }
        .map_err(|e| run_err(e.to_string()))?;
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
                        if mask[[b, j]] == 0 {
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

/// The tokenizer for inference (truncating at the model's maximum length,
/// padding each batch to its longest item) and one for counting (neither).
fn load_tokenizers(spec: &ModelSpec, files: &ModelFiles) -> Result<(Tokenizer, Tokenizer)> {
    let mut tokenizer = Tokenizer::from_file(&files.tokenizer).map_err(|e| {
        KbError::Model(format!(
            "{}: cannot read tokenizer: {e}",
            files.tokenizer.display()
        ))
    })?;
    let mut counter = tokenizer.clone();
    counter
        .with_truncation(None)
        .map_err(|e| KbError::Model(e.to_string()))?;
    counter.with_padding(None);
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
    Ok((tokenizer, counter))
}

/// How the optimised graph is kept in kb's cache and read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphFormat {
    /// ONNX Runtime's own format, memory-mapped and used in place: the
    /// weights are neither parsed nor copied (the default).
    Ort,
    /// An optimised `.onnx` file, parsed and copied at every load (what kb
    /// did before; kept for comparison in kb-bench).
    Onnx,
}

impl GraphFormat {
    fn extension(self) -> &'static str {
        match self {
            GraphFormat::Ort => "ort",
            GraphFormat::Onnx => "onnx",
        }
    }
}

/// A session and, for the ORT format, the mapped file its weights live in.
struct LoadedSession {
    session: Session,
    bytes: Option<memmap2::Mmap>,
}

/// Builds the ONNX Runtime session. The first load optimises the graph
/// and saves the result in kb's cache; later loads read the optimised graph
/// with optimisation off. In the ORT format the file is memory-mapped and
/// ONNX Runtime uses its bytes in place (`use_ort_model_bytes_directly`,
/// `use_ort_model_bytes_for_initializers`), so a load neither parses a
/// protobuf nor copies 90 MB of weights. The cache key covers the model file
/// and the runtime library, so a new model or runtime gets a fresh
/// optimisation.
fn create_session(
    env: &ort::environment::Environment,
    files: &ModelFiles,
    threads: usize,
    model_use: ModelUse,
    format: GraphFormat,
) -> Result<LoadedSession> {
    let model_err =
        |e: String| KbError::Model(format!("{}: cannot load model: {e}", files.onnx.display()));
    let cached = optimized_cache_path(files, format);
    if let Some(path) = cached.as_ref().filter(|p| p.is_file()) {
        match load_cached(env, path, threads, model_use, format) {
            Ok(s) => return Ok(s),
            // A stale or damaged cache entry: drop it and optimise afresh.
            Err(_) => {
                let _ = std::fs::remove_file(path);
            }
        }
    }
    let mut builder =
        session_builder(env, GraphOptimizationLevel::All, threads, model_use).map_err(model_err)?;
    let tmp = cached.as_ref().and_then(|p| {
        std::fs::create_dir_all(p.parent()?).ok()?;
        Some(p.with_extension(format!("{}.{}.tmp", std::process::id(), format.extension())))
    });
    if let Some(t) = &tmp {
        builder = builder
            .with_optimized_model_path(t)
            .map_err(|e| model_err(e.to_string()))?;
        if format == GraphFormat::Ort {
            builder = builder
                .with_config_entry("session.save_model_format", "ORT")
                .map_err(|e| model_err(e.to_string()))?;
        }
    }
    let session = builder
        .commit_from_file(&files.onnx)
        .map_err(|e| model_err(e.to_string()))?;
    if let (Some(t), Some(p)) = (tmp, cached) {
        // Renamed into place whole, so a concurrent reader never sees half a
        // file, and a file another process has mapped is never rewritten.
        if std::fs::rename(&t, &p).is_err() {
            let _ = std::fs::remove_file(&t);
        }
    }
    Ok(LoadedSession {
        session,
        bytes: None,
    })
}

/// Loads an optimised graph from kb's cache, optimisation off.
fn load_cached(
    env: &ort::environment::Environment,
    path: &Path,
    threads: usize,
    model_use: ModelUse,
    format: GraphFormat,
) -> std::result::Result<LoadedSession, String> {
    let mut builder = session_builder(env, GraphOptimizationLevel::Disable, threads, model_use)?;
    match format {
        GraphFormat::Onnx => {
            let session = builder.commit_from_file(path).map_err(|e| e.to_string())?;
            Ok(LoadedSession {
                session,
                bytes: None,
            })
        }
        GraphFormat::Ort => {
            let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
            // SAFETY: cache files are only ever replaced by rename, never
            // written in place, so the mapping cannot change under us; a
            // file removed while mapped stays readable until unmapped.
            // populate: the whole graph is touched by the first inference anyway;
            // faulting it in up front in one pass is cheaper than page by page.
            let bytes = unsafe { memmap2::MmapOptions::new().populate().map(&file) }
                .map_err(|e| e.to_string())?;
            for key in [
                "session.use_ort_model_bytes_directly",
                "session.use_ort_model_bytes_for_initializers",
            ] {
                builder = builder
                    .with_config_entry(key, "1")
                    .map_err(|e| e.to_string())?;
            }
            // The session borrows `bytes` without a lifetime: the Embedder
            // keeps the mapping and drops it after the session.
            let session = builder
                .commit_from_memory(&bytes)
                .map_err(|e| e.to_string())?;
            Ok(LoadedSession {
                session,
                bytes: Some(bytes),
            })
        }
    }
}

fn session_builder(
    env: &ort::environment::Environment,
    level: GraphOptimizationLevel,
    threads: usize,
    model_use: ModelUse,
) -> std::result::Result<ort::session::builder::SessionBuilder, String> {
    let prepack = model_use != ModelUse::Queries;
    // Inference threads never spin between operators. A server's must
    // leave the CPU to the keyword ranker; an ingest's share two cores with
    // the parser threads, the writer and whatever else runs: spinning cost
    // `kb add` about 15% more CPU per chunk (72 vs 60 ms, int8, tldr-like
    // pages, load 6-8) and gained nothing alone (52.5 vs 53.4 ms).
    Session::builder(env)
        .map_err(|e| e.to_string())?
        .with_optimization_level(level)
        .map_err(|e| e.to_string())?
        .with_intra_threads(threads)
        .map_err(|e| e.to_string())?
        .with_config_entry(
            "session.disable_prepacking",
            if prepack { "0" } else { "1" },
        )
        .map_err(|e| e.to_string())?
        .with_config_entry("session.intra_op.allow_spinning", "0")
        .map_err(|e| e.to_string())?
        // A memory pattern is planned per input shape, and every batch of a
        // group has its own length: with patterns the arena kept growing
        // (`kb add` of 768 tldr-like pages, int8: peak RSS 1,030 MB against
        // 551 MB without, at the same speed: 14.6 s both).
        .with_memory_pattern(false)
        .map_err(|e| e.to_string())
}

fn optimized_cache_path(files: &ModelFiles, format: GraphFormat) -> Option<PathBuf> {
    let fingerprint = files.fingerprint().ok()?;
    let lib = super::runtime::loaded_path()?;
    let meta = std::fs::metadata(&lib).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    let key = format!("{fingerprint}-{}-{mtime}", meta.len()).replace(':', "-");
    Some(
        super::runtime::cache_dir()
            .join("optimized")
            .join(format!("{key}.{}", format.extension())),
    )
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
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
