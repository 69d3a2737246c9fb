//! A command session: the resolved configuration, the database (opened on
//! first use), the embedding model (loaded on first use, keyed by the
//! knowledge base's binding), the cancel flag, where notes and the search
//! log go. The CLI runs one command in a one-shot session; `kb mcp` keeps
//! one server session alive across calls, with the model and every
//! vector's code warm in memory (see `warm`).

mod keywords;
mod models;
mod reranker;
mod warm;

use std::cell::{Cell, OnceCell, RefCell};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::db::{Database, OpenMode, SearchLogEntry, WriterLock, BUSY_TIMEOUT};
use crate::error::Result;
use crate::progress::{Progress, Silent, Work};

pub(crate) use models::ModelProvider;
pub(crate) use warm::VectorRanker;

/// How long the session lives, which decides how models and vectors are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionKind {
    /// One command in a fresh process: load what the command needs, once.
    OneShot,
    /// A long-running server (`kb mcp`): keep the model and the vectors.
    Server,
}

/// What a server session has done so far (reported in MCP results' `_meta`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Counters {
    /// Times the embedding model was loaded.
    pub model_loads: u64,
    /// Full loads of the vectors into memory.
    pub vector_loads: u64,
    /// Incremental updates after other processes changed the database.
    pub vector_refreshes: u64,
    /// Full loads of the keyword index into memory (in the background).
    pub keyword_loads: u64,
    /// Incremental updates of the keyword index.
    pub keyword_refreshes: u64,
    /// Times the re-ranker was loaded.
    pub reranker_loads: u64,
    pub searches: u64,
}

/// Where a session's notes (things worth telling the user that are not the
/// command's result, like "using MODEL from DIR") go: the front end decides.
pub(crate) type NoteSink = Arc<dyn Fn(&str) + Send + Sync>;

/// Makes what reports a piece of long work's progress (the front end
/// decides: a line on a terminal, or nothing).
pub(crate) type ProgressSink = Arc<dyn Fn(Work) -> Arc<dyn Progress> + Send + Sync>;

/// Search log entries kept while the database is busy (server sessions).
const MAX_PENDING_LOG: usize = 1000;

pub(crate) struct Session {
    config: Config,
    kind: SessionKind,
    cancel: Arc<AtomicBool>,
    progress: Option<ProgressSink>,
    notes: NoteSink,
    db: OnceCell<Database>,
    models: models::Models,
    /// The cross-encoder of `search.rerank`, once a search asked for it.
    reranker: OnceCell<Arc<dyn crate::embed::ScorePairs>>,
    warm: RefCell<warm::Warm>,
    keywords: RefCell<keywords::WarmKeywords>,
    /// How many times this session wrote (add, remove): `PRAGMA
    /// data_version` does not show a connection its own commits, so each
    /// warm index remembers the count it has seen.
    writes: Cell<u64>,
    pending_log: RefCell<Vec<SearchLogEntry>>,
    counters: Cell<Counters>,
}

impl Session {
    /// A session over `config`; `cancel` is set by Ctrl-C (or SIGTERM).
    pub(crate) fn new(config: Config, kind: SessionKind, cancel: Arc<AtomicBool>) -> Session {
        Session {
            config,
            kind,
            cancel,
            progress: None,
            notes: Arc::new(|_| {}),
            db: OnceCell::new(),
            models: models::Models::new(ModelProvider::Resolve),
            reranker: OnceCell::new(),
            warm: RefCell::new(warm::Warm::default()),
            writes: Cell::new(0),
            keywords: RefCell::new(keywords::WarmKeywords::default()),
            pending_log: RefCell::new(Vec::new()),
            counters: Cell::new(Counters::default()),
        }
    }

    /// Who watches long work (the CLI at a terminal draws a line).
    pub(crate) fn with_progress(mut self, sink: ProgressSink) -> Session {
        self.progress = Some(sink);
        self
    }

    /// Where notes go (stderr for the CLI, the server log for `kb mcp`).
    pub(crate) fn with_notes(mut self, sink: NoteSink) -> Session {
        self.notes = sink;
        self
    }

    /// Embeds with `provider` instead of resolving models from disk (unit
    /// tests use the deterministic test embedder).
    #[cfg(test)]
    pub(crate) fn with_models(mut self, provider: ModelProvider) -> Session {
        self.models = models::Models::new(provider);
        self
    }

    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn kind(&self) -> SessionKind {
        self.kind
    }

    /// Whether anyone watches long work.
    pub(crate) fn show_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// What reports `work`'s progress: the front end's, unless `quiet` or
    /// nobody watches.
    pub(crate) fn progress(&self, work: Work, quiet: bool) -> Arc<dyn Progress> {
        match &self.progress {
            Some(make) if !quiet => make(work),
            _ => Arc::new(Silent),
        }
    }

    /// The flag Ctrl-C sets; long commands stop at the next safe point.
    pub(crate) fn cancel_flag(&self) -> &AtomicBool {
        &self.cancel
    }

