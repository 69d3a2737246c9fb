//! The structure regression suite: each fixture PDF (one per document
//! class, see `golden/fixtures.rs`) is read with pdfium and built into a
//! document; its title, outline (heading, level, page) and the page each
//! chunk cites are compared with its golden file in `golden/`.
//! `KB_UPDATE_GOLDEN=1 cargo test --lib pdf::golden` rewrites the files
//! after a deliberate change; the diff is the review. Skipped, with the
//! reason printed, when pdfium is missing (failed under
//! `KB_TEST_REQUIRE_PDFIUM=1`, as `./test.sh` sets).

mod fixtures;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::tests::engine;
use super::tests::extract_bytes;
use super::{build, Extracted, PageIndex};
use crate::config::ChunkingConfig;
use crate::ingest::test_support::ctx;
use crate::ingest::ParsedDocument;

/// How many words of a chunk the golden file shows, to tell chunks apart.
const CHUNK_START_WORDS: usize = 8;

/// The chunk sizes the fixtures are packed at: the default, where small
/// sections share a chunk, and a small one, where long paragraphs are cut
/// and each piece must still cite its own page.
const MAX_TOKENS: [Option<usize>; 2] = [None, Some(40)];

/// The golden text of a fixture: its title, outline and chunks built at
/// each of [`MAX_TOKENS`], one JSON value per line, so a changed heading
/// or page is a one-line diff.
fn describe(name: &str, ex: &Extracted) -> String {
    let mut out = String::new();
    for max in MAX_TOKENS {
        let mut config = ChunkingConfig::default();
        if let Some(max) = max {
            config.pdf.max_tokens = max;
        }
        let doc = build(Path::new(&format!("{name}.pdf")), ex, &ctx(&config)).unwrap();
        if max.is_none() {
            outline(&doc, &mut out);
        }
        chunks(&doc, config.pdf.max_tokens, &mut out);
    }
    out
}

fn outline(doc: &ParsedDocument, out: &mut String) {
    let index = PageIndex::new(&doc.content);
    let header = json!({ "title": doc.title, "pages": doc.meta.pages });
    writeln!(out, "{header}").unwrap();
    for h in &doc.meta.headings {
        let heading = json!({
            "heading": h.text,
            "level": h.level,
            "page": index.page(h.line),
        });
        writeln!(out, "{heading}").unwrap();
    }
}

fn chunks(doc: &ParsedDocument, max_tokens: usize, out: &mut String) {
    for c in &doc.chunks {
        let starts: Vec<&str> = c.text.split_whitespace().take(CHUNK_START_WORDS).collect();
        let chunk = json!({
            "chunk": starts.join(" "),
            "page": c.meta.page,
            "page_end": c.meta.page_end,
            "section": c.meta.section,
            "max_tokens": max_tokens,
        });
        writeln!(out, "{chunk}").unwrap();
    }
}

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/ingest/pdf/golden")
        .join(format!("{name}.jsonl"))
}

/// The lines of `want` and `got` that differ, numbered, for the failure
/// message.
fn differences(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let mut out = String::new();
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i).copied(), g.get(i).copied());
        if a != b {
            writeln!(
                out,
                "line {}:\n  golden: {}\n  now:    {}",
                i + 1,
                a.unwrap_or("(none)"),
                b.unwrap_or("(none)")
            )
            .unwrap();
        }
    }
    out
}

#[test]
fn structure_of_each_document_class_matches_its_golden_file() {
    let Some(e) = engine() else { return };
    let update = std::env::var_os("KB_UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    let mut all = String::new();
    for (name, pdf) in fixtures::all() {
        let ex = extract_bytes(&pdf.to_bytes(), &e).unwrap();
        let got = describe(name, &ex);
        writeln!(all, "{name}\n{got}").unwrap();
        let path = golden_path(name);
        if update {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|err| {
            panic!("{}: {err} (KB_UPDATE_GOLDEN=1 writes it)", path.display())
        });
        if want != got {
            failures.push(format!("{name}:\n{}", differences(&want, &got)));
        }
    }
    assert!(
        failures.is_empty(),
        "the structure of these fixtures changed; after a deliberate change \
         KB_UPDATE_GOLDEN=1 cargo test --lib pdf::golden rewrites src/ingest/pdf/golden/\n{}",
        failures.join("\n")
    );
    check_reader_version(&all, update);
}

/// The golden files are pinned to the PDF reader's version
/// (`ingest::readers::PDF`) by their hash in `golden/reader.txt`: files
/// that changed mean the reader reads documents differently, so the
/// version must go up (documents the old reader read are then read again).
/// `update` records the new pair once it has.
fn check_reader_version(golden: &str, update: bool) {
    let path = golden_path("reader").with_extension("txt");
    let hash = crate::ingest::change::content_hash(golden.as_bytes());
    let version = crate::ingest::readers::PDF;
    let recorded = std::fs::read_to_string(&path).unwrap_or_default();
    let (was_version, was_hash) = recorded.trim().split_once(' ').unwrap_or(("0", ""));
    let was_version: u32 = was_version.parse().unwrap_or(0);
    assert!(
        hash == was_hash || version > was_version,
        "the golden files changed, so the PDF reader reads documents differently: raise \
         ingest::readers::PDF (now {version}) so documents the old reader read are read again, \
         then KB_UPDATE_GOLDEN=1 cargo test --lib pdf::golden records it in {}",
        path.display()
    );
    let now = format!("{version} {hash}\n");
    if update {
        std::fs::write(&path, &now).unwrap();
        return;
    }
    assert_eq!(
        recorded,
        now,
        "{} is not the golden files' record: KB_UPDATE_GOLDEN=1 cargo test --lib pdf::golden \
         writes it",
        path.display()
    );
}

#[test]
fn a_changed_line_is_reported_with_both_versions() {
    let d = differences("a\nb\n", "a\nc\nd\n");
    assert_eq!(
        d,
        "line 2:\n  golden: b\n  now:    c\nline 3:\n  golden: (none)\n  now:    d\n"
    );
    assert!(differences("same\n", "same\n").is_empty());
}
