//! Why a file was not indexed. The pipeline counts the variants apart
//! (`empty` or `failed` in the summary) and logs the message.

/// A file that could not be turned into a document. The message is what
/// `ingest-errors.log` records, so it says what is wrong in the user's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IngestError {
    /// Nothing to index: the file is empty or holds only whitespace.
    #[error("empty file: nothing to index")]
    Empty,
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
}
