//! `kb add`: walks the given paths, skips what is already indexed, and runs
//! three stages at once so the model is never idle while files are parsed:
//!
//! 1. parsers (a rayon pool of `ingestion.workers` threads) read, hash, parse
//!    and chunk files and push documents into a bounded queue;
//! 2. one embedding thread takes documents from that queue and embeds their
//!    chunks in large cross-document groups;
//! 3. the calling thread, the only one touching the database, writes each
//!    document with its chunks and vectors in one transaction.
//!
//! The queues are bounded, so memory stays flat whatever the folder size. A
//! file that fails is logged to `ingest-errors.log` and the run goes on; a
//! database or model failure stops it. Ctrl-C stops it after the current
//! write: every committed document is complete, and re-running continues.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, UNIX_EPOCH};

use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{detect, parse, ChunkContext, DocType, ParsedDocument};
use crate::config::Config;
use crate::db::{normalize_tags, Database, IndexedFile, NewChunk, NewDocument, WriteOutcome};
use crate::embed::Embed;
use crate::error::{KbError, Result};

/// What a run did, printed as the summary.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct IngestSummary {
    /// New documents indexed.
    pub added: usize,
    /// Documents whose file changed and were re-indexed.
    pub updated: usize,
    /// Files that could not be indexed (see the errors log).
    pub failed: usize,
    /// Files already indexed and unchanged.
    pub skipped: usize,
    /// Files of a type kb does not index.
    pub unsupported: usize,
    /// Empty files.
    pub empty: usize,
    /// Documents removed because their file under an added folder is gone.
    pub removed: usize,
    /// Chunks written.
    pub chunks: usize,
    /// PDF pages without extractable text (scanned pages; OCR is not done).
    pub pages_without_text: u64,
    /// Directories or links the walk could not enter (unreadable, loops).
    pub walk_errors: usize,
    /// True when the run was stopped by Ctrl-C before the end.
    pub interrupted: bool,
    pub errors_log: Option<PathBuf>,
    /// Documents and chunks written, by document type.
    pub by_type: BTreeMap<String, TypeCounts>,
    /// Where the time went.
    pub seconds: Timings,
}

#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct TypeCounts {
    pub documents: usize,
    pub chunks: usize,
    /// Time spent reading, parsing and chunking these files, summed over
    /// the parser threads.
    pub parse_seconds: f64,
}

/// Seconds spent per stage. The stages overlap, so they add up to more than
/// `total`; `parse` is summed over the parser threads.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct Timings {
    pub total: f64,
    pub walk: f64,
    pub parse: f64,
    pub embed: f64,
    pub write: f64,
}

impl IngestSummary {
    /// The design's summary line, with the extra counts when non-zero.
    pub fn line(&self) -> String {
        let mut s = format!(
            "Added {} documents. {} failed. {} skipped (already indexed).",
            self.added + self.updated,
            self.failed,
            self.skipped
        );
        if self.updated > 0 {
            s.push_str(&format!(
                " {} of the added were re-indexed after a change.",
                self.updated
            ));
        }
        if self.unsupported > 0 {
            s.push_str(&format!(" {} unsupported files skipped.", self.unsupported));
        }
        if self.empty > 0 {
            s.push_str(&format!(" {} empty files skipped.", self.empty));
        }
        if self.pages_without_text > 0 {
            s.push_str(&format!(
                " {} PDF pages had no extractable text (scanned? OCR is not supported).",
                self.pages_without_text
            ));
        }
        if self.walk_errors > 0 {
            s.push_str(&format!(
                " {} folders or links could not be read.",
                self.walk_errors
            ));
        }
        if self.removed > 0 {
            s.push_str(&format!(
                " Removed {} documents whose files are gone.",
                self.removed
            ));
        }
        if self.failed > 0 || self.empty > 0 || self.walk_errors > 0 {
            if let Some(p) = &self.errors_log {
                s.push_str(&format!(" Reasons in {}.", p.display()));
            }
        }
        if self.interrupted {
            s.push_str(" Interrupted: re-run the same command to continue.");
        }
        s
    }
}

/// Options of one `kb add` run.
pub struct IngestOptions<'a> {
    pub tags: Vec<String>,
    pub show_progress: bool,
    pub cancel: &'a AtomicBool,
}

