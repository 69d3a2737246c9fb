//! The three stages of `kb add`, running at once over bounded queues:
//! parser threads → one embedding thread → the writer (the calling thread,
//! the only one with the database).
//!
//! The parser and embedding threads own what they use, so the writer never
//! has to wait for them to stop: on Ctrl-C it finishes the document it is
//! writing and returns, and they notice and stop on their own (each after
//! its current file or model batch). Everything committed is complete.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::backlog::{backlog, Backlog, BacklogSender};
use super::errors_log::ErrorsLog;
use super::group::{embed_group_in_batches, write_group, ReadyDocument, EMBED_GROUP_CHUNKS};
use super::prepare::FileOutcome;
use super::workers::Workers;
use super::{FileTags, IngestSummary};
use crate::db::{Database, IndexedFile, Reopener, WriteOutcome};
use crate::document::DocType;
use crate::error::{KbError, Result};
use crate::ingest::pdf::page_cache;
use crate::ingest::{source_path, IngestError};
use crate::progress::{FileSize, Progress};

/// Messages to the writer, the only thread with the database.
enum Event {
    /// Unchanged since it was indexed.
    Skipped { id: i64 },
    Touched {
        id: i64,
        size: u64,
        mtime: Option<i64>,
    },
    /// Not indexed, with the document an earlier version of the file
    /// left, if any, and the version of the reader of its kind.
    NotIndexed(PathBuf, IngestError, Option<i64>, u32),
    /// Documents with their vectors.
    Embedded(Embedded),
    /// A model or system failure: stop the run.
    Fatal(KbError),
}

/// A group of documents embedded, on its way to the writer.
struct Embedded {
    group: Vec<ReadyDocument>,
    vectors: Vec<Vec<f32>>,
    /// How many of the vectors were the earlier versions' kept.
    kept: usize,
    pages_without_text: u64,
    /// Each document's warnings (logged once it is written, so a run
    /// interrupted before that logs nothing the resumed run logs again).
    warnings: Vec<Vec<String>>,
}

/// A parsed document on its way to the embedding thread.
struct Parsed {
    doc: ReadyDocument,
    /// A document whose vectors its chunks that read the same keep: the
    /// one an earlier version of the file left, or else one of the same
    /// content (the file before a move or rename, or a copy).
    earlier: Option<i64>,
    pages_without_text: u64,
    /// The parser's warnings, logged when the document is written.
    warnings: Vec<String>,
}

/// Parsed chunks that may wait for the model: two embedding groups, so the
/// next group is ready when the model finishes one.
const WAITING_CHUNKS: usize = 2 * EMBED_GROUP_CHUNKS;

/// How long the writer waits for an event before looking at the cancel
/// flag again.
const POLL: Duration = Duration::from_millis(50);

/// The stage that owns the database: the calling thread.
pub(super) struct Writer<'a> {
    pub(super) db: &'a Database,
    pub(super) errors_log: &'a ErrorsLog,
    /// The data directory, where PDF pages wait in `extract-cache/` until
    /// their document is written.
    pub(super) data_dir: &'a std::path::Path,
}

