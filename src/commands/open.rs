//! `kb open DOC [--max-lines N]`: the whole text of a document as indexed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{document_file_status, DocRef, DocumentRef, FileStatus};
use super::sections::truncate_lines;
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::Result;
use crate::output::{Render, Style};
use crate::session::Session;

/// The whole text of a document as indexed
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenArgs {
    /// Document id or path
    #[arg(value_name = "DOC")]
    pub document: DocRef,
    /// Show at most N lines
    #[arg(long, value_name = "N")]
    pub max_lines: Option<usize>,
}

#[derive(Debug, Serialize)]
pub struct OpenOutput {
    pub document: DocumentRef,
    pub file_status: Option<FileStatus>,
    pub total_lines: usize,
    pub truncated_lines: usize,
    pub content: String,
}

impl Command for OpenArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "open",
        summary: "The whole text of a document as indexed (max_lines to cut it short). Returns \
                  the JSON of `kb open`.",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = OpenOutput;

    fn run(self, session: &mut Session) -> Result<OpenOutput> {
        let db = session.db()?;
        let doc = self.document.resolve(db)?;
        let text = doc.content.clone().unwrap_or_default();
        let (content, more) = truncate_lines(&text, self.max_lines);
        Ok(OpenOutput {
            document: DocumentRef::of(&doc),
            file_status: document_file_status(&doc),
            total_lines: text.lines().count(),
            truncated_lines: more,
            content,
        })
    }
}

plain_outcome!(OpenOutput);

impl Render for OpenOutput {
    fn human(&self, _style: &Style) -> String {
        format!("{}\n", self.content)
    }
}
