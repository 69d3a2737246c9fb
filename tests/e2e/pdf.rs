//! PDFs end to end with the real kb binary and model: page citations,
//! outline and sections from detected headings, page counts, and hostile
//! files that must fail alone with a named reason.

use crate::common::*;
use kb::ingest::pdf::testpdf::{self, heading, lines, para, TestPdf};

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
            .page(vec![testpdf::figure(500.0)])
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
        human.contains("Pages: 2 (1 without extractable text)"),
        "{human}"
    );
    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    assert!(
        log.lines().any(|l| l.contains("partly-scanned.pdf")
            && l.contains("warning: 1 of 2 pages have no extractable text")),
        "{log}"
    );

    let open = kb.json(&["open", path]);
    // The lines between pages say which page opens, without a control
    // character a terminal would show as `\u{c}`.
    let content = open["content"].as_str().unwrap();
    assert!(!content.contains('\u{c}'), "{content}");
    assert_eq!(content.matches("--- page ").count(), 2, "{content}");
}

/// A PDF's bookmarks are its outline (titles, levels, pages), and
/// `show --section` cuts where a bookmark points even with no heading
/// drawn there; a heading drawn without a bookmark is body text.
#[test]
fn bookmarks_are_the_outline_and_cut_the_sections() {
    let kb = Kb::new();
    let pdf = kb.home.path().join("guide.pdf");
    let bytes = TestPdf::new()
        .page(vec![
            heading("Field Guide", 20.0),
            heading("Chapter 1 Birds", 14.0),
            para(&format!("Wrens nest low in hedges. {}", words(40, "wren"))),
            testpdf::anchor("owls"),
            para("Barn owls hunt over rough grassland at dusk."),
        ])
        .page(vec![
            heading("Field Guide", 9.0),
            heading("Chapter 2 Trees", 14.0),
            para("Hornbeam keeps its dead leaves through the winter."),
        ])
        .bookmark("Chapter 1 Birds", 1, "Chapter 1 Birds")
        .bookmark("1.1 Owls", 2, "owls")
        .bookmark("Chapter 2 Trees", 1, "Chapter 2 Trees")
        .to_bytes();
    std::fs::write(&pdf, bytes).unwrap();
    let s = kb.add(&[&pdf]);
    assert_eq!(s["added"], 1, "{s}");
    let path = pdf.to_str().unwrap();
    let outline = kb.json(&["outline", path]);
    let items: Vec<(String, u64, u64)> = outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["text"].as_str().unwrap().to_string(),
                i["level"].as_u64().unwrap(),
                i["page"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        items,
        vec![
            ("Chapter 1 Birds".to_string(), 1, 1),
            ("1.1 Owls".to_string(), 2, 1),
            ("Chapter 2 Trees".to_string(), 1, 2)
        ],
        "{outline}"
    );
    let owls = kb.json(&["show", path, "--section", "1.1 Owls"]);
    let content = owls["content"].as_str().unwrap();
    assert!(content.contains("Barn owls"), "{content}");
    assert!(
        !content.contains("Wrens") && !content.contains("Hornbeam"),
        "{content}"
    );
}

/// Without bookmarks: a chapter's running header on each of its pages is
/// neither a heading nor part of a section chain, and numbered headings
/// nest by their numbers.
#[test]
fn running_headers_are_not_headings_and_numbers_give_levels() {
    let kb = Kb::new();
    let pdf = kb.home.path().join("manual.pdf");
    let mut doc = TestPdf::new();
    for (c, name) in ["Birds", "Trees", "Fungi"].iter().enumerate() {
        let n = c + 1;
        doc = doc.page(vec![
            heading(&format!("{n} {name}"), 16.0),
            para(&format!(
                "{name} are the subject of this chapter. {}",
                words(30, &name.to_lowercase())
            )),
        ]);
        doc = doc.running_header(&format!("Chapter {n}: {name}"));
        for (s, part) in ["Habitats", "Seasons", "Records"].iter().enumerate() {
            let s = s + 1;
            doc = doc.page(vec![
                heading(&format!("{n}.{s} {name} {part}"), 12.0),
                para(&format!(
                    "Section {n}.{s} tells about {name}. {}",
                    words(40, &format!("{name}{part}").to_lowercase())
                )),
            ]);
        }
        doc = doc.no_running_header();
    }
    std::fs::write(&pdf, doc.to_bytes()).unwrap();
    let s = kb.add(&[&pdf]);
    assert_eq!(s["added"], 1, "{s}");
    let path = pdf.to_str().unwrap();
    let outline = kb.json(&["outline", path]);
    let items: Vec<(String, u64)> = outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["text"].as_str().unwrap().to_string(),
                i["level"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        items.iter().all(|(t, _)| !t.starts_with("Chapter")),
        "{outline}"
    );
    let level = |t: &str| items.iter().find(|(x, _)| x == t).map(|(_, l)| *l);
    let top = level("2 Trees").expect("a heading");
    assert_eq!(level("2.3 Trees Records"), Some(top + 1), "{outline}");
    let v = kb.json(&["search", "treesrecords", "--fts-only"]);
    let section = v["results"][0]["source"]["section"].as_str().unwrap();
    assert_eq!(section, "2 Trees > 2.3 Trees Records", "{v}");
}

