//! Keeping the index in step with the folders: a document whose file under
//! an added folder is gone is removed, and so is one stored under another
//! name of a file the walk has just indexed by its canonical path.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::db::Database;
use crate::error::Result;
use crate::ingest::source_path;

/// Removes the documents under one of the folders in `folders` (the folders
/// given to `kb add`, as given and canonical, and those their links lead
/// to) whose file no longer exists, or that name by another path (a link,
/// `..`: how kb before canonical paths stored them) a file that is also a
/// document under its canonical path; returns how many. `walked` holds the
/// stored paths the walk just indexed: only a document outside it is
/// looked at more closely. Files named directly are left alone (the user
/// may add them again from elsewhere).
pub(super) fn prune_deleted(
    db: &Database,
    folders: &[PathBuf],
    walked: &HashSet<String>,
) -> Result<usize> {
    let mut prefixes: Vec<String> = Vec::new();
    for root in folders.iter().filter(|p| p.is_dir()) {
        for form in [source_path::canonical(root), source_path::absolute(root)] {
            let mut prefix = source_path::encode(&form);
            if !prefix.ends_with('/') {
                prefix.push('/');
            }
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
        }
    }
    if prefixes.is_empty() {
        return Ok(0);
    }
    let files = db.document_files()?;
    let stored: HashSet<&str> = files.iter().map(|f| f.1.as_str()).collect();
    let gone: Vec<i64> = files
        .iter()
        .filter(|(_, path, _, _)| {
            prefixes.iter().any(|p| path.starts_with(p.as_str()))
                && !walked.contains(path)
                && stale(path, &stored)
        })
        .map(|(id, _, _, _)| *id)
        .collect();
    if gone.is_empty() {
        return Ok(0);
    }
    db.remove_documents(&gone)
}

/// Whether the document stored as `path` has no file any more, or is a
/// second name of a file stored under its canonical path.
fn stale(path: &str, stored: &HashSet<&str>) -> bool {
    let file = source_path::decode(path);
    if std::fs::metadata(&file).is_err() {
        return true;
    }
    let canonical = source_path::encode(&source_path::canonical(Path::new(&file)));
    canonical != path && stored.contains(canonical.as_str())
}
