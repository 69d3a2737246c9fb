//! Finding the files to index under the paths given to `kb add`.
//!
//! Links are followed only to what the user added: a link whose target
//! (resolved to its canonical path) lies outside every root (the paths of
//! this run and those of earlier runs) is not followed but logged with its
//! target, unless `ingestion.follow_external_links` (`kb add
//! --follow-external-links`) says to. A downloaded folder holding
//! `notes.md -> ~/.ssh/id_rsa` must not put the key into the index.
//! FIFOs, sockets and devices are not documents: they are skipped and
//! logged like every other skip.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::errors_log::ErrorsLog;
use super::summary::Unsupported;
use crate::db::Root;
use crate::document::DocType;
use crate::error::{KbError, Result};
use crate::ingest::detect;
use crate::ingest::source_path::{self, canonical};

/// The file that lists, like a `.gitignore`, what `kb add` leaves out of
/// the folder it sits in (and below).
pub(super) const IGNORE_FILE: &str = ".kbignore";

/// Where links may lead.
#[derive(Debug, Clone, Default)]
pub(super) struct LinkPolicy {
    /// Every root, this run's and the recorded ones, canonical and stored
    /// (`source_path::encode`).
    pub roots: Vec<Root>,
    /// Follow links wherever they lead, under every root
    /// (`ingestion.follow_external_links`).
    pub follow_external: bool,
}

impl LinkPolicy {
    /// The policy for the walk of `root` (canonical): links under a root
    /// added with `--follow-external-links` (or inside one) are followed
    /// wherever they lead.
    fn for_root(&self, root: &Path) -> LinkPolicy {
        let stored = source_path::encode(root);
        let follows = self
            .roots
            .iter()
            .any(|r| r.follow_external_links && r.holds(&stored));
        LinkPolicy {
            roots: self.roots.clone(),
            follow_external: self.follow_external || follows,
        }
    }

    /// Whether a link to `target` (canonical) may be followed.
    fn allows(&self, target: &Path) -> bool {
        self.follow_external || {
            let stored = source_path::encode(target);
            self.roots.iter().any(|r| r.holds(&stored))
        }
    }
}

/// What the walk of one path given to `kb add` reached.
#[derive(Debug)]
pub(super) struct WalkedRoot {
    /// The supported files reached, stored form.
    pub reached: Vec<String>,
    /// Folders and files the walk found but could not read (permission
    /// denied), stored form: what lies under them was not seen, so it is
    /// not gone.
    pub unreadable: Vec<String>,
}

impl WalkedRoot {
    /// Whether the file stored as `path` is at or under a place this walk
    /// could not read.
    pub(super) fn unseen(&self, path: &str) -> bool {
        self.unreadable.iter().any(|u| {
            path.strip_prefix(u.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    }
}

/// The path a walk error names when the path is there but could not be
/// read; none for a dangling link or a loop, whose target is not there.
fn unreadable_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            unreadable_path(err)
        }
        ignore::Error::WithPath { path, err } => {
            let io = err.io_error()?;
            let missing = matches!(
                io.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            );
            (!missing).then_some(path.as_path())
        }
        _ => None,
    }
}

/// A link the walk did not follow, and where it leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ExternalLink {
    pub link: PathBuf,
    /// Canonical.
    pub target: PathBuf,
}

/// What the walk found.
#[derive(Debug, Default)]
pub(super) struct Walked {
    /// Supported files with their type, as canonical paths (see
    /// `source_path`), sorted, once each.
    pub files: Vec<(PathBuf, DocType)>,
    /// Files of a type kb does not index, each with why (also logged).
    pub unsupported: Vec<Unsupported>,
    /// Folders or links that could not be entered, and FIFOs, sockets and
    /// devices (each logged).
    pub errors: usize,
    /// The paths given, in order, each with what it reached.
    pub roots: Vec<WalkedRoot>,
    /// Links to outside every root, not followed (logged).
    pub external_links: Vec<ExternalLink>,
    /// The files this walk reached only through links, each with the paths
    /// it was reached by (the root canonical, then the names as walked);
    /// stored form. A file reached directly by any root is not here.
    pub via_links: BTreeMap<String, BTreeSet<String>>,
}

impl Walked {
    /// The link the file stored as `file` was reached through, when it was
    /// reached only through that one.
    pub(super) fn only_link(&self, file: &str) -> Option<&str> {
        match self.via_links.get(file) {
            Some(links) if links.len() == 1 => links.first().map(String::as_str),
            _ => None,
        }
    }
}

/// kb's data folder, known by its name first so that only a folder of
/// that name is resolved.
#[derive(Clone)]
struct DataDir {
    name: Option<std::ffi::OsString>,
    canonical: PathBuf,
}

impl DataDir {
    fn new(path: &Path) -> DataDir {
        DataDir {
            name: path.file_name().map(ToOwned::to_owned),
            canonical: canonical(path),
        }
    }