    /// The cancel flag, shared with threads that outlive a borrow.
    pub(crate) fn cancel_arc(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// Tells the user something that is not the command's result.
    pub(crate) fn note(&self, message: &str) {
        (self.notes)(message)
    }

    pub(crate) fn counters(&self) -> Counters {
        self.counters.get()
    }

    fn count(&self, f: impl FnOnce(&mut Counters)) {
        let mut c = self.counters.get();
        f(&mut c);
        self.counters.set(c);
    }

    /// The knowledge base, opened on first use; `E_NO_INDEX` when there is
    /// none yet (commands that only read never create one).
    pub(crate) fn db(&self) -> Result<&Database> {
        self.open_db(OpenMode::Existing)
    }

    /// The knowledge base, created if needed (commands that write).
    pub(crate) fn db_or_create(&self) -> Result<&Database> {
        self.open_db(OpenMode::Create)
    }

    /// The one place a session opens kb.db.
    fn open_db(&self, mode: OpenMode) -> Result<&Database> {
        if let Some(db) = self.db.get() {
            if mode == OpenMode::Create {
                // Opened for reading in a place kb may not write.
                db.writable()?;
            }
            return Ok(db);
        }
        let db = {
            let _span = crate::timings::span("database open");
            Database::open(&self.config.db_path(), mode)?
        };
        Ok(self.db.get_or_init(|| db))
    }

    /// Names the session's database (and the reason, for a failure to
    /// read or write its files) in an error from it.
    pub(crate) fn name_db_in(&self, e: crate::error::KbError) -> crate::error::KbError {
        crate::db::explain(&self.config.db_path(), e)
    }

    /// Waits until no other `kb add`, `kb init`, `kb reindex`, `kb remove`
    /// or `kb restore` runs on this knowledge base, then keeps them waiting
    /// until the guard drops (see `db::WriterLock`). Ctrl-C stops the wait.
    /// A kb.db replaced meanwhile (a restore it waited for) is opened anew,
    /// so the writes go to the knowledge base in place.
    pub(crate) fn lock_writer(&mut self) -> Result<WriterLock> {
        let lock = self.wait_for_writers()?;
        self.forget_replaced_db();
        Ok(lock)
    }

    fn wait_for_writers(&self) -> Result<WriterLock> {
        let dir = &self.config.data_dir;
        let db_path = self.config.db_path();
        std::fs::create_dir_all(dir).map_err(|e| {
            crate::db::data_dir_is_a_file(&db_path).unwrap_or(crate::error::KbError::io(dir, e))
        })?;
        WriterLock::acquire(&db_path, &self.cancel, |m| self.note(m)).map_err(|e| {
            // A data directory kb may not write: say why, as the database would.
            match (&e, db_path.exists()) {
                (crate::error::KbError::Io { .. }, true) => match self.db() {
                    Ok(db) => db.writable().err().unwrap_or(e),
                    Err(open) => open,
                },
                _ => e,
            }
        })
    }

    /// How many times this session wrote, for [`Session::check_written`].
    pub(crate) fn write_count(&self) -> u64 {
        self.writes.get()
    }

    /// After a command: an error when it wrote (more writes than `before`)
    /// to a kb.db that was deleted or replaced meanwhile, as its writes went
    /// to a file nothing will open again; otherwise `Ok`.
    pub(crate) fn check_written(&self, before: u64) -> crate::error::Result<()> {
        match self.db.get() {
            Some(db) if self.writes.get() > before && db.replaced() => {
                db.release_log();
                Err(crate::error::KbError::io(
                    db.path(),
                    std::io::Error::other(
                        "kb.db was deleted or replaced while this command wrote to it, so what it \
                     wrote is lost with the old file; leave kb's files alone while it runs and \
                     run the command again",
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    /// A server's knowledge base deleted or replaced since it was opened
    /// (restored from a backup, made again): the next command opens the
    /// file now in its place, and the warm indexes are loaded from it.
    pub(crate) fn forget_replaced_db(&mut self) {
        if self.db.get().is_some_and(|db| db.replaced()) {
            self.db = OnceCell::new();
            self.warm = RefCell::new(warm::Warm::default());
            self.keywords = RefCell::new(keywords::WarmKeywords::default());
        }
    }

    /// Remembers that this session changed the knowledge base, so a warm
    /// server refreshes its indexes before the next search.
    pub(crate) fn mark_written(&self) {
        self.writes.set(self.writes.get() + 1);
    }

    /// Records a search in the log (unless `search.log: false`). A one-shot
    /// session writes it at once and never fails the search for it; a server
    /// queues it until [`Session::flush_log`], after the answer is sent.
    pub(crate) fn log_search(&self, entry: SearchLogEntry) {
        if !self.config.search.log {
            return;
        }
        self.count(|c| c.searches += 1);
        match self.kind {
            SessionKind::OneShot => {
                if let Some(db) = self.db.get() {
                    // A busy or read-only database drops the entry.
                    let _ = db.set_busy_timeout(Duration::from_millis(500));
                    let _ = db.log_search(&entry);
                    let _ = db.set_busy_timeout(BUSY_TIMEOUT);
                }
            }
            SessionKind::Server => self.pending_log.borrow_mut().push(entry),
        }
    }

    /// Writes the queued search log entries without waiting for another
    /// writer: while `kb add` holds the write lock they stay queued.
    pub(crate) fn flush_log(&self) {
        let mut pending = self.pending_log.borrow_mut();
        if pending.is_empty() {
            return;
        }
        let Some(db) = self.db.get() else {
            pending.clear();
            return;
        };
        let _ = db.set_busy_timeout(Duration::ZERO);
        let written = (|| -> Result<()> {
            let tx = db.begin_write()?;
            for e in pending.iter() {
                db.log_search(e)?;
            }
            tx.commit()?;
            Ok(())
        })();
        let _ = db.set_busy_timeout(BUSY_TIMEOUT);
        if written.is_ok() {
            pending.clear();
        } else if pending.len() > MAX_PENDING_LOG {
            let excess = pending.len() - MAX_PENDING_LOG;
            pending.drain(..excess);
        }
    }
}
