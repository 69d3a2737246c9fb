//! kb-eval: measures kb's retrieval quality: on a BEIR-format dataset
//! (short documents, `beir`) and on FinanceBench (long PDFs, pages as
//! evidence, `financebench`), with every retrieval lever switchable.
//!
//! `kb-eval beir DATASET_DIR --data-dir DIR` indexes the dataset's corpus into
//! `DIR/kb.db` through the same library code `kb add` uses for a text note
//! (the notes chunker, the bound embedding model, `Database::write_document`),
//! runs every query of the chosen qrels split through `kb::search::search` in
//! keyword, vector and hybrid mode, and prints nDCG@10 and Recall@100 per mode
//! as a Markdown table.
//!
//! A BEIR dataset directory holds `corpus.jsonl` (`_id`, `title`, `text`),
//! `queries.jsonl` (`_id`, `text`) and `qrels/<split>.tsv` (`query-id`,
//! `corpus-id`, `score`, tab-separated, with a header line).
//!
//! The metrics follow trec_eval (as BEIR computes them with pytrec_eval):
//! nDCG@10 with the qrels grade as the gain and `log2(rank + 1)` as the
//! discount, the ideal ranking taken from the qrels; Recall@100 as the share
//! of relevant documents (grade > 0) found in the first 100. Both are averaged
//! over the queries that have at least one relevant document.

use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod beir;
mod confidence;
mod dataset;
mod embed_cache;
mod financebench;
mod halves;
mod levers;
mod metrics;
mod passages;
mod pdf_structure;

use kb::config::Config;
use kb::embed::{resolve, Embedder, ModelUse};
use kb::error::Result;
use kb::search::Mode;

/// kb-eval: retrieval-quality harness for kb (nDCG@10 and Recall@100 on
/// BEIR datasets; page hit@k, MRR@10 and doc@10 on FinanceBench).
#[derive(Debug, Parser)]
#[command(name = "kb-eval", about, long_about = None, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index a BEIR-format dataset and score every search mode on it
    Beir(beir::BeirArgs),
    /// Index FinanceBench's filings and score where each question's evidence page lands
    Financebench(financebench::FinanceBenchArgs),
    /// Index any folder and report how often real, off-topic and nonsense questions get "no good match"
    Confidence(confidence::ConfidenceArgs),
    /// Ask passages copied from an existing knowledge base's chunks and report how often a result holds them
    Passages(passages::PassagesArgs),
    /// Print what kb makes of each PDF's structure (title, headings, sections, page text) as JSON lines
    PdfStructure(pdf_structure::PdfStructureArgs),
}

fn main() -> ExitCode {
    kb::embed::runtime::disable_telemetry();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Beir(args) => beir::run_beir(args),
        Command::Financebench(args) => financebench::run(args),
        Command::PdfStructure(args) => pdf_structure::run(args),
        Command::Confidence(args) => confidence::run(args),
        Command::Passages(args) => passages::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kb-eval: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Chooses and loads the configured model the way `kb init` does.
fn load_model(config: &Config, model_dir: Option<&Path>) -> Result<Embedder> {
    let choice = resolve::for_init(config, None, model_dir, None, false)?;
    let embedder = choice.load(config, ModelUse::Passages)?;
    eprintln!(
        "kb-eval: model {} from {}",
        choice.spec.name,
        choice.files.onnx.display()
    );
    Ok(embedder)
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Keyword => "keyword",
        Mode::Vector => "vector",
        Mode::Hybrid => "hybrid",
    }
}
