//! Images end to end: PNG and multi-page TIFF scans written by the test
//! (pages rendered with pdfium), read by Tesseract, cited by page and
//! marked `ocr`; a blank image is empty, and without Tesseract every image
//! fails with the reason while the batch goes on.

use kb::ingest::testdocs;
use serde_json::Value;

use crate::common::Kb;
use crate::formats::{file_of, results, top};

/// Whether Tesseract is here; ./test.sh requires it where it could be
/// installed (as the PDF OCR tests do).
fn ocr_available() -> bool {
    if kb::ingest::ocr::locate(None).is_some() {
        return true;
    }
    assert!(
        std::env::var_os("KB_TEST_REQUIRE_OCR").is_none(),
        "KB_TEST_REQUIRE_OCR is set but Tesseract is missing"
    );
    eprintln!("skipped: Tesseract is not installed");
    false
}

fn pages(texts: &[&str]) -> Vec<(usize, usize, Vec<u8>)> {
    use kb::ingest::pdf::testpdf::{heading, para, TestPdf};
    let mut pdf = TestPdf::new();
    for t in texts {
        pdf = pdf.page(vec![heading("Field report", 16.0), para(t)]);
    }
    let pdfium = kb::ingest::pdf::engine::locate(&kb::config::Config::default()).unwrap();
    kb::ingest::pdf::testpdf::render_pages(&pdfium, &pdf.to_bytes(), 200.0)
}

#[test]
fn images_are_read_by_ocr_and_cited_by_page() {
    if !ocr_available() {
        return;
    }
    let kb = Kb::new();
    let dir = kb.home.path().join("scans");
    std::fs::create_dir_all(&dir).unwrap();
    let scanned = pages(&[
        "The north meadow flooded after three days of heavy rain.",
        "We repaired the fence along the river with oak posts.",
    ]);
    let (w, h, px) = &scanned[0];
    std::fs::write(dir.join("meadow.png"), testdocs::png(*w, *h, px)).unwrap();
    std::fs::write(dir.join("report.tiff"), testdocs::tiff(&scanned)).unwrap();
    // A blank image: nothing to read, skipped as empty.
    std::fs::write(dir.join("blank.png"), testdocs::png(50, 50, &[255u8; 2500])).unwrap();
    let s = kb.add(&[&dir]);
    assert_eq!(s["added"], 2, "{s}");
    assert_eq!(s["failed"], 0, "{s}");
    assert_eq!(s["empty"], 1, "{s}");
    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    let blank = log.lines().find(|l| l.contains("blank.png")).unwrap_or("");
    assert!(blank.contains("no text found by OCR"), "{log}");

    let v = kb.json(&["search", "fence river oak posts", "--fts-only"]);
    let hit = &results(&v)[0];
    assert_eq!(file_of(hit), "report.tiff", "{v}");
    assert_eq!(hit["source"]["type"], "image");
    assert_eq!(hit["source"]["page"], 2, "{hit}");
    assert_eq!(hit["source"]["ocr"], true, "{hit}");
    let hit = top(
        &kb,
        &["the field was under water after the storm", "--vec-only"],
    );
    assert!(
        ["meadow.png", "report.tiff"].contains(&file_of(&hit).as_str()),
        "{hit}"
    );
    let info = kb.json(&["info", dir.join("report.tiff").to_str().unwrap()]);
    assert_eq!(info["pages"], 2, "{info}");

    // Without Tesseract each image fails with the reason; the batch goes on.
    let kb2 = Kb::new();
    let out = kb2
        .cmd()
        .args(["add", dir.to_str().unwrap(), "--format", "json", "--quiet"])
        .env("KB_INGESTION_TESSERACT", "/nonexistent/tesseract")
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(
        s["failed"],
        3,
        "{s} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(kb2.data_dir().join("ingest-errors.log")).unwrap();
    assert!(
        log.contains("meadow.png") && log.contains("tesseract"),
        "{log}"
    );
}
