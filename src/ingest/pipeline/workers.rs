//! What the parser and embedding threads of `kb add` share.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use super::model_source::SharedModel;
use crate::config::Config;
use crate::document::DocType;
use crate::embed::Embed;
use crate::error::Result;
use crate::progress::Progress;

/// What the parser and embedding threads share: the settings, the model,
/// the progress line and their clocks. No database in here: only the
/// writer has it.
pub(super) struct Workers {
    pub(super) config: Config,
    pub(super) model: SharedModel,
    pub(super) progress: Arc<dyn Progress>,
    /// Time spent parsing, summed over the parser threads.
    pub(super) parse_nanos: AtomicU64,
    pub(super) embed_nanos: AtomicU64,
    /// Parse time by document type.
    pub(super) parse_by_type: Mutex<BTreeMap<DocType, f64>>,
}

impl Workers {
    /// The model, saying on the progress line while it loads.
    pub(super) fn model(&self) -> Result<Arc<dyn Embed>> {
        if self.model.is_ready() {
            return self.model.get();
        }
        self.progress.loading_model(true);
        let model = self.model.get();
        self.progress.loading_model(false);
        model
    }
}
