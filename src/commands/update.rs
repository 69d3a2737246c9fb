//! `kb update`: every file and folder ever given to `kb add`, synced again.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::path::PathBuf;

use super::add::{ingest, AddOutput};
use super::document::{file_status, FileStatus};
use super::{Command, CommandSpec, Mcp, Outcome, OutputKind};
use crate::db::{Database, Root};
use crate::error::{KbError, Result};
use crate::ingest::source_path;
use crate::output::{one_line, Render, Style};
use crate::session::Session;

const EXAMPLES: &str = "Examples:
  kb update                     re-index what changed in everything ever added
  kb update --format json       the summary as JSON on stdout
  kb update --forget-missing    also forget added folders that are gone";

/// Sync everything ever added: new and changed files indexed, gone ones removed
///
/// Walks again every file and folder given to `kb add` (as `kb add` with all
/// of them would, each with the tags and link following it was added with),
/// with the same summary. A folder that no longer exists, or is empty now
/// while it holds documents (a drive not mounted), is named and left
/// alone: its documents stay until `kb remove --missing`, or
/// `--forget-missing` forgets it.
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = EXAMPLES)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateArgs {
    /// Leave out files and folders matching this glob (as in a .gitignore; repeat it)
    #[arg(long, value_name = "GLOB")]
    #[schemars(
        description = "Leave out files and folders matching these globs (as in a .gitignore); one \
                       glob or a list",
        schema_with = "super::one_or_many::schema::<String>"
    )]
    #[serde(default, deserialize_with = "super::one_or_many::deserialize")]
    pub exclude: Vec<String>,
    /// Forget the added files and folders that are gone, and drop their documents whose files are
    /// gone (as `kb remove --missing` does for them)
    #[arg(long)]
    #[schemars(
        description = "Forget the added files and folders that are gone, and drop their documents \
                       whose files are gone"
    )]
    #[serde(default)]
    pub forget_missing: bool,
    /// Read every file again, changed or not: after upgrading kb, what its readers now read
    /// better reaches the files indexed before. Chunks read as before keep their vectors
    #[arg(long)]
    #[serde(skip)]
    #[schemars(skip)]
    pub reread: bool,
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
    /// Files and folders given to add that are gone, or folders that are empty now (an unmounted
    /// drive) while they hold documents (their documents are kept; remove with
    /// `missing`, or update with `forget_missing`, forgets them and drops their documents).
    pub missing_roots: Vec<String>,
    /// Gone files and folders forgotten by `forget_missing`: no longer synced, warned about or
    /// counted.
    pub forgotten_roots: Vec<String>,
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
        let all = session.db()?.roots()?;
        if all.is_empty() {
            return Err(KbError::invalid(
                "update",
                "nothing was added to this knowledge base yet; run `kb add PATH` first",
            ));
        }
        let db = session.db()?;
        let mut gone = Vec::new();
        let mut roots = Vec::new();
        for root in all {
            if is_gone(&root) || emptied(db, &root)? {
                gone.push(root);
            } else {
                roots.push(root);
            }
        }
        let roots: Vec<PathBuf> = roots.iter().map(|r| source_path::decode(&r.path)).collect();
        let mut summary = if roots.is_empty() {
            AddOutput::default()
        } else {
            let how = super::add::How {
                follow_external_links: false,
                reread: self.reread,
                quiet: self.quiet,
            };
            ingest(session, &roots, Vec::new(), self.exclude, how)?
        };
        let (missing_roots, forgotten_roots) = if self.forget_missing && !summary.interrupted {
            summary.removed += forget(session.db()?, &gone)?.len();
            session.mark_written();
            (Vec::new(), gone.into_iter().map(|r| r.path).collect())
        } else {
            (gone.into_iter().map(|r| r.path).collect(), Vec::new())
        };
        Ok(UpdateOutput {
            roots: roots.iter().map(|p| source_path::encode(p)).collect(),
            missing_roots,
            forgotten_roots,
            summary,
        })
    }
}

/// Whether a root's file or folder is gone.
pub(super) fn is_gone(root: &Root) -> bool {
    std::fs::symlink_metadata(source_path::decode(&root.path)).is_err()
}

/// Whether a root folder that holds documents is empty now: an unmounted
/// drive leaves its mount point so, and a sync must not take that for
/// every file deleted. It is kept as a gone one is.
fn emptied(db: &Database, root: &Root) -> Result<bool> {
    let path = source_path::decode(&root.path);
    let empty = std::fs::read_dir(&path).is_ok_and(|mut entries| entries.next().is_none());
    Ok(empty && !db.root_documents(root.id)?.is_empty())
}

/// Forgets the roots `gone` and removes their documents that nothing is
/// left to sync: those whose files are gone, and those no other root's walk
/// reaches (a file reached through a link in a folder that is gone); returns
/// their ids.
pub(super) fn forget(db: &Database, gone: &[Root]) -> Result<Vec<i64>> {
    if gone.is_empty() {
        return Ok(Vec::new());
    }
    let mut candidates = std::collections::BTreeSet::new();
    for r in gone {
        candidates.extend(db.root_documents(r.id)?);
    }
    let mut missing = Vec::new();
    for f in db.document_files()? {
        let under = gone.iter().any(|r| r.holds(&f.path)) || candidates.contains(&f.id);
        if under && file_status(&(&f).into()) == FileStatus::Missing {
            missing.push(f.id);
        }
    }
    db.forget_roots(&gone.iter().map(|r| r.id).collect::<Vec<_>>())?;
    let candidates: Vec<i64> = candidates.into_iter().collect();
    let mut ids = db.unreached_documents(&candidates)?;
    ids.extend(missing);
    ids.sort_unstable();
    ids.dedup();
    db.remove_documents(&ids)?;
    Ok(ids)
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
                "{}: gone, or an empty folder (a drive not mounted?); its documents are kept (kb \
                 update --forget-missing forgets it and drops them)\n",
                one_line(m)
            ));
        }
        for m in &self.forgotten_roots {
            out.push_str(&format!(
                "{}: gone; forgotten, with its documents\n",
                one_line(m)
            ));
        }
        out
    }
}
