//! `kb-eval pdf-structure FILE...`: what kb makes of each PDF's structure,
//! as one JSON line per file, for scripts/bench_pdf_structure.py: the
//! title and the title it is searched and embedded by, the headings with
//! their level and page, the distinct section chains of the chunks, and
//! the text of each page. The PDF goes through the same parser `kb add`
//! uses (read on a thread here, not in a child process); nothing is
//! embedded or stored. `--explain` prints instead, for each group of
//! lines (of one page with `--page`), the heading rules that fired, their
//! weights, the score and what the walk made of it; `--rules` prints the
//! rule table.

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
    /// Print each group of lines with the heading rules that fired
    #[arg(long)]
    explain: bool,
    /// With --explain: only this page
    #[arg(long, value_name = "N", requires = "explain")]
    page: Option<u32>,
    /// Print the heading rules: name, document classes, weight, example
    #[arg(long)]
    rules: bool,
}

pub(crate) fn run(args: &PdfStructureArgs) -> Result<()> {
    let config = Config::load(&CliOverrides::default())?;
    if args.rules || args.explain {
        return explain(args, &config);
    }
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

/// The rule table, or each file's decisions with the rules that fired.
fn explain(args: &PdfStructureArgs, config: &Config) -> Result<()> {
    let rules = pdf::heading_rules();
    let mut out = String::new();
    if args.rules {
        out.push_str("filing  paper   manual  generic  rule (classes): example\n");
        for pdf::HeadingRule {
            name,
            classes,
            weights,
            example,
        } in &rules
        {
            let w: Vec<String> = weights.iter().map(|w| format!("{w:>7.2}")).collect();
            out.push_str(&format!("{}  {name} ({classes}): {example}\n", w.join(" ")));
        }
    }
    let settings = pdf::PdfSettings::from_config(config);
    for path in args.files.iter().filter(|_| args.explain) {
        let bytes = std::fs::read(path).map_err(|e| KbError::io(path.display().to_string(), e))?;
        let decisions = match pdf::heading_decisions(path, &bytes, &settings) {
            Ok((decisions, _)) => decisions,
            Err(e) => {
                out.push_str(&format!("{}: {e}\n", path.display()));
                continue;
            }
        };
        let class = decisions
            .first()
            .map(|d| format!("{:?}", d.class))
            .unwrap_or_default();
        out.push_str(&format!("{} ({class})\n", path.display()));
        for d in decisions
            .iter()
            .filter(|d| args.page.is_none_or(|p| p == d.page))
        {
            let role = if d.heading { "heading" } else { "text" };
            let text: String = d
                .text
                .chars()
                .take(60)
                .collect::<String>()
                .replace('\n', " ");
            out.push_str(&format!(
                "p{:<4} {role:<10} {:>8.3}  {text}\n",
                d.page, d.score
            ));
            let fired = d.fired.iter().zip(&rules[1..]).filter(|(f, _)| **f);
            let weight = |r: &pdf::HeadingRule| r.weights[d.class as usize];
            let why: Vec<String> = fired
                .map(|(_, r)| format!("{} {:+}", r.name, weight(r)))
                .collect();
            out.push_str(&format!("{:26}{}\n", "", why.join(", ")));
        }
    }
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| KbError::io("stdout", e))
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
