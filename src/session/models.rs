//! The session's embedding model: resolved and loaded through
//! `embed::resolve`, or a fixed model (the deterministic test embedder in
//! unit tests); loaded once per binding and reused.

use std::sync::Arc;

use super::Session;
use crate::db::ModelBinding;
use crate::embed::{self, resolve, Embed, Embedder, ModelChoice, ModelUse};
use crate::error::{Hint, KbError, Result};

/// Where the session's models come from.
pub(crate) enum ModelProvider {
    /// From disk, as `embed::resolve` decides (every real run).
    Resolve,
    /// Always this model (unit tests).
    #[cfg(test)]
    Fixed(Arc<dyn Embed>),
}

/// A model load deferred to whoever calls it: another thread (a one-shot
/// search loads the model beside its keyword ranker), or the first ingest
/// thread that needs it.
pub(super) type ModelLoader = Box<dyn Fn() -> Result<Arc<dyn Embed>> + Send + Sync>;

/// What a model and its vectors were made with; a change means reload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BindingKey {
    model_name: String,
    fingerprint: String,
    dim: usize,
}

impl BindingKey {
    pub(super) fn of(b: &ModelBinding) -> BindingKey {
        BindingKey {
            model_name: b.model_name.clone(),
            fingerprint: b.model_fingerprint.clone(),
            dim: b.embedding_dim,
        }
    }
}

pub(super) struct Models {
    provider: ModelProvider,
    loaded: std::cell::RefCell<Option<(BindingKey, Arc<dyn Embed>)>>,
}

impl Models {
    pub(super) fn new(provider: ModelProvider) -> Models {
        Models {
            provider,
            loaded: std::cell::RefCell::new(None),
        }
    }
}

/// The error when a knowledge base has no model yet.
pub(super) fn no_model_yet() -> KbError {
    KbError::ModelMissing("this knowledge base has no embedding model yet".into())
        .hint(Hint::BindModel)
}

/// A model loaded from disk, as the session hands it out: in builds for
/// the end-to-end tests (feature `e2e`) behind their pause
/// (`embed::test_pause`, off unless its variable is set).
#[cfg(feature = "e2e")]
fn loaded(model: Embedder) -> Arc<dyn Embed> {
    embed::test_pause::wrap(Arc::new(model))
}

#[cfg(not(feature = "e2e"))]
fn loaded(model: Embedder) -> Arc<dyn Embed> {
    Arc::new(model)
}

#[cfg(test)]
fn check_fixed(model: &dyn Embed, binding: &ModelBinding) -> Result<()> {
    if model.model_name() != binding.model_name {
        return Err(KbError::ModelMismatch(format!(
            "the index was built with {} but the session embeds with {}",
            binding.model_name,
            model.model_name()
        )));
    }
    resolve::check_dimension(model, binding)
}

impl Session {
    /// The binding of the knowledge base, or `E_MODEL_MISSING`.
    pub(crate) fn binding(&self) -> Result<ModelBinding> {
        self.db()?.model_binding()?.ok_or_else(no_model_yet)
    }

    /// The model the knowledge base is bound to, loaded once and kept
    /// (loaded again only when the binding changes).
    pub(crate) fn bound_model(&self, model_use: ModelUse) -> Result<Arc<dyn Embed>> {
        let binding = self.binding()?;
        self.model_for_binding(&binding, model_use)
    }

    /// Whether the kept model was made for `binding`.
    pub(super) fn has_model_for(&self, binding: &ModelBinding) -> bool {
        let key = BindingKey::of(binding);
        self.models
            .loaded
            .borrow()
            .as_ref()
            .is_some_and(|(k, _)| *k == key)
    }

    pub(super) fn model_for_binding(
        &self,
        binding: &ModelBinding,
        model_use: ModelUse,
    ) -> Result<Arc<dyn Embed>> {
        let key = BindingKey::of(binding);
        if let Some((k, m)) = &*self.models.loaded.borrow() {
            if *k == key {
                return Ok(m.clone());
            }
        }
        let model = self.model_loader(binding, model_use)?()?;
        self.keep_model(binding, model.clone());
        Ok(model)
    }

    pub(super) fn keep_model(&self, binding: &ModelBinding, model: Arc<dyn Embed>) {
        self.count(|c| c.model_loads += 1);
        *self.models.loaded.borrow_mut() = Some((BindingKey::of(binding), model));
    }

    /// Starts loading ONNX Runtime on a thread of its own, for a command
    /// that will load a model: the library and its environment take tens of
    /// milliseconds and need only the configuration, so they need not wait
    /// for the database and the model's fingerprint. The model load waits
    /// for this one (a failure is kept and reported there).
    pub(crate) fn start_loading_runtime(&self) {
        if !matches!(self.models.provider, ModelProvider::Resolve) {
            return;
        }
        let config = self.config.clone();
        // Not joined: a one-shot command ends with the process.
        let _ = std::thread::Builder::new()
            .name("onnx runtime".into())
            .spawn(move || {
                let _span = crate::timings::span("onnx runtime");
                let _ = embed::runtime::ensure_loaded(&config);
            });
    }

    /// Checks now (cheaply: no model load) that the bound model's files are
    /// there and match, and returns the load itself, to run later.
    pub(crate) fn model_loader(
        &self,
        binding: &ModelBinding,
        model_use: ModelUse,
    ) -> Result<ModelLoader> {
        match &self.models.provider {
            ModelProvider::Resolve => {
                let choice = resolve::for_binding(&self.config, binding)?;
                let config = self.config.clone();
                let binding = binding.clone();
                Ok(Box::new(move || {
                    let m = choice.load_for_binding(&config, model_use, &binding)?;
                    Ok(loaded(m))
                }))
            }
            #[cfg(test)]
            ModelProvider::Fixed(m) => {
                check_fixed(m.as_ref(), binding)?;
                let m = m.clone();
                Ok(Box::new(move || Ok(m.clone())))
            }
        }
    }

    /// A knowledge base without a model, on its first `kb add`: binds the
    /// configured model when its files are already on disk.
    pub(crate) fn bind_configured_model(&self) -> Result<Arc<dyn Embed>> {
        // The model first: a knowledge base is only created once it can be
        // used, so a first `kb add` without a model leaves nothing behind.
        let model: Arc<dyn Embed> = match &self.models.provider {
            ModelProvider::Resolve => {
                let choice = resolve::for_new_index(&self.config, &self.config.db_path())?;
                let m = choice.load(&self.config, ModelUse::Passages)?;
                self.note(&format!(
                    "using {} from {}",
                    choice.spec.name,
                    choice.files.dir.display()
                ));
                loaded(m)
            }
            #[cfg(test)]
            ModelProvider::Fixed(m) => m.clone(),
        };
        embed::bind(self.db_or_create()?, model.as_ref())?;
        let binding = self.binding()?;
        self.keep_model(&binding, model.clone());
        Ok(model)
    }

    /// Chooses and loads a model for `kb init` or `kb reindex` (with the
    /// choice, which says where its files are; none for a fixed model).
    pub(crate) fn load_chosen(
        &self,
        choose: impl FnOnce(&crate::config::Config) -> Result<ModelChoice>,
    ) -> Result<(Arc<dyn Embed>, Option<ModelChoice>)> {
        match &self.models.provider {
            ModelProvider::Resolve => {
                let choice = choose(&self.config)?;
                let m = choice.load(&self.config, ModelUse::Passages)?;
                Ok((loaded(m), Some(choice)))
            }
            #[cfg(test)]
            ModelProvider::Fixed(m) => Ok((m.clone(), None)),
        }
    }
}
