//! kb-dev: tasks of kb's own repository (`cargo dev ...`).
//!
//! `cargo dev generate-docs` writes the reference documentation generated
//! from the code (docs/cli.md, the field tables of docs/json.md,
//! docs/configuration.md and config.example.yaml, the table of
//! docs/errors.md); `--check` only says which are stale, as the test does.
//! `cargo dev fit-pdf-rules PATH...` fits the PDF heading rules' weights
//! on bookmarked PDFs (`fit_pdf_rules.rs`).

use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use kb::cli::reference::{apply, generated};

mod fit_pdf_rules;
// The fit and check halves are kb-eval's.
#[allow(dead_code)]
#[path = "../kb-eval/halves.rs"]
mod halves;

#[derive(Debug, Parser)]
#[command(name = "kb-dev", about = "Tasks of kb's own repository")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Write the reference docs generated from the code
    GenerateDocs {
        /// Write nothing; fail when a file is stale
        #[arg(long)]
        check: bool,
    },
    /// Fit the PDF heading rules' weights on bookmarked PDFs
    FitPdfRules(fit_pdf_rules::FitArgs),
}

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    match Cli::parse().command {
        Task::GenerateDocs { check } => generate_docs(root, check),
        Task::FitPdfRules(args) => match fit_pdf_rules::run(&args, root) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("kb-dev: {e}");
                ExitCode::from(2)
            }
        },
    }
}

fn generate_docs(root: &Path, check: bool) -> ExitCode {
    let mut stale = 0;
    for g in generated() {
        let path = root.join(g.path);
        let existing = std::fs::read_to_string(&path).unwrap_or_default();
        let want = match apply(&existing, &g) {
            Ok(w) => w,
            Err(e) => {
                eprintln!("kb-dev: {e}");
                return ExitCode::from(1);
            }
        };
        if existing == want {
            continue;
        }
        if check {
            eprintln!("kb-dev: {} is stale", g.path);
            stale += 1;
        } else if let Err(e) = std::fs::write(&path, want) {
            eprintln!("kb-dev: {}: {e}", path.display());
            return ExitCode::from(2);
        } else {
            eprintln!("kb-dev: wrote {}", g.path);
        }
    }
    if stale > 0 {
        eprintln!("kb-dev: run `cargo dev generate-docs` and commit the result");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
