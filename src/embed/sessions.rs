//! ONNX Runtime sessions for a model: the optimised-graph cache, the ORT
//! format mapped in place, and the options each use of the model gets.
//!
//! The first load optimises the graph and saves the result in kb's cache;
//! later loads read the optimised graph with optimisation off. In the ORT
//! format the file is memory-mapped and ONNX Runtime uses its bytes in
//! place (`use_ort_model_bytes_directly`, `use_ort_model_bytes_for_initializers`),
//! so a load neither parses a protobuf nor copies the weights. The cache key
//! covers the model file, the runtime library and the fusions the model's
//! directory leaves out, so any of them changing gets a fresh optimisation.
//!
//! Several sessions of one model (`kb add` runs one per core) share the
//! mapped graph and one container of prepacked weights.

use std::path::{Path, PathBuf};

use ndarray::Array2;
use ort::environment::Environment;
use ort::session::builder::{GraphOptimizationLevel, PrepackedWeights, SessionBuilder};
use ort::session::{Session, SessionOutputs};
use ort::value::TensorRef;

use super::model::{ModelFiles, ModelUse};
use crate::error::{KbError, Result};

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

/// What sessions to build: how many, and each with how many threads.
#[derive(Debug, Clone, Copy)]
pub(super) struct SessionPlan {
    pub(super) count: usize,
    pub(super) threads: usize,
    pub(super) model_use: ModelUse,
    pub(super) format: GraphFormat,
}

/// Sessions and, for the ORT format, the mapped file their weights live
/// in (to be dropped after them).
pub(super) struct LoadedSessions {
    pub(super) sessions: Vec<Session>,
    pub(super) bytes: Option<memmap2::Mmap>,
}

/// Builds the sessions `plan` asks for.
pub(super) fn create(
    env: &Environment,
    files: &ModelFiles,
    plan: SessionPlan,
) -> Result<LoadedSessions> {
    let model_err = |e: String| {
        // A graph ONNX Runtime cannot parse is a damaged or foreign file.
        let fix = if e.contains("Protobuf parsing failed") || e.contains("protobuf") {
            "; the file is damaged or not an ONNX model (a copy cut short?): restore it (./setup.sh \
             in kb's source tree, or kb init --model NAME)"
        } else {
            ""
        };
        KbError::Model(format!(
            "{}: cannot load model: {e}{fix}",
            files.onnx.display()
        ))
    };
    // One container for all: each weight matrix is packed once.
    let prepacked = (plan.count > 1).then(PrepackedWeights::new);
    let options = Options {
        files,
        threads: plan.threads,
        model_use: plan.model_use,
        prepacked: prepacked.as_ref(),
    };
    let cached = optimized_cache_path(files, plan.format);
    let mut loaded = match cached.as_ref().filter(|p| p.is_file()) {
        Some(path) => match load_cached(env, &options, path, plan.format) {
            Ok(s) => Some(s),
            // A stale or damaged cache entry: drop it and optimise afresh.
            Err(_) => {
                let _ = std::fs::remove_file(path);
                None
            }
        },
        None => None,
    };
    if loaded.is_none() {
        let first = optimise(env, &options, cached.as_deref(), plan.format).map_err(model_err)?;
        // The others read what the first one saved, when it could.
        loaded = match cached.as_ref().filter(|p| p.is_file() && plan.count > 1) {
            Some(path) => {
                let mut rest = load_cached(env, &options, path, plan.format).map_err(model_err)?;
                rest.sessions.insert(0, first);
                Some(rest)
            }
            None => Some(LoadedSessions {
                sessions: vec![first],
                bytes: None,
            }),
        };
    }
    let mut loaded = loaded.expect("loaded above");
    while loaded.sessions.len() < plan.count {
        let cached = cached.as_deref().filter(|p| p.is_file());
        let next = another(env, &options, loaded.bytes.as_ref(), cached).map_err(model_err)?;
        loaded.sessions.push(next);
    }
    Ok(loaded)
}

