//! How a run reads PDFs: the engine, OCR, the stall timeout, and who is
//! told of each page read.

use std::time::Duration;

use super::read::ReadOptions;
use super::{engine, ocr};
use crate::config::Config;

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