impl Writer<'_> {
    /// Parsers, embedder and writer, running at once over bounded queues.
    pub(super) fn run_stages(
        &self,
        workers: &Arc<Workers>,
        files: Vec<(PathBuf, DocType)>,
        indexed: HashMap<String, IndexedFile>,
        tags: &FileTags,
        cancel: &Arc<AtomicBool>,
        summary: &mut IngestSummary,
    ) -> Result<()> {
        let threads = match workers.config.ingestion.workers {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("kb-parse-{i}"))
            .build()
            .map_err(|e| {
                KbError::io(
                    &workers.config.data_dir,
                    std::io::Error::other(format!("cannot start parser threads: {e}")),
                )
            })?;
        // Set when the writer stops early, so the other stages stop too.
        let stop = Arc::new(AtomicBool::new(false));
        let halt = {
            let (stop, cancel) = (stop.clone(), cancel.clone());
            Arc::new(move || stop.load(Ordering::Relaxed) || cancel.load(Ordering::SeqCst))
        };
        let (parsed_tx, parsed_rx) = backlog::<Parsed>(WAITING_CHUNKS);
        let by_content: HashMap<String, i64> = indexed
            .values()
            .filter(|f| !f.content_hash.is_empty())
            .map(|f| (f.content_hash.clone(), f.id))
            .collect();
        let (event_tx, event_rx) = sync_channel::<Event>(64);

        let parsers = {
            let (workers, halt, events) = (workers.clone(), halt.clone(), event_tx.clone());
            let tags = FileTags {
                run: tags.run.clone(),
                roots: tags.roots.clone(),
            };
            std::thread::Builder::new()
                .name("kb-parsers".into())
                .spawn(move || {
                    pool.install(|| {
                        files.par_iter().for_each_with(
                            (parsed_tx, events),
                            |(parsed_tx, events), (path, doc_type)| {
                                if halt() {
                                    return;
                                }
                                let key = source_path::encode(path);
                                let event = workers.parse_one(
                                    path,
                                    *doc_type,
                                    indexed.get(&*key),
                                    &by_content,
                                    &tags.written(&key),
                                    parsed_tx,
                                );
                                if let Some(event) = event {
                                    let _ = events.send(event);
                                }
                            },
                        )
                    })
                })
                .map_err(|e| KbError::io("parser threads", e))?
        };
        let embedder = {
            let (workers, halt) = (workers.clone(), halt.clone());
            let mut earlier = EarlierVectors::new(self.db.reopener());
            std::thread::Builder::new()
                .name("kb-embed".into())
                .spawn(move || workers.embed_stage(parsed_rx, event_tx, &mut earlier, &*halt))
                .map_err(|e| KbError::io("embedding thread", e))?
        };
        let written = self.write_stage(
            &event_rx,
            &tags.run,
            cancel,
            workers.progress.as_ref(),
            summary,
        );
        if written.is_err() || summary.interrupted {
            // The other stages stop on their own after their current file
            // or model batch; nothing of theirs is waited for.
            stop.store(true, Ordering::Relaxed);
            return written;
        }
        // Every event arrived, so both stages are done; a panic in either
        // must not pass for a complete run.
        for (name, handle) in [("parser", parsers), ("embedding", embedder)] {
            if handle.join().is_err() {
                return Err(KbError::Internal(format!("the {name} thread crashed")));
            }
        }
        written
    }

    /// The writer: applies every event to the database and the summary,
    /// until the other stages are done or Ctrl-C.
    fn write_stage(
        &self,
        events: &Receiver<Event>,
        tags: &[String],
        cancel: &AtomicBool,
        progress: &dyn Progress,
        summary: &mut IngestSummary,
    ) -> Result<()> {
        let mut write_time = Duration::ZERO;
        loop {
            if cancel.load(Ordering::SeqCst) {
                summary.interrupted = true;
                break;
            }
            let event = match events.recv_timeout(POLL) {
                Ok(e) => e,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let t = Instant::now();
            match event {
                Event::Skipped { id } => {
                    // `kb add --tags` reaches the documents already indexed.
                    if !tags.is_empty() {
                        self.db.add_tags(id, tags)?;
                    }
                    summary.skipped += 1;
                    progress.file_done();
                }
                Event::Touched { id, size, mtime } => {
                    self.db.touch_document(id, size, mtime)?;
                    if !tags.is_empty() {
                        self.db.add_tags(id, tags)?;
                    }
                    summary.skipped += 1;
                    progress.file_done();
                }
                Event::NotIndexed(path, e, earlier, reader_version) => {
                    // Unreadable content counts as a failure: the file
                    // claims a type kb indexes.
                    if e.is_empty() {
                        summary.empty += 1;
                    } else {
                        summary.failed += 1;
                        summary.failed_files.push((path.clone(), e.to_string()));
                    }
                    // A file emptied (or turned binary) no longer holds its
                    // old text: searches must not find it. An emptied one
                    // keeps its document, without text, for the tags the
                    // user gave it. A failure to read may pass, so the old
                    // version stays until it is fixed.
                    let gone = matches!(e, IngestError::Unsupported(_));
                    match earlier {
                        Some(id) if e.is_empty() => {
                            self.db
                                .empty_document(id, empty_file(&path), reader_version)?;
                            self.errors_log.record(
                                &path,
                                &format!(
                                    "{e}; the document indexed from its earlier content keeps \
                                     its tags but no text until the file has some"
                                ),
                            );
                        }
                        Some(id) if gone => {
                            summary.removed += self.db.remove_documents(&[id])?;
                            self.errors_log.record(
                                &path,
                                &format!("{e}; the document indexed from its earlier content was removed"),
                            );
                        }
                        _ => self.errors_log.record(&path, &e.to_string()),
                    }
                    progress.file_done();
                }
                Event::Embedded(Embedded {
                    group,
                    vectors,
                    kept,
                    pages_without_text,
                    warnings,
                }) => {
                    summary.pages_without_text += pages_without_text;
                    summary.unchanged_chunks += kept;
                    let outcomes = write_group(self.db, &group, Some(&vectors))?;
                    for (((outcome, n), doc), warnings) in
                        outcomes.into_iter().zip(&group).zip(warnings)
                    {
                        let path = source_path::decode(&doc.document.source_path);
                        for w in warnings {
                            self.errors_log.record(&path, &format!("warning: {w}"));
                        }
                        if doc.document.doc_type == DocType::Pdf {
                            page_cache::remove(self.data_dir, &doc.document.content_hash);
                        }
                        match outcome {
                            WriteOutcome::Added(_) => summary.added += 1,
                            WriteOutcome::Replaced(_) => summary.updated += 1,
                        }
                        summary.chunks += n;
                        let counts = summary.by_type.entry(doc.document.doc_type).or_default();
                        counts.documents += 1;
                        counts.chunks += n;
                        progress.file_done();
                    }
                }
                Event::Fatal(e) => return Err(e),
            }
            write_time += t.elapsed();
        }
        summary.seconds.write = write_time.as_secs_f64();
        Ok(())
    }
}

