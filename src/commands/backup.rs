//! `kb backup PATH`: a consistent copy of the knowledge base while other
//! processes read and write it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::db::Database;
use crate::error::{KbError, Result};
use crate::output::{plural, Render, Style};
use crate::session::Session;

const EXAMPLES: &str = "Examples:
  kb backup ~/backups/kb-monday.db       a new file
  kb backup ~/backups                    into a folder, named kb-<UTC time>.db";

/// Write a consistent copy of the knowledge base (kb.db) while other kb processes read and
/// write it, checked by SQLite's integrity check before it gets its name
///
/// Copying kb.db with cp while kb runs can miss what is in kb.db-wal, the write-ahead log
/// (recent documents, a half-applied reindex): kb backup copies one consistent snapshot of both.
/// The copy is a knowledge base of its own: put it back with kb restore, or use it with kb
/// --data-dir.
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = EXAMPLES)]
#[serde(deny_unknown_fields)]
pub(crate) struct BackupArgs {
    /// A new file, or an existing folder to write kb-<UTC time>.db into; an existing file is never
    /// overwritten
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}

/// What a backup wrote.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct BackupOutput {
    /// The copy.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Documents in the copy.
    pub documents: i64,
    /// Chunks in the copy.
    pub chunks: i64,
    /// SQLite's integrity check of the copy: "ok".
    pub integrity: String,
    /// How long it took.
    pub seconds: f64,
    /// Partial copies an interrupted or killed kb backup left beside the
    /// copy (hidden `.NAME.partial-PID` files, and their journals), removed
    /// because their process is gone.
    pub removed_partials: Vec<PathBuf>,
}

impl BackupArgs {
    /// Where the copy goes, checked before anything is written.
    fn destination(&self) -> Result<PathBuf> {
        let path = &self.path;
        if path.is_dir() {
            let free = free_stamped(|stamp| path.join(format!("kb-{stamp}.db")));
            return free.map_err(|taken| exists(&taken));
        }
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(exists(path));
        }
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() && !p.is_dir() => {
                Err(KbError::PathNotFound(p.to_path_buf()))
            }
            _ => Ok(path.clone()),
        }
    }
}

/// The first name `name_at` gives for the UTC time now that no file has:
/// two in one second (two knowledge bases backed up into one folder) get
/// a number after the time. The first name when all are taken.
pub(super) fn free_stamped(name_at: impl Fn(&str) -> PathBuf) -> std::result::Result<PathBuf, PathBuf> {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace(':', "");
    (1..=99)
        .map(|n| match n {
            1 => name_at(&stamp),
            n => name_at(&format!("{stamp}-{n}")),
        })
        .find(|f| std::fs::symlink_metadata(f).is_err())
        .ok_or_else(|| name_at(&stamp))
}

fn exists(path: &Path) -> KbError {
    KbError::invalid(
        "path",
        format!(
            "{}: exists already; kb backup never overwrites a file: name a new file, or a folder",
            path.display()
        ),
    )
}

/// The file the copy is written to before it is checked and named.
fn partial(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kb.db".into());
    dest.with_file_name(format!(".{name}{PARTIAL}{}", std::process::id()))
}

/// What names a partial copy, before the id of the process writing it.
const PARTIAL: &str = ".partial-";

/// The process that wrote a partial copy (`.NAME.partial-PID`, or its
/// `-journal`), from its file name.
fn partial_writer(name: &str) -> Option<u32> {
    let name = name.strip_prefix('.')?;
    let name = name.strip_suffix("-journal").unwrap_or(name);
    let (_, pid) = name.rsplit_once(PARTIAL)?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        .then(|| pid.parse().ok())
        .flatten()
}

/// Removes the partial copies in `dir` whose process is gone (a kb backup
/// killed, or stopped by a power cut, before its copy was named): nothing
/// else ever would. A live process's copy is left to it. Returns what was
/// removed.
fn remove_stale_partials(dir: &Path) -> Vec<PathBuf> {
    crate::db::remove_dead(dir, partial_writer)
}

