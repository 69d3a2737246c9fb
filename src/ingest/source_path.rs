//! A file's identity in the knowledge base: the `source_path` a document is
//! stored under.
//!
//! It is canonical (absolute, with symbolic links and `..` resolved), so one
//! file is one document however it was reached: `dir`, `other/../dir` and a
//! link to `dir` name the same files. And it is lossless: Linux file names
//! are bytes, not text, so a name that is not valid UTF-8 keeps its odd
//! bytes as `\xHH` escapes (and a backslash itself is written `\\`); the
//! next `kb add` finds the document again, and the file can be opened from
//! what is stored. Every name that is valid UTF-8 without a backslash is
//! stored as it is.

use std::path::{Path, PathBuf};

/// The canonical path of an existing file or folder; the absolute path when
/// it cannot be resolved (it vanished meanwhile).
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The absolute path, `..` and links left as given (how kb stored paths
/// before they were canonical).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The stored form of `path` (see the module comment).
pub fn encode(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// The file a stored path names: `encode` undone. A backslash that starts
/// no escape is kept as it is (paths stored before escapes existed).
pub fn decode(stored: &str) -> PathBuf {
    if !stored.contains('\\') {
        return PathBuf::from(stored);
    }
    let mut bytes = Vec::with_capacity(stored.len());
    let s = stored.as_bytes();
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' {
            if s.get(i + 1) == Some(&b'\\') {
                bytes.push(b'\\');
                i += 2;
                continue;
            }
            if s.get(i + 1) == Some(&b'x') {
                let hex = s
                    .get(i + 2..i + 4)
                    .and_then(|h| std::str::from_utf8(h).ok());
                if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    bytes.push(b);
                    i += 4;
                    continue;
                }
            }
        }
        bytes.push(s[i]);
        i += 1;
    }
    path_from_bytes(bytes)
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_survive_the_round_trip() {
        use std::os::unix::ffi::OsStrExt;
        let raw = std::ffi::OsStr::from_bytes(b"/docs/caf\xe9 \xff\xfe.md");
        let stored = encode(Path::new(raw));
        assert_eq!(stored, "/docs/caf\\xE9 \\xFF\\xFE.md");
        assert_eq!(decode(&stored).as_os_str(), raw);
        for plain in ["/docs/café.md", "/docs/日本語.txt", "/a b/c.md"] {
            assert_eq!(encode(Path::new(plain)), plain, "stored as it is");
            assert_eq!(decode(plain), PathBuf::from(plain));
        }
        // A real backslash, and text that only looks like an escape.
        for odd in ["/d/a\\b.md", "/d/caf\\xe9.md", "/d/end\\"] {
            let stored = encode(Path::new(odd));
            assert_eq!(decode(&stored), PathBuf::from(odd), "{stored}");
        }
        // Stored before escapes existed: a lone backslash stays.
        assert_eq!(decode("/d/a\\b.md"), PathBuf::from("/d/a\\b.md"));
    }

    #[test]
    fn one_file_however_it_is_reached() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dir");
        std::fs::create_dir_all(real.join("sub")).unwrap();
        std::fs::write(real.join("a.md"), "a").unwrap();
        let via_dots = real.join("sub/../a.md");
        let want = canonical(&real.join("a.md"));
        assert_eq!(canonical(&via_dots), want);
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            assert_eq!(canonical(&link.join("a.md")), want);
        }
        assert!(want.is_absolute());
    }
}
