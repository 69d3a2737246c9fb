//! The pages a PDF's extraction has read so far, kept in the data directory
//! (`<data_dir>/extract-cache/<content hash>.pages`) until the document is
//! written: an interrupted `kb add` (Ctrl-C, kill -9, a crash) resumes a long
//! PDF where it stopped instead of reading and OCR'ing every page again. One
//! file per PDF content, one JSON line per page, appended as each page is
//! read; the first line says how the pages were read (kb's version and the
//! reading options), so pages read another way are not reused. The writer
//! deletes the file when the document commits; a parse that fails does too.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::page::Page;
use super::settings::ReadOptions;

/// The folder of the cache files, under the data directory.
pub const DIR: &str = "extract-cache";

/// The cache file of a PDF whose bytes hash to `content_hash`.
pub fn path(data_dir: &Path, content_hash: &str) -> PathBuf {
    data_dir.join(DIR).join(format!("{content_hash}.pages"))
}

/// Deletes a PDF's cache file (its document is written, or it failed).
pub fn remove(data_dir: &Path, content_hash: &str) {
    let _ = std::fs::remove_file(path(data_dir, content_hash));
}

#[derive(Serialize, Deserialize, PartialEq)]
struct Header {
    /// kb's version and the reading options, without the cache's path.
    read_by: String,
    pages: u32,
}

#[derive(Serialize, Deserialize)]
struct Line {
    index: u32,
    page: Page,
}

/// An open cache file, locked for this extraction.
pub(super) struct PageCache {
    file: File,
    pages: HashMap<u32, Page>,
}

impl PageCache {
    /// Opens (or starts) the cache at `path` for a PDF of `total` pages read
    /// with `opts`. `None` when it cannot be used (no room, another
    /// extraction of the same file holds it): pages are then read as usual.
    pub(super) fn open(path: &Path, opts: &ReadOptions, total: u32) -> Option<PageCache> {
        std::fs::create_dir_all(path.parent()?).ok()?;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .ok()?;
        if !lock(&file) {
            return None;
        }
        let header = Header {
            read_by: read_by(opts),
            pages: total,
        };
        let mut text = String::new();
        let read = file.read_to_string(&mut text).is_ok();
        let mut pages = HashMap::new();
        let mut lines = text.split_inclusive('\n');
        let same = read
            && lines
                .next()
                .filter(|l| l.ends_with('\n'))
                .and_then(|l| serde_json::from_str::<Header>(l).ok())
                .is_some_and(|h| h == header);
        if same {
            let mut valid = text.find('\n').map_or(0, |i| i + 1);
            // A line cut short by a kill ends the usable part.
            for l in lines {
                let Some(line) = l
                    .strip_suffix('\n')
                    .and_then(|l| serde_json::from_str::<Line>(l).ok())
                else {
                    break;
                };
                if line.index < total {
                    pages.insert(line.index, line.page);
                }
                valid += l.len();
            }
            file.set_len(valid as u64).ok()?;
            file.seek(std::io::SeekFrom::End(0)).ok()?;
        } else {
            let mut first = serde_json::to_string(&header).ok()?;
            first.push('\n');
            file.set_len(0).ok()?;
            file.rewind().ok()?;
            file.write_all(first.as_bytes()).ok()?;
        }
        Some(PageCache { file, pages })
    }

    /// The page read before, if any.
    pub(super) fn take(&mut self, index: u32) -> Option<Page> {
        self.pages.remove(&index)
    }

    /// Keeps a page just read. A failure to write only costs the reuse.
    pub(super) fn keep(&mut self, index: u32, page: &Page) {
        let Ok(mut line) = serde_json::to_string(&Line {
            index,
            page: page.clone(),
        }) else {
            return;
        };
        line.push('\n');
        let _ = self
            .file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush());
    }
}

/// What makes pages read one way differ from pages read another.
fn read_by(opts: &ReadOptions) -> String {
    let mut o = opts.clone();
    o.page_cache = None;
    let options = serde_json::to_string(&o).unwrap_or_default();
    format!(
        "kb {} pages {PAGE_FORMAT} reader {} {options}",
        env!("CARGO_PKG_VERSION"),
        crate::ingest::readers::PDF
    )
}

/// Raised when what a page holds changes (a new field of its lines), so
/// pages kept by an older build are read again.
const PAGE_FORMAT: u32 = 8;

/// Takes the file's advisory lock without waiting: two files with the same
/// content in one run must not write one cache at once.
#[cfg(unix)]
fn lock(file: &File) -> bool {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this File owns; the lock goes with it.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn lock(_file: &File) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::OcrMode;

    fn opts(ocr: OcrMode) -> ReadOptions {
        ReadOptions {
            pdfium: PathBuf::from("/lib/libpdfium.so"),
            ocr,
            ocr_languages: "eng".into(),
            tesseract: None,
            page_cache: None,
        }
    }

    fn page(text: &str) -> Page {
        Page {
            lines: vec![super::super::page::Line {
                text: text.into(),
                ..Default::default()
            }],
            ocr: true,
            ..Default::default()
        }
    }

    #[test]
    fn pages_read_before_come_back_unless_read_another_way() {
        let dir = tempfile::tempdir().unwrap();
        let p = path(dir.path(), "abc");
        {
            let mut c = PageCache::open(&p, &opts(OcrMode::Auto), 3).unwrap();
            assert!(c.take(0).is_none());
            c.keep(0, &page("first"));
            c.keep(1, &page("second"));
            // The same file cannot be opened twice at once.
            assert!(PageCache::open(&p, &opts(OcrMode::Auto), 3).is_none());
        }
        // A line cut short by a kill is dropped.
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"{\"index\":2,\"page\":{\"li").unwrap();
        drop(f);
        {
            let mut c = PageCache::open(&p, &opts(OcrMode::Auto), 3).unwrap();
            assert_eq!(c.take(0), Some(page("first")));
            assert_eq!(c.take(1), Some(page("second")));
            assert!(c.take(2).is_none());
            c.keep(2, &page("third"));
        }
        let again = PageCache::open(&p, &opts(OcrMode::Auto), 3).unwrap();
        assert_eq!(again.pages.len(), 3);
        drop(again);
        // Read with other options: nothing reused, the file starts over.
        let mut other = PageCache::open(&p, &opts(OcrMode::Always), 3).unwrap();
        assert!(other.take(0).is_none());
        drop(other);
        assert_eq!(std::fs::read_to_string(&p).unwrap().lines().count(), 1);
        remove(dir.path(), "abc");
        assert!(!p.exists());
    }
}
