//! Images (`.png`, `.jpg`/`.jpeg`, `.tif`/`.tiff`, `.webp`): read by
//! Tesseract, the OCR engine scanned PDFs use, each page of a multi-page
//! TIFF a page; every chunk is marked `ocr`. An image without text is
//! empty (skipped, not failed, the log saying OCR found no text); without
//! Tesseract, or with OCR turned off,
//! each image fails with that reason.

use std::path::Path;

use super::extracted::TextBuilder;
use super::ocr;
use super::{file_title, ChunkContext, IngestError, ParsedDocument};
use crate::config::OcrMode;

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let format = sniff(bytes).ok_or_else(|| {
        IngestError::Unsupported("not a PNG, JPEG, TIFF or WebP image (a misnamed file?)".into())
    })?;
    let settings = &ctx.pdf.images;
    if settings.mode == OcrMode::Never {
        return Err(IngestError::failed(
            "images are read by OCR only, and ingestion.enable_ocr is never",
        ));
    }
    let Some(tesseract) = &settings.tesseract else {
        return Err(IngestError::failed(format!(
            "no OCR engine to read the image: {}",
            ocr::HOW_TO_INSTALL
        )));
    };
    let pages = ocr::recognise_file(
        tesseract,
        &settings.languages,
        path,
        ctx.pdf.timeout,
        // The PDF extractor's limit: Tesseract reads images as large.
        super::pdf::MEMORY_LIMIT_BYTES,
    )
    .map_err(|e| IngestError::failed(format!("{format} image: {e}")))?;
    let mut b = TextBuilder::default();
    for lines in &pages {
        b.new_page();
        for line in lines {
            if line.gap {
                b.end_block();
            }
            b.push_inline(&line.text);
            b.end_line();
        }
    }
    if b.text().trim().is_empty() || pages.iter().all(|p| p.is_empty()) {
        return Err(IngestError::no_text(match pages.len() {
            1 => "no text found by OCR in the image".to_string(),
            n => format!("no text found by OCR in any of the image's {n} pages"),
        }));
    }
    let mut doc = ParsedDocument {
        title: file_title(path),
        ..Default::default()
    };
    b.finish(&mut doc, ctx)?;
    for c in &mut doc.chunks {
        c.meta.ocr = true;
    }
    let read = pages.iter().filter(|p| !p.is_empty()).count() as u32;
    doc.meta.pages = Some(pages.len() as u32);
    doc.meta.pages_ocr = Some(read);
    Ok(doc)
}

/// The image format by its first bytes.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0x89, b'P', b'N', b'G', ..] => Some("PNG"),
        [0xFF, 0xD8, 0xFF, ..] => Some("JPEG"),
        [b'I', b'I', 42, 0, ..] | [b'M', b'M', 0, 42, ..] => Some("TIFF"),
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some("WebP"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;

    #[test]
    fn images_are_known_by_their_bytes() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n"), Some("PNG"));
        assert_eq!(sniff(b"II*\x00...."), Some("TIFF"));
        assert_eq!(sniff(b"RIFF\x10\x00\x00\x00WEBPVP8 "), Some("WebP"));
        let c = ChunkingConfig::default();
        let e = parse(
            Path::new("x.png"),
            b"hello",
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap_err();
        assert!(e.to_string().contains("misnamed"), "{e}");
    }
}
