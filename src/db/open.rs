//! Opening kb.db, and naming why it could not be opened.
//!
//! A file that is not an SQLite database at all (shorter than the 100-byte
//! header every SQLite database starts with, or without its magic string) is
//! refused before SQLite sees it: SQLite would take some of those for a new
//! database and write one over them. Past that, whether the file is corrupt
//! is SQLite's call: its error codes (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) when
//! it reads the file. A database file shorter than the page count in its
//! header is normal while the write-ahead log holds pages a checkpoint has
//! not copied back yet (after a full disk or a crash during a checkpoint);
//! SQLite reads those pages from the log, and reports corruption only when
//! neither the file nor the log has them. Every other failure (a read-only
//! data directory, a file kb may not read, a lock held by another process, a
//! deleted `-wal`) is named for what it is (`open_failure.rs`), and reads go
//! on where SQLite can.
//!
//! A new kb.db is built beside its final name and linked into place whole,
//! so no process ever sees a kb.db without its header and schema.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use super::open_failure::{
    creation_failure, damaged_header, is_access_problem, open_failure, read_only_reason,
    sqlite_read_only_reason, ReadOnlyReason,
};
use super::{register_sqlite_vec, Database, BUSY_TIMEOUT};
use crate::error::{KbError, Result};

/// Whether opening may create a new database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Create the file and schema if missing (commands that write).
    Create,
    /// Fail with `E_NO_INDEX` if there is no database yet (commands that read).
    Existing,
}

/// The files SQLite keeps beside kb.db in WAL mode (and any name with a
/// suffix after kb.db's).
pub fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// Removes a database file and every file SQLite keeps beside it (its
/// rollback journal, log and log index): a copy not finished.
pub fn remove_whole(path: &Path) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(sidecar(path, suffix));
    }
}

/// Removes the write-ahead log and its index beside `path`: a log left by
/// a file deleted or moved away, which SQLite would replay onto the next
/// file of that name.
pub fn remove_log(path: &Path) {
    for derived in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(sidecar(path, derived));
    }
}

impl Database {
    /// Opens (or with `OpenMode::Create` creates) the database at `path`
    /// and brings its schema up to date. Errors name the file and the reason.
    pub fn open(path: &Path, mode: OpenMode) -> Result<Database> {
        Self::open_waiting(path, mode, BUSY_TIMEOUT)
    }

    /// [`Database::open`] waiting at most `busy` for another process's lock.
    pub(crate) fn open_waiting(path: &Path, mode: OpenMode, busy: Duration) -> Result<Database> {
        register_sqlite_vec();
        if std::fs::symlink_metadata(path).is_err() {
            if let Some(e) = data_dir_is_a_file(path) {
                return Err(e);
            }
            if mode == OpenMode::Existing {
                return Err(KbError::NoIndex(path.to_path_buf()));
            }
            create_new(path, busy)?;
        }
        let header = refuse_non_database(path)?;
        // Nothing is written to a file before it is known to be kb's:
        // opening switches it to WAL, and SQLite writes its header to do
        // that. So the file is read first, through a read-only connection.
        match contents(path, busy) {
            Some(Contents::Foreign) => {
                return Err(KbError::DbCorrupt {
                    path: path.to_path_buf(),
                    reason: "it is an SQLite database but has no kb config table: another \
                             program's database, not a knowledge base; kb leaves it as it is"
                        .into(),
                })
            }
            // No table yet: a command that only reads leaves it as it is.
            Some(Contents::Empty) if mode == OpenMode::Existing => {
                return Err(KbError::NoIndex(path.to_path_buf()));
            }
            _ => {}
        }
        let failure = match connect(path, busy) {
            Ok(conn) => {
                // SQLite opens a file it may not write read-only, silently.
                let read_only = match conn.is_readonly(rusqlite::MAIN_DB) {
                    Ok(false) => None,
                    _ => Some(read_only_reason(path).unwrap_or_else(|| ReadOnlyReason {
                        path: path.to_path_buf(),
                        message: sqlite_read_only_reason(path),
                    })),
                };
                if let (Some(r), OpenMode::Create) = (&read_only, mode) {
                    return Err(r.to_error());
                }
                let db = Database {
                    conn,
                    path: path.to_path_buf(),
                    file: file_id(path),
                    read_only,
                };
                // A valid SQLite file without a table is not a knowledge
                // base yet: a command that only reads leaves it as it is.
                if mode == OpenMode::Existing
                    && db.schema_version().map_err(|e| e.at_db(path))? == 0
                {
                    return Err(KbError::NoIndex(path.to_path_buf()));
                }
                db.migrate().map_err(|e| e.at_db(path))?;
                return Ok(db);
            }
            Err(e) => e,
        };
        // A data directory or file kb may read but not write, or a header
        // SQLite will not write, still answers reads; writes are refused
        // with the reason (see `writable`).
        if is_access_problem(&failure) {
            let reason = read_only_reason(path).or_else(|| damaged_header(path, &header));
            if let (Some(reason), OpenMode::Create) = (&reason, mode) {
                return Err(reason.to_error());
            }
            if let Some(reason) = reason {
                if let Ok(conn) = connect_read_only(path, busy) {
                    let db = Database {
                        conn,
                        path: path.to_path_buf(),
                        file: file_id(path),
                        read_only: Some(reason),
                    };
                    if db.schema_version()? >= super::SCHEMA_VERSION {
                        return Ok(db);
                    }
                }
            }
        }
        Err(open_failure(path, failure, busy))
    }

