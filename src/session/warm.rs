//! A server session (`kb mcp`) keeps the model and every vector's int8 code
//! in memory between calls. Before each search both are checked against the
//! database: a `kb reindex` to another model reloads them, and a `kb add`
//! or `kb remove` by another process updates the vectors by id, so results
//! never mix models or miss a commit.

use std::sync::Arc;
use std::time::Instant;

use super::models::{no_model_yet, BindingKey, ModelLoader};
use super::{Session, SessionKind};
use crate::db::Database;
use crate::embed::{Embed, ModelUse};
use crate::error::{KbError, Result};
use crate::search::vector::VectorIndex;

/// What the vector side of a search runs with.
pub(crate) enum VectorRanker {
    /// Load the model when the search asks for the query's embedding (a
    /// one-shot search: it loads beside the keyword ranker), and let
    /// sqlite-vec rank.
    Cold(ModelLoader),
    /// The model and every vector's code already in memory (a server).
    Warm {
        model: Arc<dyn Embed>,
        index: Arc<VectorIndex>,
    },
}

#[derive(Default)]
pub(super) struct Warm {
    vectors: Option<LoadedVectors>,
}

struct LoadedVectors {
    key: BindingKey,
    /// `PRAGMA data_version` when loaded: another process's commit changes it.
    data_version: i64,
    /// The session's own writes seen.
    writes: u64,
    index: Arc<VectorIndex>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VectorState {
    Fresh,
    Stale,
    Missing,
}

impl Session {
    /// What the vector ranker of a search needs, loaded or refreshed as the
    /// session's kind asks.
    pub(crate) fn vector_ranker(&self) -> Result<VectorRanker> {
        match self.kind {
            SessionKind::OneShot => {
                let binding = self.binding()?;
                Ok(VectorRanker::Cold(
                    self.model_loader(&binding, ModelUse::Queries)?,
                ))
            }
            SessionKind::Server => self.prepare_warm(),
        }
    }

    /// Makes the kept model and vectors match the database: loads them on
    /// first use (the two in parallel), reloads them when the knowledge base
    /// was bound to another model, and updates the vectors when another
    /// process (or this session) committed since they were read.
    fn prepare_warm(&self) -> Result<VectorRanker> {
        let db = self.db()?;
        // Read before the snapshot starts, so a commit in between shows up
        // as a change next time rather than being missed.
        let version = db.data_version()?;
        // One read snapshot for the binding and the vectors: a reindex that
        // commits meanwhile cannot pair one model's binding with another's
        // vectors. It lasts as long as a load, not across calls.
        let snapshot = db.begin_read()?;
        let binding = db.model_binding()?.ok_or_else(no_model_yet)?;
        let key = BindingKey::of(&binding);
        let mut warm = self.warm.borrow_mut();
        let mut state = match &warm.vectors {
            Some(v) if v.key != key => VectorState::Missing,
            None => VectorState::Missing,
            Some(v) if v.data_version != version || v.writes != self.writes.get() => {
                VectorState::Stale
            }
            Some(_) => VectorState::Fresh,
        };
        if !self.has_model_for(&binding) {
            // The files are checked against the binding here (cheap); the
            // load itself runs beside the vector load.
            let loader = self.model_loader(&binding, ModelUse::Server)?;
            let started = Instant::now();
            let (model, loaded) = std::thread::scope(|s| {
                let job = s.spawn(loader);
                let loaded = (state == VectorState::Missing).then(|| self.load_vectors(db));
                let model = job
                    .join()
                    .unwrap_or_else(|_| Err(KbError::Model("the model loader crashed".into())));
                (model, loaded)
            });
            if let Some(index) = loaded {
                warm.vectors = Some(LoadedVectors {
                    key: key.clone(),
                    data_version: version,
                    writes: self.writes.get(),
                    index: Arc::new(index?),
                });
                self.count(|c| c.vector_loads += 1);
                state = VectorState::Fresh;
            }
            let model = model?;
            self.keep_model(&binding, model.clone());
            self.note(&format!(
                "loaded {} ({} dimensions) in {} ms (model load {})",
                model.model_name(),
                model.dim(),
                started.elapsed().as_millis(),
                self.counters().model_loads
            ));
        }
        match state {
            VectorState::Fresh => {}
            VectorState::Missing => {
                warm.vectors = Some(LoadedVectors {
                    key,
                    data_version: version,
                    writes: self.writes.get(),
                    index: Arc::new(self.load_vectors(db)?),
                });
                self.count(|c| c.vector_loads += 1);
            }
            VectorState::Stale => {
                let started = Instant::now();
                let v = warm.vectors.as_mut().expect("stale vectors exist");
                match Arc::make_mut(&mut v.index).refresh(db)? {
                    Some(stats) => {
                        self.count(|c| c.vector_refreshes += 1);
                        if stats.added + stats.removed > 0 {
                            self.note(&format!(
                                "vectors updated: {} added, {} removed ({} ms)",
                                stats.added,
                                stats.removed,
                                started.elapsed().as_millis()
                            ));
                        }
                    }
                    None => {
                        v.index = Arc::new(self.load_vectors(db)?);
                        self.count(|c| c.vector_loads += 1);
                    }
                }
                v.data_version = version;
                v.writes = self.writes.get();
            }
        }
        drop(snapshot);
        let model = self.model_for_binding(&binding, ModelUse::Server)?;
        let index = warm
            .vectors
            .as_ref()
            .map(|v| v.index.clone())
            .ok_or_else(|| KbError::Model("the vectors did not load".into()))?;
        Ok(VectorRanker::Warm { model, index })
    }

    fn load_vectors(&self, db: &Database) -> Result<VectorIndex> {
        let started = Instant::now();
        let index = VectorIndex::load(db)?;
        self.note(&format!(
            "loaded {} vectors into memory in {} ms",
            index.len(),
            started.elapsed().as_millis()
        ));
        Ok(index)
    }
}
