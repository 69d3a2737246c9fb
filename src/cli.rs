//! Command-line parsing and dispatch: one function per command.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, Parser, Subcommand};

use crate::commands::{self, SearchOptions};
use crate::config::{CliOverrides, Config, OutputFormat};
use crate::db::{normalize_tags, Database, ListFilters, OpenMode};
use crate::embed::{self, Embedder, ModelFiles};
use crate::error::{KbError, Result};
use crate::ingest::pipeline::progress_bar;
use crate::ingest::{pdf, DocType};
use crate::inspect;
use crate::output;
use crate::search::{self, Mode, SearchRequest};

/// kb: a local knowledge base. It keeps your documents in one SQLite file and
/// answers hybrid keyword + semantic searches, as JSON for LLM agents or as
/// text for people.
#[derive(Debug, Parser)]
#[command(name = "kb", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    /// Where kb.db, config.yaml and ingest-errors.log live [env: KB_DATA_DIR] [default: ~/.kb]
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Output format: json (stable contract, the default for queries) or human
    #[arg(long, global = true, value_enum)]
    pub format: Option<OutputFormat>,

    /// No progress bars
    #[arg(long, short, global = true)]
    pub quiet: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set up the embedding model (download it, or use a local copy) and bind the knowledge base to it
    Init(InitArgs),
    /// Index files and folders (PDF, Markdown, text notes, Python/Bash/Go code)
    ///
    /// Unchanged files are skipped, changed ones re-indexed, and documents whose
    /// files vanished from an added folder are removed. Files are parsed in
    /// parallel (ingestion.workers) while the model embeds; a progress bar shows
    /// files, chunks, rate and ETA. Files that cannot be indexed are logged to
    /// <data_dir>/ingest-errors.log and the run goes on. Ctrl-C (or a crash)
    /// keeps every committed document; run the same command again to continue.
    Add(AddArgs),
    /// Search: keyword (BM25) and semantic (embeddings) fused with Reciprocal Rank Fusion
    Search(SearchArgs),
    /// Re-embed every chunk, optionally with another model; the old index stays usable until it finishes
    Reindex(ReindexArgs),
    /// Counts of documents and chunks, database size, model and schema version
    Status,
    /// Every tag with the number of documents carrying it
    Tags,
    /// List indexed documents (filters combine with AND)
    List(ListArgs),
    /// Add or remove tags of a document
    Tag(TagArgs),
    /// A document's metadata, tags, chunks, and whether its file changed since indexing
    Info(DocArg),
    /// Remove documents (with their chunks, vectors and tag links)
    Remove(RemoveArgs),
    /// Show a chunk with N neighbours, or with --section a section of a document
    Show(ShowArgs),
    /// A document's structure: Markdown headings, PDF pages, code symbols
    Outline(OutlineArgs),
    /// The whole text of a document as indexed
    Open(OpenArgs),
    /// Search log: frequent queries, queries without results, latency percentiles
    Stats(StatsArgs),
    /// Print SKILL.md, the instructions for LLM tools (kb skill > ~/.claude/skills/kb/SKILL.md)
    Skill,
    /// Serve the knowledge base to LLM tools over stdio (Model Context Protocol)
    Mcp(McpArgs),
    /// Internal: extract a PDF's pages as JSON on stdout (kb runs this in a
    /// child process so a hostile PDF cannot crash or exhaust kb itself)
    #[command(name = "__extract-pdf", hide = true)]
    ExtractPdf(ExtractPdfArgs),
}

#[derive(Debug, Args)]
pub struct ExtractPdfArgs {
    pub path: PathBuf,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Also offer the tools that change the knowledge base: add and remove
    #[arg(long)]
    pub allow_write: bool,
}

