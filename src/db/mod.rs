//! The one SQLite file, kb.db: opening it, its schema and migrations, and
//! every SQL statement kb runs (documents and chunks in `documents`, the
//! rankers' queries in `queries`, the vector table in `vectors`, reads for
//! the inspection commands in `lookups`, the search log in `search_log`).

mod codes;
mod documents;
mod health;
mod lookups;
mod queries;
mod search_log;
mod vectors;

pub use codes::*;
pub use documents::*;
pub use health::*;
pub use lookups::*;
pub use queries::*;
pub use search_log::*;
pub use vectors::*;

use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::error::{KbError, Result};

/// Versioned migrations, embedded in the binary and applied in order.
const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("../../migrations/001_initial.sql")),
    (
        2,
        include_str!("../../migrations/002_content_and_search_log.sql"),
    ),
    (5, include_str!("../../migrations/005_vector_codes.sql")),
    (
        6,
        include_str!("../../migrations/006_contextual_chunks.sql"),
    ),
];

/// The newest schema this binary knows.
pub const SCHEMA_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// How long a statement waits for another process's write lock.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether opening may create a new database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Create the file and schema if missing (commands that write).
    Create,
    /// Fail with `E_NO_INDEX` if there is no database yet (commands that read).
    Existing,
}

pub struct Database {
    conn: Connection,
    path: PathBuf,
}

static REGISTER_VEC: Once = Once::new();

fn register_sqlite_vec() {
    REGISTER_VEC.call_once(|| {
        // SAFETY: sqlite3_vec_init has the signature SQLite expects of an
        // extension entry point; auto_extension registers it for every
        // connection opened afterwards in this process.
        unsafe {
            #[allow(clippy::missing_transmute_annotations)]
            rusqlite::ffi::sqlite3_auto_extension(Some(std::mem::transmute(
                sqlite_vec::sqlite3_vec_init as *const (),
            )));
        }
    });
}

impl Database {
    /// Opens (or with `OpenMode::Create` creates) the database at `path`
    /// and brings its schema up to date. Errors name the file.
    pub fn open(path: &Path, mode: OpenMode) -> Result<Database> {
        Self::open_inner(path, mode).map_err(|e| e.at_db(path))
    }

    fn open_inner(path: &Path, mode: OpenMode) -> Result<Database> {
        register_sqlite_vec();
        let exists = path.exists();
        if exists {
            check_header(path)?;
        } else {
            if mode == OpenMode::Existing {
                return Err(KbError::NoIndex(path.to_path_buf()));
            }
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| KbError::io(dir, e))?;
            }
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| open_error(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| open_error(path, e))?;
        let db = Database {
            conn,
            path: path.to_path_buf(),
        };
        db.configure().map_err(|e| match e {
            KbError::Db(reason) => KbError::DbCorrupt {
                path: path.to_path_buf(),
                reason,
            },
            other => other,
        })?;
        db.migrate()?;
        Ok(db)
    }

    pub fn set_busy_timeout(&self, t: Duration) -> Result<()> {
        self.conn.busy_timeout(t)?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Names this database in an error that came from it.
    pub fn name_in(&self, e: KbError) -> KbError {
        e.at_db(&self.path)
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
    }

    fn configure(&self) -> Result<()> {
        // WAL lets searches read while an ingest writes; the busy timeout
        // makes a second writer wait instead of failing.
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(KbError::Db(format!(
                "could not switch {} to WAL mode (got {mode})",
                self.path.display()
            )));
        }
        self.conn.execute_batch(
            "PRAGMA foreign_keys = ON;
             PRAGMA synchronous = NORMAL;
             PRAGMA temp_store = MEMORY;
             PRAGMA cache_size = -65536;",
        )?;
        // Reads through a memory map instead of one pread per page: a fresh
        // `kb search` reads thousands of pages (the vector codes, vectors by
        // id), and at 20,000 chunks this saves ~15 ms of system calls.
        self.conn.execute_batch("PRAGMA mmap_size = 1073741824;")?;
        Ok(())
    }

    /// The schema version recorded in the database, 0 for a new file.
    pub fn schema_version(&self) -> Result<i64> {
        let has_config: bool = self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'config')",
            [],
            |r| r.get(0),
        )?;
        if !has_config {
            let tables: i64 = self.conn.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )?;
            if tables > 0 {
                return Err(KbError::DbCorrupt {
                    path: self.path.clone(),
                    reason: "it is an SQLite database but has no kb config table".into(),
                });
            }
            return Ok(0);
        }
        let v: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM config WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        match v {
            None => Ok(0),
            Some(s) => s.parse::<i64>().map_err(|_| KbError::DbCorrupt {
                path: self.path.clone(),
                reason: format!("schema_version is not a number: {s:?}"),
            }),
        }
    }

    fn migrate(&self) -> Result<()> {
        let current = self.schema_version()?;
        if current > SCHEMA_VERSION {
            return Err(KbError::DbTooNew {
                path: self.path.clone(),
                found: current,
                supported: SCHEMA_VERSION,
            });
        }
        for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > current) {
            let tx = self.conn.unchecked_transaction()?;
            tx.execute_batch(sql)
                .map_err(|e| KbError::Db(format!("migration {version} failed: {e}")))?;
            if *version == 5 {
                // The codes of the vectors already stored (SQL cannot
                // quantise them): about 0.2 s per 20,000 vectors, once.
                self.rebuild_codes()
                    .map_err(|e| KbError::Db(format!("migration {version} failed: {e}")))?;
            }
            tx.execute(
                "INSERT INTO config(key, value) VALUES ('schema_version', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [version.to_string()],
            )?;
            tx.commit()?;
        }
        Ok(())
    }

    pub fn get_config(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM config WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()?)
    }

    pub fn set_config(&self, key: &str, value: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO config(key, value) VALUES (?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [key, value],
        )?;
        Ok(())
    }

    /// Size of the database file plus its write-ahead log.
    pub fn size_bytes(&self) -> u64 {
        let wal = PathBuf::from(format!("{}-wal", self.path.display()));
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        size(&self.path) + size(&wal)
    }
}

