//! Keeping the index in step with the folders: a document whose file under
//! an added folder is gone is removed.

use std::path::PathBuf;

use crate::db::Database;
use crate::error::Result;
use crate::ingest::source_path;

/// Removes the documents whose file under one of the folders in `folders`
/// (the folders given to `kb add` and those their links lead to, as
/// canonical paths) no longer exists; returns how many. Files named
/// directly are left alone (the user may add them again from elsewhere).
pub(super) fn prune_deleted(db: &Database, folders: &[PathBuf]) -> Result<usize> {
    let prefixes: Vec<String> = folders
        .iter()
        .filter(|p| p.is_dir())
        .map(|root| {
            let mut prefix = source_path::encode(&source_path::canonical(root));
            if !prefix.ends_with('/') {
                prefix.push('/');
            }
            prefix
        })
        .collect();
    if prefixes.is_empty() {
        return Ok(0);
    }
    let gone: Vec<i64> = db
        .document_files()?
        .into_iter()
        .filter(|(_, path, _, _)| {
            prefixes.iter().any(|p| path.starts_with(p.as_str()))
                && std::fs::metadata(source_path::decode(path)).is_err()
        })
        .map(|(id, _, _, _)| id)
        .collect();
    if gone.is_empty() {
        return Ok(0);
    }
    db.remove_documents(&gone)
}
