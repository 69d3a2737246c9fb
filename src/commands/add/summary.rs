//! What `kb add` reports: the run's counts as the JSON contract declares
//! them, and the summary a person reads.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Serialize;

use super::super::Outcome;
use crate::document::DocType;
use crate::error::{KbError, Result};
use crate::ingest::pipeline::IngestSummary;
use crate::ingest::source_path;
use crate::output::{one_line, plural, Render, Style};

/// What a run did.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub(crate) struct AddOutput {
    /// New documents indexed.
    pub added: usize,
    /// Documents whose file changed and were re-indexed.
    pub updated: usize,
    /// Files that could not be indexed (see the errors log).
    pub failed: usize,
    /// Those files, each with why.
    pub failed_files: Vec<FailedFile>,
    /// Files already indexed and unchanged.
    pub skipped: usize,
    /// Indexed files read again whether they changed or not: every one when asked to read
    /// again, otherwise those indexed by an older kb whose reader of their kind read less well
    /// (counted in `updated` when written).
    pub read_again: usize,
    /// Files of a type kb does not index.
    pub unsupported: usize,
    /// Those files, each with why (also in the errors log).
    pub unsupported_files: Vec<UnsupportedFile>,
    /// Files with nothing to index: empty, or without text (an image OCR found no text in, a
    /// presentation without slides; the errors log says which).
    pub empty: usize,
    /// Documents removed because their file under an added folder is gone.
    pub removed: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Chunks written that an earlier version of their file (or a file of the same content: a
    /// copy, or the file before a move) already had, header and text: they kept their vectors
    /// instead of being embedded again.
    pub unchanged_chunks: usize,
    /// PDF pages without extractable text.
    pub pages_without_text: u64,
    /// Directories or links the walk could not enter (unreadable, loops), and FIFOs, sockets and
    /// devices it skipped (each logged).
    pub walk_errors: usize,
    /// Links whose target lies outside every file and folder given to add (this run's and
    /// earlier runs'): not followed, each logged with its target (`follow_external_links`
    /// follows them).
    pub external_links: usize,
    /// Files found under the added folders that were removed by name: not indexed, they stay
    /// out until added by name again.
    pub kept_out: usize,
    /// True when the run was stopped by Ctrl-C before the end.
    pub interrupted: bool,
    /// The log that names each file that failed and why.
    pub errors_log: Option<PathBuf>,
    /// Documents and chunks written, by document type.
    pub by_type: BTreeMap<DocType, TypeCounts>,
    /// Where the time went (the stages overlap; `parse` is summed over the
    /// parser threads).
    pub seconds: Seconds,
    /// Only files were named and none of them could be indexed: the run
    /// failed (exit 1), its summary says why.
    #[serde(skip)]
    #[schemars(skip)]
    pub named_files_failed: bool,
    /// Named paths that are neither files nor folders (a device, a FIFO,
    /// a socket): what the failure names.
    #[serde(skip)]
    #[schemars(skip)]
    pub named_not_documents: Vec<String>,
}

/// A file that could not be indexed.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct FailedFile {
    /// The file, as kb stores paths.
    pub path: String,
    /// Why it could not be indexed.
    pub reason: String,
}

/// A file kb does not index.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct UnsupportedFile {
    /// The file, as kb stores paths.
    pub path: String,
    /// Its extension, lower case, without the dot ("" when it has none).
    pub extension: String,
    /// True when the file was itself given to add, not found in a folder.
    pub named: bool,
    /// Why it was not indexed.
    pub reason: String,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
