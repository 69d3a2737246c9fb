//! `kb add`: walks the given paths, skips what is already indexed, parses
//! and chunks the rest, embeds the chunks and writes each document with its
//! chunks (and vectors) in one transaction. A file that fails is logged to
//! `ingest-errors.log` and the run goes on.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{detect, parse, ChunkContext, DocType, ParsedDocument};
use crate::config::Config;
use crate::db::{normalize_tags, Database, NewChunk, NewDocument, WriteOutcome};
use crate::embed::{Embedder, TokenCounter};
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
    /// True when the run was stopped by Ctrl-C before the end.
    pub interrupted: bool,
    pub errors_log: Option<PathBuf>,
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
        if self.removed > 0 {
            s.push_str(&format!(
                " Removed {} documents whose files are gone.",
                self.removed
            ));
        }
        if self.failed > 0 || self.empty > 0 {
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

enum FileOutcome {
    /// Parsed and chunked, waiting to be embedded and written.
    Ready(Box<ReadyDocument>),
    Unchanged,
    Empty(String),
    Failed(String),
}

/// A parsed and chunked document waiting to be embedded and written.
pub struct ReadyDocument {
    pub document: NewDocument,
    pub chunks: Vec<NewChunk>,
}

/// Embeds the chunks of a group of documents in one call (so small
/// documents still fill the model's batches), then writes each document
/// with its chunks and vectors in its own transaction. Returns each
/// document's outcome and chunk count, in order.
pub fn embed_and_write(
    db: &Database,
    embedder: Option<&Embedder>,
    group: Vec<ReadyDocument>,
) -> Result<Vec<(WriteOutcome, usize)>> {
    if group.is_empty() {
        return Ok(Vec::new());
    }
    let vectors = match embedder {
        Some(e) => {
            let texts: Vec<&str> = group
                .iter()
                .flat_map(|d| d.chunks.iter().map(|c| c.text.as_str()))
                .collect();
            Some(e.embed_passages(&texts)?)
        }
        None => None,
    };
    let mut offset = 0;
    let mut outcomes = Vec::with_capacity(group.len());
    for doc in group {
        let n = doc.chunks.len();
        let vecs = vectors.as_ref().map(|v| &v[offset..offset + n]);
        offset += n;
        outcomes.push((db.write_document(&doc.document, &doc.chunks, vecs)?, n));
    }
    Ok(outcomes)
}

/// Chunks gathered from several documents before one embedding call, so
/// small documents still fill the model's batches.
const EMBED_GROUP_CHUNKS: usize = 256;

pub struct Ingester<'a> {
    config: &'a Config,
    db: &'a Database,
    embedder: Option<&'a Embedder>,
    tokens: TokenCounter,
    model_max_tokens: Option<usize>,
    errors_log: PathBuf,
}

impl<'a> Ingester<'a> {
    pub fn new(config: &'a Config, db: &'a Database, embedder: Option<&'a Embedder>) -> Self {
        let (tokens, model_max_tokens) = match embedder {
            Some(e) => (e.token_counter(), Some(e.max_chunk_tokens())),
            None => (TokenCounter::Whitespace, None),
        };
        super::pdf::set_timeout_secs(config.ingestion.pdf_timeout_secs);
        Ingester {
            config,
            db,
            embedder,
            tokens,
            model_max_tokens,
            errors_log: config.errors_log_path(),
        }
    }