/// A reference whose entries run on with no lines of their own ("…
/// when the Name grove.depth — Rows…"), one entry broken by a page break:
/// each entry heads a section, and a search for one cites its section and
/// the page it starts on.
#[test]
fn a_reference_whose_entries_run_on_gets_a_section_per_entry() {
    let kb = Kb::new();
    let pdf = kb.home.path().join("reference.pdf");
    let entry = |name: &str, what: &str| {
        [
            format!("Name grove.{name} — {what} Synopsis grove.{name} 3 Description"),
            format!("Sets the {what} the planner uses for the {name} of a field when the"),
            format!("soil allows it and the season is right for {what} in every row of"),
            format!("the field, from the first row to the last, unless its {name} says otherwise."),
        ]
    };
    let names = [
        "depth",
        "spacing",
        "rootstock",
        "mulch",
        "pruning",
        "harvest",
    ];
    let what = ["rows", "gaps", "stocks", "covers", "cuts", "picks"];
    let all: Vec<String> = names
        .iter()
        .zip(what)
        .flat_map(|(n, w)| entry(n, w))
        .collect();
    let page = |from: usize, to: usize| {
        let ls: Vec<&str> = all[from..to].iter().map(String::as_str).collect();
        vec![lines(&ls)]
    };
    let mut first = vec![heading("Parameter Reference", 16.0)];
    first.extend(page(0, 14));
    let doc = TestPdf::new().page(first).page(page(14, all.len()));
    std::fs::write(&pdf, doc.to_bytes()).unwrap();
    let s = kb.add(&[&pdf]);
    assert_eq!(s["added"], 1, "{s}");

    let items = kb.outline_texts(pdf.to_str().unwrap());
    assert_eq!(items.len(), 1 + names.len(), "{items:?}");
    assert_eq!(items[4], "grove.mulch", "{items:?}");
    // grove.mulch starts at the foot of page 1 and goes on on page 2.
    let v = kb.json(&["search", "grove.mulch covers", "--fts-only"]);
    let top = &v["results"][0]["source"];
    assert_eq!(top["section"], "Parameter Reference > grove.mulch", "{v}");
    assert_eq!(top["page"], 1, "{v}");
    let v = kb.json(&["search", "grove.harvest picks", "--fts-only"]);
    let top = &v["results"][0]["source"];
    assert_eq!(top["section"], "Parameter Reference > grove.harvest", "{v}");
    assert_eq!(top["page"], 2, "{v}");
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
        TestPdf::new()
            .page(vec![testpdf::figure(500.0)])
            .page(vec![testpdf::figure(500.0)])
            .to_bytes(),
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
    // The only file named failed: exit 1, the summary still on stdout.
    let out = kb
        .cmd()
        .env("KB_INGESTION_PDF_TIMEOUT_SECS", "120")
        .args(["add", bomb.to_str().unwrap(), "--format", "json", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["failed"], 1, "{s}");
    assert!(s["failed_files"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("ran out of memory"));

    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    for (file, reason) in [
        ("truncated.pdf", "truncated or malformed PDF"),
        ("locked.pdf", "encrypted PDF: not supported"),
        ("bomb.pdf", "PDF extraction ran out of memory"),
        ("endless.pdf", "PDF extraction timed out after 3 s"),
        ("garbage.pdf", "truncated or malformed PDF"),
        ("scanned.pdf", "no extractable text on any of 2 pages"),
    ] {
        assert!(
            log.lines().any(|l| l.contains(file) && l.contains(reason)),
            "{file} not logged with {reason}:\n{log}"
        );
    }
    // A form that draws itself: pdfium cuts the recursion (the page then
    // draws nothing), or it runs into the stall timeout; either way the file
    // fails alone, with its reason.
    assert!(
        log.lines().any(|l| l.contains("recursive.pdf")
            && (l.contains("PDF extraction timed out")
                || l.contains("PDF extractor crashed")
                || l.contains("no text to index: its only page is blank"))),
        "{log}"
    );
    let v = kb.json(&["search", "xylocarp", "--fts-only"]);
    assert_eq!(v["results"][0]["source"]["page"], 3, "{v}");
}

/// The pdfium library the tests' own process uses to render pages (the kb
/// binary finds it the same way: PDFIUM_DYNAMIC_LIB_PATH, set by ./test.sh,
/// or ~/.cache/kb/pdfium).
fn pdfium() -> std::path::PathBuf {
    kb::ingest::pdf::engine::locate(&kb::config::Config::default()).unwrap()
}

/// Whether Tesseract is installed; ./test.sh requires it (it installs
/// tesseract-ocr), a plain `cargo test --features e2e` skips OCR tests
/// without it.
fn ocr_available() -> bool {
    if kb::ingest::ocr::locate(None).is_some() {
        return true;
    }
    assert!(
        std::env::var_os("KB_TEST_REQUIRE_OCR").is_none(),
        "tesseract is not installed: {}",
        kb::ingest::ocr::HOW_TO_INSTALL
    );
    eprintln!("skipped: tesseract is not installed");
    false
}

/// A scanned copy of the handbook: its three pages rendered at 300 dpi and
/// put back as images, with no text layer.
fn scanned_handbook() -> Vec<u8> {
    testpdf::image_only(&testpdf::render_pages(&pdfium(), &handbook(), 300.0))
}

#[test]
fn a_scanned_pdf_is_read_by_ocr_and_cited_by_page() {
    if !ocr_available() {
        return;
    }
    let kb = Kb::new();
    let dir = kb.home.path().join("scans");
    std::fs::create_dir_all(&dir).unwrap();
    let scan = dir.join("scanned-handbook.pdf");
    std::fs::write(&scan, scanned_handbook()).unwrap();

    let s = kb.add(&[&dir]);
    assert_eq!(s["added"], 1, "{s}");
    assert_eq!(s["failed"], 0, "{s}");

    // A sentence of page 3, found by its words, cited at page 3, marked OCR.
    let v = kb.json(&[
        "search",
        "twists off the spur with a gentle upward lift",
        "--fts-only",
    ]);
    let top = &v["results"][0];
    assert_eq!(top["source"]["page"], 3, "{v}");
    assert_eq!(top["source"]["ocr"], true, "{v}");
    assert!(top["text"].as_str().unwrap().contains("xylocarp"), "{v}");
    let v = kb.json(&["search", "when to pick the xylocarp fruit"]);
    assert_eq!(v["results"][0]["source"]["page"], 3, "{v}");

    let path = scan.to_str().unwrap();
    let info = kb.json(&["info", path]);
    assert_eq!(info["pages"], 3, "{info}");
    assert_eq!(info["pages_ocr"], 3, "{info}");
    assert_eq!(info["pages_without_text"], 0, "{info}");
    assert_eq!(info["ocr"], "3 of 3 recognised by OCR", "{info}");
    // Headings come back from the OCR'd text too.
    let outline = kb.json(&["outline", path]);
    let headings: Vec<&str> = outline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["text"].as_str().unwrap())
        .collect();
    assert!(headings.contains(&"3 Harvest"), "{outline}");

    // With OCR off the scan is counted and logged, as before.
    let off = Kb::new();
    let out = off
        .cmd()
        .env("KB_INGESTION_ENABLE_OCR", "never")
        .args(["add", dir.to_str().unwrap(), "--format", "json", "--quiet"])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["failed"], 1, "{s}");
    let log = std::fs::read_to_string(off.data_dir().join("ingest-errors.log")).unwrap();
    assert!(
        log.contains("no extractable text on any of 3 pages")
            && log.contains("ingestion.enable_ocr is never"),
        "{log}"
    );
}

