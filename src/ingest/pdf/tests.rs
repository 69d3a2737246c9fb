use super::testpdf::{anchor, code, heading, lines, marked, para, spaced, tinted, TestPdf};
use super::*;
use crate::config::ChunkingConfig;

use crate::ingest::test_support::{ctx, words};
fn body(text: &str, y: f32, gap: bool) -> Line {
    Line {
        text: text.into(),
        size: 11.0,
        x: 72.0,
        end: 540.0,
        y,
        gap,
        ..Line::default()
    }
}

fn page(lines: Vec<Line>) -> Page {
    Page {
        lines,
        ..Page::default()
    }
}

/// Extracts in this thread; a page that fails is recorded with its reason
/// and the other pages are still read.
pub(super) fn extract_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<Extracted, String> {
    super::extract::extract_with_progress(bytes, opts, &mut |_, _| {})
}

/// pdfium for the tests that read PDF bytes (skipped without it, see
/// [`testpdf::available_for_tests`]); no OCR.
pub(super) fn engine() -> Option<ReadOptions> {
    if !super::testpdf::available_for_tests() {
        return None;
    }
    let opts = PdfSettings::from_config(&crate::config::Config::default())
        .engine
        .ok()?;
    Some(ReadOptions {
        ocr: crate::config::OcrMode::Never,
        ..opts
    })
}

fn three_pages() -> TestPdf {
    TestPdf::new()
        .footer()
        .page(vec![
            heading("Orchard Handbook", 20.0),
            heading("1 Planting", 14.0),
            para(&format!(
                "Plant apple trees in early spring when the soil is workable. {}",
                words(40, "soil")
            )),
            heading("1.1 Spacing", 12.0),
            para("Leave four metres between standard trees and two between dwarf trees."),
        ])
        .page(vec![
            heading("2 Pruning", 14.0),
            para(&format!(
                "Prune in late winter while the trees are dormant. {}",
                words(30, "branch")
            )),
        ])
        .page(vec![
            heading("3 Harvest", 14.0),
            para("Pick the xylocarp fruit when it twists off the spur with a gentle lift."),
        ])
}

/// The bookmarks are the headings: their titles, levels and pages, cut
/// where they point even where no heading is drawn, and the drawn
/// headings without a bookmark are body text.
#[test]
fn bookmarks_are_the_outline_and_cut_the_sections() {
    let Some(e) = engine() else { return };
    let bytes = three_pages()
        .page(vec![
            para("Storage keeps the fruit cool and dry through the winter months."),
            anchor("pests"),
            para(&format!(
                "Codling moths lay eggs on the young fruit in early summer. {}",
                words(60, "moth")
            )),
        ])
        .bookmark("Orchard Handbook", 1, "Orchard Handbook")
        .bookmark("1 Planting", 2, "1 Planting")
        .bookmark("2 Pruning", 2, "2 Pruning")
        .bookmark("3 Harvest", 2, "3 Harvest")
        .bookmark("Pests", 3, "pests")
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let bookmarks: Vec<(String, u8, u32)> = ex
        .outline
        .iter()
        .map(|o| (o.title.clone(), o.level, o.page))
        .collect();
    let want: Vec<(String, u8, u32)> = [
        ("Orchard Handbook", 1, 1),
        ("1 Planting", 2, 1),
        ("2 Pruning", 2, 2),
        ("3 Harvest", 2, 3),
        ("Pests", 3, 4),
    ]
    .iter()
    .map(|(t, l, p)| (t.to_string(), *l, *p))
    .collect();
    assert_eq!(bookmarks, want);
    let c = ChunkingConfig::default();
    let doc = build(Path::new("orchard.pdf"), &ex, &ctx(&c)).unwrap();
    let index = PageIndex::new(&doc.content);
    let outline: Vec<(String, u8, u32)> = doc
        .meta
        .headings
        .iter()
        .map(|h| (h.text.clone(), h.level, index.page(h.line)))
        .collect();
    assert_eq!(outline, want);
    // "Pests" starts between the two paragraphs of page 4, where no line
    // prints it: the page's text is left as printed.
    let lines: Vec<&str> = doc.content.lines().collect();
    let pests = doc.meta.headings[4].line;
    assert!(lines[pests - 1].starts_with("Codling moths"));
    assert!(lines[..pests].iter().any(|l| l.contains("Storage keeps")));
    assert!(!lines.contains(&"Pests"));
    assert!(doc.chunks.iter().all(|c| !c.text.contains("Pests")));
    let moths = doc
        .chunks
        .iter()
        .find(|c| c.text.contains("Codling"))
        .unwrap();
    // The chunk starts in Harvest's text and runs into Pests.
    assert_eq!(
        moths.meta.section.as_deref(),
        Some("Orchard Handbook > 3 Harvest")
    );
    assert_eq!(moths.meta.runs_into.as_deref(), Some("Pests"));
}