    pub fn run(&self, paths: &[PathBuf], opts: &IngestOptions) -> Result<IngestSummary> {
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

        let bar = progress_bar(files.len() as u64, opts.show_progress);
        let mut pending: Vec<ReadyDocument> = Vec::new();
        let mut pending_chunks = 0usize;
        for (path, doc_type) in files {
            if opts.cancel.load(Ordering::SeqCst) {
                summary.interrupted = true;
                break;
            }
            bar.set_message(path.display().to_string());
            match self.prepare_file(&path, doc_type, &tags) {
                Ok(FileOutcome::Ready(doc)) => {
                    pending_chunks += doc.chunks.len();
                    pending.push(*doc);
                    if pending_chunks >= EMBED_GROUP_CHUNKS
                        || pending.len() >= self.config.ingestion.batch_size
                    {
                        if let Err(e) = self.write_group(std::mem::take(&mut pending), &mut summary)
                        {
                            bar.finish_and_clear();
                            return Err(e);
                        }
                        pending_chunks = 0;
                    }
                }
                Ok(FileOutcome::Unchanged) => summary.skipped += 1,
                Ok(FileOutcome::Empty(reason)) => {
                    summary.empty += 1;
                    self.log_error(&path, &reason);
                }
                Ok(FileOutcome::Failed(reason)) => {
                    summary.failed += 1;
                    self.log_error(&path, &reason);
                }
                // A database or model failure is not the file's fault: stop.
                Err(e) => {
                    bar.finish_and_clear();
                    return Err(e);
                }
            }
            bar.inc(1);
        }
        let written = self.write_group(pending, &mut summary);
        bar.finish_and_clear();
        written?;
        if !summary.interrupted {
            summary.removed = self.prune_deleted(paths)?;
        }
        Ok(summary)
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
                    && std::fs::symlink_metadata(path).is_err()
            })
            .map(|(id, _, _, _)| id)
            .collect();
        if gone.is_empty() {
            return Ok(0);
        }
        self.db.remove_documents(&gone)
    }

    /// Embeds and writes a group, counting the outcomes.
    fn write_group(&self, group: Vec<ReadyDocument>, summary: &mut IngestSummary) -> Result<()> {
        for (outcome, n) in embed_and_write(self.db, self.embedder, group)? {
            match outcome {
                WriteOutcome::Added(_) => summary.added += 1,
                WriteOutcome::Replaced(_) => summary.updated += 1,
            }
            summary.chunks += n;
        }
        Ok(())
    }

    /// Lists the supported files under `paths` (hidden and git-ignored
    /// entries skipped), counting the unsupported ones.
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
                .follow_links(false)
                .build();
            for entry in walker {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        // An unreadable directory or a broken entry: note it
                        // and keep walking.
                        summary.failed += 1;
                        self.log_error(root, &format!("could not walk: {e}"));
                        continue;
                    }
                };
                let Some(ft) = entry.file_type() else {
                    continue;
                };
                if !ft.is_file() {
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

    fn prepare_file(&self, path: &Path, doc_type: DocType, tags: &[String]) -> Result<FileOutcome> {
        let source_path = path.to_string_lossy().into_owned();
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) => return Ok(FileOutcome::Failed(format!("cannot read: {e}"))),
        };
        let size = meta.len();
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let existing = self.db.find_document_by_path(&source_path)?;
        if let Some(e) = &existing {
            if e.file_size == Some(size) && e.file_mtime == Some(mtime) && tags.is_empty() {
                return Ok(FileOutcome::Unchanged);
            }
        }
        if size == 0 {
            return Ok(FileOutcome::Empty("empty file: nothing to index".into()));
        }
        let max_bytes = self
            .config
            .ingestion
            .max_file_mb
            .saturating_mul(1024 * 1024);
        if size > max_bytes {
            return Ok(FileOutcome::Failed(format!(
                "file is {:.1} MB, over ingestion.max_file_mb ({} MB); raise it to index this file",
                size as f64 / 1_048_576.0,
                self.config.ingestion.max_file_mb
            )));
        }
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => return Ok(FileOutcome::Failed(format!("cannot read: {e}"))),
        };
        let hash = hex::encode(Sha256::digest(&bytes));
        if let Some(e) = &existing {
            if e.content_hash == hash {
                // Same content (touched or copied back): remember the new
                // mtime and apply any new tags, nothing to re-index.
                self.db.touch_document(e.id, size, mtime)?;
                if !tags.is_empty() {
                    self.db.add_tags(e.id, tags)?;
                }
                return Ok(FileOutcome::Unchanged);
            }
        }
        let ctx = ChunkContext {
            config: &self.config.chunking,
            tokens: &self.tokens,
            model_max_tokens: self.model_max_tokens,
        };
        // A parser bug must cost one file, not the batch.
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            parse(doc_type, path, &bytes, &ctx)
        }));
        let doc: ParsedDocument = match parsed {
            Ok(Ok(d)) => d,
            Ok(Err(reason)) if reason.starts_with("empty file") => {
                return Ok(FileOutcome::Empty(reason))
            }
            Ok(Err(reason)) => return Ok(FileOutcome::Failed(reason)),
            Err(_) => {
                return Ok(FileOutcome::Failed(
                    "the parser crashed on this file".into(),
                ))
            }
        };
        for w in &doc.warnings {
            self.log_error(path, &format!("warning: {w}"));
        }
        let mut all_tags = tags.to_vec();
        all_tags.extend(normalize_tags(&doc.tags));
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
        Ok(FileOutcome::Ready(Box::new(ReadyDocument {
            document: new_doc,
            chunks,
        })))
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

pub fn progress_bar(len: u64, show: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !show || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30.cyan/blue} {pos}/{len} files {per_sec} ETA {eta} {wide_msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}
