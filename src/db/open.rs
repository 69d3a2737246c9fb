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
//! deleted `-wal`) is named for what it is, and reads go on where SQLite can.
//!
//! A new kb.db is built beside its final name and linked into place whole,
//! so no process ever sees a kb.db without its header and schema.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

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

/// The files SQLite keeps beside kb.db in WAL mode.
fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
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
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })?;
    Ok(conn)
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

/// The error for a database path whose folder is a file of another kind
/// (a file that is no database named as the data directory).
pub fn data_dir_is_a_file(db_path: &Path) -> Option<KbError> {
    let dir = db_path.parent().filter(|d| d.is_file())?;
    Some(KbError::io(
        dir,
        std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "the data directory is a file, neither a folder nor a knowledge base (an SQLite \
             file kb backup wrote); name a folder, or such a file",
        ),
    ))
}

/// The size of the header every SQLite database file starts with.
const HEADER_BYTES: usize = 100;

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
    let new = dir.join(format!(".{name}.new-{}-{nanos}", std::process::id()));
    let cleanup = |p: &Path| {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let _ = std::fs::remove_file(sidecar(p, suffix));
        }
    };
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
            read_only: None,
        };
        db.migrate()?;
        // Closing checkpoints the log into the file and removes it.
        drop(db);
        Ok(())
    })();
    if let Err(e) = built {
        cleanup(&new);
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
    cleanup(&new);
    linked
}

/// Names a failure to create a new database: the data directory kb may
/// not write, or the file system's own reason.
fn creation_failure(path: &Path, dir: &Path, e: rusqlite::Error) -> KbError {
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
fn sqlite_read_only_reason(path: &Path) -> String {
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
fn damaged_header(path: &Path, header: &[u8; HEADER_BYTES]) -> Option<ReadOnlyReason> {
    (header[18] > 2).then(|| ReadOnlyReason {
        path: path.to_path_buf(),
        message: sqlite_read_only_reason(path),
    })
}

/// Failures that say the file or its directory cannot be written (or
/// opened as asked), rather than anything about the data.
fn is_access_problem(e: &rusqlite::Error) -> bool {
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
fn read_only_reason(path: &Path) -> Option<ReadOnlyReason> {
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

/// Names an open failure: corruption as SQLite reported it, a lock held
/// elsewhere, and the file problems [`explain`] names.
fn open_failure(path: &Path, e: rusqlite::Error, busy: Duration) -> KbError {
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
/// process.
pub fn explain(path: &Path, e: KbError) -> KbError {
    let KbError::DbFile {
        path: at,
        reason,
        sqlite_code,
    } = e
    else {
        return e.at_db(path);
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
    fn uri_escapes_what_sqlite_would_parse() {
        let p = uri_path(Path::new("/tmp/a b?c#d%e/kb.db"));
        assert_eq!(p, "/tmp/a%20b%3Fc%23d%25e/kb.db");
    }

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