pub(crate) struct TypeCounts {
    /// Documents written.
    pub documents: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Time spent reading, parsing and chunking these files, summed over the
    /// parser threads.
    pub parse_seconds: f64,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
pub(crate) struct Seconds {
    /// The whole run.
    pub total: f64,
    /// Finding the files.
    pub walk: f64,
    /// Reading, parsing and chunking, summed over the parser threads.
    pub parse: f64,
    /// Embedding.
    pub embed: f64,
    /// Writing to the database.
    pub write: f64,
}

impl AddOutput {
    pub(super) fn of(s: IngestSummary) -> AddOutput {
        AddOutput {
            added: s.added,
            updated: s.updated,
            failed: s.failed,
            failed_files: s
                .failed_files
                .into_iter()
                .map(|(path, reason)| FailedFile {
                    path: source_path::encode(&path),
                    reason,
                })
                .collect(),
            skipped: s.skipped,
            read_again: s.read_again,
            unsupported: s.unsupported,
            unsupported_files: s
                .unsupported_files
                .into_iter()
                .map(|u| UnsupportedFile {
                    path: source_path::encode(&u.path),
                    extension: u.extension,
                    named: u.named,
                    reason: u.reason,
                })
                .collect(),
            empty: s.empty,
            removed: s.removed,
            chunks: s.chunks,
            unchanged_chunks: s.unchanged_chunks,
            pages_without_text: s.pages_without_text,
            walk_errors: s.walk_errors,
            external_links: s.external_links,
            kept_out: s.kept_out,
            interrupted: s.interrupted,
            errors_log: s.errors_log,
            by_type: s
                .by_type
                .into_iter()
                .map(|(t, c)| {
                    (
                        t,
                        TypeCounts {
                            documents: c.documents,
                            chunks: c.chunks,
                            parse_seconds: c.parse_seconds,
                        },
                    )
                })
                .collect(),
            seconds: Seconds {
                total: s.seconds.total,
                walk: s.seconds.walk,
                parse: s.seconds.parse,
                embed: s.seconds.embed,
                write: s.seconds.write,
            },
            named_files_failed: false,
            named_not_documents: Vec::new(),
        }
    }
}

impl Outcome for AddOutput {
    fn to_json(&self) -> Result<String> {
        crate::output::to_json(self)
    }

