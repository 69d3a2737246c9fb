//! The one error type of kb, its stable error codes and exit codes.
//!
//! Every failure a user can see is a [`KbError`]. Each variant maps to one
//! [`ErrorCode`]: a stable `E_` code (printed in JSON errors, documented in
//! docs/errors.md) and an exit code: 1 for a user error (something the user can
//! fix by changing what they typed or their files), 2 for a system error (a
//! broken database, a missing runtime, a failed model). The registry below is
//! the only place codes are written; docs/errors.md's table is generated
//! from it (`cargo dev generate-docs`; a test fails when it is stale).

use std::path::PathBuf;

/// Writes the registry once: the enum, its code strings, exit codes and
/// meanings all come from the same rows.
macro_rules! error_codes {
    ($( $(#[$doc:meta])* $name:ident = $code:literal, $exit:literal, $meaning:literal; )*) => {
        /// A stable error code with its exit code and meaning.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( $(#[$doc])* $name, )*
        }

        impl ErrorCode {
            /// Every code, in the order docs/errors.md lists them.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name,)*];

            /// The code printed in JSON errors, e.g. `E_USAGE`.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$name => $code,)* }
            }

            /// 1 for a user error, 2 for a system error, 130 for Ctrl-C.
            pub fn exit_code(self) -> i32 {
                match self { $(ErrorCode::$name => $exit,)* }
            }

            /// One line saying what the code means.
            pub fn meaning(self) -> &'static str {
                match self { $(ErrorCode::$name => $meaning,)* }
            }
        }
    };
}

error_codes! {
    Usage = "E_USAGE", 1, "bad command-line arguments (or tool arguments over MCP)";
    EmptyQuery = "E_EMPTY_QUERY", 1, "the search query is empty or only whitespace";
    PathNotFound = "E_PATH_NOT_FOUND", 1, "a path given to kb does not exist";
    Config = "E_CONFIG", 1, "config.yaml or an environment variable has a bad key or value (the message names both)";
    NoIndex = "E_NO_INDEX", 1, "no knowledge base yet in the data directory";
    NotFound = "E_NOT_FOUND", 1, "no document or chunk with that id or path";
    SectionNotFound = "E_SECTION_NOT_FOUND", 1, "no section with that heading";
    PathEscape = "E_PATH_ESCAPE", 1, "a path resolves outside the indexed documents";
    WriteRefused = "E_WRITE_REFUSED", 1, "over MCP, `add` named a path outside the files and folders already added and outside `mcp.write_roots`";
    ModelMissing = "E_MODEL_MISSING", 1, "no embedding model set up; run `kb init`";
    ModelMismatch = "E_MODEL_MISMATCH", 1, "the configured model is not the one the index was built with; run `kb reindex`";
    UnknownModel = "E_UNKNOWN_MODEL", 1, "the model name is not in models.toml";
    Interrupted = "E_INTERRUPTED", 130, "interrupted (Ctrl-C); committed work is kept, re-run to continue (exit 130, as shells expect)";
    DbCorrupt = "E_DB_CORRUPT", 2, "kb.db is not an SQLite database (empty, shorter than the 100-byte SQLite header, or without its magic) or SQLite reports it corrupt (garbage, truncated past what its write-ahead log holds) — never silently re-created or written";
    DbTooNew = "E_DB_TOO_NEW", 2, "kb.db was written by a newer kb";
    Db = "E_DB", 2, "a database operation failed";
    Io = "E_IO", 2, "reading or writing a file failed (kb.db included: a full disk, a read-only directory, permissions; the message names the file and the reason)";
    RuntimeMissing = "E_RUNTIME_MISSING", 2, "ONNX Runtime could not be loaded (the message lists where kb looked)";
    Model = "E_MODEL", 2, "the embedding model failed to load or run";
    Download = "E_DOWNLOAD", 2, "downloading the model failed";
    Unhealthy = "E_UNHEALTHY", 2, "`kb doctor` found a fault (each check says how to fix it)";
    Internal = "E_INTERNAL", 2, "a bug in kb (please report it with the message)";
}

