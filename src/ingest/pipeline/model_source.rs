//! Where `kb add` gets its embedding model, and loading it at most once.

use std::sync::{Arc, Mutex, OnceLock};

use crate::embed::Embed;
use crate::error::Result;

/// Where the embedding model comes from: already loaded, or loaded by the
/// first file that needs chunking (so re-adding an unchanged folder never
/// pays for the model).
pub enum ModelSource<'a> {
    Borrowed(&'a dyn Embed),
    Owned(Box<dyn Embed>),
    Lazy(Box<dyn Fn() -> Result<Arc<dyn Embed>> + Send + Sync + 'a>),
}

/// A [`ModelSource`] the parser and embedding threads share: a lazy one is
/// loaded by whichever thread asks first, once, while the others wait.
pub(super) struct SharedModel<'a> {
    source: ModelSource<'a>,
    loaded: OnceLock<Arc<dyn Embed>>,
    loading: Mutex<()>,
}

impl<'a> SharedModel<'a> {
    pub(super) fn new(source: ModelSource<'a>) -> SharedModel<'a> {
        SharedModel {
            source,
            loaded: OnceLock::new(),
            loading: Mutex::new(()),
        }
    }

    /// The embedding model, loading it on first use.
    pub(super) fn get(&self) -> Result<&dyn Embed> {
        match &self.source {
            ModelSource::Borrowed(e) => Ok(*e),
            ModelSource::Owned(e) => Ok(e.as_ref()),
            ModelSource::Lazy(load) => {
                if let Some(e) = self.loaded.get() {
                    return Ok(e.as_ref());
                }
                let _one_loader = self.loading.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(e) = self.loaded.get() {
                    return Ok(e.as_ref());
                }
                let e = load()?;
                Ok(self.loaded.get_or_init(|| e).as_ref())
            }
        }
    }
}
