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
use crate::db::{remove_log, sidecar, Database, OpenMode};
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
        // No kb add, reindex or init writes while the files change.
        let _writer = session.lock_writer()?;
        let replaced = move_aside(&db_path)?;
        if let Err(e) = put_in_place(&backup, &db_path) {
            // Nothing of the copy is in place: the knowledge base goes back.
            if let Some(aside) = &replaced {
                let _ = std::fs::rename(sidecar(aside, "-wal"), sidecar(&db_path, "-wal"));
                let _ = std::fs::rename(aside, &db_path);
            }
            return Err(e);
        }
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
    let check = Database::check_copy(backup).map_err(|_| not_kb())?;
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

/// Renames the knowledge base in place (and its write-ahead log, so the
/// pair still opens as it was) to kb.db.replaced-<UTC time>. Its log is
/// first folded into it where it opens; a process reading it meanwhile
/// stops the restore. Returns the new name.
fn move_aside(db_path: &Path) -> Result<Option<PathBuf>> {
    let wal = sidecar(db_path, "-wal");
    if std::fs::symlink_metadata(db_path).is_err() {
        // A log without its database (kb.db deleted after a crash) would be
        // replayed onto the copy.
        remove_log(db_path);
        return Ok(None);
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
    let aside = super::backup::free_stamped(|stamp| sidecar(db_path, &format!(".replaced-{stamp}")))
        .map_err(|_| KbError::io(db_path, std::io::Error::other("no free name beside it")))?;
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        let wal_aside = sidecar(&aside, "-wal");
        std::fs::rename(&wal, &wal_aside).map_err(|e| KbError::io(&wal, e))?;
    }
    std::fs::rename(db_path, &aside).map_err(|e| KbError::io(db_path, e))?;
    remove_log(db_path);
    Ok(Some(aside))
}

/// Writes the backup (with what its own write-ahead log holds) to a hidden
/// file beside kb.db, flushes it to disk, then names it kb.db: a crash
/// leaves either no kb.db or the whole copy.
fn put_in_place(backup: &Path, db_path: &Path) -> Result<()> {
    let tmp = sidecar(db_path, &format!(".restoring-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let copied = Database::copy_whole(backup, &tmp).and_then(|()| {
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .and_then(|()| std::fs::rename(&tmp, db_path))
            .map_err(|e| KbError::io(db_path, e))
    });
    if copied.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    copied
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
