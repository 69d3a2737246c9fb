//! `ingest-errors.log`: one line per file that could not be indexed (or
//! indexed with a warning, or skipped by the walk), so a run goes on and the
//! user can see why.
//!
//! Every entry is one line, whatever the file is called: the path is
//! written as kb stores it (`source_path::encode`: a backslash `\\`, a
//! byte that is not UTF-8 `\xHH`), and in the path and the reason a
//! newline, tab or other control character is escaped (`\n`, `\t`,
//! `\xHH`) as kb's human output escapes it, so a crafted file name cannot
//! split an entry or forge another.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::ingest::source_path;
use crate::output::{escape, Escape};

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
        let line = entry(file, reason);
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if written.is_err() {
            eprintln!(
                "kb: {}: {}",
                escape(&source_path::encode(file), Escape::Terminal),
                escape(reason, Escape::Terminal)
            );
        }
    }
}

/// One entry of the log: `time<TAB>file<TAB>reason<NEWLINE>`, the file and
/// the reason escaped so the entry is one line of three fields.
fn entry(file: &Path, reason: &str) -> String {
    format!(
        "{}\t{}\t{}\n",
        humantime::format_rfc3339_seconds(std::time::SystemTime::now()),
        escape(&source_path::encode(file), Escape::Line),
        escape(reason, Escape::Line)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_crafted_file_name_cannot_split_or_forge_an_entry() {
        use std::os::unix::ffi::OsStrExt;
        let forged = "/docs/a.md\tnot indexed\n2030-01-01T00:00:00Z\t/etc/shadow\tfine.md";
        let raw = std::ffi::OsStr::from_bytes(b"/docs/caf\xe9\x1b[2J\\x.md");
        for (file, reason) in [
            (Path::new(forged), "empty file"),
            (Path::new(raw), "a reason\nwith a second line\tand a tab"),
        ] {
            let e = entry(file, reason);
            assert_eq!(e.matches('\n').count(), 1, "{e:?}");
            assert!(e.ends_with('\n'));
            let fields: Vec<&str> = e.trim_end_matches('\n').split('\t').collect();
            assert_eq!(fields.len(), 3, "{e:?}");
            assert!(!e
                .trim_end_matches('\n')
                .chars()
                .any(|c| c.is_control() && c != '\t'));
        }
        let e = entry(Path::new(forged), "x");
        assert!(
            e.contains("/docs/a.md\\tnot indexed\\n2030-01-01T00:00:00Z\\t/etc/shadow"),
            "{e}"
        );
        // The stored form of a name that is not UTF-8, with its escape
        // and backslash, then the control character escaped.
        let e = entry(Path::new(raw), "x");
        assert!(e.contains("/docs/caf\\xE9\\x1B[2J\\\\x.md"), "{e}");
    }
}