impl Workers {
    /// Prepares one file on a parser thread: a document goes to the
    /// embedding thread, anything else becomes the writer's event.
    fn parse_one(
        &self,
        path: &std::path::Path,
        doc_type: DocType,
        existing: Option<&IndexedFile>,
        by_content: &HashMap<String, i64>,
        tags: &[String],
        parsed: &BacklogSender<Parsed>,
    ) -> Option<Event> {
        let (outcome, spent) = self.prepare_file(path, doc_type, existing, tags);
        self.parse_nanos
            .fetch_add(spent.as_nanos() as u64, Ordering::Relaxed);
        if let Ok(mut m) = self.parse_by_type.lock() {
            *m.entry(doc_type).or_default() += spent.as_secs_f64();
        }
        let chunks = match &outcome {
            Ok((FileOutcome::Ready(doc, _), _)) => doc.chunks.len(),
            _ => 0,
        };
        self.progress
            .file_read(FileSize::of(path, doc_type), chunks as u64);
        Some(match outcome {
            Ok((FileOutcome::Ready(doc, pages_without_text), warnings)) => {
                let earlier = existing
                    .map(|e| e.id)
                    .or_else(|| by_content.get(&doc.document.content_hash).copied());
                parsed.send(
                    Parsed {
                        doc: *doc,
                        earlier,
                        pages_without_text: pages_without_text.unwrap_or(0),
                        warnings,
                    },
                    chunks,
                );
                return None;
            }
            Ok((FileOutcome::Unchanged { id }, _)) => Event::Skipped { id },
            Ok((FileOutcome::Touched { id, size, mtime }, _)) => Event::Touched { id, size, mtime },
            Ok((FileOutcome::NotIndexed(e), _)) => Event::NotIndexed(
                path.to_path_buf(),
                e,
                existing.map(|x| x.id),
                crate::ingest::readers::version(doc_type),
            ),
            Err(e) => Event::Fatal(e),
        })
    }

