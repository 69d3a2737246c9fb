//! Which kind of document a file is.

use std::path::Path;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum DocType {
    Pdf,
    Markdown,
    Code,
    Note,
}

impl DocType {
    pub fn as_str(self) -> &'static str {
        match self {
            DocType::Pdf => "pdf",
            DocType::Markdown => "markdown",
            DocType::Code => "code",
            DocType::Note => "note",
        }
    }
}

/// The document type of a path by its extension, or `None` when kb does not
/// index that kind of file.
pub fn detect_by_extension(path: &Path) -> Option<DocType> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "md" | "markdown" => Some(DocType::Markdown),
        "txt" | "text" => Some(DocType::Note),
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
        assert_eq!(detect_by_extension(Path::new("img.png")), None);
        assert_eq!(detect_by_extension(Path::new("README")), None);
    }
}