impl ErrorCode {
    /// The table of codes in docs/errors.md.
    pub fn markdown_table() -> String {
        let mut out = String::from("| code | exit | meaning |\n|---|---|---|\n");
        for c in Self::ALL {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                c.as_str(),
                c.exit_code(),
                c.meaning()
            ));
        }
        out
    }
}

/// Advice in an error that names another command or an argument. Each
/// front end words it its own way: the command line names commands and
/// flags, `kb mcp` names tools and arguments (an agent cannot run `kb
/// list`, it can call the list tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// Where the indexed documents and their paths are listed.
    ListDocuments,
    /// How a document is found by a part of its path.
    FindDocumentByPath,
    /// Where the indexed folders are listed.
    ListFolders,
    /// Where chunk ids come from.
    ChunkIdsFromSearch,
    /// How a model is bound, and the search that needs none meanwhile.
    BindModel,
    /// Where the tags in use are listed.
    ListTags,
    /// What a search query looks like.
    QueryExample,
}

impl Hint {
    /// The advice for a person at the command line.
    pub fn for_command_line(self) -> &'static str {
        match self {
            Hint::ListDocuments => "`kb list` shows the indexed documents",
            Hint::FindDocumentByPath => "`kb list --search NAME` finds documents by path",
            Hint::ListFolders => "`kb sources` shows the indexed folders",
            Hint::ChunkIdsFromSearch => "chunk ids come from `kb search` results",
            Hint::BindModel => "run `kb init` (or search with --fts-only)",
            Hint::ListTags => "`kb tags` lists them",
            Hint::QueryExample => "e.g. `kb search \"how to install git\"`",
        }
    }

    /// The advice for an agent calling kb's tools.
    pub fn for_agent(self) -> &'static str {
        match self {
            Hint::ListDocuments => "the list tool shows the indexed documents",
            Hint::FindDocumentByPath => "the list tool's search argument finds documents by path",
            Hint::ListFolders => "the sources tool shows the indexed folders",
            Hint::ChunkIdsFromSearch => "chunk ids come from the search tool's results",
            Hint::BindModel => {
                "the knowledge base's owner binds one with kb init; meanwhile search with mode \
                 \"keyword\""
            }
            Hint::ListTags => "the tags tool lists them",
            Hint::QueryExample => "e.g. the query \"how to install git\"",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum KbError {
    /// An error with advice the front end words ([`KbError::for_agent`]).
    #[error("{error}; {}", .hint.for_command_line())]
    Hinted { error: Box<KbError>, hint: Hint },

    #[error("{0}")]
    Usage(String),

    /// A bad argument, named so the MCP server can point at the field.
    #[error("{message}")]
    InvalidArgument {
        field: &'static str,
        message: String,
    },

    #[error("the search query is empty; give some words to search for")]
    EmptyQuery,

    #[error("{}: no such file or directory", .0.display())]
    PathNotFound(PathBuf),

    #[error("configuration error: {0}")]
    Config(String),

    #[error("no knowledge base at {}; run `kb add PATH` to create one", .0.display())]
    NoIndex(PathBuf),

    #[error("{0}")]
    NotFound(String),

    /// `suggestions` are headings close to the one asked for.
    #[error("{message}")]
    SectionNotFound {
        message: String,
        suggestions: Vec<String>,
    },

    #[error("{0}")]
    PathEscape(String),

    /// An agent's `add` of a path outside what it may add.
    #[error("{0}")]
    WriteRefused(String),

    #[error("{0}")]
    ModelMissing(String),

    #[error("{0}")]
    ModelMismatch(String),

    #[error("{0}")]
    UnknownModel(String),

    #[error("interrupted; everything committed before the interrupt is kept, re-run the command to continue")]
    Interrupted,

    /// `path` is empty until the database that failed attaches its own
    /// path (see [`KbError::at_db`]).
    #[error("{}: the database is corrupt or not a kb database ({reason}); restore a backup (kb restore COPY) or move it away to start a new one", path_or_db(path))]
    DbCorrupt { path: PathBuf, reason: String },

    #[error("{}: the database has schema version {found}, but this kb understands up to {supported}; upgrade kb", path.display())]
    DbTooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error("database error: {0}")]
    Db(String),

    /// SQLite could not read or write the database's files for a reason
    /// outside their content (a full disk, permissions, a read-only
    /// directory, an I/O error). `path` is empty and `reason` SQLite's
    /// message until the owner of the database names both (see
    /// `db::explain`).
    #[error("{}: {reason}", path_or_db(path))]
    DbFile {
        path: PathBuf,
        reason: String,
        /// SQLite's extended result code.
        sqlite_code: i32,
    },

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

    #[error("{0}")]
    Unhealthy(String),

    #[error("internal error: {0}")]
    Internal(String),
}