#[test]
fn table_rows_stay_whole_with_their_labels() {
    let kb = Kb::new();
    let dir = kb.home.path().join("report");
    std::fs::create_dir_all(&dir).unwrap();
    let pdf = dir.join("annual-report.pdf");
    std::fs::write(
        &pdf,
        TestPdf::new()
            .title("Orchard Cooperative Annual Report 2023")
            .page(vec![
                heading("Results of Operations", 14.0),
                para("Revenue grew in every segment, led by the cider business."),
                para("Table 4: Revenue by segment (thousands of dollars)"),
                testpdf::table(&[
                    &["Segment", "2023", "2022"],
                    &["Apples", "$12,345", "$11,020"],
                    &["Cider and perry", "4,210", "3,875"],
                    &["Nursery stock", "987", "1,004"],
                    &["Total revenue", "$17,542", "$15,899"],
                ]),
                para("Costs rose more slowly than revenue across the year."),
            ])
            .to_bytes(),
    )
    .unwrap();
    let s = kb.add(&[&dir]);
    assert_eq!(s["added"], 1, "{s}");

    let v = kb.json(&["search", "cider and perry revenue", "--fts-only"]);
    let text = v["results"][0]["text"].as_str().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The row is one line, its label with its numbers, in one chunk with
    // the caption and the header row.
    assert!(lines.contains(&"Cider and perry | 4,210 | 3,875"), "{text}");
    assert!(lines.contains(&"Apples | $12,345 | $11,020"), "{text}");
    assert!(lines.contains(&"Segment | 2023 | 2022"), "{text}");
    assert!(
        lines.contains(&"Table 4: Revenue by segment (thousands of dollars)"),
        "{text}"
    );
}

