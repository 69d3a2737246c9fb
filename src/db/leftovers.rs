//! Files a killed kb process leaves behind (a database being created, a
//! backup being written) carry the process's id in their names; the next
//! process removes those whose process is gone, as nothing else would.

use std::path::{Path, PathBuf};

/// Whether a process of this id runs (one of another user's counts).
#[cfg(unix)]
pub fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Elsewhere kb cannot tell: every leftover is left alone.
#[cfg(not(unix))]
pub fn process_alive(_pid: u32) -> bool {
    true
}

/// Removes the files in `dir` that `writer_of` names a process for, when
/// that process is gone; returns them, sorted.
pub fn remove_dead(dir: &Path, writer_of: impl Fn(&str) -> Option<u32>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(&writer_of) else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && !process_alive(pid) && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed.sort();
    removed
}
