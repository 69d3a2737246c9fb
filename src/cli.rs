//! Command-line parsing and dispatch: one function per command.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, Parser, Subcommand};

use crate::config::{CliOverrides, Config, OutputFormat};
use crate::db::{normalize_tags, Database, Filters, OpenMode};
use crate::embed::{self, Embedder, ModelFiles};
use crate::error::{KbError, Result};
use crate::ingest::pipeline::{progress_bar, IngestOptions, Ingester};
use crate::ingest::DocType;
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
    /// Index files and folders (Markdown, text notes); unchanged files are skipped
    Add(AddArgs),
    /// Search: keyword (BM25) and semantic (embeddings) fused with Reciprocal Rank Fusion
    Search(SearchArgs),
    /// Re-embed every chunk, optionally with another model; the old index stays usable until it finishes
    Reindex(ReindexArgs),
    /// Counts of documents and chunks, database size, model and schema version
    Status,
    /// Every tag with the number of documents carrying it
    Tags,
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
    let _ = ctrlc::set_handler(|| {
        if CANCEL.swap(true, Ordering::SeqCst) {
            // Second Ctrl-C: stop now. SQLite rolls back the open transaction.
            std::process::exit(130);
        }
        eprintln!("\nkb: stopping after the current document (Ctrl-C again to stop now)");
    });

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
        Command::Search(_) | Command::Status | Command::Tags => config.search.default_format,
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
    }
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
    let mut status = "initialised";
    match db.model_binding()? {
        Some(existing)
            if existing.model_name == binding.model_name
                && existing.model_fingerprint == binding.model_fingerprint =>
        {
            // Same model; remember where its files are now.
            if let Some(dir) = &binding.model_dir {
                db.set_config("model_dir", dir)?;
            }
            status = "already initialised";
        }
        Some(existing) if db.chunk_count()? > 0 => {
            return Err(KbError::ModelMismatch(format!(
                "this knowledge base is built with {} ({} dimensions); to switch to {} run `kb reindex --model {}`",
                existing.model_name, existing.embedding_dim, binding.model_name, binding.model_name
            )));
        }
        _ => db.bind_model(&binding)?,
    }
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

/// The model for `kb add`: the bound one, or on a new knowledge base the
/// configured model when its files can be found without a download.
fn embedder_for_add(db: &Database, config: &Config) -> Result<Embedder> {
    if db.model_binding()?.is_some() {
        return embed::load_bound(db, config);
    }
    let spec = embed::model_spec(&config.embedding.model)?;
    let files = embed::locate(&spec, config, None).map_err(|_| {
        KbError::ModelMissing(format!(
            "no embedding model is set up for {}; run `kb init` first (it downloads {}), \
             or `kb init --model-dir DIR` with a local copy",
            db.path().display(),
            spec.name
        ))
    })?;
    let embedder = Embedder::load(&spec, &files, config)?;
    db.bind_model(&embed::binding_for(&embedder)?)?;
    eprintln!("kb: using {} from {}", spec.name, files.dir.display());
    Ok(embedder)
}

fn cmd_add(config: &Config, args: &AddArgs, format: OutputFormat, quiet: bool) -> Result<()> {
    for p in &args.paths {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(KbError::PathNotFound(p.clone()));
        }
    }
    let tags = normalize_tags(&args.tags);
    if args.tags.iter().any(|t| t.trim().is_empty()) && tags.is_empty() {
        return Err(KbError::Usage(
            "--tags: empty tag names are not allowed".into(),
        ));
    }
    let db = Database::open(&config.db_path(), OpenMode::Create)?;
    let embedder = embedder_for_add(&db, config)?;
    let ingester = Ingester::new(config, &db, Some(&embedder));
    let summary = ingester.run(
        &args.paths,
        &IngestOptions {
            tags,
            show_progress: !quiet,
            cancel: &CANCEL,
        },
    )?;
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
    if args.query.trim().is_empty() {
        return Err(KbError::EmptyQuery);
    }
    let top = args.top.unwrap_or(config.search.default_top);
    if top == 0 {
        return Err(KbError::Usage("--top must be at least 1".into()));
    }
    let mode = if args.fts_only {
        Mode::Keyword
    } else if args.vec_only {
        Mode::Vector
    } else {
        Mode::Hybrid
    };
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let req = SearchRequest {
        query: args.query.clone(),
        top,
        filters: Filters {
            tags: normalize_tags(&args.tags),
            doc_type: args.doc_type.map(|t| t.as_str().to_string()),
        },
        mode,
        threshold: args.threshold,
        rrf_k: config.search.rrf_k,
    };
    let resp = if mode.uses_vector() {
        // The binding is checked here; the model itself loads on the
        // search's embedding thread, in parallel with the keyword ranker.
        let (spec, files, binding) = embed::resolve_bound(&db, config)?;
        let embed_query = |q: &str| -> Result<Vec<f32>> {
            embed::load_checked(&spec, &files, &binding, config)?.embed_query(q)
        };
        search::search(&db, &req, Some(embed_query))?
    } else {
        search::search(&db, &req, None::<fn(&str) -> Result<Vec<f32>>>)?
    };
    let json = output::search_json(&resp);
    match format {
        OutputFormat::Json => print_stdout(&output::to_json(&json)),
        OutputFormat::Human => print_stdout(&output::search_human(&json)),
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
    let mut documents: BTreeMap<String, i64> = [
        DocType::Pdf,
        DocType::Markdown,
        DocType::Code,
        DocType::Note,
    ]
    .iter()
    .map(|t| (t.as_str().to_string(), 0))
    .collect();
    for (t, n) in db.documents_by_type()? {
        documents.insert(t, n);
    }
    let binding = db.model_binding()?;
    let status = output::StatusJson {
        total_documents: documents.values().sum(),
        documents,
        total_chunks: db.chunk_count()?,
        db_size_bytes: db.size_bytes(),
        model_name: binding.as_ref().map(|b| b.model_name.clone()),
        embedding_dim: binding.as_ref().map(|b| b.embedding_dim),
        schema_version: db.schema_version()?,
        last_ingest_at: db.last_ingest_at()?,
        db_path: db.path().display().to_string(),
    };
    match format {
        OutputFormat::Json => print_stdout(&output::to_json(&status)),
        OutputFormat::Human => print_stdout(&output::status_human(&status)),
    }
}

fn cmd_tags(config: &Config, format: OutputFormat) -> Result<()> {
    let db = Database::open(&config.db_path(), OpenMode::Existing)?;
    let tags: Vec<output::TagJson> = db
        .tag_counts()?
        .into_iter()
        .map(|(name, count)| output::TagJson { name, count })
        .collect();
    match format {
        OutputFormat::Json => print_stdout(&output::to_json(&tags)),
        OutputFormat::Human => print_stdout(&output::tags_human(&tags)),
    }
}