/// The filters of `kb list`, also the arguments of the MCP `list` tool: a
/// field added here is a new flag and a new tool argument at once.
#[derive(Debug, Default, Args, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ListArgs {
    /// Only documents of this type
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    #[serde(rename = "type")]
    pub doc_type: Option<DocType>,
    /// Only documents carrying this tag
    #[arg(long)]
    pub tag: Option<String>,
    /// Case-insensitive substring of the title, the path or a skill's description
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,
    /// Only skills declaring this capability (exact match); repeat to require several
    #[arg(long = "capability", value_name = "CAP")]
    #[serde(rename = "capability")]
    pub capabilities: Vec<String>,
    /// Only skills (SKILL.md files with frontmatter)
    #[arg(long)]
    pub skills: bool,
}

impl ListArgs {
    /// The database filters these arguments ask for (the CLI and the MCP
    /// `list` tool share them).
    pub fn filters(&self) -> Result<ListFilters> {
        let capabilities: Vec<String> = self
            .capabilities
            .iter()
            .map(|c| c.trim().to_string())
            .collect();
        if capabilities.iter().any(String::is_empty) {
            return Err(KbError::Usage(
                "--capability needs a non-empty value".into(),
            ));
        }
        Ok(ListFilters {
            doc_type: self.doc_type.map(|t| t.as_str().to_string()),
            tag: self.tag.clone(),
            search: self.search.clone(),
            capabilities,
            skills_only: self.skills,
        })
    }
}

#[derive(Debug, Args)]
pub struct TagArgs {
    /// Document id or path
    pub doc: String,
    /// Tags to add (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub add: Vec<String>,
    /// Tags to remove (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub remove: Vec<String>,
}

#[derive(Debug, Args)]
pub struct DocArg {
    /// Document id or path
    pub doc: String,
}

#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// Document ids or paths
    #[arg(required_unless_present = "missing", value_name = "DOC")]
    pub docs: Vec<String>,
    /// Remove every document whose source file is gone
    #[arg(long, conflicts_with = "docs")]
    pub missing: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A chunk id (from search results), or with --section a document id or path
    pub target: String,
    /// Neighbouring chunks to show before and after the chunk
    #[arg(long, short = 'C', default_value_t = 0, value_name = "N")]
    pub context: usize,
    /// Show this section (heading text, case-insensitive) of the document
    #[arg(long, value_name = "HEADING")]
    pub section: Option<String>,
    /// Show at most N lines of the section
    #[arg(long, value_name = "N")]
    pub max_lines: Option<usize>,
}

#[derive(Debug, Args)]
pub struct OutlineArgs {
    /// Document id or path
    pub doc: String,
    /// Only headings of this level or above (1-6)
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=6), value_name = "N")]
    pub level: Option<u8>,
}

#[derive(Debug, Args)]
pub struct OpenArgs {
    /// Document id or path
    pub doc: String,
    /// Show at most N lines
    #[arg(long, value_name = "N")]
    pub max_lines: Option<usize>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Empty the search log
    #[arg(long)]
    pub clear: bool,
    /// How many queries to list
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Model name from models.toml [env: KB_MODEL] [default: all-MiniLM-L6-v2]
    #[arg(long)]
    pub model: Option<String>,
    /// Use a local directory holding the model's ONNX file, tokenizer.json and config.json instead of downloading
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// Files or folders; folders are walked recursively, skipping hidden and .gitignored entries
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Comma-separated tags to put on every document of this run
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub tags: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for, in plain words (quote it in the shell)
    #[arg(allow_hyphen_values = true)]
    pub query: String,
    /// Number of results [default: search.default_top, 10]
    #[arg(long, short = 'n', value_name = "N")]
    pub top: Option<usize>,
    /// Only documents carrying all of these tags (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub tags: Vec<String>,
    /// Only documents of this type
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub doc_type: Option<DocType>,
    /// Keyword (BM25) ranking only; no model needed
    #[arg(long, conflicts_with = "vec_only")]
    pub fts_only: bool,
    /// Embedding ranking only
    #[arg(long)]
    pub vec_only: bool,
    /// Drop results whose fused score is below this
    #[arg(long, value_name = "SCORE")]
    pub threshold: Option<f64>,
}