/// Where the embedding model comes from: already loaded, or loaded by the
/// first file that needs chunking (so re-adding an unchanged folder never
/// pays for the model).
pub enum ModelSource<'a> {
    Borrowed(&'a dyn Embed),
    Owned(Box<dyn Embed>),
    Lazy(Box<dyn Fn() -> Result<Box<dyn Embed>> + Send + Sync + 'a>),
}

/// A parsed and chunked document waiting to be embedded and written.
pub struct ReadyDocument {
    pub document: NewDocument,
    pub chunks: Vec<NewChunk>,
}

/// Embeds the chunks of a group of documents in one call (so small
/// documents still fill the model's batches).
pub fn embed_group(embedder: &dyn Embed, group: &[ReadyDocument]) -> Result<Vec<Vec<f32>>> {
    let texts: Vec<&str> = group
        .iter()
        .flat_map(|d| d.chunks.iter().map(|c| c.text.as_str()))
        .collect();
    embedder.embed_passages(&texts)
}

/// Writes each document of a group with its chunks and (when given) their
/// vectors, in order, each in its own transaction. Returns each document's
/// outcome and chunk count.
pub fn write_group(
    db: &Database,
    group: &[ReadyDocument],
    vectors: Option<&[Vec<f32>]>,
) -> Result<Vec<(WriteOutcome, usize)>> {
    let mut offset = 0;
    let mut outcomes = Vec::with_capacity(group.len());
    for doc in group {
        let n = doc.chunks.len();
        let vecs = vectors.map(|v| &v[offset..offset + n]);
        offset += n;
        outcomes.push((db.write_document(&doc.document, &doc.chunks, vecs)?, n));
    }
    Ok(outcomes)
}

/// [`embed_group`] then [`write_group`], for callers without a pipeline.
pub fn embed_and_write(
    db: &Database,
    embedder: Option<&dyn Embed>,
    group: Vec<ReadyDocument>,
) -> Result<Vec<(WriteOutcome, usize)>> {
    let vectors = match embedder {
        Some(e) => Some(embed_group(e, &group)?),
        None => None,
    };
    write_group(db, &group, vectors.as_deref())
}

/// Chunks gathered from several documents before one embedding call, so
/// small documents still fill the model's batches.
const EMBED_GROUP_CHUNKS: usize = 256;

/// What a parser thread makes of one file.
enum FileOutcome {
    Ready(Box<ReadyDocument>, Option<u64>),
    Unchanged,
    /// Same content as indexed under a new mtime (touched, copied back).
    Touched {
        id: i64,
        size: u64,
        mtime: i64,
    },
    Empty(String),
    Failed(String),
}

/// Messages to the writer, the only thread with the database.
enum Event {
    Skipped,
    Touched {
        id: i64,
        size: u64,
        mtime: i64,
    },
    Empty(PathBuf, String),
    Failed(PathBuf, String),
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

pub struct Ingester<'a> {
    config: &'a Config,
    db: &'a Database,
    parser: Parser<'a>,
    errors_log: PathBuf,
}

/// Everything the parser and embedding threads need; no database in here.
struct Parser<'a> {
    config: &'a Config,
    source: ModelSource<'a>,
    lazy: OnceLock<Box<dyn Embed>>,
    loading: Mutex<()>,
    parse_nanos: AtomicU64,
    embed_nanos: AtomicU64,
}

impl<'a> Ingester<'a> {
    pub fn new(config: &'a Config, db: &'a Database, model: ModelSource<'a>) -> Self {
        Ingester {
            config,
            db,
            parser: Parser {
                config,
                source: model,
                lazy: OnceLock::new(),
                loading: Mutex::new(()),
                parse_nanos: AtomicU64::new(0),
                embed_nanos: AtomicU64::new(0),
            },
            errors_log: config.errors_log_path(),
        }
    }

