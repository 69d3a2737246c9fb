//! How long work (`kb add`, `kb reindex`, the back-fill of `kb init`) tells
//! whoever watches how it goes. The work reports events; a front end
//! decides what to make of them (the CLI draws a line on a terminal, the
//! MCP server and tests make nothing of them).

use std::path::Path;

use crate::document::DocType;

/// What the work is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// `kb add`: files parsed into chunks, chunks embedded and written.
    Ingest,
    /// `kb reindex`: every chunk embedded again.
    Reindex,
    /// `kb init`: chunks written before a model was bound get vectors.
    Backfill,
}

/// A file an ingest goes through: its type and size, by which the chunks
/// of the files not read yet are told before they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSize {
    pub doc_type: DocType,
    pub bytes: u64,
}

impl FileSize {
    /// The file at `path`, of 0 bytes where its size cannot be read.
    pub fn of(path: &Path, doc_type: DocType) -> FileSize {
        let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        FileSize { doc_type, bytes }
    }
}

/// The events of long work; every method does nothing unless overridden.
pub trait Progress: Send + Sync {
    /// The embedding model is loading (true), or has loaded (false).
    fn loading_model(&self, _loading: bool) {}

    /// The files to go through (`kb add`), each with its type and size.
    fn files(&self, _files: &[FileSize]) {}

    /// A file was read (`kb add`) into `chunks` chunks to embed: none when
    /// it is unchanged or could not be read.
    fn file_read(&self, _file: FileSize, _chunks: u64) {}

    /// A file is done with (indexed, skipped or failed).
    fn file_done(&self) {}

    /// More chunks are known to need embedding (the total of a reindex).
    fn chunks_found(&self, _n: u64) {}

    /// Chunks embedded (a model batch).
    fn chunks_done(&self, _n: u64) {}

    /// Pages of a PDF read so far (a scanned PDF's OCR takes seconds a page).
    fn pdf_pages(&self, _name: &str, _done: u32, _total: u32) {}

    /// Chunks already done before this run (a reindex that continues).
    fn already_done(&self, _n: u64) {}

    /// Bytes of a download (`kb init` fetching a library) read so far, of
    /// `total` (0 when unknown).
    fn downloading(&self, _what: &str, _done: u64, _total: u64) {}

    /// The keyword index is being merged, the last step of an ingest that
    /// wrote much of it (seconds on a large knowledge base).
    fn merging_keyword_index(&self) {}

    /// The work is over, whether it succeeded or not.
    fn finish(&self) {}
}

/// Nobody watches.
pub struct Silent;

impl Progress for Silent {}