#[derive(Debug, Args)]
pub struct ReindexArgs {
    /// Switch to this model from models.toml (default: the model the index uses)
    #[arg(long)]
    pub model: Option<String>,
    /// Use a local directory holding the model's files instead of the Hugging Face cache
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
}

/// Set by Ctrl-C; long commands stop at the next safe point.
static CANCEL: AtomicBool = AtomicBool::new(false);

/// Parses the command line, runs the command and returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    1
                } else {
                    0
                };
            }
            if raw_args_want_json() {
                let msg = e.kind().as_str().map(str::to_string).unwrap_or_else(|| {
                    e.to_string()
                        .lines()
                        .next()
                        .unwrap_or("invalid arguments")
                        .trim_start_matches("error: ")
                        .to_string()
                });
                let detail = e
                    .to_string()
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("error: ")
                    .to_string();
                let _ = msg;
                eprint!("{}", output::error_json(&detail, "E_USAGE", 1));
            } else {
                let _ = e.print();
            }
            return 1;
        }
    };
    if let Command::ExtractPdf(a) = &cli.command {
        // No configuration, no Ctrl-C handler: the parent owns both.
        return pdf::child_main(&a.path);
    }
    pdf::extract_in_child_processes();
    // The MCP server handles its own signals (it shuts down on the first).
    let serving = matches!(cli.command, Command::Mcp(_));
    if !serving {
        let _ = ctrlc::set_handler(|| {
            if CANCEL.swap(true, Ordering::SeqCst) {
                // Second Ctrl-C: stop now. SQLite rolls back the open transaction.
                std::process::exit(130);
            }
            eprintln!("\nkb: stopping after the current document (Ctrl-C again to stop now)");
        });
    }

    let overrides = CliOverrides {
        data_dir: cli.data_dir.clone(),
        model: None,
    };
    let config = match Config::load(&overrides) {
        Ok(c) => c,
        Err(e) => return report(&e, cli.format.unwrap_or(OutputFormat::Json)),
    };
    let format = effective_format(&cli, &config);
    match dispatch(&cli, &config, format) {
        Ok(()) => 0,
        Err(e) => report(&e, format),
    }
}

/// Queries default to search.default_format (JSON); commands that do work
/// (add, init, reindex) print a human summary unless --format json.
fn effective_format(cli: &Cli, config: &Config) -> OutputFormat {
    if let Some(f) = cli.format {
        return f;
    }
    match cli.command {
        Command::Search(_)
        | Command::Status
        | Command::Tags
        | Command::List(_)
        | Command::Tag(_)
        | Command::Info(_)
        | Command::Remove(_)
        | Command::Show(_)
        | Command::Outline(_)
        | Command::Open(_)
        | Command::Stats(_) => config.search.default_format,
        Command::Skill | Command::Mcp(_) | Command::ExtractPdf(_) => OutputFormat::Human,
        Command::Add(_) | Command::Init(_) | Command::Reindex(_) => OutputFormat::Human,
    }
}

fn raw_args_want_json() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json")
}

fn report(e: &KbError, format: OutputFormat) -> i32 {
    let code = e.exit_code();
    match format {
        OutputFormat::Json => eprint!("{}", output::error_json(&e.to_string(), e.code(), code)),
        OutputFormat::Human => eprintln!("kb: error: {e}"),
    }
    code
}

