//! `kb restore BACKUP`: puts a copy `kb backup` wrote in place of kb.db.
//! Copying it over kb.db by hand is not enough: a write-ahead log left
//! beside kb.db (kb.db-wal, after a crash) belongs to the old file, and
//! SQLite would replay it onto the copy. The knowledge base replaced is
//! kept beside it, with its log, until the user deletes it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::db::{remove_log, remove_whole, sidecar, Database, OpenMode};
use crate::error::{KbError, Result};
use crate::output::{plural, Render, Style};
use crate::session::Session;

const EXAMPLES: &str = "Examples:
  kb restore ~/backups/kb-monday.db     the copy in place of kb.db; the old one kept beside it";

/// Put a copy kb backup wrote in place of the knowledge base (kb.db), keeping the one it replaces
/// beside it
///
/// The copy is checked by SQLite's integrity check first. The knowledge base replaced is renamed
/// kb.db.replaced-<UTC time> (with its write-ahead log, if it has one): delete it once the
/// restored one serves you. Stop kb mcp first: a server keeps reading the file it opened.
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = EXAMPLES)]
#[serde(deny_unknown_fields)]
pub(crate) struct RestoreArgs {
    /// A copy kb backup wrote
    #[arg(value_name = "BACKUP")]
    pub backup: PathBuf,
}

/// What a restore did.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RestoreOutput {
    /// The knowledge base restored (kb.db).
    pub path: PathBuf,
    /// The copy it was restored from.
    pub backup: PathBuf,
    /// Documents in the restored knowledge base.
    pub documents: i64,
    /// Chunks in the restored knowledge base.
    pub chunks: i64,
    /// The knowledge base it replaced, kept under this name (its write-ahead log, if any, beside
    /// it with -wal after the name); none when there was none.
    pub replaced: Option<PathBuf>,
    /// How long it took.
    pub seconds: f64,
}