    fn is(&self, entry: &ignore::DirEntry) -> bool {
        entry.file_type().is_some_and(|t| t.is_dir())
            && self.name.as_deref() == Some(entry.file_name())
            && canonical(entry.path()) == self.canonical
    }
}

/// Lists the supported files under `paths` (hidden entries, what a
/// `.gitignore` or `.kbignore` names and what matches an `exclude` glob
/// skipped; links followed where `links` allows), counting the unsupported
/// ones. Loops, unreadable folders, links not followed and special files
/// are logged and skipped, and so is kb's own data folder (`data_dir`)
/// when it lies under a root. A bad glob is an error.
pub(super) fn collect_files(
    paths: &[PathBuf],
    exclude: &[String],
    links: &LinkPolicy,
    data_dir: &Path,
    log: &ErrorsLog,
) -> Result<Walked> {
    let data_dir = DataDir::new(data_dir);
    let mut walked = Walked::default();
    let mut direct: HashSet<String> = HashSet::new();
    for root in paths {
        let mut reached = Vec::new();
        let mut unreadable = Vec::new();
        let canonical_root = canonical(root);
        let mut overrides = ignore::overrides::OverrideBuilder::new(root);
        for glob in exclude {
            overrides.add(&format!("!{glob}")).map_err(|e| {
                KbError::invalid(
                    "exclude",
                    format!("--exclude {glob}: not a glob pattern ({e})"),
                )
            })?;
        }
        let overrides = overrides
            .build()
            .map_err(|e| KbError::invalid("exclude", format!("--exclude: {e}")))?;
        // Links found inside the root (never the root itself: the user
        // named it) to targets outside every root, kept out of the walk.
        let outside = Arc::new(Mutex::new(Vec::<ExternalLink>::new()));
        let filter = {
            let (outside, links) = (outside.clone(), links.for_root(&canonical_root));
            let data_dir = data_dir.clone();
            move |entry: &ignore::DirEntry| {
                if entry.depth() > 0 && data_dir.is(entry) {
                    return false;
                }
                if entry.depth() == 0 || !entry.path_is_symlink() {
                    return true;
                }
                // A dangling link or a loop: the walk reports it.
                let Ok(target) = std::fs::canonicalize(entry.path()) else {
                    return true;
                };
                if links.allows(&target) {
                    return true;
                }
                if let Ok(mut o) = outside.lock() {
                    o.push(ExternalLink {
                        link: entry.path().to_path_buf(),
                        target,
                    });
                }
                false
            }
        };
        let walker = ignore::WalkBuilder::new(root)
            .hidden(true)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .require_git(false)
            .follow_links(true)
            .add_custom_ignore_filename(IGNORE_FILE)
            .overrides(overrides)
            .filter_entry(filter)
            .build();
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    walked.errors += 1;
                    log.record(root, &format!("skipped while walking: {e}"));
                    if let Some(p) = unreadable_path(&e) {
                        unreadable.push(source_path::encode(&canonical(p)));
                    }
                    continue;
                }
            };
            let Some(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                continue;
            }
            if !file_type.is_file() {
                // FIFOs, sockets and devices are not documents (and a
                // FIFO would block the reader).
                walked.errors += 1;
                let what = special_file(&file_type);
                let reason = if entry.path_is_symlink() {
                    format!(
                        "skipped: a link to {what} ({}), not a document",
                        source_path::encode(&canonical(entry.path()))
                    )
                } else {
                    format!("skipped: {what}, not a document")
                };
                log.record(entry.path(), &reason);
                continue;
            }
            let depth = entry.depth();
            let path = entry.into_path();
            match detect(&path) {
                Some(t) => {
                    let c = canonical(&path);
                    // The path as walked, from the root as recorded: it
                    // differs from the canonical one when a link below the
                    // root led here (the root itself is what the user named).
                    let as_walked = match path.strip_prefix(root) {
                        Ok(rel) if depth > 0 => canonical_root.join(rel),
                        _ => c.clone(),
                    };
                    let stored = source_path::encode(&c);
                    if as_walked == c {
                        direct.insert(stored.clone());
                    } else {
                        walked
                            .via_links
                            .entry(stored.clone())
                            .or_default()
                            .insert(source_path::encode(&as_walked));
                    }
                    reached.push(stored);
                    walked.files.push((c, t));
                }
                None => {
                    let skipped = Unsupported::of(canonical(&path), depth == 0);
                    log.record(&skipped.path, &skipped.reason);
                    walked.unsupported.push(skipped);
                }
            }
        }
        let outside = std::mem::take(&mut *outside.lock().unwrap_or_else(|p| p.into_inner()));
        for l in &outside {
            log.record(
                &l.link,
                &format!(
                    "skipped: a link to {}, outside the files and folders given to kb add; \
                     not followed (kb add --follow-external-links, or \
                     ingestion.follow_external_links: true, follows such links)",
                    source_path::encode(&l.target)
                ),
            );
        }
        walked.external_links.extend(outside);
        reached.sort();
        reached.dedup();
        walked.roots.push(WalkedRoot {
            reached,
            unreadable,
        });
    }
    walked.files.sort();
    walked.files.dedup();
    walked.via_links.retain(|file, _| !direct.contains(file));
    Ok(walked)
}

