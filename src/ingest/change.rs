//! Has a file changed since it was indexed? Size and modification time
//! first, which costs one `stat`; the SHA-256 of the content only when
//! those differ, so a touched or copied-back file is not re-indexed.

use sha2::{Digest, Sha256};

/// A file's size and modification time (whole seconds since the epoch,
/// 0 when the filesystem records none), as stored with its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub size: u64,
    pub mtime: i64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        FileStamp {
            size: meta.len(),
            mtime,
        }
    }

    /// The cheap half of the rule: same size and mtime as recorded.
    pub fn matches(&self, size: Option<u64>, mtime: Option<i64>) -> bool {
        size == Some(self.size) && mtime == Some(self.mtime)
    }
}

/// The `content_hash` of a document: the hex SHA-256 of the file's bytes.
pub fn content_hash(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
