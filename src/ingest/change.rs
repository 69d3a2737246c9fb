//! Has a file changed since it was indexed? The one rule, used by `kb add`
//! to skip files and by `kb info`/`open`/`status`/`doctor`/`search` to
//! report them: same size and modification time means unchanged (one
//! `stat`, no reading); otherwise the SHA-256 of the content decides, so a
//! touched or copied-back file is not taken for a new one. A file written
//! in the second it was read has no mtime recorded (a later write in that
//! second would leave the same stamp), so its content decides next time. A file the walks
//! reach only through a link is missing once that link is gone or leads
//! elsewhere: the next `kb add`/`kb update` removes its document.

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

    /// The mtime to record for a file whose bytes were read at or after
    /// `read_from`: none when the file was written in that second or later,
    /// as a write after the read could then leave the same stamp.
    pub fn recorded_mtime(&self, read_from: std::time::SystemTime) -> Option<i64> {
        let read_second = read_from
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        (self.mtime < read_second).then_some(self.mtime)
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

/// What was recorded of a document's file when it was indexed.
#[derive(Debug, Clone, Copy)]
pub struct Recorded<'a> {
    /// Stored form (`source_path`).
    pub path: &'a str,
    /// The link the walks reach the file through, when only through it
    /// (stored form).
    pub via_link: Option<&'a str>,
    pub size: Option<u64>,
    pub mtime: Option<i64>,
    /// The `content_hash`; without it only the first step runs, which is
    /// what a quick count of stale documents wants.
    pub hash: Option<&'a str>,
}

impl<'a> From<&'a crate::db::DocumentFile> for Recorded<'a> {
    fn from(f: &'a crate::db::DocumentFile) -> Self {
        Recorded {
            path: &f.path,
            via_link: f.via_link.as_deref(),
            size: f.file_size,
            mtime: f.file_mtime,
            // Without a recorded mtime the first step cannot say unchanged:
            // even a quick count reads such a file's content.
            hash: f.file_mtime.is_none().then_some(f.content_hash.as_str()),
        }
    }
}

/// The whole rule for a document's file, given what was recorded when it
/// was indexed.
pub fn file_status(recorded: &Recorded<'_>) -> FileStatus {
    let path = super::source_path::decode(recorded.path);
    if let Some(link) = recorded.via_link {
        let leads_here = std::fs::canonicalize(super::source_path::decode(link))
            .is_ok_and(|target| target == path);
        if !leads_here {
            return FileStatus::Missing;
        }
    }
    let Ok(meta) = std::fs::metadata(&path) else {
        return FileStatus::Missing;
    };
    if FileStamp::of(&meta).matches(recorded.size, recorded.mtime) {
        return FileStatus::Unchanged;
    }
    match (recorded.hash, std::fs::read(&path)) {
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
        let status = |mtime: Option<i64>, hash: Option<&str>| {
            file_status(&Recorded {
                path: p,
                via_link: None,
                size,
                mtime,
                hash,
            })
        };

        assert_eq!(status(mtime, None), FileStatus::Unchanged);
        // Another mtime, same bytes (touched, copied back): the hash says
        // unchanged; without a hash it counts as changed.
        let other = Some(stamp.mtime - 100);
        assert_eq!(status(other, Some(&hash)), FileStatus::Unchanged);
        assert_eq!(status(other, None), FileStatus::Changed);
        // Edited: other bytes.
        std::fs::write(&path, "pears!").unwrap();
        assert_eq!(status(other, Some(&hash)), FileStatus::Changed);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(status(mtime, Some(&hash)), FileStatus::Missing);
        assert_eq!(
            serde_json::to_value(FileStatus::Unchanged).unwrap(),
            "unchanged"
        );
    }

    #[test]
    fn a_file_written_in_the_second_it_was_read_has_no_mtime_recorded() {
        use std::time::{Duration, UNIX_EPOCH};
        let stamp = FileStamp {
            size: 6,
            mtime: 1_000,
        };
        let at = |secs: f64| UNIX_EPOCH + Duration::from_secs_f64(secs);
        assert_eq!(stamp.recorded_mtime(at(1_001.0)), Some(1_000));
        assert_eq!(stamp.recorded_mtime(at(1_000.999)), None, "same second");
        assert_eq!(stamp.recorded_mtime(at(999.5)), None, "written later");

        // Such a document's content decides, even in a quick count.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "apples").unwrap();
        let file = |content_hash: &str| crate::db::DocumentFile {
            id: 1,
            path: path.to_str().unwrap().to_string(),
            file_size: Some(6),
            file_mtime: None,
            via_link: None,
            content_hash: content_hash.to_string(),
        };
        let same = file(&content_hash(b"apples"));
        assert_eq!(file_status(&(&same).into()), FileStatus::Unchanged);
        let other = file(&content_hash(b"pears!"));
        assert_eq!(file_status(&(&other).into()), FileStatus::Changed);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_reached_through_a_link_is_missing_once_the_link_is_not() {
        use crate::ingest::source_path::{canonical, encode};
        let dir = tempfile::tempdir().unwrap();
        let target = canonical(dir.path()).join("archive/tides.md");
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, "tides").unwrap();
        let other = target.with_file_name("other.md");
        std::fs::write(&other, "other").unwrap();
        let link = dir.path().join("tides.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let stamp = FileStamp::of(&std::fs::metadata(&target).unwrap());
        let (path, link_stored) = (encode(&target), encode(&link));
        let status = |via_link: Option<&str>| {
            file_status(&Recorded {
                path: &path,
                via_link,
                size: Some(stamp.size),
                mtime: Some(stamp.mtime),
                hash: None,
            })
        };
        assert_eq!(status(Some(&link_stored)), FileStatus::Unchanged);
        // Re-pointed elsewhere: the walk no longer reaches this file.
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&other, &link).unwrap();
        assert_eq!(status(Some(&link_stored)), FileStatus::Missing);
        // Gone: the same, though the file itself is still there.
        std::fs::remove_file(&link).unwrap();
        assert_eq!(status(Some(&link_stored)), FileStatus::Missing);
        assert_eq!(status(None), FileStatus::Unchanged, "reached directly");
        // A link through a linked folder counts as well.
        let folder = dir.path().join("old");
        std::os::unix::fs::symlink(target.parent().unwrap(), &folder).unwrap();
        let through = encode(&folder.join("tides.md"));
        assert_eq!(status(Some(&through)), FileStatus::Unchanged);
        std::fs::remove_file(&folder).unwrap();
        assert_eq!(status(Some(&through)), FileStatus::Missing);
    }
}
