//! Every format read in time linear in its size, however deep its file
//! nests: 40,000 and 200,000 levels of each format's own nesting either
//! parse or fail with a reason naming the nesting, in seconds. (PDFs and
//! images are read by pdfium and Tesseract in a child process or thread
//! under `ingestion.pdf_timeout_secs`.)

use std::path::Path;
use std::time::{Duration, Instant};

use super::testdocs::{epub_pages, odf, test_zip};
use super::{parse, test_support::ctx, IngestError};
use crate::config::ChunkingConfig;
use crate::document::DocType;

/// What a sample must come to.
enum Expect {
    /// It parses (the format has no nesting the reader walks).
    Parses,
    /// It fails with a reason holding this.
    Fails(&'static str),
}

/// `open` n times, then `middle`, then `close` n times.
fn nest(open: &str, middle: &str, close: &str, n: usize) -> String {
    format!("{}{middle}{}", open.repeat(n), close.repeat(n))
}

/// A file of each format nested `n` levels deep: (name, type, bytes,
/// what it must come to).
fn samples(n: usize) -> Vec<(&'static str, DocType, Vec<u8>, Expect)> {
    use DocType::*;
    use Expect::*;
    let deep_xml = |part: &str| nest("<x>", "deep", "</x>", n).replace("deep", part);
    vec![
        (
            "q.md",
            Markdown,
            format!("{}quoted\n", "> ".repeat(n)).into_bytes(),
            Parses,
        ),
        (
            "l.md",
            Markdown,
            format!("{}listed\n", "- ".repeat(n)).into_bytes(),
            Parses,
        ),
        (
            "f.md",
            Markdown,
            format!("---\ntitle: {}\n---\nbody\n", nest("[", "1", "]", n)).into_bytes(),
            Parses,
        ),
        ("n.txt", Note, nest("(", "x", ")", n).into_bytes(), Parses),
        (
            "c.py",
            Code,
            format!("x = {}\n", nest("(", "1", ")", n)).into_bytes(),
            Parses,
        ),
        (
            "c.js",
            Code,
            format!("x = {};\n", nest("[", "1", "]", n)).into_bytes(),
            Parses,
        ),
        (
            "c.ts",
            Code,
            format!("let x = {};\n", nest("{a:", "1", "}", n)).into_bytes(),
            Parses,
        ),
        (
            "c.rs",
            Code,
            format!("fn f() {{ {} }}\n", nest("(", "1", ")", n)).into_bytes(),
            Parses,
        ),
        (
            "c.go",
            Code,
            format!(
                "package x\nfunc f() {{ x := {} }}\n",
                nest("(", "1", ")", n)
            )
            .into_bytes(),
            Parses,
        ),
        (
            "c.sh",
            Code,
            format!("{}\n", nest("$(", "echo", ")", n)).into_bytes(),
            Parses,
        ),
        (
            "d.json",
            Data,
            nest("[", "1", "]", n).into_bytes(),
            Fails("recursion limit"),
        ),
        (
            "d.yaml",
            Data,
            format!("a: {}", nest("{b: ", "1", "}", n)).into_bytes(),
            Fails("recursion limit"),
        ),
        (
            "d.toml",
            Data,
            format!("a = {}", nest("[", "1", "]", n)).into_bytes(),
            Fails("invalid TOML"),
        ),
        (
            "t.csv",
            Spreadsheet,
            format!("a,b\n{},x\n", "\"".repeat(n)).into_bytes(),
            Parses,
        ),
        (
            "p.html",
            Html,
            format!(
                "<html><body>{}</body></html>",
                nest("<div>", "deep", "</div>", n)
            )
            .into_bytes(),
            Fails("nests elements more than 5000 deep"),
        ),
        (
            "b.epub",
            Epub,
            epub_pages(
                "Deep",
                "A",
                &[format!(
                    "<html><body>{}</body></html>",
                    nest("<div>", "deep", "</div>", n)
                )],
            ),
            Fails("chapter 0.xhtml nests elements more than 5000 deep"),
        ),
        (
            "w.docx",
            Doc,
            test_zip(&[(
                "word/document.xml",
                &format!(
                    "<w:document xmlns:w=\"w\"><w:body>{}</w:body></w:document>",
                    deep_xml("<w:p><w:r><w:t>deep</w:t></w:r></w:p>")
                ),
            )]),
            Fails("word/document.xml nests elements more than 5000 deep"),
        ),
        (
            "o.odt",
            Doc,
            odf(
                "application/vnd.oasis.opendocument.text",
                None,
                &format!(
                    "<office:text><text:p>{}</text:p></office:text>",
                    nest("<text:span>", "deep", "</text:span>", n)
                ),
            ),
            Fails("content.xml nests elements more than 5000 deep"),
        ),
        (
            "s.pptx",
            Slides,
            super::testdocs::pptx(None, &[("Title", &deep_xml("deep"), "notes")]),
            Fails("nests elements more than 5000 deep"),
        ),
        (
            "s.odp",
            Slides,
            super::testdocs::odp(None, &[("Title", &deep_xml("deep"), "notes")]),
            Fails("content.xml nests elements more than 5000 deep"),
        ),
        (
            "w.xlsx",
            Spreadsheet,
            super::testdocs::xlsx(&[("S", &[&["a", &deep_xml("deep")]])]),
            Fails("nests elements more than 5000 deep"),
        ),
    ]
}

#[test]
fn every_format_reads_deep_nesting_in_time_or_names_it() {
    let c = ChunkingConfig::default();
    let ctx = ctx(&c);
    for n in [40_000, 200_000] {
        for (name, doc_type, bytes, expect) in samples(n) {
            let started = Instant::now();
            let got = parse(doc_type, Path::new(name), &bytes, &ctx);
            let took = started.elapsed();
            // Generous for a loaded 2-core machine running a debug build:
            // before the bounds, 200,000 levels of HTML took minutes.
            assert!(
                took < Duration::from_secs(30),
                "{name} at {n} levels: {took:?}"
            );
            match (expect, got) {
                (Expect::Parses, Ok(_)) => {}
                (
                    Expect::Fails(reason),
                    Err(e @ (IngestError::Failed(_) | IngestError::Unsupported(_))),
                ) => {
                    assert!(e.to_string().contains(reason), "{name} at {n} levels: {e}")
                }
                (_, got) => panic!("{name} at {n} levels: {:?}", got.map(|d| d.content.len())),
            }
        }
    }
}
