//! PDFs end to end with the real kb binary and model: page citations,
//! outline and sections from detected headings, page counts, and hostile
//! files that must fail alone with a named reason.

mod common;

use common::*;
use kb::ingest::pdf::testpdf::{self, heading, para, TestPdf};

fn words(n: usize, w: &str) -> String {
    vec![w; n].join(" ")
}

fn handbook() -> Vec<u8> {
    TestPdf::new()
        .title("The Orchard Handbook")
        .footer()
        .page(vec![
            heading("Orchard Handbook", 20.0),
            heading("1 Planting", 14.0),
            para(&format!(
                "Plant apple trees in early spring when the soil is workable. {}",
                words(40, "soil")
            )),
        ])
        .page(vec![
            heading("2 Pruning", 14.0),
            para("Prune in late winter while the trees are dormant, cutting crossing branches first."),
        ])
        .page(vec![
            heading("3 Harvest", 14.0),
            para("Pick the xylocarp fruit when it twists off the spur with a gentle upward lift."),
        ])
        .to_bytes()
}

#[test]
fn pdf_pages_are_cited_outlined_and_counted() {
    let kb = Kb::new();
    let dir = kb.home.path().join("docs");
    std::fs::create_dir_all(&dir).unwrap();
    let pdf = dir.join("orchard.pdf");
    std::fs::write(&pdf, handbook()).unwrap();
    // A PDF whose second page is an image (no text at all).
    let partly = dir.join("partly-scanned.pdf");
    std::fs::write(
        &partly,
        TestPdf::new()
            .page(vec![para(
                "Quince jelly needs long slow cooking with lemon peel.",
            )])
            .page(vec![])
            .to_bytes(),
    )
    .unwrap();

    let s = kb.add(&[&dir]);
    assert_eq!(s["added"], 2, "{s}");
    assert_eq!(s["failed"], 0, "{s}");

    let v = kb.json(&["search", "when to pick the xylocarp fruit"]);
    let top = &v["results"][0];
    assert_eq!(top["source"]["title"], "The Orchard Handbook", "{v}");
    assert_eq!(top["source"]["type"], "pdf");
    assert_eq!(top["source"]["page"], 3, "{v}");
    assert_eq!(top["source"]["section"], "Orchard Handbook > 3 Harvest");
    let v = kb.json(&["search", "dormant", "--fts-only"]);
    assert_eq!(v["results"][0]["source"]["page"], 2, "{v}");
    assert!(
        !v["results"][0]["text"].as_str().unwrap().contains("Page 2"),
        "the footer is not indexed: {v}"
    );
    let human = kb
        .cmd()
        .args(["search", "xylocarp", "--fts-only", "--format", "human"])
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(human.contains("The Orchard Handbook (p.3)"), "{human}");

    let path = pdf.to_str().unwrap();
    let outline = kb.json(&["outline", path]);
    let items: Vec<(String, u64)> = outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["text"].as_str().unwrap().to_string(),
                i["page"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        items,
        vec![
            ("Orchard Handbook".to_string(), 1),
            ("1 Planting".to_string(), 1),
            ("2 Pruning".to_string(), 2),
            ("3 Harvest".to_string(), 3)
        ]
    );
    let section = kb.json(&["show", path, "--section", "2 pruning"]);
    let content = section["content"].as_str().unwrap();
    assert!(
        content.starts_with("2 Pruning") && content.contains("dormant"),
        "{content}"
    );
    assert!(!content.contains("xylocarp"), "{content}");

    let info = kb.json(&["info", path]);
    assert_eq!(info["pages"], 3);
    assert_eq!(info["pages_without_text"], 0);
    let chunk_pages: Vec<u64> = info["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["page"].as_u64().unwrap())
        .collect();
    assert_eq!(chunk_pages, vec![1, 2, 3]);

    let info = kb.json(&["info", partly.to_str().unwrap()]);
    assert_eq!(info["pages"], 2);
    assert_eq!(info["pages_without_text"], 1);
    let human = kb
        .cmd()
        .args(["info", partly.to_str().unwrap(), "--format", "human"])
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(
        human.contains("Pages: 2 (1 without extractable text; OCR is not supported)"),
        "{human}"
    );
    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    assert!(
        log.lines().any(|l| l.contains("partly-scanned.pdf")
            && l.contains("warning: 1 of 2 pages have no extractable text")),
        "{log}"
    );

    let open = kb.json(&["open", path]);
    assert_eq!(
        open["content"].as_str().unwrap().matches('\u{c}').count(),
        2
    );
}

#[test]
fn hostile_pdfs_fail_alone_with_their_reason() {
    let kb = Kb::new();
    let dir = kb.home.path().join("hostile");
    std::fs::create_dir_all(&dir).unwrap();
    let good = handbook();
    std::fs::write(dir.join("good.pdf"), &good).unwrap();
    std::fs::write(dir.join("truncated.pdf"), &good[..good.len() / 2]).unwrap();
    std::fs::write(
        dir.join("locked.pdf"),
        TestPdf::new()
            .page(vec![para("secret plans")])
            .encrypted("hunter2"),
    )
    .unwrap();
    std::fs::write(dir.join("endless.pdf"), testpdf::form_bomb(60, false)).unwrap();
    std::fs::write(dir.join("recursive.pdf"), testpdf::form_bomb(0, true)).unwrap();
    std::fs::write(
        dir.join("garbage.pdf"),
        (0..5000u32)
            .map(|i| (i * 7919 % 251) as u8)
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    std::fs::write(
        dir.join("scanned.pdf"),
        TestPdf::new().page(vec![]).page(vec![]).to_bytes(),
    )
    .unwrap();

    let add = |path: &std::path::Path, timeout: &str| {
        let stdout = stdout_of(
            kb.cmd()
                .env("KB_INGESTION_PDF_TIMEOUT_SECS", timeout)
                .args(["add", path.to_str().unwrap(), "--format", "json", "--quiet"]),
        );
        serde_json::from_slice::<serde_json::Value>(&stdout).unwrap()
    };
    let started = std::time::Instant::now();
    let s = add(&dir, "3");
    assert_eq!(s["added"], 1, "{s}");
    assert_eq!(s["failed"], 6, "{s}");
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );

    // 4 GB of zeros behind FlateDecode, in about 4 MB: the child's address
    // space limit stops it (a generous timeout so memory runs out first).
    let bomb = kb.home.path().join("bomb.pdf");
    std::fs::write(&bomb, testpdf::decompression_bomb(4 << 30)).unwrap();
    let s = add(&bomb, "120");
    assert_eq!(s["failed"], 1, "{s}");

    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    for (file, reason) in [
        ("truncated.pdf", "truncated or malformed PDF"),
        ("locked.pdf", "encrypted PDF: not supported"),
        ("bomb.pdf", "PDF extraction ran out of memory"),
        ("endless.pdf", "PDF extraction timed out after 3 s"),
        ("recursive.pdf", "PDF extractor crashed"),
        ("garbage.pdf", "truncated or malformed PDF"),
        (
            "scanned.pdf",
            "no extractable text on any of 2 pages (scanned PDF? OCR is not supported)",
        ),
    ] {
        assert!(
            log.lines().any(|l| l.contains(file) && l.contains(reason)),
            "{file} not logged with {reason}:\n{log}"
        );
    }
    let v = kb.json(&["search", "xylocarp", "--fts-only"]);
    assert_eq!(v["results"][0]["source"]["page"], 3, "{v}");
}
