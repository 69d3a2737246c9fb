//! The one loop that embeds chunks already in the database: the back-fill
//! of `kb init` (chunks written before a model was bound) and `kb reindex`
//! (every chunk, staged beside the old vectors until the swap).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use super::Embed;
use crate::db::Database;
use crate::error::{KbError, Result};

/// Which chunks to embed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending<'a> {
    /// Chunks without a vector; each group is committed as it is embedded.
    WithoutVectors,
    /// Chunks not yet staged for the reindex in progress, but those of the
    /// documents `skip` (read again afterwards instead).
    Reindex { skip: &'a HashSet<i64> },
}

/// Chunks read per step, and sorted by length so each model batch pads
/// little.
pub const GROUP: usize = 256;

/// How often a wait for the model looks at the cancel flag.
const POLL: Duration = Duration::from_millis(50);

/// Embeds the pending chunks a model batch (`batch` chunks) at a time,
/// storing each batch as it is done and reporting its size to
/// `on_progress`; stops with `E_INTERRUPTED` (keeping every batch stored)
/// as soon as `cancel` is set: a model batch runs on a thread of its own
/// and is abandoned, unstored, when Ctrl-C comes while it runs (one batch
/// takes seconds on a busy machine). Returns how many chunks it embedded.
pub fn reembed(
    db: &Database,
    embedder: &Arc<dyn Embed>,
    pending: Pending,
    batch: usize,
    cancel: &AtomicBool,
    mut on_progress: impl FnMut(usize),
) -> Result<usize> {
    let mut done = 0;
    let mut after = 0i64;
    loop {
        if cancel.load(Ordering::SeqCst) {
            return Err(KbError::Interrupted);
        }
        let mut group = match pending {
            Pending::WithoutVectors => db.chunks_without_vectors(GROUP)?,
            Pending::Reindex { .. } => db.reindex_pending(after, GROUP)?,
        };
        let Some(last) = group.last() else { break };
        after = last.id;
        if let Pending::Reindex { skip } = pending {
            group.retain(|c| !skip.contains(&c.document_id));
        }
        let mut inputs: Vec<(i64, String)> = group
            .drain(..)
            .map(|c| (c.id, c.input().into_owned()))
            .collect();
        inputs.sort_by_key(|(_, text)| text.len());
        for part in inputs.chunks(batch.max(1)) {
            let texts: Vec<String> = part.iter().map(|(_, t)| t.clone()).collect();
            let vectors = embed_unless_cancelled(embedder, texts, cancel)?;
            let ids: Vec<i64> = part.iter().map(|(id, _)| *id).collect();
            match pending {
                Pending::WithoutVectors => {
                    let tx = db.begin_write()?;
                    db.insert_vectors(&ids, &vectors)?;
                    tx.commit()?;
                }
                Pending::Reindex { .. } => db.stage_vectors(&ids, &vectors)?,
            }
            done += part.len();
            on_progress(part.len());
            if cancel.load(Ordering::SeqCst) {
                return Err(KbError::Interrupted);
            }
        }
    }
    Ok(done)
}