    pub fn run(&self, paths: &[PathBuf], opts: &IngestOptions) -> Result<IngestSummary> {
        let started = Instant::now();
        for p in paths {
            if std::fs::symlink_metadata(p).is_err() {
                return Err(KbError::PathNotFound(p.clone()));
            }
        }
        let tags = normalize_tags(&opts.tags);
        let mut summary = IngestSummary {
            errors_log: Some(self.errors_log.clone()),
            ..Default::default()
        };
        let files = self.collect_files(paths, &mut summary);
        let indexed = self.db.indexed_files()?;
        summary.seconds.walk = started.elapsed().as_secs_f64();

        let bar = progress_bar(files.len() as u64, opts.show_progress);
        let outcome = self.run_stages(&files, &indexed, &tags, opts.cancel, &bar, &mut summary);
        bar.finish_and_clear();
        outcome?;
        if opts.cancel.load(Ordering::SeqCst) {
            summary.interrupted = true;
        }
        if !summary.interrupted {
            summary.removed = self.prune_deleted(paths)?;
        }
        summary.seconds.parse = self.parser.parse_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        summary.seconds.embed = self.parser.embed_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        summary.seconds.total = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// Parsers, embedder and writer, running at once over bounded queues.
    fn run_stages(
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
        let parser = &self.parser;
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
                                parser.prepare_file(path, *doc_type, indexed.get(&*key), tags);
                            parser
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
                                Ok((FileOutcome::Unchanged, _)) => Event::Skipped,
                                Ok((FileOutcome::Touched { id, size, mtime }, _)) => {
                                    Event::Touched { id, size, mtime }
                                }
                                Ok((FileOutcome::Empty(r), _)) => Event::Empty(path.clone(), r),
                                Ok((FileOutcome::Failed(r), _)) => Event::Failed(path.clone(), r),
                                Err(e) => Event::Fatal(e),
                            };
                            let _ = events.send(event);
                        },
                    )
                });
            });
            s.spawn(move || parser.embed_stage(parsed_rx, event_tx, &halt));
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
                Event::Skipped => {
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
                Event::Empty(path, reason) => {
                    summary.empty += 1;
                    self.log_error(&path, &reason);
                    1
                }
                Event::Failed(path, reason) => {
                    summary.failed += 1;
                    self.log_error(&path, &reason);
                    1
                }
                Event::Warning(path, reason) => {
                    self.log_error(&path, &format!("warning: {reason}"));
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

    /// Keeps the index in step with the folders: documents whose file under
    /// one of `paths` no longer exists are removed.
    fn prune_deleted(&self, paths: &[PathBuf]) -> Result<usize> {
        let prefixes: Vec<String> = paths
            .iter()
            .filter(|p| p.is_dir())
            .map(|root| {
                let mut prefix = absolute(root).to_string_lossy().into_owned();
                if !prefix.ends_with('/') {
                    prefix.push('/');
                }
                prefix
            })
            .collect();
        if prefixes.is_empty() {
            return Ok(0);
        }
        let gone: Vec<i64> = self
            .db
            .document_files()?
            .into_iter()
            .filter(|(_, path, _, _)| {
                prefixes.iter().any(|p| path.starts_with(p.as_str()))
                    && std::fs::metadata(path).is_err()
            })
            .map(|(id, _, _, _)| id)
            .collect();
        if gone.is_empty() {
            return Ok(0);
        }
        self.db.remove_documents(&gone)
    }

    /// Lists the supported files under `paths` (hidden and git-ignored
    /// entries skipped, symbolic links followed), counting the unsupported
    /// ones. Loops and unreadable folders are logged and skipped.
    fn collect_files(
        &self,
        paths: &[PathBuf],
        summary: &mut IngestSummary,
    ) -> Vec<(PathBuf, DocType)> {
        let mut files = Vec::new();
        for root in paths {
            let walker = ignore::WalkBuilder::new(root)
                .hidden(true)
                .git_ignore(true)
                .git_exclude(true)
                .git_global(false)
                .require_git(false)
                .follow_links(true)
                .build();
            for entry in walker {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        summary.walk_errors += 1;
                        self.log_error(root, &format!("skipped while walking: {e}"));
                        continue;
                    }
                };
                // Directories, FIFOs, sockets and devices are not documents.
                if !entry.file_type().is_some_and(|ft| ft.is_file()) {
                    continue;
                }
                let path = entry.into_path();
                match detect::detect_by_extension(&path).or_else(|| sniff(&path)) {
                    Some(t) => files.push((absolute(&path), t)),
                    None => summary.unsupported += 1,
                }
            }
        }
        files.sort();
        files.dedup();
        files
    }

    fn log_error(&self, path: &Path, reason: &str) {
        let line = format!(
            "{}\t{}\t{}\n",
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()),
            path.display(),
            reason.replace('\n', " ")
        );
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.errors_log)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if written.is_err() {
            eprintln!("kb: {}: {}", path.display(), reason);
        }
    }
}

