//! Naming why kb.db could not be opened, created or written: a full disk,
//! a file or directory kb may not read or write, a header SQLite will not
//! write, a write-ahead log deleted under a running process; each reason
//! names the file at fault.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::open::{sidecar, HEADER_BYTES};
use crate::error::KbError;

/// Names a failure to create a new database: the data directory kb may
/// not write, or the file system's own reason.
pub(super) fn creation_failure(path: &Path, dir: &Path, e: rusqlite::Error) -> KbError {
    if let Some(r) = read_only_reason(path) {
        return r.to_error();
    }
    let full = e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull);
    KbError::DbFile {
        path: dir.to_path_buf(),
        reason: if full {
            format!("the disk is full ({e}); free some space and run the command again")
        } else {
            format!("cannot create a new database here: {e}")
        },
        sqlite_code: match &e {
            rusqlite::Error::SqliteFailure(f, _) => f.extended_code,
            _ => rusqlite::ffi::SQLITE_CANTOPEN,
        },
    }
}

/// Why SQLite opened a database read-only when every file is writable:
/// its header says a newer (or damaged) file format it may read but not
/// write.
pub(super) fn sqlite_read_only_reason(path: &Path) -> String {
    use std::io::Read as _;
    let mut head = [0u8; HEADER_BYTES];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    match read {
        Ok(()) if head[18] > 2 => format!(
            "SQLite opened the database read-only: byte 18 of its header (the file format's \
             write version) is {}, which no SQLite writes (1 and 2 are valid), so the header is \
             damaged or was written by a much newer SQLite; only reads work. Restore kb.db from \
             a backup, or copy what it holds into a new one with `kb backup PATH`",
            head[18]
        ),
        _ => "SQLite opened the database read-only; only reads work".into(),
    }
}

/// Why SQLite opens a database with this header read-only, when byte 18
/// (the file format's write version) is one no SQLite writes. A file in
/// WAL mode opens read-only and says so itself; one in rollback-journal
/// mode (what `kb backup` writes) fails to switch to WAL instead.
pub(super) fn damaged_header(path: &Path, header: &[u8; HEADER_BYTES]) -> Option<ReadOnlyReason> {
    (header[18] > 2).then(|| ReadOnlyReason {
        path: path.to_path_buf(),
        message: sqlite_read_only_reason(path),
    })
}

/// Failures that say the file or its directory cannot be written (or
/// opened as asked), rather than anything about the data.
pub(super) fn is_access_problem(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::*;
    matches!(
        e.sqlite_error_code(),
        Some(CannotOpen | ReadOnly | PermissionDenied | SystemIoFailure)
    )
}

/// Why kb may not write here, for errors and for the read-only fallback.
#[derive(Debug, Clone)]
pub(crate) struct ReadOnlyReason {
    /// The directory or file at fault.
    pub path: PathBuf,
    pub message: String,
}

impl ReadOnlyReason {
    pub(crate) fn to_error(&self) -> KbError {
        KbError::DbFile {
            path: self.path.clone(),
            reason: self.message.clone(),
            sqlite_code: rusqlite::ffi::SQLITE_READONLY,
        }
    }
}

/// What stops kb from writing the database: the data directory (SQLite
/// creates `kb.db-wal` and `kb.db-shm` in it, even to read), kb.db itself,
/// or one of its sidecar files. `None` when all are writable.
pub(super) fn read_only_reason(path: &Path) -> Option<ReadOnlyReason> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let reason = |path: &Path, message: String| {
        Some(ReadOnlyReason {
            path: path.to_path_buf(),
            message,
        })
    };
    let wal = sidecar(path, "-wal");
    let shm = sidecar(path, "-shm");
    let sidecars_exist = wal.exists() && shm.exists();
    if let Err(e) = access(&dir, Access::Write) {
        if !sidecars_exist {
            return reason(
                &dir,
                format!(
                    "the data directory is not writable ({}); kb writes kb.db-wal and kb.db-shm \
                     beside kb.db, so only reads work here",
                    os_reason(&e)
                ),
            );
        }
    }
    if let Err(e) = access(path, Access::Write) {
        return reason(
            path,
            format!("kb.db is not writable ({}); only reads work", os_reason(&e)),
        );
    }
    for f in [&wal, &shm] {
        if f.exists() {
            if let Err(e) = access(f, Access::Write) {
                return reason(
                    f,
                    format!(
                        "this file is not writable ({}); only reads work",
                        os_reason(&e)
                    ),
                );
            }
        }
    }
    None
}

