//! One bulk writer at a time per knowledge base: `kb add`, `kb init` and
//! `kb reindex` hold an advisory lock on `kb.db.lock` beside kb.db for their
//! whole run. A second one waits for the first to finish, then reads what it
//! committed: two `kb add` of one folder embed each file once, and the
//! second reports the first's files as already indexed. (SQLite's own lock
//! lasts one transaction, one document: it keeps the file consistent, not
//! two runs from doing the same work.) Searches and other readers never
//! take this lock.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::error::{KbError, Result};

/// How often a waiting writer tries the lock again.
const POLL: Duration = Duration::from_millis(100);

/// Held while a bulk writer runs; the lock goes with the file when this is
/// dropped (or when the process dies, however it dies).
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
}

/// The lock file of the knowledge base at `db_path`.
pub fn writer_lock_path(db_path: &Path) -> PathBuf {
    let mut s = db_path.as_os_str().to_os_string();
    s.push(".lock");
    PathBuf::from(s)
}

impl WriterLock {
    /// Whether another process writes to the knowledge base at `db_path`
    /// now (holds the lock); false when kb cannot tell.
    pub fn held_elsewhere(db_path: &Path) -> bool {
        let path = writer_lock_path(db_path);
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
        else {
            return false;
        };
        // Taken and let go at once (the file closes) when it is free.
        matches!(try_lock(&file), Ok(false))
    }

    /// Takes the lock, waiting (and telling `on_wait` once, with the other
    /// process's id) while another writer holds it. Stops with
    /// `E_INTERRUPTED` when `cancel` is set while waiting.
    pub fn acquire(
        db_path: &Path,
        cancel: &AtomicBool,
        on_wait: impl FnOnce(&str),
    ) -> Result<WriterLock> {
        let path = writer_lock_path(db_path);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| KbError::io(&path, e))?;
        let mut on_wait = Some(on_wait);
        loop {
            if try_lock(&file).map_err(|e| KbError::io(&path, e))? {
                break;
            }
            if let Some(tell) = on_wait.take() {
                let holder = holder_of(&mut file)
                    .map(|pid| format!(" (process {pid})"))
                    .unwrap_or_default();
                tell(&format!(
                    "another kb process{holder} is writing to {} (kb add, update, remove, reindex, restore \
                     or init); waiting for it to finish",
                    db_path.display()
                ));
            }
            if cancel.load(Ordering::SeqCst) {
                return Err(KbError::Interrupted);
            }
            std::thread::sleep(POLL);
        }
        // Who holds it, for the message of the next one to wait.
        let _ = file
            .set_len(0)
            .and_then(|_| file.rewind())
            .and_then(|_| write!(file, "{}", std::process::id()))
            .and_then(|_| file.flush());
        Ok(WriterLock { _file: file })
    }
}

fn holder_of(file: &mut File) -> Option<u32> {
    let mut s = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut s).ok()?;
    s.trim().parse().ok()
}

/// `flock(LOCK_EX | LOCK_NB)`: true when taken, false when another open
/// file holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this File owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EWOULDBLOCK) => Ok(false),
        Some(libc::EINTR) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(unix))]
fn try_lock(_file: &File) -> std::io::Result<bool> {
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[cfg(unix)]
    #[test]
    fn a_held_lock_is_seen_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("kb.db");
        assert!(!WriterLock::held_elsewhere(&db), "no lock file yet");
        let held = WriterLock::acquire(&db, &AtomicBool::new(false), |_| {}).unwrap();
        assert!(WriterLock::held_elsewhere(&db));
        drop(held);
        assert!(!WriterLock::held_elsewhere(&db));
    }

    #[test]
    fn a_second_writer_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("kb.db");
        let never = AtomicBool::new(false);
        let first = WriterLock::acquire(&db, &never, |_| panic!("nobody holds it")).unwrap();
        let db2 = db.clone();
        let waited = Arc::new(std::sync::Mutex::new(String::new()));
        let w = waited.clone();
        let second = std::thread::spawn(move || {
            let never = AtomicBool::new(false);
            let started = std::time::Instant::now();
            let lock =
                WriterLock::acquire(&db2, &never, |m| *w.lock().unwrap() = m.to_string()).unwrap();
            (lock, started.elapsed())
        });
        std::thread::sleep(Duration::from_millis(400));
        drop(first);
        let (_lock, took) = second.join().unwrap();
        assert!(took >= Duration::from_millis(300), "did not wait: {took:?}");
        let message = waited.lock().unwrap().clone();
        assert!(
            message.contains(&format!("process {}", std::process::id())),
            "{message}"
        );
    }

    #[test]
    fn waiting_stops_on_ctrl_c() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("kb.db");
        let never = AtomicBool::new(false);
        let _first = WriterLock::acquire(&db, &never, |_| {}).unwrap();
        let cancelled = AtomicBool::new(true);
        let e = WriterLock::acquire(&db, &cancelled, |_| {}).unwrap_err();
        assert_eq!(e.code(), "E_INTERRUPTED");
    }
}
