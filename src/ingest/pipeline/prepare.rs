//! One file on a parser thread: unchanged since it was indexed, or read,
//! parsed and chunked into a document ready to embed.

use std::path::Path;
use std::time::{Duration, Instant};

use super::group::ReadyDocument;
use super::workers::Workers;
use crate::db::{normalize_tags, IndexedFile, NewChunk, NewDocument};
use crate::document::{DocType, DocumentMeta};
use crate::error::Result;
use crate::ingest::change::{content_hash, FileStamp};
use crate::ingest::context::stored_chunks;
use crate::ingest::pdf::page_cache;
use crate::ingest::{parse, source_path, ChunkContext, IngestError, ParsedDocument};

/// What a parser thread makes of one file.
pub(super) enum FileOutcome {
    /// A document to embed, with its PDF pages without text.
    Ready(Box<ReadyDocument>, Option<u64>),
    /// Same size and mtime as indexed: not even read.
    Unchanged { id: i64 },
    /// Same content as indexed under a new mtime (touched, copied back).
    Touched {
        id: i64,
        size: u64,
        mtime: Option<i64>,
    },
    /// Not indexed, and why (empty, unsupported content, failed).
    NotIndexed(IngestError),
}

impl Workers {
    /// Reads, hashes, parses and chunks one file. Returns the outcome with
    /// the parser's warnings (an `Err` is a model or system failure) and the
    /// time it took, not counting a wait for the model to load.
    pub(super) fn prepare_file(
        &self,
        path: &Path,
        doc_type: DocType,
        existing: Option<&IndexedFile>,
        tags: &[String],
    ) -> (Result<(FileOutcome, Vec<String>)>, Duration) {
        let started = Instant::now();
        let mut loading = Duration::ZERO;
        let outcome = self.prepare(path, doc_type, existing, tags, &mut loading);
        (outcome, started.elapsed().saturating_sub(loading))
    }

    fn prepare(
        &self,
        path: &Path,
        doc_type: DocType,
        existing: Option<&IndexedFile>,
        tags: &[String],
        loading: &mut Duration,
    ) -> Result<(FileOutcome, Vec<String>)> {
        let plain = |o: FileOutcome| Ok((o, Vec::new()));
        let not_indexed = |e: IngestError| plain(FileOutcome::NotIndexed(e));
        let source_path = source_path::encode(path);
        let read_from = std::time::SystemTime::now();
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) => return not_indexed(IngestError::Failed(format!("cannot read: {e}"))),
        };
        let stamp = FileStamp::of(&meta);
        let size = stamp.size;
        let mtime = stamp.recorded_mtime(read_from);
        if let Some(e) = existing {
            if stamp.matches(e.file_size, e.file_mtime) {
                return plain(FileOutcome::Unchanged { id: e.id });
            }
        }
        if size == 0 {
            return not_indexed(IngestError::Empty);
        }
        let max_mb = self.config.ingestion.max_file_mb;
        if size > max_mb.saturating_mul(1024 * 1024) {
            return not_indexed(IngestError::Failed(format!(
                "file is {:.1} MB, over ingestion.max_file_mb ({max_mb} MB); raise it to index this file",
                size as f64 / 1_048_576.0,
            )));
        }
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => return not_indexed(IngestError::Failed(format!("cannot read: {e}"))),
        };
        let hash = content_hash(&bytes);
        if let Some(e) = existing {
            if e.content_hash == hash {
                // Same content (touched or copied back): remember the new
                // mtime and apply any new tags, nothing to re-index.
                return plain(FileOutcome::Touched {
                    id: e.id,
                    size,
                    mtime,
                });
            }
        }
        let t = Instant::now();
        let embedder = self.model()?;
        *loading = t.elapsed();
        let tokens = embedder.token_counter();
        let mut ctx = ChunkContext::for_run(&self.config, &tokens, embedder.max_chunk_tokens());
        if doc_type == DocType::Pdf {
            // A long PDF (OCR reads a page in seconds) shows its pages.
            let progress = self.progress.clone();
            let name = crate::ingest::file_title(path);
            ctx.pdf.on_page = Some(std::sync::Arc::new(move |done, total| {
                progress.pdf_pages(&name, done, total)
            }));
            // Pages read are kept until the document is written, so an
            // interrupted run resumes the PDF where it stopped.
            if let Ok(engine) = ctx.pdf.engine.as_mut() {
                engine.page_cache = Some(page_cache::path(&self.config.data_dir, &hash));
            }
        }
        // A parser bug must cost one file, not the batch.
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            parse(doc_type, path, &bytes, &ctx)
        }));
        if doc_type == DocType::Pdf && !matches!(parsed, Ok(Ok(_))) {
            // A failure is final for this content: its pages are not kept.
            page_cache::remove(&self.config.data_dir, &hash);
        }
        let doc: ParsedDocument = match parsed {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => return not_indexed(e),
            Err(panic) => {
                return not_indexed(IngestError::Failed(format!(
                    "the {} parser crashed on this file ({})",
                    doc_type.as_str(),
                    panic_message(panic.as_ref())
                )))
            }
        };
        let file_tags = normalize_tags(&doc.tags);
        let mut all_tags = tags.to_vec();
        all_tags.extend(file_tags.iter().cloned());
        let pages_without_text = doc.meta.pages_without_text.map(u64::from);
        let new_doc = NewDocument {
            title: crate::ingest::without_footnote_marks(&doc.title, doc_type == DocType::Pdf),
            source_path,
            content_hash: hash,
            doc_type,
            language: doc.language.clone(),
            file_size: size,
            file_mtime: mtime,
            metadata: DocumentMeta {
                file_tags,
                ..doc.meta.clone()
            },
            tags: normalize_tags(all_tags),
            content: Some(doc.content.clone()),
            reader_version: crate::ingest::readers::version(doc_type),
        };
        let chunks: Vec<NewChunk> = stored_chunks(
            &doc,
            path,
            self.config.chunking.context_header,
            &tokens,
            embedder.max_chunk_tokens(),
        );
        Ok((
            FileOutcome::Ready(
                Box::new(ReadyDocument {
                    document: new_doc,
                    chunks,
                }),
                pages_without_text,
            ),
            doc.warnings,
        ))
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}
