//! `kb tag DOC --add a,b --remove c`: edits a document's tags.

use schemars::JsonSchema;
use serde::Deserialize;

use super::document::{DocRef, DocumentRef};
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::db::normalize_tags;
use crate::error::{KbError, Result};
use crate::output::{Render, Style};
use crate::session::Session;

/// Add or remove tags of a document
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TagArgs {
    /// Document id or path
    #[arg(value_name = "DOC")]
    pub document: DocRef,
    /// Tags to add (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    #[serde(default)]
    pub add: Vec<String>,
    /// Tags to remove (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    #[serde(default)]
    pub remove: Vec<String>,
}

impl Command for TagArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "tag",
        title: "Tag a document",
        summary: "Add or remove tags of a document; returns the document with its tags.",
        output: OutputKind::Query,
        mcp: Mcp::Hidden,
    };
    type Output = DocumentRef;

    fn run(self, session: &mut Session) -> Result<DocumentRef> {
        if self.add.is_empty() && self.remove.is_empty() {
            return Err(KbError::Usage("give --add TAGS and/or --remove TAGS".into()));
        }
        if self.add.iter().chain(&self.remove).any(|t| t.trim().is_empty()) {
            return Err(KbError::Usage("empty tag names are not allowed".into()));
        }
        printable_names(&self.add, "--add")?;
        let db = session.db()?;
        let doc = self.document.resolve(db)?;
        db.edit_tags(
            doc.summary.id,
            &normalize_tags(&self.add),
            &normalize_tags(&self.remove),
        )?;
        session.mark_written();
        Ok(DocumentRef::of(&DocRef::Id(doc.summary.id).resolve(db)?))
    }
}

plain_outcome!(DocumentRef);

/// Tag names given by the user (`flag`) hold no control character: a
/// name is one line wherever it is shown.
pub(super) fn printable_names(tags: &[String], flag: &str) -> Result<()> {
    match tags.iter().any(|t| t.chars().any(char::is_control)) {
        true => Err(KbError::invalid(
            "tags",
            format!("{flag}: a tag name cannot hold a newline, tab or other control character"),
        )),
        false => Ok(()),
    }
}

impl Render for DocumentRef {
    fn human(&self, _style: &Style) -> String {
        format!("{}: [{}]\n", self.title, self.tags.join(", "))
    }
}
