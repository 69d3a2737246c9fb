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
//!
//! Here: the run as a whole. `walk` finds the files, `prepare` turns one
//! into a document (or decides it is unchanged), `stages` runs the three
//! stages, `group` embeds and writes, `prune` drops documents whose files
//! are gone, `errors_log` and `progress` report, `summary` is the result;
//! `resplit` finds the documents a model that reads less has `reread`.

mod backlog;
mod carry;
mod errors_log;
mod group;
mod model_source;
mod prepare;
mod prune;
pub mod resplit;
mod stages;
mod summary;
mod walk;
mod workers;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::config::Config;
use crate::db::{normalize_tags, Database, IndexedFile, NewRoot, Root, RootKind};
use crate::document::DocType;
use crate::error::{KbError, Result};
use crate::ingest::source_path;
use crate::progress::{FileSize, Progress};

pub use group::{embed_and_write, embed_group, write_group, ReadyDocument};
pub use model_source::{LoadModel, ModelSource};
pub use summary::{IngestSummary, Timings, TypeCounts, Unsupported};

use errors_log::ErrorsLog;
use model_source::SharedModel;
use stages::Writer;
use workers::Workers;

/// Options of one `kb add` run.
pub struct IngestOptions {
    /// Tags for every document this run reaches (`kb add --tags`), and
    /// for the roots given, so their new documents get them later too.
    pub tags: Vec<String>,
    /// Glob patterns of files and folders to leave out (as in a
    /// `.gitignore`, which is honoured too, like a `.kbignore`).
    pub exclude: Vec<String>,
    /// Who is told how the run goes.
    pub progress: Arc<dyn Progress>,
    /// Set by Ctrl-C: the run stops at once, keeping what it committed.
    pub cancel: Arc<AtomicBool>,
    /// Follow links to targets outside every root (`kb add
    /// --follow-external-links`, `ingestion.follow_external_links`); the
    /// roots given keep it for later walks.
    pub follow_external_links: bool,
    /// Follow them under every root (the configuration says so), not only
    /// under the roots that were added with it.
    pub follow_everywhere: bool,
    /// Read every file found again, changed or not (`kb add --reread`):
    /// what a newer kb reads better reaches the files indexed before.
    pub reread: bool,
}

/// One knowledge base's `kb add`: its settings, database, model and log.
pub struct Ingester<'a> {
    config: &'a Config,
    db: &'a Database,
    /// Taken by the one run.
    model: Option<ModelSource>,
    errors_log: ErrorsLog,
}

impl<'a> Ingester<'a> {
    pub fn new(config: &'a Config, db: &'a Database, model: ModelSource) -> Self {
        Ingester {
            config,
            db,
            model: Some(model),
            errors_log: ErrorsLog::new(config.errors_log_path()),
        }
    }

