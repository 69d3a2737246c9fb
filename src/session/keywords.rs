//! A server session (`kb mcp`) keeps a copy of the keyword index in memory
//! (`search::keyword_index`), which ranks exactly as FTS5 does at a
//! fraction of the cost on a large knowledge base. It is read in the
//! background on a connection of its own (seconds at a million chunks);
//! until it is ready, and whenever it cannot be used, searches ask FTS5,
//! with the same results. Before each search it is brought in step with
//! what other processes (and this session) committed.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use super::{Session, SessionKind};
use crate::db::{Database, Reopener};
use crate::error::{KbError, Result};
use crate::search::keyword_index::{KeywordIndex, Refreshed};

#[derive(Default)]
pub(super) enum WarmKeywords {
    #[default]
    NotStarted,
    Loading {
        job: JoinHandle<Result<KeywordIndex>>,
        started: Instant,
    },
    Ready {
        /// `PRAGMA data_version` when last brought in step; `None` right
        /// after a background load, whose snapshot may be older.
        data_version: Option<i64>,
        /// The session's own writes seen.
        writes: u64,
        index: Arc<KeywordIndex>,
    },
    /// The last load failed; tried again after the next change.
    Failed { data_version: i64 },
}

/// Reads the keyword index on a connection of its own, in one snapshot.
fn load_in_background(reopener: Reopener) -> JoinHandle<Result<KeywordIndex>> {
    std::thread::spawn(move || {
        let db = reopener.open()?;
        let _snapshot = db.begin_read()?;
        KeywordIndex::load(&db)
    })
}

impl Session {
    /// The in-memory keyword index, when this is a server session and the
    /// index is loaded and in step with the database; `None` sends the
    /// search to FTS5.
    pub(crate) fn keyword_index(&self) -> Result<Option<Arc<KeywordIndex>>> {
        if self.kind != SessionKind::Server {
            return Ok(None);
        }
        let db = self.db()?;
        let version = db.data_version()?;
        let writes = self.writes.get();
        let mut state = self.keywords.borrow_mut();
        if let WarmKeywords::Loading { job, .. } = &*state {
            if !job.is_finished() {
                return Ok(None);
            }
        }
        match std::mem::take(&mut *state) {
            WarmKeywords::NotStarted => {
                *state = self.start_keyword_load(db);
                Ok(None)
            }
            WarmKeywords::Failed { data_version } if data_version == version => {
                *state = WarmKeywords::Failed { data_version };
                Ok(None)
            }
            WarmKeywords::Failed { .. } => {
                *state = self.start_keyword_load(db);
                Ok(None)
            }
            WarmKeywords::Loading { job, started } => {
                let loaded = job.join().unwrap_or_else(|_| {
                    Err(KbError::Db("the keyword index loader crashed".into()))
                });
                match loaded {
                    Ok(index) => {
                        self.count(|c| c.keyword_loads += 1);
                        self.note(&format!(
                            "loaded the keyword index into memory: {} chunks, {} MB of postings, in {} ms",
                            index.len(),
                            index.posting_bytes() / 1_000_000,
                            started.elapsed().as_millis()
                        ));
                        *state = self.in_step(db, version, writes, Arc::new(index), None)?;
                    }
                    Err(e) => {
                        self.note(&format!(
                            "the keyword index stays in SQLite (searches are slower on a large \
                             knowledge base): {e}"
                        ));
                        *state = WarmKeywords::Failed {
                            data_version: version,
                        };
                    }
                }
                Ok(ready(&state))
            }
            WarmKeywords::Ready {
                data_version,
                writes: seen,
                index,
            } => {
                *state = self.in_step(db, version, writes, index, data_version.zip(Some(seen)))?;
                Ok(ready(&state))
            }
        }
    }

    fn start_keyword_load(&self, db: &Database) -> WarmKeywords {
        WarmKeywords::Loading {
            job: load_in_background(db.reopener()),
            started: Instant::now(),
        }
    }

    /// The index brought in step with the database: unchanged when nothing
    /// was committed since `seen` (data version and own writes), refreshed
    /// otherwise, or loaded again in the background when a refresh cannot
    /// do it.
    fn in_step(
        &self,
        db: &Database,
        version: i64,
        writes: u64,
        mut index: Arc<KeywordIndex>,
        seen: Option<(i64, u64)>,
    ) -> Result<WarmKeywords> {
        if seen == Some((version, writes)) {
            return Ok(WarmKeywords::Ready {
                data_version: Some(version),
                writes,
                index,
            });
        }
        let started = Instant::now();
        let refreshed = {
            let _snapshot = db.read_snapshot()?;
            Arc::make_mut(&mut index).refresh(db)
        };
        match refreshed {
            Ok(Refreshed::Updated { added, removed }) => {
                self.count(|c| c.keyword_refreshes += 1);
                if added + removed > 0 {
                    self.note(&format!(
                        "keyword index updated: {added} chunks added, {removed} removed ({} ms)",
                        started.elapsed().as_millis()
                    ));
                }
                Ok(WarmKeywords::Ready {
                    data_version: Some(version),
                    writes,
                    index,
                })
            }
            Ok(Refreshed::Reload) => Ok(self.start_keyword_load(db)),
            Err(e) => {
                self.note(&format!("the keyword index is read again: {e}"));
                Ok(self.start_keyword_load(db))
            }
        }
    }
}

fn ready(state: &WarmKeywords) -> Option<Arc<KeywordIndex>> {
    match state {
        WarmKeywords::Ready { index, .. } => Some(index.clone()),
        _ => None,
    }
}