#[test]
fn three_page_pdf_end_to_end() {
    let Some(e) = engine() else { return };
    let bytes = three_pages().title("The Orchard Handbook").to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    assert_eq!(ex.pages.len(), 3);
    assert_eq!(ex.title.as_deref(), Some("The Orchard Handbook"));
    let c = ChunkingConfig::default();
    let doc = build(Path::new("orchard.pdf"), &ex, &ctx(&c)).unwrap();
    assert_eq!(doc.title, "The Orchard Handbook");
    assert_eq!(doc.meta.pages, Some(3));
    assert_eq!(doc.meta.pages_without_text, Some(0));

    let harvest = doc
        .chunks
        .iter()
        .find(|c| c.text.contains("xylocarp"))
        .unwrap();
    assert_eq!(harvest.meta.page, Some(3));
    assert_eq!(
        harvest.meta.section.as_deref(),
        Some("Orchard Handbook > 3 Harvest")
    );
    let pruning = doc
        .chunks
        .iter()
        .find(|c| c.text.contains("dormant"))
        .unwrap();
    assert_eq!(pruning.meta.page, Some(2));
    assert!(
        doc.chunks.iter().all(|c| !c.text.contains("Page ")),
        "footers dropped"
    );

    let texts: Vec<(u8, &str)> = doc
        .meta
        .headings
        .iter()
        .map(|h| (h.level, h.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        vec![
            (1, "Orchard Handbook"),
            (2, "1 Planting"),
            (3, "1.1 Spacing"),
            (2, "2 Pruning"),
            (2, "3 Harvest")
        ]
    );
    // Heading lines point into content, and the form feeds give the page.
    let lines: Vec<&str> = doc.content.lines().collect();
    for h in &doc.meta.headings {
        assert_eq!(lines[h.line - 1], h.text);
    }
    let harvest_h = doc
        .meta
        .headings
        .iter()
        .find(|h| h.text == "3 Harvest")
        .unwrap();
    let index = PageIndex::new(&doc.content);
    assert_eq!(index.page(harvest_h.line), 3);
    assert_eq!(index.page(1), 1);
    assert_eq!(doc.content.matches('\u{c}').count(), 2);
}

#[test]
fn title_falls_back_to_largest_heading_then_file_name() {
    let Some(e) = engine() else { return };
    let c = ChunkingConfig::default();
    let ex = extract_bytes(
        &three_pages().title("Microsoft Word - draft.doc").to_bytes(),
        &e,
    )
    .unwrap();
    let doc = build(Path::new("o.pdf"), &ex, &ctx(&c)).unwrap();
    assert_eq!(doc.title, "Orchard Handbook");

    let plain = Extracted {
        pages: vec![page(vec![body(
            "only body text here, nothing like a heading at all.",
            100.0,
            false,
        )])],
        ..Default::default()
    };
    let doc = build(Path::new("/x/notes.pdf"), &plain, &ctx(&c)).unwrap();
    assert_eq!(doc.title, "notes.pdf");
}

/// A chapter's heading deep inside a document whose first pages name
/// nothing does not title it: its file name does.
#[test]
fn a_heading_past_the_first_pages_is_no_title() {
    let Some(e) = engine() else { return };
    let mut pdf = TestPdf::new();
    for fruit in ["apple", "pear", "plum", "quince"] {
        pdf = pdf.page(vec![para(&format!(
            "Plant {fruit} trees in early spring when the soil is workable."
        ))]);
    }
    let bytes = pdf
        .page(vec![
            heading("9 Including tables", 14.0),
            para("Prune in late winter while the trees are dormant."),
        ])
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let doc = build(
        Path::new("/x/manual.pdf"),
        &ex,
        &ctx(&ChunkingConfig::default()),
    )
    .unwrap();
    assert_eq!(doc.title, "manual.pdf");
}

#[test]
fn paragraph_continuing_on_next_page_stays_whole() {
    let ex = Extracted {
        pages: vec![
            page(vec![
                body("Results", 80.0, false),
                body(
                    "The experiment ran for three weeks and the measurements",
                    100.0,
                    true,
                ),
                body(
                    "showed that the hypothesis holds for all com-",
                    114.0,
                    false,
                ),
            ]),
            page(vec![
                body(
                    "binations we tried, including the hardest one.",
                    80.0,
                    false,
                ),
                body(
                    "A new paragraph starts here on the second page.",
                    120.0,
                    true,
                ),
            ]),
        ],
        ..Default::default()
    };
    let c = ChunkingConfig::default();
    let doc = build(Path::new("r.pdf"), &ex, &ctx(&c)).unwrap();
    assert_eq!(doc.chunks.len(), 2, "{:#?}", doc.chunks);
    let first = &doc.chunks[0];
    assert!(
        first.text.contains("all combinations we tried"),
        "{}",
        first.text
    );
    assert_eq!(first.meta.page, Some(1));
    assert_eq!(first.meta.page_end, Some(2));
    assert_eq!(first.meta.section.as_deref(), Some("Results"));
    assert_eq!(doc.chunks[1].meta.page, Some(2));
    assert!(doc.chunks[1].meta.page_end.is_none());
    // content keeps the layout: the paragraph is cut by the page break.
    assert!(doc.content.contains("com-\n") || doc.content.contains("com-\n\u{c}"));
}

/// A scanned page's last line does not run on into the drawn page after
/// it (nor a drawn page's into a scan): each keeps its own chunk and page.
#[test]
fn a_scanned_page_does_not_run_on_into_a_drawn_page() {
    let unfinished = |text: &str| body(text, 100.0, false);
    let scanned = Page {
        ocr: true,
        ..page(vec![unfinished("Received by the clerk of the county on")])
    };
    let ex = Extracted {
        pages: vec![
            page(vec![unfinished("The survey of the parcel was filed with")]),
            scanned,
            page(vec![unfinished(
                "the second schedule lists the boundary stones",
            )]),
        ],
        ..Default::default()
    };
    let doc = build(Path::new("deed.pdf"), &ex, &ctx(&ChunkingConfig::default())).unwrap();
    let pages: Vec<_> = doc
        .chunks
        .iter()
        .map(|k| (k.meta.page, k.meta.page_end))
        .collect();
    assert_eq!(
        pages,
        [(Some(1), None), (Some(2), None), (Some(3), None)],
        "{:#?}",
        doc.chunks
    );
    assert!(doc.chunks[1].meta.ocr && !doc.chunks[2].meta.ocr);
}

/// A paragraph that runs on from page 1 to page 2, too long for one
/// chunk: the pieces cut from it cite the page their text is on.
#[test]
fn a_paragraph_running_on_over_a_page_break_is_cut_at_the_break() {
    let run_on = |side: &str, gap_first: bool| -> Vec<Line> {
        (0..8)
            .map(|i| {
                let text = format!("the {side} row of young trees moves one place along the");
                body(&text, 100.0 + 14.0 * i as f32, gap_first && i == 0)
            })
            .collect()
    };
    let mut first = vec![body("Planting", 80.0, false)];
    first.extend(run_on("east", true));
    let ex = Extracted {
        pages: vec![page(first), page(run_on("west", false))],
        ..Default::default()
    };
    let mut c = ChunkingConfig::default();
    c.pdf.max_tokens = 40;
    let doc = build(Path::new("r.pdf"), &ex, &ctx(&c)).unwrap();
    let pages = |chunk: &crate::ingest::Chunk| (chunk.meta.page, chunk.meta.page_end);
    let east = doc.chunks.iter().filter(|k| k.text.contains("east"));
    let west = doc.chunks.iter().filter(|k| k.text.contains("west"));
    assert!(
        east.clone().count() > 1 && west.clone().count() > 1,
        "{:#?}",
        doc.chunks
    );
    for k in east.filter(|k| !k.text.contains("west")) {
        assert_eq!(pages(k), (Some(1), None), "{}", k.text);
    }
    for k in west.filter(|k| !k.text.contains("east")) {
        assert_eq!(pages(k), (Some(2), None), "{}", k.text);
    }
}

#[test]
fn chunks_respect_max_tokens_sections_and_pages() {
    let mut c = ChunkingConfig::default();
    c.pdf.max_tokens = 100;
    let long = words(60, "alpha") + ".";
    let ex = Extracted {
        pages: vec![
            page(vec![
                body("Introduction", 60.0, false),
                body(&long, 80.0, true),
                body(&long, 120.0, true),
                body(&(words(250, "gamma") + "."), 160.0, true),
            ]),
            page(vec![body("Short tail on page two.", 60.0, false)]),
        ],
        ..Default::default()
    };
    let doc = build(Path::new("m.pdf"), &ex, &ctx(&c)).unwrap();
    assert!(
        doc.chunks.iter().all(|c| c.token_count <= 100),
        "{:#?}",
        doc.chunks
    );
    // Two 61-token paragraphs do not fit together; the 250-word one is split.
    assert!(doc.chunks.len() >= 5, "{}", doc.chunks.len());
    assert!(doc.chunks[0].text.starts_with("Introduction"));
    let last = doc.chunks.last().unwrap();
    assert_eq!(last.meta.page, Some(2));
    assert_eq!(last.text, "Short tail on page two.");
    assert!(doc.chunks[..doc.chunks.len() - 1]
        .iter()
        .all(|c| c.meta.page == Some(1) && c.meta.section.as_deref() == Some("Introduction")));
}

#[test]
fn small_sections_share_a_chunk_cited_where_its_text_starts() {
    let ex = Extracted {
        pages: vec![page(vec![
            body("Overview", 60.0, false),
            body("Tiny intro.", 80.0, true),
            body("Details", 100.0, true),
            body(&(words(80, "detail") + "."), 120.0, true),
        ])],
        ..Default::default()
    };
    let c = ChunkingConfig::default();
    let doc = build(Path::new("s.pdf"), &ex, &ctx(&c)).unwrap();
    assert_eq!(doc.chunks.len(), 1);
    // Both headings are Title Case lines at body size: siblings. The
    // chunk's text starts under the first and runs into the second.
    assert_eq!(doc.chunks[0].meta.section.as_deref(), Some("Overview"));
    assert_eq!(doc.chunks[0].meta.runs_into.as_deref(), Some("Details"));
    assert_eq!(doc.meta.headings.len(), 2);
}

/// A heading at the foot of a page whose text is on the next page opens
/// that page's chunk, cited at the text's page.
#[test]
fn a_heading_at_the_foot_of_a_page_opens_the_next_pages_chunk() {
    let Some(e) = engine() else { return };
    let bytes = TestPdf::new()
        .page(vec![
            heading("1 Planting", 14.0),
            para("Plant apple trees in early spring when the soil is workable."),
            heading("2 Pruning", 14.0),
        ])
        .page(vec![para(
            "Prune in late winter while the trees are dormant.",
        )])
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let doc = build(Path::new("o.pdf"), &ex, &ctx(&ChunkingConfig::default())).unwrap();
    let chunks: Vec<(&str, Option<u32>)> = doc
        .chunks
        .iter()
        .map(|c| (c.text.as_str(), c.meta.page))
        .collect();
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    assert!(!chunks[0].0.contains("Pruning"), "{chunks:?}");
    assert!(chunks[1].0.starts_with("2 Pruning\n\nPrune"), "{chunks:?}");
    assert_eq!(chunks[1].1, Some(2));
}

/// Headings carried over a page break with no text after them at all are
/// still cited at a page of the document (the one they are on).
#[test]
fn headings_carried_over_a_page_break_to_the_end_cite_their_page() {
    let block = |page: u32, text: &str, level: Option<u8>| Block {
        page,
        text: text.into(),
        level,
        ..Block::default()
    };
    let blocks = [
        block(1, "Intro", Some(1)),
        block(1, &words(20, "intro"), None),
        block(1, "End", Some(1)),
        block(2, "Index", Some(1)),
    ];
    let c = ChunkingConfig::default();
    let chunks = pack::hierarchy(&blocks, 100, &ctx(&c), &hyphens::Hyphenation::default());
    let last = chunks.last().unwrap();
    assert_eq!(last.text, "End\n\nIndex");
    assert_eq!((last.meta.page, last.meta.page_end), (Some(1), Some(2)));
}

#[test]
fn fixed_strategy_windows_each_page() {
    let mut c = ChunkingConfig::default();
    c.pdf.strategy = crate::config::PdfStrategy::Fixed;
    c.pdf.max_tokens = 50;
    let ex = Extracted {
        pages: vec![
            page(vec![body(&words(120, "one"), 60.0, false)]),
            page(vec![body("two words", 60.0, false)]),
        ],
        ..Default::default()
    };
    let doc = build(Path::new("f.pdf"), &ex, &ctx(&c)).unwrap();
    let pages: Vec<Option<u32>> = doc.chunks.iter().map(|c| c.meta.page).collect();
    assert!(pages.len() >= 4, "{pages:?}");
    assert_eq!(pages.last(), Some(&Some(2)));
    assert!(pages[..pages.len() - 1].iter().all(|p| *p == Some(1)));
    assert!(doc
        .chunks
        .iter()
        .all(|c| c.meta.section.is_none() && c.token_count <= 50));
    // Overlap: the second window starts with words from the first.
    assert!(doc.chunks[1].text.starts_with("one"));
}

/// pdfium reads a page that draws nothing as blank; a page with text, or
/// with a figure and no text (as a scan's image), is not.
#[test]
fn a_page_that_draws_nothing_is_read_as_blank() {
    let Some(e) = engine() else { return };
    let bytes = TestPdf::new()
        .page(vec![para("Plant apple trees in early spring.")])
        .page(vec![])
        .page(vec![para("Prune in late winter.")])
        .page(vec![crate::ingest::pdf::testpdf::figure(300.0)])
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let blank: Vec<bool> = ex.pages.iter().map(|p| p.blank).collect();
    assert_eq!(blank, [false, true, false, false]);
    let doc = build(Path::new("b.pdf"), &ex, &ctx(&ChunkingConfig::default())).unwrap();
    assert_eq!(doc.meta.pages_without_text_list, [4], "{:?}", doc.warnings);
}

/// A page left blank (it draws nothing) has no text to miss: it is not
/// counted or reported as a page without text, and a PDF of blank pages
/// is refused as blank, not as a scan OCR could not read.
#[test]
fn blank_pages_are_not_pages_without_text() {
    let c = ChunkingConfig::default();
    let blank = Page {
        blank: true,
        ..Page::default()
    };
    let ex = Extracted {
        pages: vec![
            page(vec![body("Some real text on the first page.", 60.0, false)]),
            blank.clone(),
            page(vec![]),
        ],
        ..Default::default()
    };
    let doc = build(Path::new("p.pdf"), &ex, &ctx(&c)).unwrap();
    assert_eq!(doc.meta.pages_without_text, Some(1));
    assert_eq!(doc.meta.pages_without_text_list, [3]);
    assert!(doc
        .warnings
        .iter()
        .any(|w| w.contains("1 of 3 pages have no extractable text (pages 3;")));

    let all_blank = Extracted {
        pages: vec![blank.clone(), blank],
        ..Default::default()
    };
    let err = build(Path::new("b.pdf"), &all_blank, &ctx(&c))
        .unwrap_err()
        .to_string();
    assert_eq!(err, "no text to index: all 2 pages are blank");
}

#[test]
fn pages_without_text_are_counted_and_all_empty_is_an_error() {
    let c = ChunkingConfig::default();
    let ex = Extracted {
        pages: vec![
            page(vec![body("Some real text on the first page.", 60.0, false)]),
            page(vec![]),
            page(vec![body("·", 60.0, false)]),
        ],
        ..Default::default()
    };
    let doc = build(Path::new("p.pdf"), &ex, &ctx(&c)).unwrap();
    assert_eq!(doc.meta.pages, Some(3));
    assert_eq!(doc.meta.pages_without_text, Some(2));
    assert_eq!(doc.meta.pages_without_text_list, [2, 3]);
    assert!(doc
        .warnings
        .iter()
        .any(|w| w.contains("2 of 3 pages have no extractable text")));

    let scanned = Extracted {
        pages: vec![page(vec![]), page(vec![])],
        ..Default::default()
    };
    let err = build(Path::new("scan.pdf"), &scanned, &ctx(&c))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "no extractable text on any of 2 pages (OCR found no text on them either)"
    );

    let broken = Extracted {
        pages: vec![Page {
            error: Some("PDF error: missing xref entry".into()),
            ..Page::default()
        }],
        ..Default::default()
    };
    let err = build(Path::new("b.pdf"), &broken, &ctx(&c))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("could not extract text") && err.contains("missing xref"),
        "{err}"
    );
}