impl Command for BackupArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "backup",
        title: "Back up the knowledge base",
        summary: "Writes a consistent copy of the knowledge base to a file (`kb backup`).",
        output: OutputKind::Report,
        // Writing a file wherever a client names is not for agents.
        mcp: Mcp::Hidden,
    };
    type Output = BackupOutput;

    fn run(self, session: &mut Session) -> Result<BackupOutput> {
        let started = Instant::now();
        let dest = self.destination()?;
        let db = session.db()?;
        let folder = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let removed_partials = remove_stale_partials(&folder);
        let tmp = partial(&dest);
        // Made here, empty (VACUUM INTO fills an empty file), so that a
        // folder kb may not write is named with the system's own reason
        // (a read-only file system, no permission).
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| {
                KbError::io(
                    &folder,
                    std::io::Error::new(e.kind(), format!("cannot write the copy here: {e}")),
                )
            })?;
        let remove = |p: &Path| {
            let _ = std::fs::remove_file(p);
            let _ = std::fs::remove_file(format!("{}-journal", p.display()));
        };
        let checked = db
            .backup_into(&tmp, session.cancel_flag())
            .map_err(|e| match e {
                KbError::DbFile { reason, .. } => KbError::io(
                    &dest,
                    std::io::Error::other(format!("cannot write the copy: {reason}")),
                ),
                e => e,
            })
            .and_then(|()| Database::check_copy(&tmp));
        let check = match checked {
            Ok(c) => c,
            Err(e) => {
                remove(&tmp);
                return Err(e);
            }
        };
        if check.integrity != ["ok"] {
            remove(&tmp);
            return Err(KbError::Db(format!(
                "{}: the copy failed SQLite's integrity check ({}); nothing was kept. Run kb \
                 doctor on the knowledge base",
                dest.display(),
                check.integrity.join("; ")
            )));
        }
        // Named only once whole and checked; never over a file that
        // appeared meanwhile.
        let named = std::fs::hard_link(&tmp, &dest);
        remove(&tmp);
        named.map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => exists(&dest),
            _ => KbError::io(&dest, e),
        })?;
        let bytes = std::fs::metadata(&dest).map_or(0, |m| m.len());
        Ok(BackupOutput {
            path: std::path::absolute(&dest).unwrap_or(dest),
            bytes,
            documents: check.documents,
            chunks: check.chunks,
            integrity: "ok".into(),
            seconds: started.elapsed().as_secs_f64(),
            removed_partials,
        })
    }
}

plain_outcome!(BackupOutput);

impl Render for BackupOutput {
    fn human(&self, _style: &Style) -> String {
        let mut out = format!(
            "Backed up {} ({}) to {}: {:.1} MB, integrity ok, in {:.1} s.\n",
            plural(self.documents as u64, "document", "documents"),
            plural(self.chunks as u64, "chunk", "chunks"),
            self.path.display(),
            self.bytes as f64 / 1_048_576.0,
            self.seconds
        );
        for p in &self.removed_partials {
            out.push_str(&format!(
                "Removed {}, left by a kb backup that was stopped before it finished.\n",
                p.display()
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_copies_are_known_by_name_and_removed_once_their_process_is_gone() {
        assert_eq!(partial_writer(".kb-2026.db.partial-4242"), Some(4242));
        assert_eq!(partial_writer(".copy.db.partial-17-journal"), Some(17));
        for other in ["kb.db", ".x.partial-", ".x.partial-12a", "x.partial-12", ".notes.md"] {
            assert_eq!(partial_writer(other), None, "{other}");
        }
        let dir = tempfile::tempdir().unwrap();
        // A process that has ended: its id names no process now.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let me = std::process::id();
        let stale = [
            dir.path().join(format!(".kb-a.db.partial-{dead}")),
            dir.path().join(format!(".kb-a.db.partial-{dead}-journal")),
        ];
        let live = dir.path().join(format!(".kb-b.db.partial-{me}"));
        let unrelated = dir.path().join("notes.partial-1");
        for f in stale.iter().chain([&live, &unrelated]) {
            std::fs::write(f, b"x").unwrap();
        }
        let removed = remove_stale_partials(dir.path());
        assert_eq!(removed, stale.to_vec());
        assert!(live.exists() && unrelated.exists());
        assert!(stale.iter().all(|f| !f.exists()));
    }
}