    pub fn run(mut self, paths: &[PathBuf], opts: &IngestOptions) -> Result<IngestSummary> {
        let started = Instant::now();
        for p in paths {
            if std::fs::symlink_metadata(p).is_err() {
                return Err(KbError::PathNotFound(p.clone()));
            }
        }
        // Only files kb cannot read were named: an error a script sees, and
        // nothing recorded.
        if paths
            .iter()
            .all(|p| p.is_file() && walk::detect(p).is_none())
        {
            let u = Unsupported::of(paths[0].clone(), true);
            return Err(KbError::invalid(
                "path",
                format!("{}: {}", source_path::encode(&u.path), u.reason),
            ));
        }
        let tags = normalize_tags(&opts.tags);
        // This run's roots are recorded first, with what this run was told
        // about them: links may lead into them, and into those of earlier
        // runs.
        let given: Vec<NewRoot> = paths
            .iter()
            .map(|p| NewRoot {
                path: source_path::encode(&source_path::canonical(p)),
                kind: if p.is_dir() {
                    RootKind::Folder
                } else {
                    RootKind::File
                },
                tags: tags.clone(),
                follow_external_links: opts.follow_external_links,
            })
            .collect();
        let root_ids = self.db.record_roots(&given)?;
        // A file named to add comes back even if `kb remove` kept it out.
        let named: Vec<String> = given
            .iter()
            .filter(|r| r.kind == RootKind::File)
            .map(|r| r.path.clone())
            .collect();
        self.db.let_in(&named)?;
        let policy = walk::LinkPolicy {
            roots: self.db.roots()?,
            follow_external: opts.follow_everywhere,
        };
        let mut walked = walk::collect_files(
            paths,
            &opts.exclude,
            &policy,
            &self.config.data_dir,
            &self.errors_log,
        )?;
        let kept_out = self.db.kept_out()?;
        let found = walked.files.len();
        walked
            .files
            .retain(|(p, _)| !kept_out.contains(&source_path::encode(p)));
        let mut summary = IngestSummary {
            kept_out: found - walked.files.len(),
            errors_log: Some(self.errors_log.path().to_path_buf()),
            unsupported: walked.unsupported.len(),
            unsupported_files: std::mem::take(&mut walked.unsupported),
            walk_errors: walked.errors,
            external_links: walked.external_links.len(),
            ..Default::default()
        };
        let files = std::mem::take(&mut walked.files);
        let walked_paths: HashSet<String> =
            files.iter().map(|(p, _)| source_path::encode(p)).collect();
        let mut indexed = self.db.indexed_files()?;
        let known: HashSet<i64> = indexed.values().map(|f| f.id).collect();
        summary.read_again = read_again(&mut indexed, &files, opts.reread);
        summary.seconds.walk = started.elapsed().as_secs_f64();
        opts.progress.files(&file_sizes(&files));

        let tags = FileTags {
            run: tags,
            roots: policy.roots.clone(),
        };
        self.read(files, indexed, &tags, opts, &mut summary)?;
        let complete = !summary.interrupted;
        let indexed = self.db.indexed_files()?;
        prune::record_links(self.db, &indexed, &walked, &root_ids)?;
        summary.removed += prune::follow_reach(
            self.db,
            &indexed,
            &walked.roots,
            &root_ids,
            complete,
            &known,
            &self.errors_log,
        )?;
        if summary.added > 0 {
            carry::carry_from_missing(self.db, &known)?;
        }
        if complete {
            summary.removed += prune::prune_deleted(self.db, paths, &walked_paths, &known)?;
            summary.removed += prune::prune_external(
                self.db,
                &walked.external_links,
                &policy.roots,
                &self.errors_log,
            )?;
        }
        summary.seconds.total = started.elapsed().as_secs_f64();
        Ok(summary)
    }

    /// Reads the files of documents `ids` again, as if they had changed,
    /// and writes them chunked for this run's model (see `resplit`). Their
    /// tags stay; nothing else is walked, recorded or pruned. Returns the
    /// summary and the stored paths of the documents whose files are gone.
    pub fn reread(
        mut self,
        ids: &HashSet<i64>,
        opts: &IngestOptions,
    ) -> Result<(IngestSummary, Vec<String>)> {
        let started = Instant::now();
        let mut indexed = self.db.indexed_files()?;
        let mut files = Vec::new();
        let mut missing = Vec::new();
        for (path, file) in indexed.iter_mut().filter(|(_, f)| ids.contains(&f.id)) {
            let decoded = source_path::decode(path);
            match walk::detect(&decoded).filter(|_| decoded.is_file()) {
                Some(doc_type) => {
                    file.forget_reading();
                    files.push((decoded, doc_type));
                }
                None => missing.push(path.clone()),
            }
        }
        files.sort();
        opts.progress.files(&file_sizes(&files));
        let mut summary = IngestSummary {
            errors_log: Some(self.errors_log.path().to_path_buf()),
            ..Default::default()
        };
        let tags = FileTags {
            run: Vec::new(),
            roots: self.db.roots()?,
        };
        self.read(files, indexed, &tags, opts, &mut summary)?;
        summary.seconds.total = started.elapsed().as_secs_f64();
        Ok((summary, missing))
    }