    /// The embedding thread: gathers parsed documents into groups of at
    /// least [`EMBED_GROUP_CHUNKS`] chunks while the parsers keep up, or
    /// embeds what it has as soon as they fall behind, so the model is busy
    /// whenever there is work. It embeds a model batch at a time, so it
    /// stops soon after the writer does.
    fn embed_stage(
        &self,
        parsed: Backlog<Parsed>,
        events: SyncSender<Event>,
        earlier: &mut EarlierVectors,
        halt: &(dyn Fn() -> bool + Send + Sync),
    ) {
        let min_batch = self.config.embedding.batch_size.max(1);
        let mut group: Vec<ReadyDocument> = Vec::new();
        let mut earlier_documents: Vec<i64> = Vec::new();
        let mut warnings: Vec<Vec<String>> = Vec::new();
        let mut chunks = 0usize;
        let mut pages_without_text = 0u64;
        loop {
            let next = if chunks >= min_batch {
                parsed.try_recv()
            } else {
                parsed.recv()
            };
            let finished = next.is_none() && chunks < min_batch;
            if let Some(p) = next {
                chunks += p.doc.chunks.len();
                pages_without_text += p.pages_without_text;
                earlier_documents.extend(p.earlier);
                group.push(p.doc);
                warnings.push(p.warnings);
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
                let progress = &self.progress;
                let known = earlier.of(&std::mem::take(&mut earlier_documents));
                let embedded = self.model().and_then(|e| {
                    embed_group_in_batches(e.as_ref(), &group, &known, min_batch, halt, &|n| {
                        progress.chunks_done(n as u64)
                    })
                });
                self.embed_nanos
                    .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
                let event = match embedded {
                    Ok(Some(v)) => Event::Embedded(Embedded {
                        group: std::mem::take(&mut group),
                        vectors: v.vectors,
                        kept: v.kept,
                        pages_without_text: std::mem::take(&mut pages_without_text),
                        warnings: std::mem::take(&mut warnings),
                    }),
                    Ok(None) => return,
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

/// The vectors of the documents a run replaces (or copies), read on the embedding
/// thread's own connection (opened at the first document that replaces
/// one; the writer's is busy writing). They belong to the model this run
/// embeds with: the database holds vectors of its bound model only.
struct EarlierVectors {
    reopener: Reopener,
    db: Option<Database>,
}

impl EarlierVectors {
    fn new(reopener: Reopener) -> Self {
        EarlierVectors { reopener, db: None }
    }

    /// Each earlier chunk's vector under its model input. Reading is only
    /// a saving: if it fails, every chunk is embedded as if new.
    fn of(&mut self, documents: &[i64]) -> HashMap<String, Vec<f32>> {
        let mut known = HashMap::new();
        if documents.is_empty() {
            return known;
        }
        if self.db.is_none() {
            self.db = self.reopener.open().ok();
        }
        let Some(db) = &self.db else {
            return known;
        };
        for &id in documents {
            if let Ok(vectors) = db.earlier_vectors(id) {
                known.extend(vectors);
            }
        }
        known
    }
}

/// What is recorded of a file found empty (size, mtime, content hash), so
/// the next walk passes it by while it stays so; `None` if it cannot be
/// read now.
fn empty_file(path: &std::path::Path) -> Option<(u64, Option<i64>, String)> {
    let read_from = std::time::SystemTime::now();
    let meta = std::fs::metadata(path).ok()?;
    let bytes = std::fs::read(path).ok()?;
    let stamp = crate::ingest::change::FileStamp::of(&meta);
    let mtime = stamp.recorded_mtime(read_from);
    Some((
        stamp.size,
        mtime,
        crate::ingest::change::content_hash(&bytes),
    ))
}
