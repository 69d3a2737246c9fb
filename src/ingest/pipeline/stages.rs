//! The three stages of `kb add`, running at once over bounded queues:
//! parser threads → one embedding thread → the writer (the calling thread,
//! the only one with the database).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::group::{embed_group, write_group, ReadyDocument, EMBED_GROUP_CHUNKS};
use super::model_source::SharedModel;
use super::prepare::FileOutcome;
use super::{IngestSummary, Ingester};
use crate::config::Config;
use crate::db::{IndexedFile, WriteOutcome};
use crate::error::{KbError, Result};
use crate::ingest::{DocType, IngestError};

/// What the parser and embedding threads share: the settings, the model
/// and their clocks. No database in here: only the writer has it.
pub(super) struct Workers<'a> {
    pub(super) config: &'a Config,
    pub(super) model: SharedModel<'a>,
    /// Time spent parsing, summed over the parser threads.
    pub(super) parse_nanos: AtomicU64,
    pub(super) embed_nanos: AtomicU64,
}

/// Messages to the writer, the only thread with the database.
enum Event {
    /// Unchanged since it was indexed.
    Skipped {
        id: i64,
    },
    Touched {
        id: i64,
        size: u64,
        mtime: i64,
    },
    NotIndexed(PathBuf, IngestError),
    Warning(PathBuf, String),
    /// Documents with their vectors, and their PDF pages without text.
    Embedded(Vec<ReadyDocument>, Vec<Vec<f32>>, u64),
    /// A model or system failure: stop the run.
    Fatal(KbError),
}

/// A parsed document on its way to the embedding thread.
struct Parsed {
    doc: ReadyDocument,
    pages_without_text: u64,
}

impl Ingester<'_> {
    /// Parsers, embedder and writer, running at once over bounded queues.
    pub(super) fn run_stages(
        &self,
        files: &[(PathBuf, DocType)],
        indexed: &HashMap<String, IndexedFile>,
        tags: &[String],
        cancel: &AtomicBool,
        bar: &indicatif::ProgressBar,
        summary: &mut IngestSummary,
    ) -> Result<()> {
        let workers = match self.config.ingestion.workers {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("kb-parse-{i}"))
            .build()
            .map_err(|e| {
                KbError::io(
                    &self.config.data_dir,
                    std::io::Error::other(format!("cannot start parser threads: {e}")),
                )
            })?;
        // Set when the writer gives up, so the other stages stop early.
        let stop = AtomicBool::new(false);
        let halt = || stop.load(Ordering::Relaxed) || cancel.load(Ordering::SeqCst);
        let (parsed_tx, parsed_rx) = sync_channel::<Parsed>(workers * 4);
        let (event_tx, event_rx) = sync_channel::<Event>(64);
        let shared = &self.workers;
        let by_type: Mutex<BTreeMap<&'static str, f64>> = Mutex::new(BTreeMap::new());

        std::thread::scope(|s| {
            let parse_events = event_tx.clone();
            let by_type = &by_type;
            s.spawn(move || {
                pool.install(|| {
                    files.par_iter().for_each_with(
                        (parsed_tx, parse_events),
                        |(parsed_tx, events), (path, doc_type)| {
                            if halt() {
                                return;
                            }
                            let key = path.to_string_lossy();
                            let (outcome, spent) =
                                shared.prepare_file(path, *doc_type, indexed.get(&*key), tags);
                            shared
                                .parse_nanos
                                .fetch_add(spent.as_nanos() as u64, Ordering::Relaxed);
                            if let Ok(mut m) = by_type.lock() {
                                *m.entry(doc_type.as_str()).or_default() += spent.as_secs_f64();
                            }
                            let event = match outcome {
                                Ok((FileOutcome::Ready(doc, pages_without_text), warnings)) => {
                                    for w in warnings {
                                        let _ = events.send(Event::Warning(path.clone(), w));
                                    }
                                    let _ = parsed_tx.send(Parsed {
                                        doc: *doc,
                                        pages_without_text: pages_without_text.unwrap_or(0),
                                    });
                                    return;
                                }
                                Ok((FileOutcome::Unchanged { id }, _)) => Event::Skipped { id },
                                Ok((FileOutcome::Touched { id, size, mtime }, _)) => {
                                    Event::Touched { id, size, mtime }
                                }
                                Ok((FileOutcome::NotIndexed(e), _)) => {
                                    Event::NotIndexed(path.clone(), e)
                                }
                                Err(e) => Event::Fatal(e),
                            };
                            let _ = events.send(event);
                        },
                    )
                });
            });
            s.spawn(move || shared.embed_stage(parsed_rx, event_tx, &halt));
            let written = self.write_stage(&event_rx, tags, cancel, bar, summary);
            if written.is_err() || cancel.load(Ordering::SeqCst) {
                stop.store(true, Ordering::Relaxed);
            }
            // Dropping the receiver unblocks any stage waiting to send.
            drop(event_rx);
            written
        })?;
        for (t, secs) in by_type.into_inner().unwrap_or_default() {
            summary
                .by_type
                .entry(t.to_string())
                .or_default()
                .parse_seconds = secs;
        }
        Ok(())
    }

    /// The writer: applies every event to the database and the summary.
    fn write_stage(
        &self,
        events: &Receiver<Event>,
        tags: &[String],
        cancel: &AtomicBool,
        bar: &indicatif::ProgressBar,
        summary: &mut IngestSummary,
    ) -> Result<()> {
        let started = Instant::now();
        let mut write_time = Duration::ZERO;
        while let Ok(event) = events.recv() {
            let t = Instant::now();
            let files_done = match event {
                Event::Skipped { id } => {
                    // `kb add --tags` reaches the documents already indexed.
                    if !tags.is_empty() {
                        self.db.add_tags(id, tags)?;
                    }
                    summary.skipped += 1;
                    1
                }
                Event::Touched { id, size, mtime } => {
                    self.db.touch_document(id, size, mtime)?;
                    if !tags.is_empty() {
                        self.db.add_tags(id, tags)?;
                    }
                    summary.skipped += 1;
                    1
                }
                Event::NotIndexed(path, e) => {
                    match e {
                        IngestError::Empty => summary.empty += 1,
                        // Unreadable content counts as a failure: the
                        // file claims a type kb indexes.
                        IngestError::Unsupported(_) | IngestError::Failed(_) => summary.failed += 1,
                    }
                    self.errors_log.record(&path, &e.to_string());
                    1
                }
                Event::Warning(path, reason) => {
                    self.errors_log.record(&path, &format!("warning: {reason}"));
                    0
                }
                Event::Embedded(group, vectors, pages_without_text) => {
                    summary.pages_without_text += pages_without_text;
                    let outcomes = write_group(self.db, &group, Some(&vectors))?;
                    for ((outcome, n), doc) in outcomes.into_iter().zip(&group) {
                        match outcome {
                            WriteOutcome::Added(_) => summary.added += 1,
                            WriteOutcome::Replaced(_) => summary.updated += 1,
                        }
                        summary.chunks += n;
                        let counts = summary
                            .by_type
                            .entry(doc.document.doc_type.clone())
                            .or_default();
                        counts.documents += 1;
                        counts.chunks += n;
                    }
                    group.len() as u64
                }
                Event::Fatal(e) => return Err(e),
            };
            write_time += t.elapsed();
            bar.inc(files_done);
            let secs = started.elapsed().as_secs_f64().max(0.001);
            bar.set_message(format!(
                "{} chunks, {:.1} chunks/s",
                summary.chunks,
                summary.chunks as f64 / secs
            ));
            if cancel.load(Ordering::SeqCst) {
                summary.interrupted = true;
                break;
            }
        }
        summary.seconds.write = write_time.as_secs_f64();
        Ok(())
    }
}

