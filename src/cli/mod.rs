//! The command line: parse the arguments, run the command in a one-shot
//! session, render its output. The commands themselves live in
//! `commands/`; this module only knows the global flags, the front-end
//! commands (`kb mcp`, completions, the man page, the hidden PDF
//! extractor), how output and errors are shown, and Ctrl-C.

mod docs;
mod errors;
mod progress;
pub mod reference;

use std::ffi::OsString;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use crate::commands::{CommandArgs, Outcome, OutputKind};
use crate::config::{CliOverrides, Config, OutputFormat};
use crate::error::{KbError, Result};
use crate::ingest::pdf;
use crate::output::Style;
use crate::progress::Progress;
use crate::session::{Session, SessionKind};

pub use docs::{command, DocsArgs};

const EXAMPLES: &str = "\
Examples:
  kb add ~/notes ~/docs --tags work          index folders (again: only what changed)
  kb search \"rotate ssh keys\"                hybrid search, JSON for agents
  kb search ssh keys --format human --top 3  the same for people
  kb show 41 --context 1                     widen a hit (ids come from search)
  kb outline 6 && kb show 6 --section Setup  read one section of a document
  kb status                                  what the knowledge base holds
  kb doctor                                  check the model, runtime and database";

/// kb: a local knowledge base. It keeps your documents in one SQLite file and
/// answers hybrid keyword + semantic searches, as JSON for LLM agents or as
/// text for people.
#[derive(Debug, Parser)]
#[command(
    name = "kb",
    version,
    about,
    long_about = None,
    max_term_width = 100,
    after_help = format!("{EXAMPLES}\n\n{}", crate::document::DocType::HELP)
)]
pub(crate) struct Cli {
    /// Where kb.db, config.yaml and ingest-errors.log live [env: KB_DATA_DIR] [default: ~/.kb];
    /// an SQLite file is used as kb.db itself (a copy kb backup wrote), beside the rest
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Output format: json (the stable contract; queries print it to pipes, scripts and agents)
    /// or human (what a terminal gets unless search.default_format says json)
    #[arg(long, global = true, value_enum, conflicts_with = "json")]
    pub format: Option<OutputFormat>,

    /// Same as --format json
    #[arg(long, global = true)]
    pub json: bool,

