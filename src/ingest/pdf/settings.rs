//! How a run reads PDFs: the engine, OCR, the stall timeout, and who is
//! told of each page read.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::engine;
use crate::config::{Config, OcrMode};
use crate::ingest::ocr;

/// Called as a PDF's pages are read: (pages done, pages in all).
pub type PageReport = std::sync::Arc<dyn Fn(u32, u32) + Send + Sync>;

/// How a run reads PDFs: how long one may stall, and the engine with its
/// OCR settings (or why there is no engine: every PDF then fails with
/// that reason, and the rest of the batch goes on).
#[derive(Clone)]
pub struct PdfSettings {
    /// How long extraction may stall on loading the file or on one page
    /// (`ingestion.pdf_timeout_secs`).
    pub timeout: Duration,
    pub engine: Result<ReadOptions, String>,
    /// Told of every page read (the progress line of `kb add` shows a long
    /// PDF's pages, OCR being slow).
    pub on_page: Option<PageReport>,
    /// How images are read: by OCR alone, without pdfium.
    pub images: ImageOcr,
}

/// How PDFs are read: the pdfium library, and whether and how to OCR.
/// The parent resolves it and hands it to the child extractor as JSON.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ReadOptions {
    pub pdfium: PathBuf,
    pub ocr: OcrMode,
    /// Tesseract language codes joined by `+` (`eng`, `eng+deu`).
    pub ocr_languages: String,
    /// The tesseract program, when one was found.
    pub tesseract: Option<PathBuf>,
    /// Where the pages read are kept until the document is written, so an
    /// interrupted run does not read (and OCR) them again (`page_cache`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cache: Option<PathBuf>,
}

/// Whether and how images are recognised (`ingestion.enable_ocr`,
/// `ocr_languages`, `tesseract`).
#[derive(Debug, Clone)]
pub struct ImageOcr {
    pub mode: crate::config::OcrMode,
    pub languages: String,
    pub tesseract: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for PdfSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PdfSettings")
            .field("timeout", &self.timeout)
            .field("engine", &self.engine)
            .finish_non_exhaustive()
    }
}

impl PdfSettings {
    pub fn from_config(config: &Config) -> PdfSettings {
        let i = &config.ingestion;
        PdfSettings {
            timeout: Duration::from_secs(i.pdf_timeout_secs),
            engine: engine::locate(config).map(|pdfium| ReadOptions {
                pdfium,
                ocr: i.enable_ocr,
                ocr_languages: i.ocr_languages.clone(),
                tesseract: ocr::locate(i.tesseract.as_deref()),
                page_cache: None,
            }),
            on_page: None,
            images: ImageOcr {
                mode: i.enable_ocr,
                languages: i.ocr_languages.clone(),
                tesseract: ocr::locate(i.tesseract.as_deref()),
            },
        }
    }
}