    fn failure(&self) -> Option<KbError> {
        if self.interrupted {
            return Some(KbError::Interrupted);
        }
        self.named_files_failed.then(|| {
            let why: Vec<String> = self
                .failed_files
                .iter()
                .map(|f| format!("{}: {}", one_line(&f.path), f.reason))
                .chain(self.named_not_documents.iter().map(|p| {
                    format!("{p}: not a file or a folder (a device, FIFO or socket)")
                }))
                .collect();
            KbError::invalid(
                "paths",
                format!("nothing was indexed: {}", why.join("; ")),
            )
        })
    }
}

impl Render for AddOutput {
    /// The design's summary line, with the extra counts when non-zero.
    fn human(&self, _style: &Style) -> String {
        let mut s = format!("Added {}.", plural(self.added as u64, "document", "documents"));
        if self.updated > 0 {
            let why = match self.read_again {
                0 => "changed since indexed",
                _ => "changed since indexed, or read again",
            };
            s.push_str(&format!(
                " Updated {} ({why}).",
                plural(self.updated as u64, "document", "documents")
            ));
        }
        if self.unchanged_chunks > 0 {
            let n = self.unchanged_chunks;
            s.push_str(&format!(
                " {} read as before kept {} vectors.",
                plural(n as u64, "chunk", "chunks"),
                if n == 1 { "its" } else { "their" }
            ));
        }
        if self.read_again > 0 {
            s.push_str(&format!(
                " {} read again (--reread, or indexed by an older kb that read {} less well).",
                plural(self.read_again as u64, "indexed file", "indexed files"),
                if self.read_again == 1 { "it" } else { "them" }
            ));
        }
        s.push_str(&format!(
            " {} failed. {} skipped (already indexed).",
            self.failed, self.skipped
        ));
        if self.unsupported > 0 {
            s.push_str(&format!(
                " {} skipped ({}).",
                plural(self.unsupported as u64, "unsupported file", "unsupported files"),
                self.unsupported_by_extension()
            ));
        }
        if self.empty > 0 {
            s.push_str(&format!(
                " {} skipped.",
                plural(
                    self.empty as u64,
                    "file with nothing to index",
                    "files with nothing to index"
                )
            ));
        }
        if self.pages_without_text > 0 {
            s.push_str(&format!(
                " {} PDF pages had no extractable text (the errors log says why: OCR off, \
                 missing, or it found nothing).",
                self.pages_without_text
            ));
        }
        if self.walk_errors > 0 {
            s.push_str(&format!(
                " {} could not be read or {} not documents.",
                plural(
                    self.walk_errors as u64,
                    "folder, link or special file",
                    "folders, links or special files"
                ),
                if self.walk_errors == 1 { "is" } else { "are" }
            ));
        }
        if self.external_links > 0 {
            s.push_str(&format!(
                " {} to outside the added files and folders not followed.",
                plural(self.external_links as u64, "link", "links")
            ));
        }
        if self.kept_out > 0 {
            s.push_str(&format!(
                " {} kept out (removed with kb remove; kb add FILE indexes one again).",
                plural(self.kept_out as u64, "file", "files")
            ));
        }
        if self.removed > 0 {
            s.push_str(&format!(
                " Removed {} no longer found in the added files and folders (deleted, moved, \
                 left out by --exclude or an ignore file, or reached through a link that is gone).",
                plural(self.removed as u64, "document", "documents"),
            ));
        }
        if self.failed > 0
            || self.empty > 0
            || self.unsupported > 0
            || self.walk_errors > 0
            || self.external_links > 0
        {
            if let Some(p) = &self.errors_log {
                s.push_str(&format!(" Reasons in {}.", p.display()));
            }
        }
        if self.interrupted {
            s.push_str(" Interrupted: re-run the same command to continue.");
        }
        s.push('\n');
        // A file the user named and kb cannot read gets its own line; so
        // does each file that failed, when only a few did.
        if self.failed_files.len() <= 5 {
            for f in &self.failed_files {
                s.push_str(&format!("{}: {}\n", one_line(&f.path), f.reason));
            }
        }
        for u in self.unsupported_files.iter().filter(|u| u.named) {
            s.push_str(&format!(
                "{}: {}\n",
                one_line(&u.path),
                u.reason
            ));
        }
        s
    }
}

impl AddOutput {
    /// ".html 3, .docx 1, no extension 1": most first, then by name.
    fn unsupported_by_extension(&self) -> String {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for u in &self.unsupported_files {
            *counts.entry(u.extension.as_str()).or_default() += 1;
        }
        let mut counts: Vec<(&str, usize)> = counts.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        counts
            .iter()
            .map(|(ext, n)| match *ext {
                "" => format!("no extension {n}"),
                ext => format!(".{ext} {n}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_only_what_happened() {
        let quiet = AddOutput {
            added: 1,
            skipped: 5,
            errors_log: Some(PathBuf::from("/kb/ingest-errors.log")),
            ..Default::default()
        };
        assert_eq!(
            quiet.human(&Style::PLAIN),
            "Added 1 document. 0 failed. 5 skipped (already indexed).\n"
        );
        let busy = AddOutput {
            updated: 1,
            failed: 1,
            empty: 2,
            unsupported: 2,
            unsupported_files: vec![
                UnsupportedFile {
                    path: "/docs/page.xyz".into(),
                    extension: "xyz".into(),
                    named: true,
                    reason: "not indexed: .xyz is not a type kb reads (kb reads .md)".into(),
                },
                UnsupportedFile {
                    path: "/docs/Makefile".into(),
                    extension: String::new(),
                    named: false,
                    reason: "not indexed: no extension kb reads".into(),
                },
            ],
            removed: 1,
            interrupted: true,
            errors_log: quiet.errors_log.clone(),
            skipped: 5,
            added: 1,
            ..Default::default()
        };
        assert_eq!(
            busy.human(&Style::PLAIN),
            "Added 1 document. Updated 1 document (changed since indexed). 1 failed. \
             5 skipped (already indexed). 2 unsupported files skipped (no extension 1, .xyz 1). \
             2 files with nothing to index skipped. Removed 1 document no longer found in the added files and \
             folders (deleted, moved, left out by --exclude or an ignore file, or reached through a link \
             that is gone). \
             Reasons in /kb/ingest-errors.log. Interrupted: re-run the same command to continue.\n\
             /docs/page.xyz: not indexed: .xyz is not a type kb reads (kb reads .md)\n"
        );
        assert!(busy.failure().is_some() && quiet.failure().is_none());
    }
}