    #[command(subcommand)]
    pub(crate) command: CliCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum CliCommand {
    #[command(flatten)]
    Kb(CommandArgs),
    /// Serve the knowledge base to LLM tools over stdio (Model Context Protocol)
    Mcp(McpArgs),
    /// Print shell completions: kb completions bash > ~/.local/share/bash-completion/completions/kb
    Completions(docs::CompletionsArgs),
    /// Print kb's man page (roff): kb man > ~/.local/share/man/man1/kb.1
    Man(DocsArgs),
    /// Internal: extract a PDF's pages as JSON on stdout (kb runs this in a
    /// child process so a hostile PDF cannot crash or exhaust kb itself)
    #[command(name = "__extract-pdf", hide = true)]
    ExtractPdf(ExtractPdfArgs),
}

#[derive(Debug, Args)]
pub struct ExtractPdfArgs {
    pub path: PathBuf,
    /// How to read it (the engine and OCR settings), as JSON.
    #[arg(long)]
    pub options: String,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Also offer the tools that change the knowledge base: add and remove
    #[arg(long)]
    pub allow_write: bool,
}

impl Cli {
    fn explicit_format(&self) -> Option<OutputFormat> {
        if self.json {
            Some(OutputFormat::Json)
        } else {
            self.format
        }
    }
}

/// Parses the command line, runs the command and returns the exit code.
pub fn run() -> i32 {
    crate::embed::runtime::disable_telemetry();
    let args = query_words_last(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return errors::usage_error(e, &args),
    };
    if let CliCommand::ExtractPdf(a) = &cli.command {
        // No configuration, no Ctrl-C handler: the parent owns both.
        return pdf::child_main(&a.path, &a.options);
    }
    pdf::extract_in_child_processes();
    let explicit = cli.explicit_format();
    let cancel = Arc::new(AtomicBool::new(false));
    // The MCP server handles its own signals (it shuts down on the first).
    if !matches!(cli.command, CliCommand::Mcp(_)) {
        let flag = cancel.clone();
        let _ = ctrlc::set_handler(move || {
            if flag.swap(true, Ordering::SeqCst) {
                // Second Ctrl-C: stop now. SQLite rolls back the open
                // transaction. `_exit`, not `exit`: ONNX Runtime's static
                // destructors must not run under a model batch in flight.
                // SAFETY: _exit only ends the process.
                unsafe { libc::_exit(130) }
            }
            eprintln!(
                "\nkb: stopping (everything committed is kept; Ctrl-C again to stop at once)"
            );
        });
    }
    let overrides = CliOverrides {
        data_dir: cli.data_dir.clone(),
    };
    let kind = match &cli.command {
        CliCommand::Kb(c) => c.spec().output,
        _ => OutputKind::Text,
    };
    let config_span = crate::timings::span("config");
    let config = match Config::load(&overrides) {
        Ok(c) => c,
        Err(e) => {
            return report(
                &e,
                errors::error_format(explicit, default_format(kind, None)),
            )
        }
    };
    drop(config_span);
    let format = explicit.unwrap_or_else(|| default_format(kind, Some(&config)));
    let error_format = errors::error_format(explicit, format);
    for w in &config.warnings {
        tell(error_format, "warning", w);
    }
    match cli.command {
        CliCommand::Kb(mut command) => {
            if let CommandArgs::Search(search) = &mut command {
                if let Err(e) = search.read_query_from(&mut std::io::stdin()) {
                    return report(&e, error_format);
                }
            }
            let mut session = Session::new(config, SessionKind::OneShot, cancel)
                .with_notes(Arc::new(move |note| tell(error_format, "note", note)));
            // Long work draws its progress line on the terminal, and tells
            // it now and then elsewhere.
            session = if std::io::stderr().is_terminal() {
                session.with_progress(Arc::new(|work| {
                    Arc::new(progress::ProgressLine::terminal(work)) as Arc<dyn Progress>
                }))
            } else {
                let say: Arc<dyn Fn(&str) + Send + Sync> =
                    Arc::new(move |line| tell(error_format, "progress", line));
                session.with_progress(Arc::new(move |work| {
                    Arc::new(progress::ProgressLine::log(work, say.clone())) as Arc<dyn Progress>
                }))
            };
            let ran = {
                let _span = crate::timings::span("command");
                command.run(&mut session)
            };
            match ran.and_then(|out| {
                let _span = crate::timings::span("output");
                render(out.as_ref(), kind, format, error_format)
            }) {
                Ok(()) => 0,
                Err(e) => report(&e, error_format),
            }
        }
        CliCommand::Mcp(args) => match crate::mcp::serve(config, args.allow_write, cancel) {
            Ok(()) => 0,
            Err(e) => report(&e, OutputFormat::Human),
        },
        CliCommand::Completions(a) => emit(docs::completions(a.shell)),
        CliCommand::Man(_) => emit(docs::man_page()),
        CliCommand::ExtractPdf(_) => unreachable!("handled before configuration"),
    }
}

/// `kb search` takes any words as its query, including ones that start with
/// one dash (`kb search -git`), while everything that is an option stays an
/// option (`--json`, `-n 5`) and a mistyped long option (`--fts-onyl`) is
/// an error with a suggestion, never a query. Words clap would misread as
/// short options are moved after a `--`, in order.
fn query_words_last(args: Vec<OsString>) -> Vec<OsString> {
    let cmd = command();
    let Some(search) = cmd.find_subcommand("search") else {
        return args;
    };
    // The subcommand is the first word that is neither a global option nor
    // its value (`kb --data-dir X search ...`).
    let mut at = 1;
    while at < args.len() {
        let a = args[at].to_string_lossy();
        if a == "--data-dir" || a == "--format" {
            at += 2;
        } else if a.starts_with('-') {
            at += 1;
        } else {
            break;
        }
    }
    if args.get(at).is_none_or(|a| a != "search") {
        return args;
    }
    let takes_value = |long: Option<&str>, short: Option<char>| -> Option<bool> {
        cmd.get_arguments()
            .chain(search.get_arguments())
            .find(|a| {
                long.is_some_and(|l| a.get_long() == Some(l))
                    || short.is_some_and(|c| a.get_short() == Some(c))
            })
            .map(|a| a.get_action().takes_values())
    };
    let mut options = Vec::new();
    let mut words = Vec::new();
    let mut it = args[at + 1..].iter();
    while let Some(arg) = it.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            words.extend(it.by_ref().cloned());
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            options.push(arg.clone());
            if !long.contains('=') && takes_value(Some(long), None) == Some(true) {
                options.extend(it.next().cloned());
            }
            continue;
        }
        let mut chars = text.chars();
        let short = (chars.next() == Some('-')).then(|| chars.next()).flatten();
        match short.map(|c| (c, takes_value(None, Some(c)))) {
            // A known short option: `-n 5`, `-n5`, `-C1`.
            Some((_, Some(true))) => {
                options.push(arg.clone());
                if text.chars().count() == 2 {
                    options.extend(it.next().cloned());
                }
            }
            Some((_, Some(false))) if text.chars().count() == 2 => options.push(arg.clone()),
            // `-q`, `-v`: a guessed flag, never a query word (clap names it
            // and says how to search for it: after `--`).
            Some((c, None)) if text.chars().count() == 2 && c.is_ascii_alphabetic() => {
                options.push(arg.clone())
            }
            // `-`, `-git`, `-5`: query words.
            _ => words.push(arg.clone()),
        }
    }
    let mut out: Vec<OsString> = args[..=at].to_vec();
    out.extend(options);
    if !words.is_empty() {
        out.push("--".into());
        out.extend(words);
    }
    out
}