impl KbError {
    /// The registry entry of this error.
    pub fn error_code(&self) -> ErrorCode {
        match self {
            KbError::Hinted { error, .. } => error.error_code(),
            KbError::Usage(_) | KbError::InvalidArgument { .. } => ErrorCode::Usage,
            KbError::EmptyQuery => ErrorCode::EmptyQuery,
            KbError::PathNotFound(_) => ErrorCode::PathNotFound,
            KbError::Config(_) => ErrorCode::Config,
            KbError::NoIndex(_) => ErrorCode::NoIndex,
            KbError::NotFound(_) => ErrorCode::NotFound,
            KbError::SectionNotFound { .. } => ErrorCode::SectionNotFound,
            KbError::PathEscape(_) => ErrorCode::PathEscape,
            KbError::WriteRefused(_) => ErrorCode::WriteRefused,
            KbError::ModelMissing(_) => ErrorCode::ModelMissing,
            KbError::ModelMismatch(_) => ErrorCode::ModelMismatch,
            KbError::UnknownModel(_) => ErrorCode::UnknownModel,
            KbError::Interrupted => ErrorCode::Interrupted,
            KbError::DbCorrupt { .. } => ErrorCode::DbCorrupt,
            KbError::DbTooNew { .. } => ErrorCode::DbTooNew,
            KbError::Db(_) => ErrorCode::Db,
            KbError::DbFile { .. } => ErrorCode::Io,
            KbError::Io { .. } => ErrorCode::Io,
            KbError::RuntimeMissing(_) => ErrorCode::RuntimeMissing,
            KbError::Model(_) => ErrorCode::Model,
            KbError::Download(_) => ErrorCode::Download,
            KbError::Unhealthy(_) => ErrorCode::Unhealthy,
            KbError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The stable code printed in JSON errors.
    pub fn code(&self) -> &'static str {
        self.error_code().as_str()
    }

    /// What the user may have meant (headings close to a missing section).
    pub fn suggestions(&self) -> &[String] {
        match self {
            KbError::Hinted { error, .. } => error.suggestions(),
            KbError::SectionNotFound { suggestions, .. } => suggestions,
            _ => &[],
        }
    }

    /// 1 for user errors, 2 for system errors, 130 for Ctrl-C.
    pub fn exit_code(&self) -> i32 {
        self.error_code().exit_code()
    }

    /// The argument at fault, when the error is about one argument.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            KbError::Hinted { error, .. } => error.field(),
            KbError::InvalidArgument { field, .. } => Some(field),
            KbError::EmptyQuery => Some("query"),
            _ => None,
        }
    }

    /// This error with advice ([`Hint`]) after it.
    pub fn hint(self, hint: Hint) -> Self {
        KbError::Hinted {
            error: Box::new(self),
            hint,
        }
    }

    /// The message as an agent calling kb's tools reads it: advice names
    /// tools, not commands.
    pub fn for_agent(&self) -> String {
        match self {
            KbError::Hinted { error, hint } => {
                format!("{}; {}", error.for_agent(), hint.for_agent())
            }
            KbError::InvalidArgument { message, .. } => argument_names(message),
            e => e.to_string(),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        KbError::Io {
            path: path.into(),
            source,
        }
    }

    pub fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        KbError::InvalidArgument {
            field,
            message: message.into(),
        }
    }
}