#[test]
fn two_columns_are_read_column_by_column() {
    let kb = Kb::new();
    let dir = kb.home.path().join("paper");
    std::fs::create_dir_all(&dir).unwrap();
    let pdf = dir.join("paper.pdf");
    let left = "Grafting joins a scion to a rootstock so the two grow as one tree. \
                The cut surfaces must meet closely and be bound firmly until the union heals. \
                Whip and tongue grafts suit young stems of equal thickness in early spring.";
    let right = "Budding is a form of grafting that uses a single bud instead of a scion. \
                 It is done in late summer when the bark lifts easily from the wood. \
                 A T-shaped cut receives the bud, which is then tied in with tape.";
    std::fs::write(
        &pdf,
        TestPdf::new()
            .page(vec![
                heading("Propagation Methods", 16.0),
                testpdf::columns(left, right),
            ])
            .to_bytes(),
    )
    .unwrap();
    kb.add(&[&dir]);
    let open = kb.json(&["open", pdf.to_str().unwrap()]);
    let content = open["content"].as_str().unwrap();
    // Each column reads as its own paragraph, left before right.
    let grafting = content.find("Grafting joins a scion").unwrap();
    let heals = content
        .find("bound firmly until the union heals. Whip and tongue grafts")
        .unwrap_or_else(|| panic!("left column not read as one paragraph:\n{content}"));
    let budding = content.find("Budding is a form of grafting").unwrap();
    assert!(grafting < heals && heals < budding, "{content}");
    assert!(
        content.contains("when the bark lifts easily from the wood. A T-shaped cut"),
        "{content}"
    );
}

#[test]
fn without_the_pdf_engine_pdfs_fail_alone_saying_where_kb_looked() {
    let kb = Kb::new();
    let dir = kb.home.path().join("mixed");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("orchard.pdf"), handbook()).unwrap();
    write(
        &dir.join("notes.md"),
        "# Quinces\n\nQuince jelly needs lemon peel.\n",
    );
    let out = kb
        .cmd()
        .env("KB_INGESTION_PDFIUM", "/nowhere/libpdfium.so")
        .args(["add", dir.to_str().unwrap(), "--format", "json", "--quiet"])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["added"], 1, "{s}");
    assert_eq!(s["failed"], 1, "{s}");
    let log = std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap();
    assert!(
        log.contains("orchard.pdf")
            && log.contains("PDF engine not found")
            && log.contains("/nowhere/libpdfium.so (not found)")
            && log.contains("pypdfium2"),
        "{log}"
    );
    // kb doctor names it too, as a warning: the rest of kb works.
    let v = kb
        .cmd()
        .env("KB_INGESTION_PDFIUM", "/nowhere/libpdfium.so")
        .args(["doctor"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    let check = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "pdf engine")
        .unwrap();
    assert_eq!(check["status"], "warning", "{v}");
}