/// The format a command prints when none is asked for: queries print JSON
/// (the contract agents read) unless stdout is a terminal, which gets
/// `search.default_format` (human unless set); work and text commands print
/// text.
fn default_format(kind: OutputKind, config: Option<&Config>) -> OutputFormat {
    match kind {
        OutputKind::Query if std::io::stdout().is_terminal() => config
            .map(|c| c.search.default_format)
            .unwrap_or(OutputFormat::Json),
        OutputKind::Query => OutputFormat::Json,
        OutputKind::Report | OutputKind::Text => OutputFormat::Human,
    }
}

/// Prints a command's output where its kind says, then its warnings; an
/// output that records a failure (an interrupted add) becomes that error.
fn render(
    out: &dyn Outcome,
    kind: OutputKind,
    format: OutputFormat,
    error_format: OutputFormat,
) -> Result<()> {
    let style = Style::for_stdout();
    match (kind, format) {
        (OutputKind::Query | OutputKind::Text, OutputFormat::Json) => {
            print_stdout(&out.to_json()?)?
        }
        (OutputKind::Query | OutputKind::Text, OutputFormat::Human) => {
            print_stdout(&style.finish(&out.human(&style)))?
        }
        (OutputKind::Report, _) => {
            eprint!("{}", Style::PLAIN.finish(&out.human(&Style::PLAIN)));
            if format == OutputFormat::Json {
                print_stdout(&out.to_json()?)?;
            }
        }
    }
    for w in out.warnings() {
        tell(error_format, "warning", &w);
    }
    match out.failure() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A warning or a note on stderr: a JSON line (`{"warning": "..."}`) where
/// errors would be JSON, so an agent reading stderr can parse every line;
/// else `kb: warning: ...` for a person.
fn tell(format: OutputFormat, kind: &str, text: &str) {
    match format {
        OutputFormat::Json => eprintln!("{}", serde_json::json!({ kind: text })),
        OutputFormat::Human if kind == "note" => {
            eprintln!("kb: {}", Style::PLAIN.finish(text))
        }
        OutputFormat::Human => eprintln!("kb: {kind}: {}", Style::PLAIN.finish(text)),
    }
}

fn emit(text: Result<String>) -> i32 {
    match text.and_then(|t| print_stdout(&t)) {
        Ok(()) => 0,
        Err(e) => report(&e, OutputFormat::Human),
    }
}

/// Prints an error the way the command's output would have been read, and
/// returns its exit code.
fn report(e: &KbError, format: OutputFormat) -> i32 {
    match format {
        OutputFormat::Json => eprint!("{}", crate::output::error_json(e)),
        OutputFormat::Human => eprintln!("kb: error: {}", Style::PLAIN.finish(&e.to_string())),
    }
    e.exit_code()
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