impl Command for RestoreArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "restore",
        title: "Restore the knowledge base from a backup",
        summary: "Puts a copy kb backup wrote in place of kb.db (`kb restore`).",
        output: OutputKind::Report,
        // Replacing the whole knowledge base is the user's act, not an agent's.
        mcp: Mcp::Hidden,
    };
    type Output = RestoreOutput;

    fn run(self, session: &mut Session) -> Result<RestoreOutput> {
        let started = Instant::now();
        let db_path = where_it_lives(&session.config().db_path());
        let backup = std::path::absolute(&self.backup).unwrap_or(self.backup.clone());
        check_backup(&backup, &db_path)?;
        // No kb add, remove, reindex or init writes while the files change.
        let _writer = session.lock_writer()?;
        let stopped = || {
            session
                .cancel_flag()
                .load(std::sync::atomic::Ordering::SeqCst)
        };
        if stopped() {
            return Err(KbError::Interrupted);
        }
        // The copy is written whole beside kb.db before anything changes:
        // kb.db is there throughout, and Ctrl-C until then changes nothing.
        let copy = write_copy(&backup, &db_path, session.cancel_flag())?;
        let replaced = match swap_in(&copy, &db_path) {
            Ok(replaced) => replaced,
            Err(e) => {
                let _ = std::fs::remove_file(&copy);
                return Err(e);
            }
        };
        let db = Database::open(&db_path, OpenMode::Existing)?;
        Ok(RestoreOutput {
            path: db_path,
            backup,
            documents: db.document_count()?,
            chunks: db.chunk_count()?,
            replaced,
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// The file the knowledge base is: kb.db, or where it leads when it is a
/// link (a data directory on a small disk, the database on a large one).
/// SQLite keeps the write-ahead log beside that file too, so the copy goes
/// there and the link stays. A link that leads nowhere is replaced.
fn where_it_lives(db_path: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(db_path).is_ok_and(|m| m.file_type().is_symlink());
    match is_link.then(|| std::fs::canonicalize(db_path)) {
        Some(Ok(target)) => target,
        _ => db_path.to_path_buf(),
    }
}

/// A copy kb can restore: a file, not kb.db itself, a knowledge base that
/// passes SQLite's integrity check. Checked before anything changes.
fn check_backup(backup: &Path, db_path: &Path) -> Result<()> {
    let meta = std::fs::metadata(backup).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => KbError::PathNotFound(backup.to_path_buf()),
        _ => KbError::io(backup, e),
    })?;
    let refuse = |why: String| {
        KbError::invalid(
            "backup",
            format!("{}: {why}; nothing was changed", backup.display()),
        )
    };
    if !meta.is_file() {
        return Err(refuse("not a file; name a copy kb backup wrote".into()));
    }
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(backup, db_path) {
        return Err(refuse("is the knowledge base itself".into()));
    }
    std::fs::File::open(backup).map_err(|e| KbError::io(backup, e))?;
    let not_kb = || refuse("not a knowledge base kb backup wrote".into());
    let check = Database::check_copy(backup).map_err(|e| match e {
        KbError::DbCorrupt { reason, .. } => {
            refuse(format!("not a sound SQLite database ({reason})"))
        }
        // A copy in WAL mode (opened by kb since) on storage kb may not
        // write: SQLite needs to write its shared-memory file beside it.
        KbError::DbFile { reason, .. } => refuse(format!(
            "cannot be read here ({reason}); if it lies on read-only storage, copy it to a \
             folder you may write and restore that copy"
        )),
        _ => not_kb(),
    })?;
    match check.schema_version {
        None => return Err(not_kb()),
        Some(v) if v > crate::db::SCHEMA_VERSION => {
            return Err(refuse(format!(
                "written by a newer kb (schema {v}, this kb reads up to {})",
                crate::db::SCHEMA_VERSION
            )))
        }
        Some(_) => {}
    }
    if check.integrity != ["ok"] {
        return Err(refuse(format!(
            "fails SQLite's integrity check ({})",
            check.integrity.join("; ")
        )));
    }
    Ok(())
}

/// The prefix of the hidden copy a restore writes beside kb.db.
const COPY_MARK: &str = ".restoring-";

/// Writes the backup (with what its own write-ahead log holds) to a file
/// beside kb.db and flushes it to disk; returns its path. What a killed
/// restore left there is removed first; what this one writes is removed
/// when it fails or Ctrl-C stops it.
fn write_copy(
    backup: &Path,
    db_path: &Path,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<PathBuf> {
    let name = db_path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("kb.db");
    if let Some(dir) = db_path.parent() {
        let prefix = format!("{name}{COPY_MARK}");
        crate::db::remove_dead(dir, |file| {
            file.strip_prefix(&prefix)?.split('-').next()?.parse().ok()
        });
    }
    let tmp = sidecar(db_path, &format!("{COPY_MARK}{}", std::process::id()));
    remove_whole(&tmp);
    let copied = Database::copy_whole(backup, &tmp, cancel).and_then(|()| {
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| KbError::io(&tmp, e))
    });
    match copied {
        Ok(()) => Ok(tmp),
        Err(e) => {
            remove_whole(&tmp);
            Err(e)
        }
    }
}

/// Puts the copy in kb.db's place, keeping the knowledge base it replaces
/// as kb.db.replaced-<UTC time> (with its write-ahead log, so the pair
/// still opens as it was). The old file is first linked under that name,
/// then the copy renamed over kb.db in one step, so every process finds a
/// kb.db throughout; where the file system has no links, the old file is
/// renamed first. Its log is folded into it where it opens; a process
/// reading it meanwhile stops the restore. Returns the old file's name.
fn swap_in(copy: &Path, db_path: &Path) -> Result<Option<PathBuf>> {
    let put = |from: &Path| std::fs::rename(from, db_path).map_err(|e| KbError::io(db_path, e));
    if std::fs::symlink_metadata(db_path).is_err() {
        // A log without its database (kb.db deleted after a crash) would be
        // replayed onto the copy.
        remove_log(db_path);
        return put(copy).map(|()| None);
    }
    if let Ok(db) = Database::open(db_path, OpenMode::Existing) {
        if !db.checkpoint_whole().unwrap_or(true) {
            return Err(KbError::invalid(
                "backup",
                format!(
                    "{} is in use by another kb process (kb mcp, or a search); stop it and run \
                     kb restore again; nothing was changed",
                    db_path.display()
                ),
            ));
        }
    }
    let aside =
        super::backup::free_stamped(|stamp| sidecar(db_path, &format!(".replaced-{stamp}")))
            .map_err(|_| KbError::io(db_path, std::io::Error::other("no free name beside it")))?;
    let linked = std::fs::hard_link(db_path, &aside).is_ok();
    if !linked {
        std::fs::rename(db_path, &aside).map_err(|e| KbError::io(db_path, e))?;
    }
    let wal = sidecar(db_path, "-wal");
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        // Not folded in (the old file did not open): it goes with its file.
        let _ = std::fs::rename(&wal, sidecar(&aside, "-wal"));
    }
    remove_log(db_path);
    put(copy).map(|()| Some(aside.clone())).inspect_err(|_| {
        // The old file stays (or goes back) in place.
        let _ = std::fs::rename(sidecar(&aside, "-wal"), &wal);
        match linked {
            true => drop(std::fs::remove_file(&aside)),
            false => drop(std::fs::rename(&aside, db_path)),
        }
    })
}

plain_outcome!(RestoreOutput);

impl Render for RestoreOutput {
    fn human(&self, _style: &Style) -> String {
        let mut out = format!(
            "Restored {} ({}) from {} in {:.1} s.\n",
            plural(self.documents as u64, "document", "documents"),
            plural(self.chunks as u64, "chunk", "chunks"),
            self.backup.display(),
            self.seconds
        );
        if let Some(p) = &self.replaced {
            out.push_str(&format!(
                "The knowledge base it replaced is kept as {}; delete it once this one serves you.\n",
                p.display()
            ));
        }
        out
    }
}