#[test]
fn hyphenated_lines_in_a_real_pdf_are_joined() {
    let Some(e) = engine() else { return };
    let bytes = TestPdf::new()
        .page(vec![lines(&[
            "Search quality depends on the extrac-",
            "tion of clean text from every document.",
        ])])
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let c = ChunkingConfig::default();
    let doc = build(Path::new("h.pdf"), &ex, &ctx(&c)).unwrap();
    assert_eq!(
        doc.chunks[0].text,
        "Search quality depends on the extraction of clean text from every document."
    );
}

#[test]
fn hostile_files_give_named_errors() {
    let Some(e) = engine() else { return };
    let good = three_pages().to_bytes();
    let err = extract_bytes(&good[..good.len() * 6 / 10], &e).unwrap_err();
    assert!(err.starts_with("truncated or malformed PDF"), "{err}");
    let err = extract_bytes(b"%PDF-1.4\nthis is not really a pdf at all", &e).unwrap_err();
    assert!(err.starts_with("truncated or malformed PDF"), "{err}");
    let err = extract_bytes(b"", &e).unwrap_err();
    assert!(err.starts_with("truncated or malformed PDF"), "{err}");

    let locked = three_pages().encrypted("secret");
    let err = extract_bytes(&locked, &e).unwrap_err();
    assert!(err.starts_with("encrypted PDF"), "{err}");

    // Encrypted with an empty user password: readers open it silently.
    let open = three_pages().encrypted("");
    let ex = extract_bytes(&open, &e).unwrap();
    assert!(ex.encrypted);
    let text: String = ex.pages[2].lines.iter().map(|l| l.text.as_str()).collect();
    assert!(text.contains("xylocarp"), "{text}");
}