/// A `tesseract` that counts the pages it is asked to read (in `count`)
/// and, on the page numbered `hold_at` of its life, says so (`held`) and
/// waits until `release` exists: a test can then stop kb in the middle of
/// a scanned PDF, its earlier pages read and the next one half-way.
fn counting_tesseract(dir: &std::path::Path, hold_at: usize) -> std::path::PathBuf {
    let real = kb::ingest::ocr::locate(None).unwrap();
    let script = dir.join("tesseract");
    let q = |p: &std::path::Path| format!("'{}'", p.display());
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n\
             if [ \"$1\" = stdin ]; then\n\
             \techo page >> {count}\n\
             \tif [ \"$(wc -l < {count})\" -eq {hold_at} ]; then\n\
             \t\ttouch {held}\n\
             \t\ti=0; while [ ! -e {release} ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n\
             \tfi\n\
             fi\n\
             exec {real} \"$@\"\n",
            count = q(&dir.join("count")),
            held = q(&dir.join("held")),
            release = q(&dir.join("release")),
            real = q(&real),
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn pages_read(dir: &std::path::Path) -> usize {
    std::fs::read_to_string(dir.join("count"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

#[test]
fn a_resumed_add_neither_ocrs_nor_logs_again_what_it_read_before() {
    if !ocr_available() {
        return;
    }
    let kb = Kb::new();
    let tools = kb.home.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    let tesseract = counting_tesseract(&tools, 2);
    let dir = kb.home.path().join("scans");
    std::fs::create_dir_all(&dir).unwrap();
    // Three scanned pages, and one of a black box OCR finds no text in
    // (a warning).
    let mut pages = testpdf::render_pages(&pdfium(), &handbook(), 300.0);
    let (w, h, _) = pages[0].clone();
    let ink =
        |i: usize| (w / 3..2 * w / 3).contains(&(i % w)) && (h / 3..2 * h / 3).contains(&(i / w));
    pages.push((
        w,
        h,
        (0..w * h).map(|i| if ink(i) { 0 } else { 255 }).collect(),
    ));
    std::fs::write(dir.join("scanned.pdf"), testpdf::image_only(&pages)).unwrap();
    let env = [("KB_INGESTION_TESSERACT", tesseract.to_str().unwrap())];
    let args = ["add", dir.to_str().unwrap(), "--quiet", "--format", "json"];

    // 1. Ctrl-C while Tesseract reads page 2: page 1 was read.
    let mut cmd = kb.std_cmd();
    cmd.args(args).envs(env);
    let mut running = Running::start_cmd(cmd);
    let held = tools.join("held");
    running.wait_until(|| held.exists(), "Tesseract reading page 2");
    running.interrupt();
    std::fs::write(tools.join("release"), b"").unwrap();
    assert_eq!(pages_read(&tools), 2);
    let log =
        || std::fs::read_to_string(kb.data_dir().join("ingest-errors.log")).unwrap_or_default();
    assert_eq!(log(), "", "nothing logged before the document is written");

    // 2. Resumed, and stopped again once the PDF is read, its first model
    // batch in flight: only pages 2 to 4 were read by Tesseract.
    let running = kb.start_paused_with(&args, 0, &env);
    assert_eq!(pages_read(&tools), 5, "page 1 came from the cache");
    running.interrupt();
    assert_eq!(log(), "", "warnings wait for the document to be written");

    // 3. Resumed to the end: no page read again, the warning logged once,
    // and the cache gone with the document written.
    let out = kb.cmd().args(args).envs(env).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (s["added"].as_u64(), s["pages_without_text"].as_u64()),
        (Some(1), Some(1)),
        "{s}"
    );
    assert_eq!(pages_read(&tools), 5, "every page came from the cache");
    let log = log();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(
        log.contains("1 of 4 pages have no extractable text"),
        "{log}"
    );
    let info = kb.json(&["info", dir.join("scanned.pdf").to_str().unwrap()]);
    assert_eq!(
        info["ocr"], "3 of 4 recognised by OCR; 1 without extractable text",
        "{info}"
    );
    let v = kb.json(&["search", "twists off the spur", "--fts-only"]);
    assert_eq!(v["results"][0]["source"]["page"], 3, "{v}");
    let cache = kb.data_dir().join("extract-cache");
    let left = std::fs::read_dir(&cache).map_or(0, |d| d.count());
    assert_eq!(left, 0, "the cache goes with the written document");
}
