//! A consistent copy of a live knowledge base (`kb backup`): SQLite's
//! `VACUUM INTO` writes every page of one read snapshot into a new file
//! (what other processes commit meanwhile is in the next backup, never half
//! in this one), and the copy is checked by `PRAGMA integrity_check` before
//! it is given its name.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::Database;
use crate::error::{KbError, Result};

/// What a copy holds, read back from the copy itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyCheck {
    /// `PRAGMA integrity_check`: `["ok"]` for a sound copy.
    pub integrity: Vec<String>,
    pub documents: i64,
    pub chunks: i64,
    /// kb's schema version in its `config` table; none in another
    /// program's database.
    pub schema_version: Option<i64>,
}

impl Database {
    /// Writes a consistent copy of the database to `dest` (a file that does
    /// not exist yet). Ctrl-C (`cancel`) stops it with `E_INTERRUPTED`; the
    /// caller removes what was written.
    pub fn backup_into(&self, dest: &Path, cancel: &AtomicBool) -> Result<()> {
        let target = dest.to_str().ok_or_else(|| {
            KbError::invalid(
                "path",
                format!(
                    "{}: kb backup needs a path that is valid UTF-8",
                    dest.display()
                ),
            )
        })?;
        vacuum_into(self.conn(), target, cancel)
    }

    /// Opens a copy read-only and checks it: SQLite's integrity check (every
    /// page, index and table), then what it holds.
    pub fn check_copy(path: &Path) -> Result<CopyCheck> {
        super::register_sqlite_vec();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)?;
        let integrity = {
            let mut stmt = conn.prepare("PRAGMA integrity_check(20)")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<Vec<String>>>()?
        };
        let count = |table: &str| -> Result<i64> {
            Ok(conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?)
        };
        let schema_version = conn
            .query_row(
                "SELECT CAST(value AS INTEGER) FROM config WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )
            .ok();
        Ok(CopyCheck {
            integrity,
            documents: count("documents")?,
            chunks: count("chunks")?,
            schema_version,
        })
    }

    /// Writes the database at `src` (with what its write-ahead log holds)
    /// into `dest`, a file that does not exist yet, reading `src` only.
    /// Ctrl-C (`cancel`) stops it with `E_INTERRUPTED`.
    pub fn copy_whole(src: &Path, dest: &Path, cancel: &AtomicBool) -> Result<()> {
        super::register_sqlite_vec();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(src, flags)?;
        let target = dest.to_str().ok_or_else(|| {
            KbError::invalid("path", format!("{}: not valid UTF-8", dest.display()))
        })?;
        vacuum_into(&conn, target, cancel)
    }
}

/// `VACUUM INTO target` on `conn`, interrupted when `cancel` is set.
fn vacuum_into(conn: &Connection, target: &str, cancel: &AtomicBool) -> Result<()> {
    let interrupt = conn.get_interrupt_handle();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if cancel.load(Ordering::SeqCst) {
                    interrupt.interrupt();
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let copied = conn.execute("VACUUM INTO ?1", [target]);
        done.store(true, Ordering::SeqCst);
        match copied {
            Ok(_) => Ok(()),
            Err(_) if cancel.load(Ordering::SeqCst) => Err(KbError::Interrupted),
            Err(e) => Err(KbError::from(e)),
        }
    })
}

impl Database {
    /// Moves the write-ahead log's pages into the file and empties the log
    /// (`wal_checkpoint(TRUNCATE)`), so that kb.db alone holds the
    /// knowledge base. False when another connection's read kept it from
    /// finishing.
    pub fn checkpoint_whole(&self) -> Result<bool> {
        let busy: i64 = self
            .conn()
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
        Ok(busy == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::test_support::{chunks, note};
    use crate::db::OpenMode;

    #[test]
    fn a_copy_holds_one_snapshot_and_passes_the_integrity_check() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        db.write_document(&note("/a.md", "a"), &chunks("alpha", 3), None)
            .unwrap();
        // A reader keeps changes in the write-ahead log (no checkpoint):
        // `cp kb.db` would miss them, the backup must not.
        let holder = Connection::open(dir.path().join("kb.db")).unwrap();
        holder
            .execute_batch("PRAGMA wal_autocheckpoint = 0; SELECT count(*) FROM documents;")
            .unwrap();
        db.write_document(&note("/b.md", "b"), &chunks("beta", 2), None)
            .unwrap();
        let copy = dir.path().join("copy.db");
        db.backup_into(&copy, &AtomicBool::new(false)).unwrap();
        let c = Database::check_copy(&copy).unwrap();
        assert_eq!(c.integrity, ["ok"]);
        assert_eq!((c.documents, c.chunks), (2, 5));
        // The copy is a knowledge base of its own.
        let again = Database::open(&copy, OpenMode::Existing).unwrap();
        assert_eq!(again.document_count().unwrap(), 2);
    }
}
