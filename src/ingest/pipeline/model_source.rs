//! Where `kb add` gets its embedding model, and loading it at most once.

use std::sync::{Arc, Mutex, OnceLock};

use crate::embed::Embed;
use crate::error::Result;

/// A deferred model load, callable from any pipeline thread.
pub type LoadModel = Box<dyn Fn() -> Result<Arc<dyn Embed>> + Send + Sync>;

/// Where the embedding model comes from: already loaded, or loaded by the
/// first file that needs chunking (so re-adding an unchanged folder never
/// pays for the model).
pub enum ModelSource {
    Ready(Arc<dyn Embed>),
    Lazy(LoadModel),
}

/// A [`ModelSource`] the parser and embedding threads share: a lazy one is
/// loaded by whichever thread asks first, once, while the others wait.
pub(super) struct SharedModel {
    source: ModelSource,
    loaded: OnceLock<Arc<dyn Embed>>,
    loading: Mutex<()>,
}

impl SharedModel {
    pub(super) fn new(source: ModelSource) -> SharedModel {
        SharedModel {
            source,
            loaded: OnceLock::new(),
            loading: Mutex::new(()),
        }
    }

    /// Whether asking for the model returns at once.
    pub(super) fn is_ready(&self) -> bool {
        matches!(self.source, ModelSource::Ready(_)) || self.loaded.get().is_some()
    }

    /// The embedding model, loading it on first use.
    pub(super) fn get(&self) -> Result<Arc<dyn Embed>> {
        match &self.source {
            ModelSource::Ready(e) => Ok(e.clone()),
            ModelSource::Lazy(load) => {
                if let Some(e) = self.loaded.get() {
                    return Ok(e.clone());
                }
                let _one_loader = self.loading.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(e) = self.loaded.get() {
                    return Ok(e.clone());
                }
                let e = load()?;
                Ok(self.loaded.get_or_init(|| e).clone())
            }
        }
    }
}