    /// What another thread needs to open a connection of its own to this
    /// database (a fresh `kb search` scans vectors on one while the
    /// keyword ranker reads on this one).
    pub fn reopener(&self) -> Reopener {
        Reopener {
            path: self.path.clone(),
            read_only: self.read_only.clone(),
        }
    }

    /// Whether kb.db was deleted, or another file put in its place, since
    /// this connection opened it: what the connection writes then goes to
    /// a file nothing will open again.
    pub fn replaced(&self) -> bool {
        self.file.is_some() && file_id(&self.path) != self.file
    }

    /// After kb.db was deleted or replaced under this connection: the log
    /// beside kb.db holds this connection's pages of the old file, which
    /// SQLite would replay onto the file now there (or the next one made).
    /// They are moved into the old file and the log emptied; a log beside
    /// no kb.db is removed.
    pub fn release_log(&self) {
        let _ = self.checkpoint_whole();
        if self.file.is_some() && !self.path.exists() {
            remove_log(&self.path);
        }
    }

    /// `Ok` when this connection may write; otherwise the reason it may not
    /// (a read-only data directory or file), as an `E_IO` error.
    pub fn writable(&self) -> Result<()> {
        match &self.read_only {
            None => Ok(()),
            Some(reason) => Err(reason.to_error()),
        }
    }
}

/// Opens another connection to a database already opened (and migrated)
/// by [`Database::open`]; it can be sent to another thread.
pub struct Reopener {
    path: PathBuf,
    read_only: Option<ReadOnlyReason>,
}

impl Reopener {
    pub fn open(&self) -> Result<Database> {
        let conn = match &self.read_only {
            None => connect(&self.path, BUSY_TIMEOUT),
            Some(_) => connect_read_only(&self.path, BUSY_TIMEOUT),
        }
        .map_err(|e| open_failure(&self.path, e, BUSY_TIMEOUT))?;
        Ok(Database {
            conn,
            path: self.path.clone(),
            file: file_id(&self.path),
            read_only: self.read_only.clone(),
        })
    }
}

/// How much of kb.db a connection reads through a memory map instead of one
/// pread per page: a fresh `kb search` reads thousands of pages (the
/// vector codes, vectors by id); at 20,000 chunks the map saves ~15 ms of
/// system calls, at 1,000,000 (a 3 GB file) about 150 ms. Bundled SQLite
/// caps the map at 2 GB unless built with a larger SQLITE_MAX_MMAP_SIZE
/// (.cargo/config.toml raises it to this); SQLite maps only what the file
/// holds.
const MMAP_SIZE: u64 = 64 << 30;

