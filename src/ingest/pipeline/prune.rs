//! Keeping the index in step with what was added: a document stays while a
//! walk of a root reaches it (a document that came in through a link goes
//! when the link goes); a document whose file under an added folder is gone
//! is removed, and so is one stored under another name of a file the walk
//! has just indexed by its canonical path; a document an older kb indexed
//! through a link to outside the roots goes when the walk finds that link.
//! A document reached only through a link keeps that link, so the change
//! rule (`ingest::change`) calls it stale as soon as the link goes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::carry::carry_tags;
use super::errors_log::ErrorsLog;
use super::walk::{ExternalLink, Walked, WalkedRoot};
use crate::db::{Database, IndexedFile, Root};
use crate::error::Result;
use crate::ingest::source_path;

/// Records which documents each root's walk reached (`root_ids` in the
/// order of `roots`). When the walks ran to the end (`complete`), a
/// document a root's walk reached before and not now is no longer that
/// root's; one that no root reaches any more is removed (its link, or the
/// link to its folder, is gone, or it is ignored now). Returns how many
/// were removed.
pub(super) fn follow_reach(
    db: &Database,
    indexed: &HashMap<String, IndexedFile>,
    roots: &[WalkedRoot],
    root_ids: &[i64],
    complete: bool,
    known: &HashSet<i64>,
    log: &ErrorsLog,
) -> Result<usize> {
    let by_path: HashMap<&str, i64> = indexed
        .iter()
        .map(|(path, f)| (path.as_str(), f.id))
        .collect();
    let paths: HashMap<i64, &str> = by_path.iter().map(|(p, id)| (*id, *p)).collect();
    let mut lost_any: Vec<i64> = Vec::new();
    for (root, &root_id) in roots.iter().zip(root_ids) {
        let reached: HashSet<i64> = root
            .reached
            .iter()
            .filter_map(|p| by_path.get(p.as_str()).copied())
            .collect();
        let before = db.root_documents(root_id)?;
        let new: Vec<i64> = reached.difference(&before).copied().collect();
        let lost: Vec<i64> = if complete {
            before
                .difference(&reached)
                .copied()
                .filter(|id| !paths.get(id).is_some_and(|p| root.unseen(p)))
                .collect()
        } else {
            Vec::new()
        };
        db.set_root_documents(root_id, &new, &lost, complete)?;
        lost_any.extend(lost);
    }
    if lost_any.is_empty() {
        return Ok(0);
    }
    lost_any.sort_unstable();
    lost_any.dedup();
    let gone = db.unreached_documents(&lost_any)?;
    if gone.is_empty() {
        return Ok(0);
    }
    for id in &gone {
        if let Some(p) = paths.get(id) {
            log.record(
                &source_path::decode(p),
                "removed: no walk of the added files and folders reaches it any more \
                 (the link that led to it, or its folder, is gone, or it is ignored now)",
            );
        }
    }
    carry_tags(db, &gone, known)?;
    db.remove_documents(&gone)
}

/// Records, for each document the walk reached, the link it was reached
/// through when that one link is the only way to it: reached directly, or
/// through several links, or also by a root this run did not walk (whose
/// walk this one cannot see), it records none, so a link's removal never
/// calls stale a document the next walk keeps.
pub(super) fn record_links(
    db: &Database,
    indexed: &HashMap<String, IndexedFile>,
    walked: &Walked,
    root_ids: &[i64],
) -> Result<()> {
    let mut changed = Vec::new();
    let files: HashSet<&str> = walked
        .roots
        .iter()
        .flat_map(|r| r.reached.iter().map(String::as_str))
        .collect();
    for file in files {
        let Some(doc) = indexed.get(file) else {
            continue;
        };
        let mut link = walked.only_link(file).map(str::to_owned);
        if link.is_some()
            && db
                .document_root_ids(doc.id)?
                .iter()
                .any(|r| !root_ids.contains(r))
        {
            link = None;
        }
        if link != doc.via_link {
            changed.push((doc.id, link));
        }
    }
    db.set_via_links(&changed)
}

/// Removes documents that no root reaches and that lie at or under the
/// target of a link the walk did not follow because it leads outside every
/// root (`roots`): an older kb followed such links. Returns how many.
pub(super) fn prune_external(
    db: &Database,
    links: &[ExternalLink],
    roots: &[Root],
    log: &ErrorsLog,
) -> Result<usize> {
    if links.is_empty() {
        return Ok(0);
    }
    let targets: Vec<(String, &ExternalLink)> = links
        .iter()
        .map(|l| (source_path::encode(&l.target), l))
        .collect();
    let mut gone = Vec::new();
    for (id, path) in db.documents_without_root()? {
        if roots.iter().any(|r| r.holds(&path)) {
            continue;
        }
        let via = targets.iter().find(|(t, _)| {
            path == *t
                || path
                    .strip_prefix(t.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        });
        if let Some((_, l)) = via {
            log.record(
                &source_path::decode(&path),
                &format!(
                    "removed: it was indexed through the link {}, which leads outside the \
                     files and folders given to kb add",
                    source_path::encode(&l.link)
                ),
            );
            gone.push(id);
        }
    }
    if gone.is_empty() {
        return Ok(0);
    }
    db.remove_documents(&gone)
}

/// Removes the documents under one of the folders in `folders` (the folders
/// given to `kb add`, as given and canonical) whose file no longer exists, or that name by another path (a link,
/// `..`: how kb before canonical paths stored them) a file that is also a
/// document under its canonical path; returns how many. `walked` holds the
/// stored paths the walk just indexed: only a document outside it is
/// looked at more closely. Files named directly are left alone (the user
/// may add them again from elsewhere).
pub(super) fn prune_deleted(
    db: &Database,
    folders: &[PathBuf],
    walked: &HashSet<String>,
    known: &HashSet<i64>,
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
    let stored: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let gone: Vec<i64> = files
        .iter()
        .filter(|f| {
            prefixes.iter().any(|p| f.path.starts_with(p.as_str()))
                && !walked.contains(&f.path)
                && stale(&f.path, &stored)
        })
        .map(|f| f.id)
        .collect();
    if gone.is_empty() {
        return Ok(0);
    }
    carry_tags(db, &gone, known)?;
    db.remove_documents(&gone)
}

/// Whether the document stored as `path` has no file any more, or is a
/// second name of a file stored under its canonical path.
fn stale(path: &str, stored: &HashSet<&str>) -> bool {
    let file = source_path::decode(path);
    // Only a file that is not there is gone: one kb may not read now (a
    // folder's permissions changed) keeps its document.
    if let Err(e) = std::fs::metadata(&file) {
        return matches!(
            e.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
        );
    }
    let canonical = source_path::encode(&source_path::canonical(Path::new(&file)));
    canonical != path && stored.contains(canonical.as_str())
}