/// One more session of a load: from the mapped graph, else the cached
/// file, else the model optimised again.
fn another(
    env: &Environment,
    options: &Options<'_>,
    bytes: Option<&memmap2::Mmap>,
    cached: Option<&Path>,
) -> std::result::Result<Session, String> {
    let session = match (bytes, cached) {
        (Some(bytes), _) => options
            .builder(env, GraphOptimizationLevel::Disable, true)?
            .commit_from_memory(bytes),
        (None, Some(path)) => options
            .builder(env, GraphOptimizationLevel::Disable, false)?
            .commit_from_file(path),
        (None, None) => options
            .builder(env, GraphOptimizationLevel::All, false)?
            .commit_from_file(&options.files.onnx),
    };
    session.map_err(|e| e.to_string())
}

/// Builds a session from the model file with every optimisation, saving
/// the optimised graph at `cached` for later loads.
fn optimise(
    env: &Environment,
    options: &Options<'_>,
    cached: Option<&Path>,
    format: GraphFormat,
) -> std::result::Result<Session, String> {
    let mut builder = options.builder(env, GraphOptimizationLevel::All, false)?;
    let tmp = cached.and_then(|p| {
        std::fs::create_dir_all(p.parent()?).ok()?;
        Some(p.with_extension(format!("{}.{}.tmp", std::process::id(), format.extension())))
    });
    if let Some(t) = &tmp {
        builder = builder
            .with_optimized_model_path(t)
            .map_err(|e| e.to_string())?;
        if format == GraphFormat::Ort {
            builder = builder
                .with_config_entry("session.save_model_format", "ORT")
                .map_err(|e| e.to_string())?;
        }
    }
    let session = builder
        .commit_from_file(&options.files.onnx)
        .map_err(|e| e.to_string())?;
    if let (Some(t), Some(p)) = (tmp, cached) {
        // Renamed into place whole, so a concurrent reader never sees half a
        // file, and a file another process has mapped is never rewritten.
        if std::fs::rename(&t, p).is_err() {
            let _ = std::fs::remove_file(&t);
        }
    }
    Ok(session)
}

/// Loads one session from an optimised graph in kb's cache, optimisation
/// off.
fn load_cached(
    env: &Environment,
    options: &Options<'_>,
    path: &Path,
    format: GraphFormat,
) -> std::result::Result<LoadedSessions, String> {
    let mut builder = options.builder(
        env,
        GraphOptimizationLevel::Disable,
        format == GraphFormat::Ort,
    )?;
    match format {
        GraphFormat::Onnx => {
            let session = builder.commit_from_file(path).map_err(|e| e.to_string())?;
            Ok(LoadedSessions {
                sessions: vec![session],
                bytes: None,
            })
        }
        GraphFormat::Ort => {
            let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
            // SAFETY: cache files are only ever replaced by rename, never
            // written in place, so the mapping cannot change under us; a
            // file removed while mapped stays readable until unmapped.
            // A session for many chunks touches the whole graph: faulting
            // it in up front in one pass is cheaper than page by page. A
            // query reads a few rows of the word-embedding table, most of
            // the file: populating it cost a one-shot search more than the
            // pages it would fault in.
            let mut map = memmap2::MmapOptions::new();
            if options.model_use != ModelUse::Queries {
                map.populate();
            }
            let bytes = unsafe { map.map(&file) }.map_err(|e| e.to_string())?;
            // The session borrows `bytes` without a lifetime: the caller
            // keeps the mapping and drops it after the sessions.
            let session = builder
                .commit_from_memory(&bytes)
                .map_err(|e| e.to_string())?;
            Ok(LoadedSessions {
                sessions: vec![session],
                bytes: Some(bytes),
            })
        }
    }
}

/// The options every session of one load gets.
struct Options<'a> {
    files: &'a ModelFiles,
    threads: usize,
    model_use: ModelUse,
    prepacked: Option<&'a PrepackedWeights>,
}