impl Workers<'_> {
    /// The embedding thread: gathers parsed documents into groups of at
    /// least [`EMBED_GROUP_CHUNKS`] chunks while the parsers keep up, or
    /// embeds what it has as soon as they fall behind, so the model is busy
    /// whenever there is work.
    fn embed_stage(
        &self,
        parsed: Receiver<Parsed>,
        events: SyncSender<Event>,
        halt: &(dyn Fn() -> bool + Sync),
    ) {
        let min_batch = self.config.embedding.batch_size.max(1);
        let mut group: Vec<ReadyDocument> = Vec::new();
        let mut chunks = 0usize;
        let mut pages_without_text = 0u64;
        loop {
            let next = if chunks >= min_batch {
                parsed.try_recv().ok()
            } else {
                parsed.recv().ok()
            };
            let finished = next.is_none() && chunks < min_batch;
            if let Some(p) = next {
                chunks += p.doc.chunks.len();
                pages_without_text += p.pages_without_text;
                group.push(p.doc);
                if chunks < EMBED_GROUP_CHUNKS
                    && group.len() < self.config.ingestion.batch_size.max(1)
                {
                    continue;
                }
            }
            if halt() {
                return;
            }
            if !group.is_empty() {
                let t = Instant::now();
                let embedded = self.model.get().and_then(|e| embed_group(e, &group));
                self.embed_nanos
                    .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
                let event = match embedded {
                    Ok(vectors) => Event::Embedded(
                        std::mem::take(&mut group),
                        vectors,
                        std::mem::take(&mut pages_without_text),
                    ),
                    Err(e) => Event::Fatal(e),
                };
                let fatal = matches!(event, Event::Fatal(_));
                if events.send(event).is_err() || fatal {
                    return;
                }
                chunks = 0;
            }
            if finished {
                break;
            }
        }
    }
}