fn dispatch(cli: &Cli, config: &Config, format: OutputFormat) -> Result<()> {
    match &cli.command {
        Command::Init(a) => cmd_init(config, a, format, cli.quiet),
        Command::Add(a) => cmd_add(config, a, format, cli.quiet),
        Command::Search(a) => cmd_search(config, a, format),
        Command::Reindex(a) => cmd_reindex(config, a, format, cli.quiet),
        Command::Status => cmd_status(config, format),
        Command::Tags => cmd_tags(config, format),
        Command::List(a) => cmd_list(config, a, format),
        Command::Tag(a) => cmd_tag(config, a, format),
        Command::Info(a) => cmd_info(config, a, format),
        Command::Remove(a) => cmd_remove(config, a, format),
        Command::Show(a) => cmd_show(config, a, format),
        Command::Outline(a) => cmd_outline(config, a, format),
        Command::Open(a) => cmd_open(config, a, format),
        Command::Stats(a) => cmd_stats(config, a, format),
        Command::Skill => print_stdout(SKILL_MD),
        Command::Mcp(a) => run_mcp(config, a),
        Command::ExtractPdf(a) => match pdf::child_main(&a.path) {
            0 => Ok(()),
            _ => Err(KbError::io(
                &a.path,
                std::io::Error::other("could not write the extracted text"),
            )),
        },
    }
}

/// The skill file for LLM tools, shipped inside the binary.
const SKILL_MD: &str = include_str!("../SKILL.md");

/// Prints a value as JSON, or renders it for people.
fn emit<T: serde::Serialize>(
    format: OutputFormat,
    value: &T,
    human: impl FnOnce() -> String,
) -> Result<()> {
    match format {
        OutputFormat::Json => print_stdout(&output::to_json(value)),
        OutputFormat::Human => print_stdout(&human()),
    }
}

fn open_existing(config: &Config) -> Result<Database> {
    Database::open(&config.db_path(), OpenMode::Existing)
}

fn cmd_list(config: &Config, args: &ListArgs, format: OutputFormat) -> Result<()> {
    let filters = args.filters()?;
    let db = open_existing(config)?;
    let docs = db.list_documents(&filters)?;
    emit(format, &docs, || output::list_human(&docs))
}

fn cmd_tag(config: &Config, args: &TagArgs, format: OutputFormat) -> Result<()> {
    if args.add.is_empty() && args.remove.is_empty() {
        return Err(KbError::Usage(
            "give --add TAGS and/or --remove TAGS".into(),
        ));
    }
    for t in args.add.iter().chain(&args.remove) {
        if t.trim().is_empty() {
            return Err(KbError::Usage("empty tag names are not allowed".into()));
        }
    }
    let db = open_existing(config)?;
    let doc = inspect::resolve_document(&db, &args.doc)?;
    db.edit_tags(
        doc.summary.id,
        &normalize_tags(&args.add),
        &normalize_tags(&args.remove),
    )?;
    let doc = inspect::resolve_document(&db, &doc.summary.id.to_string())?;
    let r = output::document_ref(&doc);
    emit(format, &r, || {
        format!("{}: [{}]\n", r.title, r.tags.join(", "))
    })
}

fn cmd_info(config: &Config, args: &DocArg, format: OutputFormat) -> Result<()> {
    let db = open_existing(config)?;
    let doc = inspect::resolve_document(&db, &args.doc)?;
    let status = inspect::document_file_status(&doc);
    let chunks = db.chunk_summaries(doc.summary.id)?;
    let v = output::info_json(&doc, status, &chunks);
    emit(format, &v, || output::info_human(&v))
}

fn cmd_remove(config: &Config, args: &RemoveArgs, format: OutputFormat) -> Result<()> {
    let db = open_existing(config)?;
    let r = commands::remove(&db, &args.docs, args.missing)?;
    emit(format, &r.json(), || {
        let mut out = format!("Removed {} documents.\n", r.removed);
        for d in &r.documents {
            out.push_str(&format!(
                "  {} {}\n",
                d.id,
                d.path.as_deref().unwrap_or(&d.title)
            ));
        }
        out
    })
}

fn cmd_show(config: &Config, args: &ShowArgs, format: OutputFormat) -> Result<()> {
    let db = open_existing(config)?;
    if let Some(section) = &args.section {
        let s = commands::show_section(&db, &args.target, section, args.max_lines)?;
        if s.other_matches > 0 {
            eprintln!(
                "warning: multiple matches for \"{}\"; showing first",
                section.trim()
            );
        }
        return emit(format, &s.json, || format!("{}\n", s.content));
    }
    let chunk_id: i64 = args.target.trim().parse().map_err(|_| {
        KbError::Usage(format!(
            "`{}` is not a chunk id; use --section HEADING to show a section of a document",
            args.target
        ))
    })?;
    let v = commands::show_chunk(&db, chunk_id, args.context)?;
    emit(format, &v, || output::show_human(&v))
}

