//! `kb update`: every file and folder ever given to `kb add`, synced again.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::add::{ingest, AddOutput};
use super::{Command, CommandSpec, Mcp, Outcome, OutputKind};
use crate::error::{KbError, Result};
use crate::ingest::source_path;
use crate::output::{escape, Escape, Render, Style};
use crate::session::Session;

const EXAMPLES: &str = "Examples:
  kb update                     re-index what changed in everything ever added
  kb update --format json       the summary as JSON on stdout";

/// Sync everything ever added: new and changed files indexed, gone ones removed
///
/// Walks again every file and folder given to `kb add` (as `kb add` with all
/// of them would), with the same summary. A folder that no longer exists is
/// named and left alone: its documents stay until `kb remove --missing`.
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = EXAMPLES)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateArgs {
    /// Leave out files and folders matching this glob (as in a .gitignore; repeat it)
    #[arg(long, value_name = "GLOB")]
    #[schemars(description = "Leave out files and folders matching these globs (as in a .gitignore)")]
    #[serde(default)]
    pub exclude: Vec<String>,
    /// No progress bar
    #[arg(long, short)]
    #[serde(skip)]
    #[schemars(skip)]
    pub quiet: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct UpdateOutput {
    /// The files and folders synced (every one add was given that still exists).
    pub roots: Vec<String>,
    /// Files and folders given to add that are gone (their documents are kept; remove with
    /// `missing` drops them).
    pub missing_roots: Vec<String>,
    /// What the run did, as add reports it.
    #[serde(flatten)]
    pub summary: AddOutput,
}

impl Command for UpdateArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "update",
        title: "Sync everything added",
        summary: "Sync every file and folder ever added: new and changed files are indexed, \
                  gone ones removed. Returns the summary of add (added, updated, removed, failed and unsupported files) with the roots synced.",
        output: OutputKind::Report,
        mcp: Mcp::Write {
            destructive: false,
            idempotent: false,
        },
    };
    type Output = UpdateOutput;

    fn run(self, session: &mut Session) -> Result<UpdateOutput> {
        if !session.config().db_path().exists() {
            return Err(KbError::NoIndex(session.config().db_path()));
        }
        let (mut roots, mut missing_roots) = (Vec::new(), Vec::new());
        for root in session.db()?.roots()? {
            let path = source_path::decode(&root.path);
            if std::fs::symlink_metadata(&path).is_ok() {
                roots.push(path);
            } else {
                missing_roots.push(root.path);
            }
        }
        if roots.is_empty() && missing_roots.is_empty() {
            return Err(KbError::invalid(
                "update",
                "nothing was added to this knowledge base yet; run `kb add PATH` first",
            ));
        }
        let summary = if roots.is_empty() {
            AddOutput::default()
        } else {
            ingest(session, &roots, Vec::new(), self.exclude, false, self.quiet)?
        };
        Ok(UpdateOutput {
            roots: roots.iter().map(|p| source_path::encode(p)).collect(),
            missing_roots,
            summary,
        })
    }
}

impl Outcome for UpdateOutput {
    fn to_json(&self) -> Result<String> {
        crate::output::to_json(self)
    }

    fn failure(&self) -> Option<KbError> {
        self.summary.failure()
    }
}

impl Render for UpdateOutput {
    fn human(&self, style: &Style) -> String {
        let mut out = format!(
            "Synced {} added {}. ",
            self.roots.len(),
            if self.roots.len() == 1 {
                "file or folder"
            } else {
                "files and folders"
            }
        );
        out.push_str(&self.summary.human(style));
        for m in &self.missing_roots {
            out.push_str(&format!(
                "{}: gone; its documents are kept (kb remove --missing drops them)\n",
                escape(m, Escape::Terminal)
            ));
        }
        out
    }
}