/// A failure SQLite or sqlite-vec did not call corruption ("could not open
/// validity blob") on a file SQLite's check finds damaged is that damage:
/// the error names the file and says to restore it, instead of a bare
/// `E_DB`. The check reads the whole file, on a failure only.
fn damaged(path: &Path, reason: String) -> KbError {
    match super::Database::damage(path) {
        Some(found) => KbError::DbCorrupt {
            path: path.to_path_buf(),
            reason: format!("{reason}; SQLite's check of the file: {found}"),
        },
        None => KbError::Db(reason),
    }
}

/// Names an open failure: corruption as SQLite reported it, a lock held
/// elsewhere, and the file problems [`explain`] names.
pub(super) fn open_failure(path: &Path, e: rusqlite::Error, busy: Duration) -> KbError {
    use rusqlite::ErrorCode::*;
    match e.sqlite_error_code() {
        Some(NotADatabase | DatabaseCorrupt) => KbError::DbCorrupt {
            path: path.to_path_buf(),
            reason: e.to_string(),
        },
        Some(DatabaseBusy | DatabaseLocked) => KbError::Db(format!(
            "{}: another process holds the database locked; waited {} s ({e}); \
             run the command again when it is done",
            path.display(),
            busy.as_secs_f64()
        )),
        _ => explain(path, KbError::from(e)),
    }
}

/// Names the database in an error that came from it and, for a failure to
/// read or write its files, says why: a full disk, a file kb may not read,
/// a read-only directory or file, a write-ahead log deleted under a running
/// process, a damaged file behind a failure that did not say so.
pub fn explain(path: &Path, e: KbError) -> KbError {
    let (at, reason, sqlite_code) = match e {
        KbError::DbFile {
            path,
            reason,
            sqlite_code,
        } => (path, reason, sqlite_code),
        KbError::Db(reason) => return damaged(path, reason),
        e => return e.at_db(path),
    };
    if !at.as_os_str().is_empty() {
        return KbError::DbFile {
            path: at,
            reason,
            sqlite_code,
        };
    }
    let file = |at: &Path, reason: String| KbError::DbFile {
        path: at.to_path_buf(),
        reason,
        sqlite_code,
    };
    let primary = sqlite_code & 0xff;
    if primary == rusqlite::ffi::SQLITE_FULL {
        return file(
            path,
            format!(
                "the disk is full ({reason}); free some space and run the command again \
                 (everything committed is kept)"
            ),
        );
    }
    if let Err(err) = access(path, Access::Read) {
        return file(
            path,
            format!("kb cannot read the database ({})", os_reason(&err)),
        );
    }
    if let Some(r) = read_only_reason(path) {
        return r.to_error();
    }
    let wal = sidecar(path, "-wal");
    if primary == rusqlite::ffi::SQLITE_IOERR && holds_deleted(&wal) {
        return file(
            &wal,
            format!(
                "the write-ahead log was deleted while this kb process was writing to it \
                 ({reason}): something removed kb.db-wal (a cleanup script, a sync tool, \
                 `rm kb.db-*`?) while kb had the database open. What this run committed \
                 before is in kb.db or in the deleted log, which kb writes back into kb.db as \
                 it closes. Leave kb's files in the data directory alone while kb runs; run \
                 `kb doctor`, then the same command again: it continues where it stopped"
            ),
        );
    }
    let wal_len = std::fs::metadata(&wal).map_or(0, |m| m.len());
    if primary == rusqlite::ffi::SQLITE_IOERR && sidecar(path, "-shm").exists() && wal_len == 0 {
        return file(
            &wal,
            format!(
                "the write-ahead log is missing or empty while kb.db-shm says it holds \
                 changes ({reason}): was it deleted while another kb process had the database \
                 open? Stop the other kb processes (kb mcp, kb add); the last one to close \
                 writes its changes back; then run the command again"
            ),
        );
    }
    file(
        path,
        format!("SQLite could not use the database file: {reason}"),
    )
}