fn cmd_outline(config: &Config, args: &OutlineArgs, format: OutputFormat) -> Result<()> {
    let db = open_existing(config)?;
    let v = commands::outline(&db, &args.doc, args.level)?;
    emit(format, &v, || output::outline_human(&v))
}

fn cmd_open(config: &Config, args: &OpenArgs, format: OutputFormat) -> Result<()> {
    let db = open_existing(config)?;
    let o = commands::open(&db, &args.doc, args.max_lines)?;
    emit(format, &o.json, || format!("{}\n", o.content))
}

fn cmd_stats(config: &Config, args: &StatsArgs, format: OutputFormat) -> Result<()> {
    let db = open_existing(config)?;
    if args.clear {
        let n = db.clear_search_log()?;
        let v = serde_json::json!({ "cleared": n });
        return emit(format, &v, || format!("Cleared {n} logged searches.\n"));
    }
    let (mut durations, total, zero, failed) = db.search_log_summary()?;
    durations.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let pct = |p: f64| -> Option<f64> {
        if durations.is_empty() {
            return None;
        }
        let i = ((durations.len() as f64) * p).ceil() as usize;
        Some((durations[i.clamp(1, durations.len()) - 1] * 10.0).round() / 10.0)
    };
    let list = |v: Vec<(String, i64)>| -> Vec<serde_json::Value> {
        v.into_iter()
            .map(|(q, n)| serde_json::json!({ "query": q, "count": n }))
            .collect()
    };
    let v = serde_json::json!({
        "total_searches": total,
        "zero_result_searches": zero,
        "failed_searches": failed,
        "latency_ms": { "p50": pct(0.5), "p95": pct(0.95), "p99": pct(0.99), "max": durations.last() },
        "top_queries": list(db.frequent_queries(false, args.limit)?),
        "zero_result_queries": list(db.frequent_queries(true, args.limit)?),
        "logging": config.search.log,
        "searches_by_source": db.search_log_sources()?.into_iter().collect::<serde_json::Map<_, _>>(),
    });
    emit(format, &v, || output::stats_human(&v))
}

fn print_stdout(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (kb search ... | head) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(KbError::io("stdout", e)),
    }
}

/// Locates (or downloads) the files of a model for init and reindex.
fn model_files_for(
    spec: &embed::ModelSpec,
    model_dir: Option<&PathBuf>,
    config: &Config,
    quiet: bool,
) -> Result<ModelFiles> {
    if let Some(dir) = model_dir.or(config.embedding.model_dir.as_ref()) {
        if !dir.is_dir() {
            return Err(KbError::PathNotFound(dir.clone()));
        }
        return ModelFiles::in_dir(dir, spec);
    }
    if let Some(files) = embed::find_in_hf_cache(spec) {
        return Ok(files);
    }
    embed::download_from_hub(spec, !quiet)
}

