//! Why a file was not indexed. The pipeline counts the variants apart
//! (`empty` or `failed` in the summary) and logs the message.

/// A file that could not be turned into a document. The message is what
/// `ingest-errors.log` records, so it says what is wrong in the user's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IngestError {
    /// Nothing to index: the file is empty or holds only whitespace.
    #[error("empty file: nothing to index")]
    Empty,
    /// Nothing to index in a file that is not empty, for the reason given
    /// (an image where OCR found no text); counted as empty.
    #[error("nothing to index: {0}")]
    NoText(String),
    /// Content kb cannot read as the file's type (binary content in a
    /// text file).
    #[error("{0}")]
    Unsupported(String),
    /// The file could not be indexed, for the reason given.
    #[error("{0}")]
    Failed(String),
}

impl IngestError {
    pub fn failed(reason: impl Into<String>) -> IngestError {
        IngestError::Failed(reason.into())
    }

    pub fn no_text(reason: impl Into<String>) -> IngestError {
        IngestError::NoText(reason.into())
    }

    /// Whether the file holds nothing to index (as against one kb could
    /// not read).
    pub fn is_empty(&self) -> bool {
        matches!(self, IngestError::Empty | IngestError::NoText(_))
    }
}