fn open_error(path: &Path, e: rusqlite::Error) -> KbError {
    match KbError::from(e) {
        KbError::Db(reason) => KbError::DbCorrupt {
            path: path.to_path_buf(),
            reason,
        },
        other => other,
    }
}

/// Refuses files that are not SQLite databases, or that are shorter than
/// their header says (a truncated copy), before SQLite gets to them: SQLite
/// would treat an empty file as a new database and silently start over.
fn check_header(path: &Path) -> Result<()> {
    use std::io::Read;
    let corrupt = |reason: &str| KbError::DbCorrupt {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let mut f = std::fs::File::open(path).map_err(|e| KbError::io(path, e))?;
    let len = f.metadata().map_err(|e| KbError::io(path, e))?.len();
    if len == 0 {
        return Err(corrupt("the file is empty"));
    }
    let mut header = [0u8; 100];
    if len < 100 || f.read_exact(&mut header).is_err() {
        return Err(corrupt("the file is shorter than an SQLite header"));
    }
    if &header[..16] != SQLITE_MAGIC {
        return Err(corrupt("the file does not start with the SQLite header"));
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65536u64,
        n => n as u64,
    };
    let pages = u32::from_be_bytes([header[28], header[29], header[30], header[31]]) as u64;
    let change_counter = &header[24..28];
    let valid_for = &header[92..96];
    // The in-header size is only meaningful when "version-valid-for" matches
    // the change counter (SQLite's own rule).
    if change_counter == valid_for && pages > 0 && len < pages * page_size {
        return Err(corrupt(&format!(
            "the file is truncated: {len} bytes, but its header says {pages} pages of {page_size} bytes"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_schema_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kb.db");
        {
            let db = Database::open(&p, OpenMode::Create).unwrap();
            assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
        }
        let db = Database::open(&p, OpenMode::Existing).unwrap();
        assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
        let vec_version: String = db
            .conn()
            .query_row("SELECT vec_version()", [], |r| r.get(0))
            .unwrap();
        assert!(vec_version.starts_with('v'));
    }

    #[test]
    fn missing_db_in_existing_mode() {
        let dir = tempfile::tempdir().unwrap();
        let err = Database::open(&dir.path().join("kb.db"), OpenMode::Existing)
            .err()
            .unwrap();
        assert_eq!(err.code(), "E_NO_INDEX");
    }

    #[test]
    fn garbage_empty_and_newer_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kb.db");
        std::fs::write(&p, b"this is not a database at all, just some text that is long enough to fill a header of one hundred bytes......").unwrap();
        let e = Database::open(&p, OpenMode::Create).err().unwrap();
        assert_eq!(e.code(), "E_DB_CORRUPT");
        std::fs::write(&p, b"").unwrap();
        let e = Database::open(&p, OpenMode::Create).err().unwrap();
        assert_eq!(e.code(), "E_DB_CORRUPT");
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 0, "never re-created");

        std::fs::remove_file(&p).unwrap();
        {
            let db = Database::open(&p, OpenMode::Create).unwrap();
            db.set_config("schema_version", "999").unwrap();
        }
        let e = Database::open(&p, OpenMode::Existing).err().unwrap();
        assert_eq!(e.code(), "E_DB_TOO_NEW");
        assert!(e.to_string().contains("999"));
    }
}
