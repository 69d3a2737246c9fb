//! The command line: parse the arguments, run the command in a one-shot
//! session, render its output. The commands themselves live in
//! `commands/`; this file only knows the global flags and the front-end
//! commands (`kb mcp`, the hidden PDF extractor).

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use crate::commands::{CommandArgs, Outcome, OutputKind};
use crate::config::{CliOverrides, Config, OutputFormat};
use crate::error::{KbError, Result};
use crate::ingest::pdf;
use crate::output::{self, Style};
use crate::session::{Session, SessionKind};

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
    pub command: CliCommand,
}

#[derive(Debug, Subcommand)]
pub enum CliCommand {
    #[command(flatten)]
    Kb(CommandArgs),
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

/// Parses the command line, runs the command and returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    if let CliCommand::ExtractPdf(a) = &cli.command {
        // No configuration, no Ctrl-C handler: the parent owns both.
        return pdf::child_main(&a.path);
    }
    pdf::extract_in_child_processes();
    let cancel = Arc::new(AtomicBool::new(false));
    // The MCP server handles its own signals (it shuts down on the first).
    if !matches!(cli.command, CliCommand::Mcp(_)) {
        let flag = cancel.clone();
        let _ = ctrlc::set_handler(move || {
            if flag.swap(true, Ordering::SeqCst) {
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
    match cli.command {
        CliCommand::Kb(command) => {
            let format = cli.format.unwrap_or(match command.spec().output {
                OutputKind::Query => config.search.default_format,
                OutputKind::Report | OutputKind::Text => OutputFormat::Human,
            });
            let mut session = Session::new(config, SessionKind::OneShot, cancel)
                .with_progress(!cli.quiet)
                .with_notes(Arc::new(|note| eprintln!("kb: {note}")));
            let kind = command.spec().output;
            match command
                .run(&mut session)
                .and_then(|out| render(out.as_ref(), kind, format))
            {
                Ok(()) => 0,
                Err(e) => report(&e, format),
            }
        }
        CliCommand::Mcp(args) => match crate::mcp::serve(config, args.allow_write, cancel) {
            Ok(()) => 0,
            Err(e) => report(&e, OutputFormat::Human),
        },
        CliCommand::ExtractPdf(_) => unreachable!("handled before configuration"),
    }
}

/// Prints a command's output where its kind says, then its warnings; an
/// output that records a failure (an interrupted add) becomes that error.
fn render(out: &dyn Outcome, kind: OutputKind, format: OutputFormat) -> Result<()> {
    let style = Style::for_stdout();
    match (kind, format) {
        (OutputKind::Query, OutputFormat::Json) => print_stdout(&out.to_json()?)?,
        (OutputKind::Query, OutputFormat::Human) | (OutputKind::Text, _) => {
            print_stdout(&out.human(&style))?
        }
        (OutputKind::Report, _) => {
            eprint!("{}", out.human(&Style::PLAIN));
            if format == OutputFormat::Json {
                print_stdout(&out.to_json()?)?;
            }
        }
    }
    for w in out.warnings() {
        eprintln!("{w}");
    }
    match out.failure() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A command line clap could not parse (or help and version, which are not
/// errors).
fn usage_error(e: clap::Error) -> i32 {
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
        let detail = e
            .to_string()
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ")
            .to_string();
        eprint!("{}", output::error_json(&KbError::Usage(detail)));
    } else {
        let _ = e.print();
    }
    1
}

fn raw_args_want_json() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json")
}

fn report(e: &KbError, format: OutputFormat) -> i32 {
    match format {
        OutputFormat::Json => eprint!("{}", output::error_json(e)),
        OutputFormat::Human => eprintln!("kb: error: {e}"),
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