impl Parser<'_> {
    /// The embedding model, loading it on first use.
    fn embedder(&self) -> Result<&dyn Embed> {
        match &self.source {
            ModelSource::Borrowed(e) => Ok(*e),
            ModelSource::Owned(e) => Ok(e.as_ref()),
            ModelSource::Lazy(load) => {
                if let Some(e) = self.lazy.get() {
                    return Ok(e.as_ref());
                }
                let _one_loader = self.loading.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(e) = self.lazy.get() {
                    return Ok(e.as_ref());
                }
                let e = load()?;
                Ok(self.lazy.get_or_init(|| e).as_ref())
            }
        }
    }

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
                let embedded = self.embedder().and_then(|e| embed_group(e, &group));
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

    /// Reads, hashes, parses and chunks one file. Returns the outcome with
    /// the parser's warnings (an `Err` is a model or system failure) and the
    /// time it took, not counting a wait for the model to load.
    fn prepare_file(
        &self,
        path: &Path,
        doc_type: DocType,
        existing: Option<&IndexedFile>,
        tags: &[String],
    ) -> (Result<(FileOutcome, Vec<String>)>, Duration) {
        let started = Instant::now();
        let mut loading = Duration::ZERO;
        let outcome = self.prepare(path, doc_type, existing, tags, &mut loading);
        (outcome, started.elapsed().saturating_sub(loading))
    }

    fn prepare(
        &self,
        path: &Path,
        doc_type: DocType,
        existing: Option<&IndexedFile>,
        tags: &[String],
        loading: &mut Duration,
    ) -> Result<(FileOutcome, Vec<String>)> {
        let plain = |o: FileOutcome| Ok((o, Vec::new()));
        let source_path = path.to_string_lossy().into_owned();
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) => return plain(FileOutcome::Failed(format!("cannot read: {e}"))),
        };
        let size = meta.len();
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        if let Some(e) = existing {
            if e.file_size == Some(size) && e.file_mtime == Some(mtime) && tags.is_empty() {
                return plain(FileOutcome::Unchanged);
            }
        }
        if size == 0 {
            return plain(FileOutcome::Empty("empty file: nothing to index".into()));
        }
        let max_mb = self.config.ingestion.max_file_mb;
        if size > max_mb.saturating_mul(1024 * 1024) {
            return plain(FileOutcome::Failed(format!(
                "file is {:.1} MB, over ingestion.max_file_mb ({max_mb} MB); raise it to index this file",
                size as f64 / 1_048_576.0,
            )));
        }
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => return plain(FileOutcome::Failed(format!("cannot read: {e}"))),
        };
        let hash = hex::encode(Sha256::digest(&bytes));
        if let Some(e) = existing {
            if e.content_hash == hash {
                // Same content (touched or copied back): remember the new
                // mtime and apply any new tags, nothing to re-index.
                return plain(FileOutcome::Touched {
                    id: e.id,
                    size,
                    mtime,
                });
            }
        }
        let t = Instant::now();
        let embedder = self.embedder()?;
        *loading = t.elapsed();
        let tokens = embedder.token_counter();
        let ctx = ChunkContext::for_run(self.config, &tokens, embedder.max_chunk_tokens());
        // A parser bug must cost one file, not the batch.
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            parse(doc_type, path, &bytes, &ctx)
        }));
        let doc: ParsedDocument = match parsed {
            Ok(Ok(d)) => d,
            Ok(Err(reason)) if reason.starts_with("empty file") => {
                return plain(FileOutcome::Empty(reason))
            }
            Ok(Err(reason)) => return plain(FileOutcome::Failed(reason)),
            Err(panic) => {
                return plain(FileOutcome::Failed(format!(
                    "the {} parser crashed on this file ({})",
                    doc_type.as_str(),
                    panic_message(panic.as_ref())
                )))
            }
        };
        let mut all_tags = tags.to_vec();
        all_tags.extend(normalize_tags(&doc.tags));
        let pages_without_text = doc
            .metadata
            .get("pages_without_text")
            .and_then(|v| v.as_u64());
        let new_doc = NewDocument {
            title: doc.title.clone(),
            source_path,
            content_hash: hash,
            doc_type: doc_type.as_str().to_string(),
            language: doc.language.clone(),
            file_size: size,
            file_mtime: mtime,
            metadata: document_metadata(&doc),
            tags: normalize_tags(all_tags),
            content: Some(doc.content.clone()),
        };
        let chunks: Vec<NewChunk> = doc.chunks.iter().map(|c| c.to_new_chunk()).collect();
        Ok((
            FileOutcome::Ready(
                Box::new(ReadyDocument {
                    document: new_doc,
                    chunks,
                }),
                pages_without_text,
            ),
            doc.warnings,
        ))
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

fn document_metadata(doc: &ParsedDocument) -> String {
    let mut m = doc.metadata.clone();
    if !doc.headings.is_empty() {
        m.insert(
            "headings".into(),
            serde_json::to_value(&doc.headings).unwrap_or_default(),
        );
    }
    serde_json::Value::Object(m).to_string()
}

/// The type of a file whose extension says nothing, from its first bytes.
/// A file that cannot be read here is counted as unsupported: nothing says
/// it is a document.
fn sniff(path: &Path) -> Option<DocType> {
    use std::io::Read as _;
    let mut head = Vec::with_capacity(detect::SNIFF_BYTES);
    std::fs::File::open(path)
        .ok()?
        .take(detect::SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .ok()?;
    detect::detect_by_content(&head)
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The progress bar of long commands, on stderr; hidden when stderr is not
/// a terminal or with `--quiet`.
pub fn progress_bar(len: u64, show: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !show || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30.cyan/blue} {pos}/{len} files · {msg} · {elapsed} elapsed, ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}