/// What a file that is neither a regular file nor a folder is, in words.
fn special_file(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    let _ = t;
    "a special file"
}

/// The type of a file kb reads: by its extension, else by its first bytes.
pub(super) fn detect(path: &Path) -> Option<DocType> {
    detect::detect_by_extension(path).or_else(|| sniff(path))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_the_walk_cannot_read_keeps_what_is_under_it() {
        let denied = |path: &str, kind: std::io::ErrorKind| ignore::Error::WithDepth {
            depth: 1,
            err: Box::new(ignore::Error::WithPath {
                path: PathBuf::from(path),
                err: Box::new(ignore::Error::Io(std::io::Error::from(kind))),
            }),
        };
        let e = denied("/docs/private", std::io::ErrorKind::PermissionDenied);
        assert_eq!(unreadable_path(&e), Some(Path::new("/docs/private")));
        // A dangling link's target is not there: not unreadable.
        assert_eq!(
            unreadable_path(&denied("/docs/gone", std::io::ErrorKind::NotFound)),
            None
        );
        let root = WalkedRoot {
            reached: Vec::new(),
            unreadable: vec!["/docs/private".into()],
        };
        assert!(root.unseen("/docs/private"));
        assert!(root.unseen("/docs/private/a.md"));
        assert!(!root.unseen("/docs/private-notes/a.md"));
        assert!(!root.unseen("/docs/a.md"));
    }

    #[test]
    fn walk_skips_hidden_and_ignored_counts_unsupported_and_sniffs() {
        let home = tempfile::Builder::new()
            .prefix("kb-walk")
            .tempdir()
            .unwrap();
        let root = home.path().join("docs");
        let put = |name: &str, content: &[u8]| {
            let p = root.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        };
        put("a.md", b"# A\n");
        put("notes/b.txt", b"b");
        put("run-me", b"#!/usr/bin/env python3\nprint(1)\n");
        put("model.stl", b"solid\x00\x01");
        put(".hidden/c.md", b"# C\n");
        put("build/d.md", b"# D\n");
        put(".gitignore", b"build/\n");
        // kb's own data folder inside the root: neither indexed nor counted.
        put("kbdata/config.yaml", b"search:\n  rerank: off\n");
        put("kbdata/kb.db", b"SQLite format 3\x00");
        let log = ErrorsLog::new(home.path().join("errors.log"));
        let walked = collect_files(
            std::slice::from_ref(&root),
            &[],
            &LinkPolicy::default(),
            &root.join("kbdata"),
            &log,
        )
        .unwrap();
        let found: Vec<(String, DocType)> = walked
            .files
            .iter()
            .map(|(p, t)| {
                assert!(p.is_absolute(), "{}", p.display());
                let rel = p.strip_prefix(std::fs::canonicalize(&root).unwrap());
                (rel.unwrap().to_string_lossy().into_owned(), *t)
            })
            .collect();
        assert_eq!(
            found,
            [
                ("a.md".to_string(), DocType::Markdown),
                ("notes/b.txt".to_string(), DocType::Note),
                ("run-me".to_string(), DocType::Code),
            ]
        );
        assert_eq!((walked.unsupported.len(), walked.errors), (1, 0));
        // Each unsupported file is named with why, in the summary and the log.
        let skipped = &walked.unsupported[0];
        assert!(skipped.path.ends_with("model.stl"), "{skipped:?}");
        assert_eq!(skipped.extension, "stl");
        assert_eq!(skipped.reason, "not indexed: .stl is not a type kb reads");
        let logged = std::fs::read_to_string(log.path()).unwrap();
        assert!(logged.contains("model.stl\tnot indexed: .stl"), "{logged}");
        // A folder given twice yields its files once.
        let twice = collect_files(
            &[root.clone(), root.join("notes")],
            &[],
            &LinkPolicy::default(),
            &root.join("kbdata"),
            &log,
        )
        .unwrap();
        assert_eq!(twice.files, walked.files);
        // --exclude globs and a .kbignore file leave things out.
        put("drafts/e.md", b"# E\n");
        put("notes/old.txt", b"old");
        put(".kbignore", b"drafts/\n");
        let some = collect_files(
            std::slice::from_ref(&root),
            &["*.txt".into()],
            &LinkPolicy::default(),
            &root.join("kbdata"),
            &log,
        )
        .unwrap();
        let names: Vec<String> = some
            .files
            .iter()
            .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.md", "run-me"]);
        let bad = collect_files(
            std::slice::from_ref(&root),
            &["[".into()],
            &LinkPolicy::default(),
            &home.path().join("data"),
            &log,
        );
        assert_eq!(bad.unwrap_err().field(), Some("exclude"));
    }
}
