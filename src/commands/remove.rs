//! `kb remove DOC... | --missing`: deletes documents with their chunks,
//! vectors and tag links.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{file_status, DocRef, DocumentRef, FileStatus};
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::db::RootKind;
use crate::error::{KbError, Result};
use crate::output::{plural, Render, Style};
use crate::session::Session;

/// Remove documents (with their chunks, vectors and tag links)
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RemoveArgs {
    /// Documents to remove (ids or paths)
    #[arg(required_unless_present = "missing", value_name = "DOC")]
    #[schemars(
        description = "Documents to remove (ids or paths; one or a list)",
        schema_with = "super::one_or_many::schema::<DocRef>"
    )]
    #[serde(default, deserialize_with = "super::one_or_many::deserialize")]
    pub documents: Vec<DocRef>,
    /// Remove every document whose source file is gone (or the link that led to it), and forget
    /// the added files and folders that are gone
    #[arg(long, conflicts_with = "documents")]
    #[serde(default)]
    pub missing: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RemoveOutput {
    /// Documents removed.
    pub removed: usize,
    /// The documents removed.
    pub documents: Vec<DocumentRef>,
    /// Files and folders given to add that are forgotten (no longer synced by update, warned
    /// about or counted by doctor): a removed file that was added by name, and with `missing`
    /// those that are gone.
    pub forgotten_roots: Vec<String>,
    /// Removed documents' files still on disk under an added folder: kept out of kb update and
    /// of later adds of that folder; kb add naming the file brings it back.
    pub kept_out: Vec<String>,
}

impl Command for RemoveArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "remove",
        title: "Remove documents",
        summary: "Remove documents (by id or path) or, with missing: true, every document whose \
                  file is gone (and forget the added folders that are gone).",
        output: OutputKind::Query,
        mcp: Mcp::Write {
            destructive: true,
            idempotent: true,
        },
    };
    type Output = RemoveOutput;

    /// Every named document is resolved before anything is deleted, so one
    /// bad name removes nothing.
    fn run(self, session: &mut Session) -> Result<RemoveOutput> {
        match (self.documents.is_empty(), self.missing) {
            (true, false) => {
                return Err(KbError::invalid(
                    "documents",
                    "give the documents to remove (ids or paths), or missing: true",
                ))
            }
            (false, true) => {
                return Err(KbError::invalid(
                    "missing",
                    "missing removes every document whose file is gone; do not combine it with \
                     documents",
                ))
            }
            _ => {}
        }
        session.db()?;
        // A running add would write a document back after its removal (a
        // new version of the file it had read): removals wait for it.
        let _writer = session.lock_writer()?;
        let db = session.db()?;
        let mut found = Vec::new();
        if self.missing {
            for f in db.document_files()? {
                if file_status(&(&f).into()) == FileStatus::Missing {
                    if let Some(d) = db.document(f.id)? {
                        found.push(d);
                    }
                }
            }
        } else {
            for d in &self.documents {
                let doc = d.resolve(db)?;
                // Named twice (an id and its path): listed once.
                if !found.iter().any(|f| f.summary.id == doc.summary.id) {
                    found.push(doc);
                }
            }
        }
        let ids: Vec<i64> = found.iter().map(|d| d.summary.id).collect();
        let removed = db.remove_documents(&ids)?;
        let (kept_out, mut forgotten_roots) = keep_out(db, &found)?;
        if self.missing {
            let gone: Vec<_> = db
                .roots()?
                .into_iter()
                .filter(super::update::is_gone)
                .collect();
            super::update::forget(db, &gone)?;
            forgotten_roots.extend(gone.into_iter().map(|r| r.path));
            // A file kept out and gone since: a new file of its name is not it.
            let gone_files: Vec<String> = db
                .kept_out()?
                .into_iter()
                .filter(|p| {
                    std::fs::symlink_metadata(crate::ingest::source_path::decode(p)).is_err()
                })
                .collect();
            db.let_in(&gone_files)?;
        }
        session.mark_written();
        Ok(RemoveOutput {
            removed,
            documents: found.iter().map(DocumentRef::of).collect(),
            forgotten_roots,
            kept_out,
        })
    }
}

/// A removed document whose file is still there would come back with the
/// next walk: a file given to add by name is forgotten as a root, and one
/// under an added folder is kept out of its walks. Returns those kept out
/// and the roots forgotten.
fn keep_out(
    db: &crate::db::Database,
    removed: &[crate::db::DocumentRecord],
) -> Result<(Vec<String>, Vec<String>)> {
    let roots = db.roots()?;
    let present: Vec<&str> = removed
        .iter()
        .filter(|d| {
            super::document::document_file_status(d).is_some_and(|s| s != FileStatus::Missing)
        })
        .filter_map(|d| d.summary.path.as_deref())
        .collect();
    let named: Vec<&crate::db::Root> = roots
        .iter()
        .filter(|r| r.kind == RootKind::File && present.contains(&r.path.as_str()))
        .collect();
    db.forget_roots(&named.iter().map(|r| r.id).collect::<Vec<_>>())?;
    let forgotten = named.iter().map(|r| r.path.clone()).collect();
    let under_folder: Vec<String> = present
        .into_iter()
        .filter(|p| {
            roots
                .iter()
                .any(|r| r.kind == RootKind::Folder && r.holds(p))
        })
        .map(str::to_string)
        .collect();
    db.keep_out(&under_folder)?;
    Ok((under_folder, forgotten))
}

plain_outcome!(RemoveOutput);

impl Render for RemoveOutput {
    fn human(&self, _style: &Style) -> String {
        let mut out = format!(
            "Removed {}.\n",
            plural(self.removed as u64, "document", "documents")
        );
        for d in &self.documents {
            out.push_str(&format!("  {} {}\n", d.id, d.label()));
        }
        for p in &self.kept_out {
            out.push_str(&format!(
                "Kept out of kb update: {} (still under an added folder; `kb add` it by name to \
                 bring it back)\n",
                crate::output::one_line(p)
            ));
        }
        for r in &self.forgotten_roots {
            out.push_str(&format!(
                "Forgot {} (no longer synced by kb update)\n",
                crate::output::one_line(r)
            ));
        }
        out
    }
}