fn cmd_init(config: &Config, args: &InitArgs, format: OutputFormat, quiet: bool) -> Result<()> {
    let name = args
        .model
        .clone()
        .unwrap_or_else(|| config.embedding.model.clone());
    let spec = embed::model_spec(&name)?;
    let files = model_files_for(&spec, args.model_dir.as_ref(), config, quiet)?;
    let embedder = Embedder::load(&spec, &files, config)?;
    let probe = embedder.embed_query("kb init probe")?;
    if probe.len() != spec.dim {
        return Err(KbError::Model(format!(
            "{} produced {}-dimensional vectors, models.toml says {}",
            spec.name,
            probe.len(),
            spec.dim
        )));
    }
    let binding = embed::binding_for(&embedder)?;
    let db = Database::open(&config.db_path(), OpenMode::Create)?;
    let status = match embed::bind(&db, &embedder)? {
        embed::BindOutcome::Bound => "initialised",
        embed::BindOutcome::AlreadyBound => "already initialised",
    };
    let embedded = embed_missing_vectors(&db, &embedder, quiet)?;
    let summary = serde_json::json!({
        "status": status,
        "model_name": binding.model_name,
        "embedding_dim": binding.embedding_dim,
        "model_max_tokens": binding.model_max_tokens,
        "model_dir": binding.model_dir,
        "onnx_file": files.onnx.display().to_string(),
        "db_path": db.path().display().to_string(),
        "embedded_chunks": embedded,
    });
    eprintln!(
        "kb: {status}: {} ({} dimensions) from {}; database {}{}",
        binding.model_name,
        binding.embedding_dim,
        files.dir.display(),
        db.path().display(),
        if embedded > 0 {
            format!("; embedded {embedded} chunks")
        } else {
            String::new()
        }
    );
    if format == OutputFormat::Json {
        print_stdout(&output::to_json(&summary))?;
    }
    Ok(())
}

/// Embeds chunks that were indexed before a model was bound.
fn embed_missing_vectors(db: &Database, embedder: &Embedder, quiet: bool) -> Result<usize> {
    let mut done = 0;
    let bar = progress_bar(0, !quiet);
    loop {
        if CANCEL.load(Ordering::SeqCst) {
            return Err(KbError::Interrupted);
        }
        let batch = db.chunks_without_vectors(256)?;
        if batch.is_empty() {
            break;
        }
        let texts: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        let vectors = embedder.embed_passages(&texts)?;
        let ids: Vec<i64> = batch.iter().map(|(id, _)| *id).collect();
        let tx = db.begin()?;
        db.insert_vectors(&ids, &vectors)?;
        tx.commit()?;
        done += batch.len();
        bar.inc(batch.len() as u64);
    }
    bar.finish_and_clear();
    Ok(done)
}

fn cmd_add(config: &Config, args: &AddArgs, format: OutputFormat, quiet: bool) -> Result<()> {
    let tags = commands::check_add_args(&args.paths, &args.tags)?;
    let db = Database::open(&config.db_path(), OpenMode::Create)?;
    let model = commands::model_for_add(&db, config)?;
    let summary = commands::add(config, &db, model, &args.paths, tags, !quiet, &CANCEL)?;
    eprintln!("{}", summary.line());
    if format == OutputFormat::Json {
        print_stdout(&output::to_json(&summary))?;
    }
    if summary.interrupted {
        return Err(KbError::Interrupted);
    }
    Ok(())
}

fn cmd_search(config: &Config, args: &SearchArgs, format: OutputFormat) -> Result<()> {
    let mode = if args.fts_only {
        Mode::Keyword
    } else if args.vec_only {
        Mode::Vector
    } else {
        Mode::Hybrid
    };
    let req = commands::search_request(
        config,
        &SearchOptions {
            query: args.query.clone(),
            top: args.top,
            tags: args.tags.clone(),
            doc_type: args.doc_type,
            mode,
            threshold: args.threshold,
        },
    )?;
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let started = std::time::Instant::now();
    let result = run_search(&db, config, &req);
    if config.search.log {
        // Logging never fails a search: if the database is busy or
        // read-only the entry is dropped.
        let entry = commands::search_log_entry("cli", &req, &result, started.elapsed());
        let _ = db.set_busy_timeout(std::time::Duration::from_millis(500));
        let _ = db.log_search(&entry);
    }
    let json = output::search_json(&result?);
    match format {
        OutputFormat::Json => print_stdout(&output::to_json(&json)),
        OutputFormat::Human => print_stdout(&output::search_human(&json)),
    }
}