/// Whether this process still holds `file` open after it was deleted (or
/// replaced by another file of the same name): Linux shows such a
/// descriptor's target as `PATH (deleted)`. False where that cannot be
/// told.
fn holds_deleted(file: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir("/proc/self/fd") else {
        return false;
    };
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let mut deleted = absolute.into_os_string();
    deleted.push(" (deleted)");
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|target| target.as_os_str() == deleted)
}

#[derive(Clone, Copy)]
enum Access {
    Read,
    Write,
}

/// Whether this process may read or write `path` (the kernel's answer,
/// which accounts for read-only mounts and for root).
#[cfg(unix)]
fn access(path: &Path, how: Access) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mode = match how {
        Access::Read => libc::R_OK,
        Access::Write => libc::W_OK,
    };
    // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
    if unsafe { libc::access(c.as_ptr(), mode) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(unix))]
fn access(path: &Path, how: Access) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    match how {
        Access::Write if meta.permissions().readonly() => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "read-only",
        )),
        _ => Ok(()),
    }
}

/// An OS error's message without Rust's "(os error N)" suffix.
fn os_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Database, OpenMode};

    #[cfg(target_os = "linux")]
    #[test]
    fn a_write_ahead_log_deleted_under_this_process_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kb.db");
        let db = Database::open(&p, OpenMode::Create).unwrap();
        db.set_config("probe", "1").unwrap();
        let wal = sidecar(&p, "-wal");
        assert!(wal.exists());
        let io_error = || KbError::DbFile {
            path: PathBuf::new(),
            reason: "disk I/O error".into(),
            sqlite_code: rusqlite::ffi::SQLITE_IOERR_SHORT_READ,
        };
        // While the log is there, an I/O error is not blamed on it.
        let e = explain(&p, io_error());
        assert!(!e.to_string().contains("deleted"), "{e}");
        std::fs::remove_file(&wal).unwrap();
        // Another process's reader may have made a new one meanwhile.
        std::fs::write(&wal, vec![0u8; 4096]).unwrap();
        let e = explain(&p, io_error());
        assert_eq!(e.code(), "E_IO");
        let msg = e.to_string();
        assert!(
            msg.contains("kb.db-wal") && msg.contains("deleted while this kb process"),
            "{msg}"
        );
        assert!(
            msg.contains("kb doctor") && !msg.contains("corrupt"),
            "{msg}"
        );
        drop(db);
    }

    #[test]
    fn a_plain_failure_on_a_damaged_file_is_named_damage() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kb.db");
        let db = Database::open(&p, OpenMode::Create).unwrap();
        for i in 0..400 {
            db.set_config(&format!("key {i}"), &"x".repeat(200))
                .unwrap();
        }
        drop(db);
        let failure = || KbError::Db("could not open validity blob".into());
        // A sound file: the failure is left as it is.
        assert_eq!(explain(&p, failure()).code(), "E_DB");
        // Damage a page in the middle of the table (past the header and schema).
        let len = std::fs::metadata(&p).unwrap().len();
        let mut bytes = std::fs::read(&p).unwrap();
        let page = (len / 4096 / 2) as usize * 4096;
        bytes[page..page + 16].fill(0xee);
        std::fs::write(&p, bytes).unwrap();
        let e = explain(&p, failure());
        assert_eq!(e.code(), "E_DB_CORRUPT", "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains(&p.display().to_string())
                && msg.contains("could not open validity blob")
                && msg.contains("kb restore"),
            "{msg}"
        );
        assert!(!msg.contains('\n'), "{msg}");
    }
}