/// Embeds `texts` on a thread of its own and waits for it, returning
/// `E_INTERRUPTED` without waiting any longer once `cancel` is set (the
/// thread finishes its batch and its vectors are dropped).
fn embed_unless_cancelled(
    embedder: &Arc<dyn Embed>,
    texts: Vec<String>,
    cancel: &AtomicBool,
) -> Result<Vec<Vec<f32>>> {
    let (tx, rx) = channel();
    let model = embedder.clone();
    std::thread::Builder::new()
        .name("kb-embed".into())
        .spawn(move || {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let _ = tx.send(model.embed_passages(&refs));
        })
        .map_err(|e| KbError::Model(format!("cannot start the embedding thread: {e}")))?;
    loop {
        match rx.recv_timeout(POLL) {
            Ok(vectors) => return vectors,
            Err(RecvTimeoutError::Timeout) if cancel.load(Ordering::SeqCst) => {
                return Err(KbError::Interrupted)
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(KbError::Model("the embedding thread stopped".into()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::db::{ModelBinding, OpenMode};
    use crate::embed::{TestEmbedder, TokenCounter};

    /// The test embedder, taking `delay` per model batch (a busy machine).
    struct Slow {
        inner: TestEmbedder,
        delay: Duration,
    }

    impl Embed for Slow {
        fn model_name(&self) -> &str {
            self.inner.model_name()
        }
        fn dim(&self) -> usize {
            self.inner.dim()
        }
        fn max_chunk_tokens(&self) -> usize {
            self.inner.max_chunk_tokens()
        }
        fn token_counter(&self) -> TokenCounter {
            self.inner.token_counter()
        }
        fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
            self.inner.embed_query(query)
        }
        fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            std::thread::sleep(self.delay);
            self.inner.embed_passages(texts)
        }
        fn binding(&self) -> Result<ModelBinding> {
            self.inner.binding()
        }
    }

    /// A knowledge base of `n` notes, indexed with the test embedder.
    fn indexed(n: usize) -> (tempfile::TempDir, Database, Arc<dyn Embed>) {
        use crate::ingest::pipeline::{IngestOptions, Ingester, ModelSource};
        let home = tempfile::Builder::new()
            .prefix("kb-reembed")
            .tempdir()
            .unwrap();
        let docs = home.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        for i in 0..n {
            std::fs::write(
                docs.join(format!("note-{i}.txt")),
                format!("Note {i} about rivers and bridges."),
            )
            .unwrap();
        }
        let config = crate::config::Config {
            data_dir: home.path().join("data"),
            ..Default::default()
        };
        let db = Database::open(&config.db_path(), OpenMode::Create).unwrap();
        let model: Arc<dyn Embed> = Arc::new(TestEmbedder::default());
        db.bind_model(&model.binding().unwrap()).unwrap();
        let opts = IngestOptions {
            tags: Vec::new(),
            exclude: Vec::new(),
            progress: Arc::new(crate::progress::Silent),
            cancel: Arc::new(AtomicBool::new(false)),
            follow_external_links: false,
            follow_everywhere: false,
            reread: false,
        };
        Ingester::new(&config, &db, ModelSource::Ready(model.clone()))
            .run(&[docs], &opts)
            .unwrap();
        (home, db, model)
    }

    #[test]
    fn ctrl_c_does_not_wait_for_the_model_batch_in_flight() {
        let (_home, db, model) = indexed(8);
        let slow: Arc<dyn Embed> = Arc::new(Slow {
            inner: TestEmbedder::default(),
            delay: Duration::from_secs(3),
        });
        db.begin_reindex(&model.binding().unwrap()).unwrap();
        let cancel = Arc::new(AtomicBool::new(false));
        let stopper = {
            let cancel = cancel.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                cancel.store(true, Ordering::SeqCst);
                Instant::now()
            })
        };
        let none = HashSet::new();
        let result = reembed(
            &db,
            &slow,
            Pending::Reindex { skip: &none },
            4,
            &cancel,
            |_| {},
        );
        let returned = Instant::now();
        let cancelled_at = stopper.join().unwrap();
        assert!(matches!(result, Err(KbError::Interrupted)), "{result:?}");
        let waited = returned.duration_since(cancelled_at);
        assert!(
            waited < Duration::from_millis(500),
            "Ctrl-C waited {waited:?}"
        );
        // Nothing of the abandoned batch was staged; a re-run does it all.
        assert_eq!(db.reindex_counts().unwrap(), (0, 8));
        let done = reembed(
            &db,
            &model,
            Pending::Reindex { skip: &none },
            4,
            &AtomicBool::new(false),
            |_| {},
        );
        assert_eq!(done.unwrap(), 8);
    }
}