/// Opens a read-write connection to an existing file (never creating one:
/// see [`create_new`]), switches it to WAL and reads the schema, so that a
/// file SQLite cannot use fails here rather than mid-command.
fn connect(path: &Path, busy: Duration) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(busy)?;
    // WAL lets searches read while an ingest writes; the busy timeout
    // makes a second writer wait instead of failing.
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        // A read-only file cannot be switched; SQLite's own error says so
        // at the first write, and the probe below names the reason.
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
                Some(format!("cannot switch to WAL mode (got {mode})")),
            ));
        }
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
            Some(format!("cannot switch to WAL mode (got {mode})")),
        ));
    }
    conn.execute_batch(
        "PRAGMA foreign_keys = ON;
         PRAGMA synchronous = NORMAL;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -65536;",
    )?;
    conn.execute_batch(&format!("PRAGMA mmap_size = {MMAP_SIZE};"))?;
    plans_fixed_at_prepare(&conn)?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })?;
    Ok(conn)
}

/// A read-only connection for a database kb may not write. Without a
/// `-wal` file there is nothing SQLite needs to share with a writer, so the
/// file is opened `immutable` (SQLite then needs no `-shm` either, which a
/// read-only directory could not hold); with one, SQLite reads it through
/// the existing `-shm`.
fn connect_read_only(path: &Path, busy: Duration) -> rusqlite::Result<Connection> {
    let wal = sidecar(path, "-wal");
    let wal_empty = std::fs::metadata(&wal).map_or(true, |m| m.len() == 0);
    let mut uri = format!("file:{}?mode=ro", uri_path(path));
    if wal_empty {
        uri.push_str("&immutable=1");
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags)?;
    conn.busy_timeout(busy)?;
    conn.execute_batch(&format!(
        "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536; PRAGMA mmap_size = {MMAP_SIZE};"
    ))?;
    plans_fixed_at_prepare(&conn)?;
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })?;
    Ok(conn)
}

/// Every statement keeps the plan it was prepared with, whatever values
/// are bound to it later (SQLite's query planner stability guarantee).
/// Without it SQLite re-prepares a statement whenever a bound value could
/// change its plan: FTS5 looks each query term up in each segment of the
/// keyword index with one cached statement (`segid = ?`), and SQLite
/// re-prepared it whenever the segment id went from 1 to another or back,
/// some 130 times in one search at 20,001 chunks. kb's plans never depend
/// on a bound value: no statistics tables, partial indexes or `LIKE ?`.
fn plans_fixed_at_prepare(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map(|_| ())
}

/// `path` escaped for an SQLite `file:` URI.
fn uri_path(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let bytes = absolute.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// The error for a database path whose folder is no folder: a file of
/// another kind (a file that is no database named as the data directory),
/// a device or pipe, or a path under a file.
pub fn data_dir_is_a_file(db_path: &Path) -> Option<KbError> {
    let dir = db_path.parent()?;
    // The folder, or the nearest part of its path that is there.
    let there = dir.ancestors().find(|a| std::fs::metadata(a).is_ok())?;
    if there.is_dir() {
        return None;
    }
    let why = if there != dir {
        format!(
            "the data directory lies under {}, which is a file, not a folder; name a folder",
            there.display()
        )
    } else if there.is_file() {
        "the data directory is a file, neither a folder nor a knowledge base (an SQLite \
         file kb backup wrote); name a folder, or such a file"
            .to_string()
    } else {
        "the data directory is a device or a pipe, not a folder; name a folder".to_string()
    };
    Some(KbError::io(
        dir,
        std::io::Error::new(std::io::ErrorKind::NotADirectory, why),
    ))
}

/// The size of the header every SQLite database file starts with.
pub(super) const HEADER_BYTES: usize = 100;

/// Refuses a file that is not an SQLite database, whatever its size, before
/// SQLite sees it: SQLite takes an empty (and some shorter-than-a-header)
/// files for a new database and starts over, deleting a `-wal` beside it.
fn refuse_non_database(path: &Path) -> Result<[u8; HEADER_BYTES]> {
    use std::io::Read as _;
    let mut head = Vec::with_capacity(HEADER_BYTES);
    std::fs::File::open(path)
        .and_then(|f| f.take(HEADER_BYTES as u64).read_to_end(&mut head))
        .map_err(|e| KbError::io(path, e))?;
    let reason = if head.is_empty() {
        "the file is empty".to_string()
    } else if head.len() < HEADER_BYTES {
        format!(
            "the file is {} bytes, shorter than the {HEADER_BYTES}-byte header every SQLite \
             database starts with",
            head.len()
        )
    } else if &head[..SQLITE_MAGIC.len()] != SQLITE_MAGIC {
        "the file does not start with the SQLite header (\"SQLite format 3\"): it is not an \
         SQLite database"
            .to_string()
    } else {
        let mut header = [0u8; HEADER_BYTES];
        header.copy_from_slice(&head);
        return Ok(header);
    };
    Err(KbError::DbCorrupt {
        path: path.to_path_buf(),
        reason,
    })
}

/// What an SQLite file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Contents {
    /// kb's tables: its `config` table with a schema version.
    Knowledge,
    /// No table at all: a knowledge base not set up yet.
    Empty,
    /// Tables of another program's.
    Foreign,
}

