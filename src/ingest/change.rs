//! Has a file changed since it was indexed? The one rule, used by `kb add`
//! to skip files and by `kb info`/`open`/`status` to report them: same size
//! and modification time means unchanged (one `stat`, no reading);
//! otherwise the SHA-256 of the content decides, so a touched or
//! copied-back file is not taken for a new one.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Whether a document's source file still matches what was indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Unchanged,
    Changed,
    Missing,
}

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

    /// The first step of the rule: the same size and mtime as recorded.
    pub fn matches(&self, size: Option<u64>, mtime: Option<i64>) -> bool {
        size == Some(self.size) && mtime == Some(self.mtime)
    }
}

/// The `content_hash` of a document: the hex SHA-256 of the file's bytes.
/// The second step of the rule compares it with the recorded one.
pub fn content_hash(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The whole rule for the file stored as `path` (a `source_path`), given what was recorded when it
/// was indexed. Without a recorded hash only the first step runs, which
/// is what a quick count of stale documents wants.
pub fn file_status(
    path: &str,
    size: Option<u64>,
    mtime: Option<i64>,
    recorded_hash: Option<&str>,
) -> FileStatus {
    let path = super::source_path::decode(path);
    let Ok(meta) = std::fs::metadata(&path) else {
        return FileStatus::Missing;
    };
    if FileStamp::of(&meta).matches(size, mtime) {
        return FileStatus::Unchanged;
    }
    match (recorded_hash, std::fs::read(&path)) {
        (Some(h), Ok(bytes)) if content_hash(&bytes) == h => FileStatus::Unchanged,
        _ => FileStatus::Changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_and_mtime_first_then_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "apples").unwrap();
        let p = path.to_str().unwrap();
        let stamp = FileStamp::of(&std::fs::metadata(&path).unwrap());
        let hash = content_hash(b"apples");
        let (size, mtime) = (Some(stamp.size), Some(stamp.mtime));

        assert_eq!(file_status(p, size, mtime, None), FileStatus::Unchanged);
        // Another mtime, same bytes (touched, copied back): the hash says
        // unchanged; without a hash it counts as changed.
        let other = Some(stamp.mtime - 100);
        assert_eq!(
            file_status(p, size, other, Some(&hash)),
            FileStatus::Unchanged
        );
        assert_eq!(file_status(p, size, other, None), FileStatus::Changed);
        // Edited: other bytes.
        std::fs::write(&path, "pears!").unwrap();
        assert_eq!(
            file_status(p, size, other, Some(&hash)),
            FileStatus::Changed
        );
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            file_status(p, size, mtime, Some(&hash)),
            FileStatus::Missing
        );
        assert_eq!(
            serde_json::to_value(FileStatus::Unchanged).unwrap(),
            "unchanged"
        );
    }
}
