//! What a `kb add` run did: the counts, the time per stage, and the
//! one-line summary printed at the end. Its JSON is `kb add`'s output.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line_names_only_what_happened() {
        let quiet = IngestSummary {
            added: 2,
            skipped: 5,
            errors_log: Some(PathBuf::from("/kb/ingest-errors.log")),
            ..Default::default()
        };
        assert_eq!(
            quiet.line(),
            "Added 2 documents. 0 failed. 5 skipped (already indexed)."
        );
        let busy = IngestSummary {
            updated: 1,
            failed: 1,
            empty: 2,
            unsupported: 3,
            ..quiet
        };
        assert_eq!(
            busy.line(),
            "Added 3 documents. 1 failed. 5 skipped (already indexed). \
             1 of the added were re-indexed after a change. 3 unsupported files skipped. \
             2 empty files skipped. Reasons in /kb/ingest-errors.log."
        );
    }
}