/// What the file at `path` holds, read through a read-only connection (so
/// nothing is written); `None` when it cannot be read that way (the
/// directory holds no `-shm` and may not hold one), and the connection
/// that opens it decides.
fn contents(path: &Path, busy: Duration) -> Option<Contents> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).ok()?;
    conn.busy_timeout(busy).ok()?;
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .ok()?;
    if tables == 0 {
        return Some(Contents::Empty);
    }
    let has_config: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'config')",
            [],
            |r| r.get(0),
        )
        .ok()?;
    if !has_config {
        return Some(Contents::Foreign);
    }
    // Another program's `config` table has no kb schema version.
    let version = conn.query_row(
        "SELECT value FROM config WHERE key = 'schema_version'",
        [],
        |r| r.get::<_, String>(0),
    );
    match version {
        Ok(v) if v.parse::<i64>().is_ok() => Some(Contents::Knowledge),
        Ok(_) | Err(rusqlite::Error::QueryReturnedNoRows) => Some(Contents::Foreign),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::Unknown) => {
            Some(Contents::Foreign)
        }
        Err(_) => None,
    }
}

/// Builds a new, empty knowledge base (header, WAL mode, schema) in a file
/// of its own beside `path`, then links it into place, so a kb.db that
/// exists is always a whole database. When another process created kb.db
/// meanwhile, its file is kept and this one dropped.
fn create_new(path: &Path, busy: Duration) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(|e| KbError::io(&dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kb.db".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    // A log beside a missing kb.db is a deleted file's: SQLite would replay
    // it onto the new one. kb.db is made only under the writer lock, so
    // no other process uses it.
    remove_log(path);
    // What a `kb init` or first `kb add` killed here left.
    let prefix = format!(".{name}.new-");
    super::remove_dead(&dir, |file| {
        let rest = file.strip_prefix(&prefix)?;
        rest.split(['-']).next()?.parse().ok()
    });
    let new = dir.join(format!("{prefix}{}-{nanos}", std::process::id()));
    let built = (|| -> Result<()> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&new, flags)
            .map_err(|e| creation_failure(path, &dir, e))?;
        conn.busy_timeout(busy)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(|e| creation_failure(path, &dir, e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(KbError::Db(format!(
                "{}: cannot switch a new database to WAL mode (got {mode})",
                new.display()
            )));
        }
        conn.execute_batch("PRAGMA foreign_keys = ON;")?;
        let db = Database {
            conn,
            path: new.clone(),
            file: None,
            read_only: None,
        };
        db.migrate()?;
        // Closing checkpoints the log into the file and removes it.
        drop(db);
        Ok(())
    })();
    if let Err(e) = built {
        remove_whole(&new);
        return Err(e);
    }
    let linked = match std::fs::hard_link(&new, path) {
        Ok(()) => Ok(()),
        // Another process was first: its database stays.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        // A file system without hard links: a rename, unless kb.db
        // appeared meanwhile.
        Err(_) if std::fs::symlink_metadata(path).is_err() => {
            std::fs::rename(&new, path).map_err(|e| KbError::io(path, e))
        }
        Err(e) => Err(KbError::io(path, e)),
    };
    remove_whole(&new);
    linked
}