/// SQLite's errors become kb's: corruption (as SQLite reports it) is
/// `E_DB_CORRUPT`, a failure to read or write the files (full disk,
/// permissions, I/O) `E_IO`, anything else `E_DB`. The file is named by
/// [`KbError::at_db`] and the reason by `db::explain`, called by the one
/// owner of each open database (`Database::open`, the command session).
impl From<rusqlite::Error> for KbError {
    fn from(err: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        match err.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => {
                KbError::DbCorrupt {
                    path: PathBuf::new(),
                    reason: err.to_string(),
                }
            }
            Some(
                ErrorCode::CannotOpen
                | ErrorCode::ReadOnly
                | ErrorCode::PermissionDenied
                | ErrorCode::SystemIoFailure
                | ErrorCode::DiskFull,
            ) => KbError::DbFile {
                path: PathBuf::new(),
                reason: err.to_string(),
                sqlite_code: match &err {
                    rusqlite::Error::SqliteFailure(e, _) => e.extended_code,
                    _ => 0,
                },
            },
            _ => KbError::Db(err.to_string()),
        }
    }
}

impl KbError {
    /// Names the database file in a corruption error that does not name
    /// one yet.
    pub fn at_db(self, db_path: &std::path::Path) -> KbError {
        match self {
            KbError::DbCorrupt { path, reason } if path.as_os_str().is_empty() => {
                KbError::DbCorrupt {
                    path: db_path.to_path_buf(),
                    reason,
                }
            }
            KbError::DbFile {
                path,
                reason,
                sqlite_code,
            } if path.as_os_str().is_empty() => KbError::DbFile {
                path: db_path.to_path_buf(),
                reason,
                sqlite_code,
            },
            other => other,
        }
    }
}

fn path_or_db(p: &std::path::Path) -> String {
    if p.as_os_str().is_empty() {
        "kb.db".into()
    } else {
        p.display().to_string()
    }
}

pub type Result<T, E = KbError> = std::result::Result<T, E>;

/// A message naming command-line flags (`--fts-only`) with the names an
/// agent gives the same arguments (`fts_only`).
fn argument_names(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("--") {
        let (before, flag) = rest.split_at(at);
        let name_len = flag[2..]
            .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
            .unwrap_or(flag.len() - 2);
        let starts_word = before.is_empty() || before.ends_with([' ', '(', '`', '"']);
        out.push_str(before);
        if starts_word && name_len > 0 {
            out.push_str(&flag[2..2 + name_len].replace('-', "_"));
        } else {
            out.push_str(&flag[..2 + name_len]);
        }
        rest = &flag[2 + name_len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_registered_once_with_a_valid_exit_code() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "duplicate {}", code.as_str());
            assert!(code.as_str().starts_with("E_"));
            assert!(matches!(code.exit_code(), 1 | 2 | 130));
            assert!(!code.meaning().is_empty());
        }
        assert_eq!(KbError::EmptyQuery.exit_code(), 1);
        assert_eq!(KbError::Db("x".into()).exit_code(), 2);
        assert_eq!(KbError::Internal("x".into()).code(), "E_INTERNAL");
        assert_eq!(KbError::invalid("top", "bad").code(), "E_USAGE");
    }

    #[test]
    fn an_agent_reads_argument_names_not_flags() {
        let e = KbError::invalid("mode", "--mode keyword contradicts --fts-only (give one)");
        assert_eq!(
            e.to_string(),
            "--mode keyword contradicts --fts-only (give one)"
        );
        assert_eq!(
            e.for_agent(),
            "mode keyword contradicts fts_only (give one)"
        );
        let e = KbError::invalid("path", "/x/--y/a--b -- c: --");
        assert_eq!(e.for_agent(), "/x/--y/a--b -- c: --");
    }

    #[test]
    fn advice_is_worded_for_who_reads_it() {
        let e = KbError::NotFound("no document with id 9".into()).hint(Hint::ListDocuments);
        assert_eq!(e.code(), "E_NOT_FOUND");
        assert_eq!(
            e.to_string(),
            "no document with id 9; `kb list` shows the indexed documents"
        );
        assert_eq!(
            e.for_agent(),
            "no document with id 9; the list tool shows the indexed documents"
        );
        // No advice for an agent names a command-line flag or command.
        for hint in [
            Hint::ListDocuments,
            Hint::FindDocumentByPath,
            Hint::ListFolders,
            Hint::ChunkIdsFromSearch,
            Hint::BindModel,
            Hint::ListTags,
            Hint::QueryExample,
        ] {
            let text = hint.for_agent();
            assert!(!text.contains("--") && !text.contains("`kb "), "{text}");
        }
    }
}
