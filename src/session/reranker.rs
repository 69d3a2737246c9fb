//! The session's re-ranker (`search.rerank`): loaded by the first search
//! that asks for re-ranking, its files fetched from PyPI the first time,
//! then kept: a server session (`kb mcp`) builds it once, whatever the
//! number of searches.

use std::sync::Arc;

use super::Session;
use crate::embed::{CrossEncoder, ScorePairs};
use crate::error::Result;

impl Session {
    /// The configured re-ranker, loaded once per session.
    pub(crate) fn reranker(&self) -> Result<Arc<dyn ScorePairs>> {
        if let Some(loaded) = self.reranker.get() {
            return Ok(loaded.clone());
        }
        let loaded: Arc<dyn ScorePairs> = Arc::new(CrossEncoder::configured(&self.config)?);
        self.count(|c| c.reranker_loads += 1);
        Ok(self.reranker.get_or_init(|| loaded).clone())
    }
}