/// A file's device and inode; none when it cannot be read (or off Unix).
fn file_id(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_creations_files_are_removed_by_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let left = [
            dir.path().join(format!(".kb.db.new-{dead}-17")),
            dir.path().join(format!(".kb.db.new-{dead}-17-wal")),
        ];
        let live = dir
            .path()
            .join(format!(".kb.db.new-{}-9", std::process::id()));
        for f in left.iter().chain([&live]) {
            std::fs::write(f, b"x").unwrap();
        }
        Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        assert!(left.iter().all(|f| !f.exists()));
        assert!(live.exists(), "a running process's file is its own");
    }

    /// SQLite clamps the map to its compiled cap without a word: this
    /// fails if the build lost .cargo/config.toml's larger cap.
    #[test]
    fn the_whole_file_can_be_memory_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        let size: i64 = db
            .conn()
            .query_row("PRAGMA mmap_size", [], |r| r.get(0))
            .unwrap();
        assert_eq!(size as u64, MMAP_SIZE);
    }

    #[test]
    fn a_statement_keeps_its_plan_whatever_is_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kb.db");
        let writer = Database::open(&path, OpenMode::Create).unwrap();
        let reader = connect_read_only(&path, BUSY_TIMEOUT).unwrap();
        for conn in [writer.conn(), &reader] {
            let fixed = conn
                .db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG)
                .unwrap();
            assert!(fixed, "bound values would re-prepare statements");
        }
    }

    #[test]
    fn uri_escapes_what_sqlite_would_parse() {
        let p = uri_path(Path::new("/tmp/a b?c#d%e/kb.db"));
        assert_eq!(p, "/tmp/a%20b%3Fc%23d%25e/kb.db");
    }

    #[test]
    fn another_programs_database_is_refused_and_left_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        for (name, setup) in [
            (
                "rollback.db",
                "CREATE TABLE songs(id INTEGER PRIMARY KEY, title TEXT);",
            ),
            (
                "wal.db",
                "PRAGMA journal_mode = WAL; CREATE TABLE songs(id INTEGER PRIMARY KEY);",
            ),
            // A `config` table of its own, without kb's schema version.
            (
                "config.db",
                "CREATE TABLE config(key TEXT PRIMARY KEY, value TEXT);",
            ),
        ] {
            let p = dir.path().join(name);
            let c = Connection::open(&p).unwrap();
            c.execute_batch(setup).unwrap();
            drop(c);
            let before = std::fs::read(&p).unwrap();
            for mode in [OpenMode::Existing, OpenMode::Create] {
                let e = Database::open(&p, mode).err().unwrap();
                assert_eq!(e.code(), "E_DB_CORRUPT", "{name}: {e}");
                assert!(e.to_string().contains("not a knowledge base"), "{e}");
                assert_eq!(
                    std::fs::read(&p).unwrap(),
                    before,
                    "{name} {mode:?} was written"
                );
            }
        }
    }

    #[test]
    fn a_rollback_journal_copy_with_a_damaged_write_version_still_reads() {
        let dir = tempfile::tempdir().unwrap();
        let live = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        live.set_config("probe", "1").unwrap();
        // What kb backup writes: a copy in rollback-journal mode.
        let copy = dir.path().join("copy.db");
        live.backup_into(&copy, &std::sync::atomic::AtomicBool::new(false))
            .unwrap();
        let mut bytes = std::fs::read(&copy).unwrap();
        assert_eq!((bytes[18], bytes[19]), (1, 1), "rollback-journal mode");
        bytes[18] = 3;
        std::fs::write(&copy, &bytes).unwrap();
        let db = Database::open(&copy, OpenMode::Existing).unwrap();
        assert_eq!(db.get_config("probe").unwrap().as_deref(), Some("1"));
        let e = db.writable().unwrap_err();
        assert!(e.to_string().contains("byte 18"), "{e}");
        let e = Database::open(&copy, OpenMode::Create).err().unwrap();
        assert_eq!(e.code(), "E_IO");
        assert!(e.to_string().contains("byte 18"), "{e}");
        assert_eq!(std::fs::read(&copy).unwrap(), bytes, "the copy was written");
    }

    #[test]
    fn a_lock_held_elsewhere_is_named_not_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kb.db");
        drop(Database::open(&p, OpenMode::Create).unwrap());
        let other = Connection::open(&p).unwrap();
        other
            .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
            .unwrap();
        let e = Database::open_waiting(&p, OpenMode::Existing, Duration::from_millis(100))
            .err()
            .unwrap();
        assert_eq!(e.code(), "E_DB", "{e}");
        assert!(e.to_string().contains("locked"), "{e}");
        other.execute_batch("COMMIT").unwrap();
    }
}
