//! The one SQLite file, kb.db: opening it, its schema and migrations, and
//! every SQL statement kb runs (documents and chunks in `documents`, the
//! rankers' queries in `queries`, the vector table in `vectors`, reads for
//! the inspection commands in `lookups`, the search log in `search_log`).

mod backup;
mod codes;
mod documents;
mod fts_index;
mod fts_tokens;
mod health;
mod leftovers;
mod lookups;
mod open;
mod open_failure;
mod queries;
mod roots;
mod search_log;
#[cfg(test)]
pub(crate) mod test_support;
mod vector_rows;
mod vectors;
mod writer_lock;

pub use backup::CopyCheck;
pub use codes::*;
pub use documents::*;
pub use fts_index::{FtsRow, FtsTotals, FTS_COLUMNS};
pub use fts_tokens::{FtsTokenizer, TokenPurpose, MAX_TOKEN_BYTES};
pub use health::*;
pub use leftovers::{process_alive, remove_dead};
pub use lookups::*;
pub use open::{data_dir_is_a_file, remove_log, remove_whole, sidecar, OpenMode, Reopener};
pub use open_failure::explain;
pub use queries::*;
pub use roots::*;
pub use search_log::*;
pub use vectors::*;
pub use writer_lock::{writer_lock_path, WriterLock};

use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};

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
    (
        7,
        include_str!("../../migrations/007_escaped_source_paths.sql"),
    ),
    (
        8,
        include_str!("../../migrations/008_vector_code_blocks.sql"),
    ),
    (9, include_str!("../../migrations/009_roots.sql")),
    (10, include_str!("../../migrations/010_document_types.sql")),
    (11, include_str!("../../migrations/011_document_links.sql")),
    (12, include_str!("../../migrations/012_root_options.sql")),
    (13, include_str!("../../migrations/013_kept_out.sql")),
    (14, include_str!("../../migrations/014_reader_versions.sql")),
];

/// The newest schema this binary knows.
pub const SCHEMA_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// How long a statement waits for another process's write lock.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Database {
    conn: Connection,
    path: PathBuf,
    /// The file opened (device and inode), to tell when kb.db is deleted
    /// or replaced under an open connection.
    file: Option<(u64, u64)>,
    /// Why this connection may not write (a read-only data directory or
    /// file); reads still work.
    read_only: Option<open_failure::ReadOnlyReason>,
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
    pub fn set_busy_timeout(&self, t: Duration) -> Result<()> {
        self.conn.busy_timeout(t)?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn conn(&self) -> &Connection {
        &self.conn
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
            let tx = self.begin_write()?;
            // Another process may have migrated while this one waited.
            if self.schema_version()? >= *version {
                continue;
            }
            tx.execute_batch(sql)
                .map_err(|e| KbError::Db(format!("migration {version} failed: {e}")))?;
            if *version == 8 {
                // Codes for the vectors already stored, sealed into blocks.
                // A database older than 5 has vectors without codes (SQL
                // cannot quantise them): about 0.2 s per 20,000 vectors, once.
                let (codes, vectors) = self.code_and_vector_counts()?;
                let done = if codes == vectors {
                    self.seal_full_blocks()
                } else {
                    self.rebuild_codes()
                };
                done.map_err(|e| KbError::Db(format!("migration {version} failed: {e}")))?;
            }
            if *version == 10 {
                // The schema text was edited: other connections must
                // reread it (SQLite's procedure for such edits).
                let cookie: i64 = tx.query_row("PRAGMA schema_version", [], |r| r.get(0))?;
                tx.execute_batch(&format!("PRAGMA schema_version = {}", cookie + 1))
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

    /// Begins a write transaction, taking the write lock at once (`BEGIN
    /// IMMEDIATE`): a second writer waits up to [`BUSY_TIMEOUT`] for it. A
    /// deferred transaction that reads first and writes later cannot wait:
    /// SQLite fails its upgrade at once with "database is locked" when
    /// another writer got in between.
    pub fn begin_write(&self) -> Result<rusqlite::Transaction<'_>> {
        self.writable()?;
        Ok(rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?)
    }

    /// The first column of every row of a cached statement, in order.
    fn column_values<T: rusqlite::types::FromSql>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<T>> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map(params, |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Begins a read transaction: every read in it sees one snapshot.
    pub fn begin_read(&self) -> Result<rusqlite::Transaction<'_>> {
        Ok(rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Deferred,
        )?)
    }

    /// A read transaction unless this connection is in one already: the
    /// reads until it is dropped see one snapshot either way.
    pub fn read_snapshot(&self) -> Result<Option<rusqlite::Transaction<'_>>> {
        if self.conn.is_autocommit() {
            Ok(Some(self.begin_read()?))
        } else {
            Ok(None)
        }
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
        self.writable()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_appears_whole_and_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kb.db");
        drop(Database::open(&p, OpenMode::Create).unwrap());
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["kb.db"], "no temporary file left");
        let head = std::fs::read(&p).unwrap();
        assert!(head.starts_with(b"SQLite format 3\0"));
        assert_eq!((head[18], head[19]), (2, 2), "already in WAL mode");
        let db = Database::open(&p, OpenMode::Existing).unwrap();
        assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
    }

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

        // Shorter than the header, or without its magic: refused at every
        // size, by readers and writers alike, and never touched.
        for len in [1usize, 2, 50, 99, 100, 4096] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8 + 1).collect();
            std::fs::write(&p, &bytes).unwrap();
            for mode in [OpenMode::Existing, OpenMode::Create] {
                let e = Database::open(&p, mode).err().unwrap();
                assert_eq!(e.code(), "E_DB_CORRUPT", "{len} bytes: {e}");
                assert!(e.to_string().contains("kb.db"), "names the file: {e}");
            }
            assert!(
                std::fs::read(&p).unwrap() == bytes,
                "{len} bytes left as they were"
            );
            assert!(!dir.path().join("kb.db-wal").exists());
        }
        // A valid SQLite file without tables is no knowledge base: a
        // reader says so and writes nothing; a writer sets it up.
        std::fs::remove_file(&p).unwrap();
        rusqlite::Connection::open(&p)
            .unwrap()
            .execute_batch("PRAGMA user_version = 7; VACUUM;")
            .unwrap();
        let before = std::fs::read(&p).unwrap();
        let e = Database::open(&p, OpenMode::Existing).err().unwrap();
        assert_eq!(e.code(), "E_NO_INDEX", "{e}");
        assert!(
            std::fs::read(&p).unwrap() == before,
            "no schema written by a reader"
        );
        let db = Database::open(&p, OpenMode::Create).unwrap();
        assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
        drop(db);

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