#[test]
fn thread_extraction_has_a_timeout() {
    let Some(e) = engine() else { return };
    let big = TestPdf::new().page(vec![para(&words(2000, "slow"))]);
    let mut pdf = big.clone();
    for _ in 0..50 {
        pdf.pages.push(big.pages[0].clone());
    }
    let err =
        extract::extract_on_thread(pdf.to_bytes(), e, std::time::Duration::ZERO, None).unwrap_err();
    assert!(
        err.starts_with("PDF extraction timed out after 0 s"),
        "{err}"
    );
}

#[test]
fn a_code_block_keeps_its_lines_and_indentation() {
    let Some(e) = engine() else { return };
    let listing = [
        "from reportlab.pdfbase import pdfmetrics",
        "def register(name):",
        "    if name:",
        "        pdfmetrics.registerFont(name)  # once",
        "",
        "register(\"Vera\")",
    ];
    let bytes = TestPdf::new()
        .page(vec![
            heading("Registering fonts", 14.0),
            para("Fonts are registered once, before they are used in a paragraph:"),
            code(&listing),
            para("After that the font's name can be given to any paragraph style."),
        ])
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let c = ChunkingConfig::default();
    let doc = build(Path::new("code.pdf"), &ex, &ctx(&c)).unwrap();
    let text: String = doc
        .chunks
        .iter()
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    assert!(text.contains(&listing.join("\n")), "{text}");
    // The prose around it is still prose, under its heading.
    assert!(text.contains("Fonts are registered once, before they are used in a paragraph:"));
    assert!(doc
        .chunks
        .iter()
        .all(|c| c.meta.section.as_deref() == Some("Registering fonts")));
}

