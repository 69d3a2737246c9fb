//! What a `kb add` run did: the counts, the time per stage, and the
//! one-line summary printed at the end. Its JSON is `kb add`'s output.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::document::DocType;

/// A file the walk found that kb does not index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unsupported {
    pub path: PathBuf,
    /// Its extension, lower case, without the dot ("" when it has none).
    pub extension: String,
    /// Named on the command line (not found in a folder).
    pub named: bool,
    pub reason: String,
}

impl Unsupported {
    pub(super) fn of(path: PathBuf, named: bool) -> Unsupported {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let what = if extension.is_empty() {
            "no extension kb reads, and its first bytes are not a PDF or a script".to_string()
        } else {
            format!(".{extension} is not a type kb reads")
        };
        // A file the user named gets the list of what kb reads: they meant it.
        let reason = if named {
            format!(
                "not indexed: {what} (kb reads {})",
                DocType::supported_formats()
            )
        } else {
            format!("not indexed: {what}")
        };
        Unsupported {
            path,
            extension,
            named,
            reason,
        }
    }
}

/// What a run did, printed as the summary.
#[derive(Debug, Default, Clone, Serialize, PartialEq)]
pub struct IngestSummary {
    /// New documents indexed.
    pub added: usize,
    /// Documents whose file changed and were re-indexed.
    pub updated: usize,
    /// Files that could not be indexed (see the errors log).
    pub failed: usize,
    /// Those files, each with why.
    pub failed_files: Vec<(PathBuf, String)>,
    /// Files already indexed and unchanged.
    pub skipped: usize,
    /// Indexed files read again whether they changed or not: all of them
    /// with `--reread`, otherwise those a newer kb reads better (read by an
    /// older version of its reader of their kind).
    pub read_again: usize,
    /// Files of a type kb does not index.
    pub unsupported: usize,
    /// Those files, each with why.
    pub unsupported_files: Vec<Unsupported>,
    /// Empty files.
    pub empty: usize,
    /// Documents removed because their file under an added folder is gone.
    pub removed: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Chunks written that an earlier version of their file (or a file of
    /// the same content) already had, header and text: they kept their
    /// vectors instead of being embedded again.
    pub unchanged_chunks: usize,
    /// PDF pages without extractable text (scanned pages; OCR is not done).
    pub pages_without_text: u64,
    /// Directories or links the walk could not enter (unreadable, loops), and FIFOs, sockets and
    /// devices it skipped (each logged).
    pub walk_errors: usize,
    /// Links to outside every added file and folder, not followed (logged).
    pub external_links: usize,
    /// Files found under the added folders that `kb remove` keeps out.
    pub kept_out: usize,
    /// True when the run was stopped by Ctrl-C before the end.
    pub interrupted: bool,
    pub errors_log: Option<PathBuf>,
    /// Documents and chunks written, by document type.
    pub by_type: BTreeMap<DocType, TypeCounts>,
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
