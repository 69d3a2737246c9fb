//! The one error type of kb, its stable error codes and exit codes.
//!
//! Every failure a user can see is a [`KbError`]. Each variant maps to a
//! stable `code` (documented in the README, printed in JSON errors) and an
//! exit code: 1 for a user error (something the user can fix by changing
//! what they typed or their files), 2 for a system error (a broken database,
//! a missing runtime, a failed model).

use std::path::PathBuf;

/// The registry of error codes: `(code, exit code, what it means)`.
/// The README's table is generated from the same list by hand; keep them in step.
pub const ERROR_CODES: &[(&str, i32, &str)] = &[
    ("E_USAGE", 1, "bad command-line arguments"),
    (
        "E_EMPTY_QUERY",
        1,
        "the search query is empty or only whitespace",
    ),
    ("E_PATH_NOT_FOUND", 1, "a path given to kb does not exist"),
    (
        "E_CONFIG",
        1,
        "config.yaml or an environment variable has a bad key or value",
    ),
    (
        "E_NO_INDEX",
        1,
        "there is no knowledge base yet in the data directory",
    ),
    (
        "E_NOT_FOUND",
        1,
        "no document or chunk with that id or path",
    ),
    (
        "E_SECTION_NOT_FOUND",
        1,
        "no section with that heading in the document",
    ),
    (
        "E_PATH_ESCAPE",
        1,
        "a path resolves outside the indexed documents",
    ),
    (
        "E_MODEL_MISSING",
        1,
        "no embedding model is set up; run `kb init`",
    ),
    (
        "E_MODEL_MISMATCH",
        1,
        "the loaded model is not the model the index was built with",
    ),
    ("E_UNKNOWN_MODEL", 1, "the model name is not in models.toml"),
    (
        "E_INTERRUPTED",
        1,
        "the command was interrupted (Ctrl-C); committed work is kept",
    ),
    ("E_DB_CORRUPT", 2, "kb.db is not a readable SQLite database"),
    ("E_DB_TOO_NEW", 2, "kb.db was written by a newer kb"),
    ("E_DB", 2, "a database operation failed"),
    ("E_IO", 2, "reading or writing a file failed"),
    (
        "E_RUNTIME_MISSING",
        2,
        "the ONNX Runtime library could not be loaded",
    ),
    ("E_MODEL", 2, "the embedding model failed to load or run"),
    ("E_DOWNLOAD", 2, "downloading the model failed"),
];

#[derive(Debug, thiserror::Error)]
pub enum KbError {
    #[error("{0}")]
    Usage(String),

    #[error("the search query is empty; give some words to search for, e.g. kb search \"how to install git\"")]
    EmptyQuery,

    #[error("{}: no such file or directory", .0.display())]
    PathNotFound(PathBuf),

    #[error("configuration error: {0}")]
    Config(String),

    #[error("no knowledge base at {}; run `kb add PATH` to create one", .0.display())]
    NoIndex(PathBuf),

    #[error("{0}")]
    NotFound(String),

    #[error("{0}")]
    SectionNotFound(String),

    #[error("{0}")]
    PathEscape(String),

    #[error("{0}")]
    ModelMissing(String),

    #[error("{0}")]
    ModelMismatch(String),

    #[error("{0}")]
    UnknownModel(String),

    #[error("interrupted; everything committed before the interrupt is kept, re-run the command to continue")]
    Interrupted,

    #[error("{}: the database is corrupt or not a kb database ({reason}); restore it from a backup or move it away to start a new one", path.display())]
    DbCorrupt { path: PathBuf, reason: String },

    #[error("{}: the database has schema version {found}, but this kb understands up to {supported}; upgrade kb", path.display())]
    DbTooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error("database error: {0}")]
    Db(String),

    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{0}")]
    RuntimeMissing(String),

    #[error("embedding model error: {0}")]
    Model(String),

    #[error("download failed: {0}")]
    Download(String),
}

impl KbError {
    /// The stable code printed in JSON errors.
    pub fn code(&self) -> &'static str {
        match self {
            KbError::Usage(_) => "E_USAGE",
            KbError::EmptyQuery => "E_EMPTY_QUERY",
            KbError::PathNotFound(_) => "E_PATH_NOT_FOUND",
            KbError::Config(_) => "E_CONFIG",
            KbError::NoIndex(_) => "E_NO_INDEX",
            KbError::NotFound(_) => "E_NOT_FOUND",
            KbError::SectionNotFound(_) => "E_SECTION_NOT_FOUND",
            KbError::PathEscape(_) => "E_PATH_ESCAPE",
            KbError::ModelMissing(_) => "E_MODEL_MISSING",
            KbError::ModelMismatch(_) => "E_MODEL_MISMATCH",
            KbError::UnknownModel(_) => "E_UNKNOWN_MODEL",
            KbError::Interrupted => "E_INTERRUPTED",
            KbError::DbCorrupt { .. } => "E_DB_CORRUPT",
            KbError::DbTooNew { .. } => "E_DB_TOO_NEW",
            KbError::Db(_) => "E_DB",
            KbError::Io { .. } => "E_IO",
            KbError::RuntimeMissing(_) => "E_RUNTIME_MISSING",
            KbError::Model(_) => "E_MODEL",
            KbError::Download(_) => "E_DOWNLOAD",
        }
    }

    /// 1 for user errors, 2 for system errors.
    pub fn exit_code(&self) -> i32 {
        let code = self.code();
        ERROR_CODES
            .iter()
            .find(|(c, _, _)| *c == code)
            .map(|(_, exit, _)| *exit)
            .unwrap_or(2)
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        KbError::Io {
            path: path.into(),
            source,
        }
    }
}

/// The database file this process opened, so that a corruption detected deep
/// inside any query can name the file at fault. kb opens one database per process.
static DB_PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

pub(crate) fn remember_db_path(path: &std::path::Path) {
    let _ = DB_PATH.set(path.to_path_buf());
}

impl From<rusqlite::Error> for KbError {
    fn from(err: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        match err.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => {
                KbError::DbCorrupt {
                    path: DB_PATH
                        .get()
                        .cloned()
                        .unwrap_or_else(|| PathBuf::from("kb.db")),
                    reason: err.to_string(),
                }
            }
            _ => KbError::Db(err.to_string()),
        }
    }
}

pub type Result<T, E = KbError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_registered_once() {
        let mut seen = std::collections::HashSet::new();
        for (code, exit, _) in ERROR_CODES {
            assert!(seen.insert(*code), "duplicate code {code}");
            assert!(*exit == 1 || *exit == 2);
        }
        let samples = [
            KbError::EmptyQuery,
            KbError::Usage("x".into()),
            KbError::Db("x".into()),
            KbError::Model("x".into()),
            KbError::Interrupted,
        ];
        for e in samples {
            assert!(seen.contains(e.code()));
        }
        assert_eq!(KbError::EmptyQuery.exit_code(), 1);
        assert_eq!(KbError::Db("x".into()).exit_code(), 2);
    }
}
