//! Finding the files to index under the paths given to `kb add`.

use std::path::{Path, PathBuf};

use super::errors_log::ErrorsLog;
use crate::document::DocType;
use crate::error::{KbError, Result};
use crate::ingest::detect;
use crate::ingest::source_path::canonical;

/// The file that lists, like a `.gitignore`, what `kb add` leaves out of
/// the folder it sits in (and below).
pub(super) const IGNORE_FILE: &str = ".kbignore";

/// What the walk found.
#[derive(Debug, Default)]
pub(super) struct Walked {
    /// Supported files with their type, as canonical paths (see
    /// `source_path`), sorted, once each.
    pub files: Vec<(PathBuf, DocType)>,
    /// Files of a type kb does not index.
    pub unsupported: usize,
    /// Folders or links that could not be entered (logged).
    pub errors: usize,
    /// The folders given and the folders links inside them lead to
    /// (canonical): where a document whose file is gone is pruned.
    pub folders: Vec<PathBuf>,
}

/// Lists the supported files under `paths` (hidden entries, what a
/// `.gitignore` or `.kbignore` names and what matches an `exclude` glob
/// skipped; symbolic links followed), counting the unsupported ones. Loops
/// and unreadable folders are logged and skipped. A bad glob is an error.
pub(super) fn collect_files(
    paths: &[PathBuf],
    exclude: &[String],
    log: &ErrorsLog,
) -> Result<Walked> {
    let mut walked = Walked::default();
    for root in paths {
        if root.is_dir() {
            walked.folders.push(canonical(root));
        }
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
        let walker = ignore::WalkBuilder::new(root)
            .hidden(true)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .require_git(false)
            .follow_links(true)
            .add_custom_ignore_filename(IGNORE_FILE)
            .overrides(overrides)
            .build();
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    walked.errors += 1;
                    log.record(root, &format!("skipped while walking: {e}"));
                    continue;
                }
            };
            // Directories, FIFOs, sockets and devices are not documents.
            if !entry.file_type().is_some_and(|ft| ft.is_file()) {
                if entry.path_is_symlink() && entry.file_type().is_some_and(|ft| ft.is_dir()) {
                    walked.folders.push(canonical(entry.path()));
                }
                continue;
            }
            let path = entry.into_path();
            match detect::detect_by_extension(&path).or_else(|| sniff(&path)) {
                Some(t) => walked.files.push((canonical(&path), t)),
                None => walked.unsupported += 1,
            }
        }
    }
    walked.files.sort();
    walked.files.dedup();
    walked.folders.sort();
    walked.folders.dedup();
    Ok(walked)
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
        put("photo.jpg", b"\xff\xd8\xff");
        put(".hidden/c.md", b"# C\n");
        put("build/d.md", b"# D\n");
        put(".gitignore", b"build/\n");
        let log = ErrorsLog::new(home.path().join("errors.log"));
        let walked = collect_files(std::slice::from_ref(&root), &[], &log).unwrap();
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
        assert_eq!((walked.unsupported, walked.errors), (1, 0));
        // A folder given twice yields its files once.
        let twice = collect_files(&[root.clone(), root.join("notes")], &[], &log).unwrap();
        assert_eq!(twice.files, walked.files);
        // --exclude globs and a .kbignore file leave things out.
        put("drafts/e.md", b"# E\n");
        put("notes/old.txt", b"old");
        put(".kbignore", b"drafts/\n");
        let some = collect_files(std::slice::from_ref(&root), &["*.txt".into()], &log).unwrap();
        let names: Vec<String> = some
            .files
            .iter()
            .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.md", "run-me"]);
        let bad = collect_files(std::slice::from_ref(&root), &["[".into()], &log);
        assert_eq!(bad.unwrap_err().field(), Some("exclude"));
    }
}