impl Options<'_> {
    /// A builder at `level`; `in_place`: the session will read an ORT-format
    /// graph from mapped memory and use its bytes as they are.
    fn builder(
        &self,
        env: &Environment,
        level: GraphOptimizationLevel,
        in_place: bool,
    ) -> std::result::Result<SessionBuilder, String> {
        let prepack = self.model_use != ModelUse::Queries;
        let mut builder = Session::builder(env).map_err(|e| e.to_string())?;
        let disabled = &self.files.declared.ort_disabled_optimizers;
        if !disabled.is_empty() {
            builder = builder
                .with_config_entry(
                    "optimization.disable_specified_optimizers",
                    disabled.join(";"),
                )
                .map_err(|e| e.to_string())?;
        }
        if let Some(p) = self.prepacked.filter(|_| prepack) {
            builder = builder
                .with_prepacked_weights(p)
                .map_err(|e| e.to_string())?;
        }
        if in_place {
            for key in [
                "session.use_ort_model_bytes_directly",
                "session.use_ort_model_bytes_for_initializers",
            ] {
                builder = builder
                    .with_config_entry(key, "1")
                    .map_err(|e| e.to_string())?;
            }
        }
        // Inference threads never spin between operators. A server's must
        // leave the CPU to the keyword ranker; an ingest's share the cores
        // with the parser threads, the writer and whatever else runs:
        // spinning cost `kb add` about 15% more CPU per chunk (72 vs 60 ms,
        // int8, tldr-like pages, load 6-8) and gained nothing alone (52.5 vs
        // 53.4 ms).
        builder
            .with_optimization_level(level)
            .map_err(|e| e.to_string())?
            .with_intra_threads(self.threads)
            .map_err(|e| e.to_string())?
            .with_config_entry(
                "session.disable_prepacking",
                if prepack { "0" } else { "1" },
            )
            .map_err(|e| e.to_string())?
            .with_config_entry("session.intra_op.allow_spinning", "0")
            .map_err(|e| e.to_string())?
            // A memory pattern is planned per input shape, and every batch of
            // a group has its own length: with patterns the arena kept
            // growing (`kb add` of 768 tldr-like pages, int8: peak RSS
            // 1,030 MB against 551 MB without, at the same speed: 14.6 s
            // both).
            .with_memory_pattern(false)
            .map_err(|e| e.to_string())
    }
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
    let mut key = format!("{fingerprint}-{}-{mtime}", meta.len()).replace(':', "-");
    // The fusions left out shape the optimised graph too.
    let disabled = &files.declared.ort_disabled_optimizers;
    if !disabled.is_empty() {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(disabled.join(";").as_bytes());
        key.push_str(&format!("-d{}", &hex::encode(digest)[..8]));
    }
    Some(
        super::runtime::cache_dir()
            .join("optimized")
            .join(format!("{key}.{}", format.extension())),
    )
}

/// A BERT-style encoder's inputs for one batch, rows of equal length: the
/// token ids, the attention mask and the token type ids.
pub(super) struct EncoderInputs {
    pub(super) ids: Array2<i64>,
    pub(super) mask: Array2<i64>,
    pub(super) types: Array2<i64>,
}

/// Runs one batch through `session`; the token type ids go in only when
/// the graph takes them (`token_types`).
pub(super) fn run_encoder<'s>(
    session: &'s mut Session,
    inputs: &EncoderInputs,
    token_types: bool,
) -> std::result::Result<SessionOutputs<'s>, String> {
    let ids = TensorRef::from_array_view(&inputs.ids).map_err(|e| e.to_string())?;
    let mask = TensorRef::from_array_view(&inputs.mask).map_err(|e| e.to_string())?;
    if token_types {
        let types = TensorRef::from_array_view(&inputs.types).map_err(|e| e.to_string())?;
        session.run(ort::inputs![
            "input_ids" => ids,
            "attention_mask" => mask,
            "token_type_ids" => types
        ])
    } else {
        session.run(ort::inputs![
            "input_ids" => ids,
            "attention_mask" => mask
        ])
    }
    .map_err(|e| e.to_string())
}