fn run_search(
    db: &Database,
    config: &Config,
    req: &SearchRequest,
) -> Result<search::SearchResponse> {
    if req.mode.uses_vector() {
        // The binding is checked here; the model itself loads on the
        // search's embedding thread, in parallel with the keyword ranker.
        let (spec, files, binding) = embed::resolve_bound(db, config)?;
        let embed_query = |q: &str| -> Result<Vec<f32>> {
            embed::load_checked(&spec, &files, &binding, config, embed::ModelUse::Queries)?
                .embed_query(q)
        };
        search::search(db, req, Some(embed_query))
    } else {
        search::search(db, req, None::<fn(&str) -> Result<Vec<f32>>>)
    }
}

fn cmd_reindex(
    config: &Config,
    args: &ReindexArgs,
    format: OutputFormat,
    quiet: bool,
) -> Result<()> {
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let current = db.model_binding()?;
    let name = args
        .model
        .clone()
        .or_else(|| {
            config
                .model_explicit
                .then(|| config.embedding.model.clone())
        })
        .or_else(|| current.as_ref().map(|b| b.model_name.clone()))
        .unwrap_or_else(|| config.embedding.model.clone());
    let spec = embed::model_spec(&name)?;
    let model_dir = args.model_dir.clone().or_else(|| {
        current
            .as_ref()
            .filter(|b| b.model_name == spec.name)
            .and_then(|b| b.model_dir.clone())
            .map(PathBuf::from)
            .filter(|d| d.is_dir())
    });
    let files = model_files_for(&spec, model_dir.as_ref(), config, quiet)?;
    let embedder = Embedder::load(&spec, &files, config)?;
    let target = embed::binding_for(&embedder)?;
    db.begin_reindex(&target)?;
    let (done_before, total) = db.reindex_counts()?;
    let bar = progress_bar(total as u64, !quiet);
    bar.set_position(done_before as u64);
    let mut after = 0i64;
    loop {
        if CANCEL.load(Ordering::SeqCst) {
            bar.finish_and_clear();
            eprintln!("kb: reindex interrupted; the old index is untouched. Run `kb reindex` again to continue.");
            return Err(KbError::Interrupted);
        }
        let batch = db.reindex_pending(after, 256)?;
        let Some(last) = batch.last() else { break };
        after = last.0;
        let texts: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        let vectors = embedder.embed_passages(&texts)?;
        let ids: Vec<i64> = batch.iter().map(|(id, _)| *id).collect();
        db.stage_vectors(&ids, &vectors)?;
        bar.inc(batch.len() as u64);
    }
    db.finish_reindex(&target)?;
    bar.finish_and_clear();
    let summary = serde_json::json!({
        "model_name": target.model_name,
        "embedding_dim": target.embedding_dim,
        "previous_model": current.map(|b| b.model_name),
        "chunks": total,
    });
    eprintln!(
        "kb: reindexed {total} chunks with {} ({} dimensions)",
        target.model_name, target.embedding_dim
    );
    if format == OutputFormat::Json {
        print_stdout(&output::to_json(&summary))?;
    }
    Ok(())
}

fn cmd_status(config: &Config, format: OutputFormat) -> Result<()> {
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let status = commands::status(&db)?;
    match format {
        OutputFormat::Json => print_stdout(&output::to_json(&status)),
        OutputFormat::Human => print_stdout(&output::status_human(&status)),
    }
}

fn cmd_tags(config: &Config, format: OutputFormat) -> Result<()> {
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let tags = commands::tags(&db)?;
    match format {
        OutputFormat::Json => print_stdout(&output::to_json(&tags)),
        OutputFormat::Human => print_stdout(&output::tags_human(&tags)),
    }
}

/// `kb mcp`: serves the knowledge base over stdio until stdin closes or a
/// signal arrives. Only protocol messages go to stdout.
fn run_mcp(config: &Config, args: &McpArgs) -> Result<()> {
    crate::mcp::serve(
        config.clone(),
        crate::mcp::ServeOptions {
            allow_write: args.allow_write,
            cancel: &CANCEL,
        },
    )
}