#[test]
fn a_letter_spaced_heading_reads_as_whole_words() {
    let Some(e) = engine() else { return };
    let bytes = TestPdf::new()
        .page(vec![
            spaced("FINANCIAL CONDITION AND LIQUIDITY", 14.0, 5.0),
            para("Cash and investments were sufficient for the next twelve months of operations."),
            spaced("RISK FACTORS", 12.0, 4.0),
            para("The business faces competition in every market where it sells its products."),
        ])
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let c = ChunkingConfig::default();
    let doc = build(Path::new("spaced.pdf"), &ex, &ctx(&c)).unwrap();
    let sections: Vec<&str> = doc
        .chunks
        .iter()
        .filter_map(|c| c.meta.section.as_deref())
        .collect();
    let text: Vec<&str> = doc.chunks.iter().map(|c| c.text.as_str()).collect();
    assert!(
        text.iter()
            .any(|t| t.contains("FINANCIAL CONDITION AND LIQUIDITY")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|t| t.contains("\n\nRISK FACTORS\n\n")),
        "{sections:?} {text:?}"
    );
}

/// A bold heading at the text's size in its own colour, right over its
/// paragraph (a filing's blue "Capital actions"), is a heading; in the
/// text's colour, or a near-black, it runs on into the paragraph it heads,
/// as does a link's coloured line in the text's weight.
#[test]
fn a_bold_line_in_its_own_colour_over_its_text_is_a_heading() {
    let Some(e) = engine() else { return };
    let headings = |rgb: [f32; 3], bold: bool| {
        let bytes = TestPdf::new()
            .page(vec![
                para("The Firm manages its capital to meet the requirements of its regulators and its own targets."),
                tinted("Capital actions", rgb, bold),
                para("The quarterly common stock dividend is currently ninety cents a share, subject to the Board's approval."),
                tinted("Credit ratings", rgb, bold),
                para("The cost and availability of financing are influenced by the credit ratings of the Firm and its banks."),
            ])
            .to_bytes();
        let ex = extract_bytes(&bytes, &e).unwrap();
        let c = ChunkingConfig::default();
        let doc = build(Path::new("tinted.pdf"), &ex, &ctx(&c)).unwrap();
        let titles = doc.meta.headings.iter().map(|h| h.text.clone());
        titles.collect::<Vec<String>>()
    };
    let blue = [0.06, 0.27, 0.46];
    assert_eq!(headings(blue, true), ["Capital actions", "Credit ratings"]);
    for black in [[0.0; 3], [0.13, 0.15, 0.16]] {
        assert!(headings(black, true).is_empty(), "{black:?}");
    }
    assert!(headings(blue, false).is_empty());
}

