//! Which kind of document a file is: by extension first, then by sniffing
//! the first bytes (a shebang, the PDF magic) for files whose name says
//! nothing.

use std::path::Path;

use super::DocType;

/// How many leading bytes [`detect_by_content`] needs.
pub const SNIFF_BYTES: usize = 1024;

/// The document type of a path by its extension, or `None` when the
/// extension is missing or not one kb indexes.
pub fn detect_by_extension(path: &Path) -> Option<DocType> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    DocType::ALL
        .into_iter()
        .find(|t| t.extensions().contains(&ext.as_str()))
}

/// The document type of a file whose extension says nothing, from its first
/// bytes: the PDF magic, or a shebang naming an interpreter kb can chunk.
pub fn detect_by_content(head: &[u8]) -> Option<DocType> {
    if head.starts_with(b"%PDF-") {
        return Some(DocType::Pdf);
    }
    if looks_binary(head) {
        return None;
    }
    shebang_language(head).map(|_| DocType::Code)
}

/// The language of a code file: by extension, else by its shebang.
pub fn code_language(path: &Path, head: &[u8]) -> Option<&'static str> {
    let by_ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match by_ext.as_deref() {
        Some("py") => Some("python"),
        Some("sh") | Some("bash") => Some("bash"),
        Some("go") => Some("go"),
        Some("js" | "mjs" | "cjs" | "jsx") => Some("javascript"),
        Some("ts" | "mts" | "cts") => Some("typescript"),
        Some("tsx") => Some("tsx"),
        Some("rs") => Some("rust"),
        _ => shebang_language(head),
    }
}

/// `#!/usr/bin/env python3`, `#!/bin/sh -e`, ... → the language kb parses
/// it as. POSIX shells and their relatives are read with the Bash grammar.
fn shebang_language(head: &[u8]) -> Option<&'static str> {
    let rest = head.strip_prefix(b"#!")?;
    let line_end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
    let line = std::str::from_utf8(&rest[..line_end]).ok()?;
    let mut words = line.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        // `env -S python3 -u` and `env python3`: the first non-option word.
        program = words.find(|w| !w.starts_with('-'))?;
    }
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match base {
        "python" | "pypy" => Some("python"),
        "sh" | "bash" | "dash" | "ksh" | "zsh" | "ash" | "mksh" => Some("bash"),
        _ => None,
    }
}

/// True when the first 8 KiB hold a NUL byte, the usual sign of a binary file.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|b| *b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions() {
        assert_eq!(
            detect_by_extension(Path::new("a/B.MD")),
            Some(DocType::Markdown)
        );
        assert_eq!(
            detect_by_extension(Path::new("x.markdown")),
            Some(DocType::Markdown)
        );
        assert_eq!(detect_by_extension(Path::new("n.txt")), Some(DocType::Note));
        assert_eq!(detect_by_extension(Path::new("p.PDF")), Some(DocType::Pdf));
        for f in [
            "a.py", "b.sh", "c.bash", "d.go", "e.js", "f.ts", "g.tsx", "h.rs",
        ] {
            assert_eq!(
                detect_by_extension(Path::new(f)),
                Some(DocType::Code),
                "{f}"
            );
        }
        assert_eq!(detect_by_extension(Path::new("img.bmp")), None);
        assert_eq!(detect_by_extension(Path::new("README")), None);
    }

    #[test]
    fn sniffing() {
        assert_eq!(
            detect_by_content(b"%PDF-1.7\n%\xe2\xe3"),
            Some(DocType::Pdf)
        );
        assert_eq!(
            detect_by_content(b"#!/usr/bin/env python3\nprint(1)\n"),
            Some(DocType::Code)
        );
        assert_eq!(
            detect_by_content(b"#!/bin/sh -e\necho hi\n"),
            Some(DocType::Code)
        );
        assert_eq!(
            detect_by_content(b"#!/usr/bin/env -S bash -x\n"),
            Some(DocType::Code)
        );
        assert_eq!(detect_by_content(b"#!/usr/bin/perl\n"), None);
        assert_eq!(detect_by_content(b"#!/bin/sh\0\0\0"), None);
        assert_eq!(detect_by_content(b"just some text"), None);
        assert_eq!(detect_by_content(b""), None);
    }

    #[test]
    fn languages() {
        assert_eq!(code_language(Path::new("x.py"), b""), Some("python"));
        assert_eq!(code_language(Path::new("x.BASH"), b""), Some("bash"));
        assert_eq!(code_language(Path::new("x.go"), b""), Some("go"));
        assert_eq!(code_language(Path::new("x.mjs"), b""), Some("javascript"));
        assert_eq!(code_language(Path::new("x.jsx"), b""), Some("javascript"));
        assert_eq!(code_language(Path::new("x.ts"), b""), Some("typescript"));
        assert_eq!(code_language(Path::new("x.tsx"), b""), Some("tsx"));
        assert_eq!(code_language(Path::new("x.rs"), b""), Some("rust"));
        assert_eq!(
            code_language(Path::new("bin/tool"), b"#!/usr/bin/python3.11\n"),
            Some("python")
        );
        assert_eq!(
            code_language(Path::new("bin/tool"), b"#!/bin/zsh\n"),
            Some("bash")
        );
        assert_eq!(code_language(Path::new("bin/tool"), b"no shebang"), None);
    }
}
