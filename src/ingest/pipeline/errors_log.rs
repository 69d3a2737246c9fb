//! `ingest-errors.log`: one line per file that could not be indexed (or
//! indexed with a warning), so a run goes on and the user can see why.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The errors log of a data directory (`Config::errors_log_path`).
pub(super) struct ErrorsLog {
    path: PathBuf,
}

impl ErrorsLog {
    pub(super) fn new(path: PathBuf) -> ErrorsLog {
        ErrorsLog { path }
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `time<TAB>file<TAB>reason`; when the log cannot be written
    /// the reason goes to stderr instead, so it is never lost silently.
    pub(super) fn record(&self, file: &Path, reason: &str) {
        let line = format!(
            "{}\t{}\t{}\n",
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()),
            file.display(),
            reason.replace('\n', " ")
        );
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if written.is_err() {
            eprintln!("kb: {}: {}", file.display(), reason);
        }
    }
}