/// Text drawn outside the page (a slide's items before they are
/// revealed) is not the page's: a reader never sees it there.
#[test]
fn text_drawn_outside_the_page_is_not_read() {
    let Some(e) = engine() else { return };
    let bytes = TestPdf::new()
        .page(vec![
            heading("Designing tables", 16.0),
            super::testpdf::Block::OffPage("Two golden rules come later".to_string()),
            para("Which of these two tables is easier to read?"),
            // A line running over the right edge keeps the word it cuts.
            lines(&[&format!(
                "{} \\multicol@leftmargin@overflowing@identifier",
                "words ".repeat(16)
            )]),
        ])
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let c = ChunkingConfig::default();
    let doc = build(Path::new("slides.pdf"), &ex, &ctx(&c)).unwrap();
    assert!(doc.content.contains("easier to read"), "{}", doc.content);
    assert!(!doc.content.contains("golden"), "{}", doc.content);
    assert!(
        doc.content
            .contains("\\multicol@leftmargin@overflowing@identifier"),
        "{}",
        doc.content
    );
}

/// A manual's "Part II" and "Item 1." lines head its sections by their
/// type: only a filing nests every heading after an item under its part.
#[test]
fn only_a_filing_nests_its_headings_under_parts_and_items() {
    let Some(e) = engine() else { return };
    let text = "The blades are kept sharp and dry, and the handles are oiled once a \
                season so that the wood does not crack in the winter frost.";
    let pdf = |first| {
        TestPdf::new().page(first).page(vec![
            heading("Part II", 11.0),
            heading("Item 1. Tools", 11.0),
            para(text),
            heading("Caring for Blades", 16.0),
            para(text),
        ])
    };
    let levels = |pdf: TestPdf| -> Vec<(String, u8)> {
        let ex = extract_bytes(&pdf.to_bytes(), &e).unwrap();
        let doc = build(Path::new("t.pdf"), &ex, &ctx(&ChunkingConfig::default())).unwrap();
        let headings = doc.meta.headings.iter();
        headings.map(|h| (h.text.clone(), h.level)).collect()
    };
    let manual = levels(pdf(vec![
        heading("Garden Tools Handbook", 24.0),
        para(text),
    ]));
    let filing = levels(pdf(vec![
        heading("SECURITIES AND EXCHANGE COMMISSION", 12.0),
        heading("FORM 10-K", 16.0),
        lines(&["Commission file number 1-1234"]),
        para(text),
    ]));
    let level =
        |outline: &[(String, u8)], t: &str| outline.iter().find(|(h, _)| h == t).map(|&(_, l)| l);
    // In the manual, the larger type ranks higher whatever came before.
    assert_eq!(level(&manual, "Part II"), level(&manual, "Item 1. Tools"));
    let part = level(&manual, "Part II").unwrap();
    assert!(
        level(&manual, "Caring for Blades") < Some(part),
        "{manual:?}"
    );
    // In the filing, the item and everything after it is in the part.
    let part = level(&filing, "Part II").unwrap();
    assert_eq!(
        level(&filing, "Item 1. Tools"),
        Some(part + 1),
        "{filing:?}"
    );
    assert_eq!(level(&filing, "Caring for Blades"), Some(part + 1));
}

/// Word's lists and forms set their marks in Symbol or Wingdings, and its
/// PDFs map those codes to the private use area (`U+F0B7`): each reads as
/// the mark it draws, and a list's mark a tab from its text starts the
/// item's line (not a table's column). Another sign set so stays a cell; a
/// picture without a mark's meaning keeps its private code.
#[test]
fn a_symbol_fonts_private_codes_read_as_the_marks_they_draw() {
    let Some(e) = engine() else { return };
    let bytes = TestPdf::new()
        .page(vec![
            para("These risks include:"),
            marked(
                0xB7,
                false,
                &["political instability;", "nationalization; and"],
            ),
            marked(0xFC, true, &["compliance with the law."]),
            marked(0xB1, false, &["0.5 mA"]),
            marked(0x4A, true, &["a smile"]),
        ])
        .to_bytes();
    let ex = extract_bytes(&bytes, &e).unwrap();
    let c = ChunkingConfig::default();
    let doc = build(Path::new("risks.pdf"), &ex, &ctx(&c)).unwrap();
    assert_eq!(
        doc.content,
        "These risks include:\n\n• political instability;\n\n• nationalization; and\n\n\
         ✓ compliance with the law.\n\n± | 0.5 mA\n\u{f04a} | a smile"
    );
}
