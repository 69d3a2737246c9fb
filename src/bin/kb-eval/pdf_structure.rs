//! `kb-eval pdf-structure FILE...`: what kb makes of each PDF's structure,
//! as one JSON line per file, for scripts/bench_pdf_structure.py: the
//! title and the title it is searched and embedded by, the headings with
//! their level and page, the distinct section chains of the chunks, and
//! the text of each page. The PDF goes through the same parser `kb add`
//! uses (read on a thread here, not in a child process); nothing is
//! embedded or stored.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use crate::load_model;
use kb::config::{CliOverrides, Config};
use kb::document::DocType;
use kb::error::{KbError, Result};
use kb::ingest::context::search_title;
use kb::ingest::pdf::{self, PageIndex, PAGE_SEPARATOR};
use kb::ingest::ChunkContext;

#[derive(Debug, Args)]
pub(crate) struct PdfStructureArgs {
    /// The PDF files
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Local directory holding the model's ONNX file and tokenizer.json
    /// (its tokenizer sizes the chunks)
    #[arg(long, value_name = "MODELDIR")]
    model_dir: Option<PathBuf>,
}

pub(crate) fn run(args: &PdfStructureArgs) -> Result<()> {
    let config = Config::load(&CliOverrides::default())?;
    let embedder = load_model(&config, args.model_dir.as_deref())?;
    let tokens = embedder.token_counter();
    let ctx = ChunkContext::for_run(&config, &tokens, embedder.max_chunk_tokens());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in &args.files {
        let line = describe(path, &ctx);
        writeln!(out, "{line}").map_err(|e| KbError::io("stdout", e))?;
    }
    Ok(())
}

fn describe(path: &Path, ctx: &ChunkContext) -> serde_json::Value {
    let shown = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return json!({"path": shown, "error": e.to_string()}),
    };
    let doc = match pdf::parse(path, &bytes, ctx) {
        Ok(d) => d,
        Err(e) => return json!({"path": shown, "error": e.to_string()}),
    };
    let pages = PageIndex::new(&doc.content);
    let headings: Vec<_> = doc
        .meta
        .headings
        .iter()
        .map(|h| json!([h.text, h.level, pages.page(h.line)]))
        .collect();
    let mut sections: Vec<&str> = Vec::new();
    for c in &doc.chunks {
        if let Some(s) = c.meta.section.as_deref() {
            if !sections.contains(&s) {
                sections.push(s);
            }
        }
    }
    let page_texts: Vec<String> = doc
        .content
        .split(&format!("\n{PAGE_SEPARATOR}\n"))
        .map(str::to_string)
        .collect();
    json!({
        "path": shown,
        "title": doc.title,
        "search_title": search_title(&doc.title, path, Some(DocType::Pdf)),
        "headings": headings,
        "sections": sections,
        "pages": page_texts,
    })
}