    /// Parses, embeds and writes `files`, each against what `indexed`
    /// recorded of it, adding what it did and its timings to `summary`.
    fn read(
        &mut self,
        files: Vec<(PathBuf, DocType)>,
        indexed: HashMap<String, IndexedFile>,
        tags: &FileTags,
        opts: &IngestOptions,
        summary: &mut IngestSummary,
    ) -> Result<()> {
        let model = self
            .model
            .take()
            .ok_or_else(|| KbError::Model("an ingest run reads its files once".into()))?;
        let workers = Arc::new(Workers {
            config: self.config.clone(),
            model: SharedModel::new(model),
            progress: opts.progress.clone(),
            parse_nanos: AtomicU64::new(0),
            embed_nanos: AtomicU64::new(0),
            parse_by_type: Mutex::new(BTreeMap::new()),
        });
        let writer = Writer {
            db: self.db,
            errors_log: &self.errors_log,
            data_dir: &self.config.data_dir,
        };
        let outcome = writer.run_stages(&workers, files, indexed, tags, &opts.cancel, summary);
        if outcome.is_ok() {
            if opts.cancel.load(Ordering::SeqCst) {
                summary.interrupted = true;
            }
            self.merge_keyword_index(summary, opts.progress.as_ref());
        }
        opts.progress.finish();
        outcome?;
        summary.seconds.parse = workers.parse_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        summary.seconds.embed = workers.embed_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        if let Ok(by_type) = workers.parse_by_type.lock() {
            for (t, secs) in by_type.iter() {
                summary.by_type.entry(*t).or_default().parse_seconds = *secs;
            }
        }
        Ok(())
    }

    /// Merges the keyword index when this run's writes call for it.
    /// Interrupted, the merge waits for the next run: it takes a while. A
    /// failed merge loses nothing (searches read the index unmerged).
    fn merge_keyword_index(&self, summary: &IngestSummary, progress: &dyn Progress) {
        let merged =
            self.db
                .note_keyword_writes(summary.chunks as u64, !summary.interrupted, || {
                    progress.merging_keyword_index()
                });
        if let Err(e) = merged {
            let reason = format!(
                "the keyword index was not merged ({e}); searches read it unmerged \
                 until a later run merges it"
            );
            self.errors_log.record(self.db.path(), &reason);
        }
    }
}

/// The tags a run gives: this run's to every document it reaches, and a
/// root's own to the new and changed documents under it (a file moved
/// into a folder added with `--tags` gets them).
struct FileTags {
    pub run: Vec<String>,
    pub roots: Vec<Root>,
}

impl FileTags {
    /// The tags of a document written from the file stored as `path`.
    fn written(&self, path: &str) -> Vec<String> {
        let mut tags = self.run.clone();
        for r in self.roots.iter().filter(|r| r.holds(path)) {
            tags.extend(r.tags.iter().cloned());
        }
        normalize_tags(tags)
    }
}

/// Marks the indexed files among `files` to be read again though unchanged:
/// every one with `reread`, otherwise those read by an older version of
/// kb's reader of their kind (`ingest::readers`). Returns how many.
fn read_again(
    indexed: &mut HashMap<String, IndexedFile>,
    files: &[(PathBuf, DocType)],
    reread: bool,
) -> usize {
    let mut n = 0;
    for (path, doc_type) in files {
        let Some(file) = indexed.get_mut(&*source_path::encode(path)) else {
            continue;
        };
        if reread || crate::ingest::readers::read_by_older(*doc_type, file.reader_version) {
            file.forget_reading();
            n += 1;
        }
    }
    n
}

/// Each file's type and size, for the progress line's estimate.
fn file_sizes(files: &[(PathBuf, DocType)]) -> Vec<FileSize> {
    files.iter().map(|(p, t)| FileSize::of(p, *t)).collect()
}

#[cfg(test)]
mod tests;
