//! `kb outline DOC [--level N]`: a document's structure.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{DocRef, DocumentRef};
use super::sections::{outline, OutlineItem};
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::Result;
use crate::output::{Render, Style};
use crate::session::Session;

/// A document's structure: its headings (Markdown, PDF, Word/OpenDocument, web pages, e-books), slide titles, sheet names, a data file's top-level keys, or code symbols
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = crate::document::DocType::HELP)]
#[serde(deny_unknown_fields)]
pub(crate) struct OutlineArgs {
    /// Document id or path
    #[arg(value_name = "DOC")]
    pub document: DocRef,
    /// Only headings of this level or above (1-6)
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=6), value_name = "N",
          allow_negative_numbers = true)]
    #[schemars(range(min = 1, max = 6))]
    pub level: Option<u8>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct OutlineOutput {
    /// The document.
    pub document: DocumentRef,
    /// Its headings in order (else its PDF pages or code symbols).
    pub items: Vec<OutlineItem>,
}

impl Command for OutlineArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "outline",
        title: "Outline a document",
        summary: "A document's structure: Markdown headings with levels and lines, PDF pages, \
                  code symbols. Use the heading text with show's section.",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = OutlineOutput;

    fn run(self, session: &mut Session) -> Result<OutlineOutput> {
        let db = session.db()?;
        let doc = self.document.resolve(db)?;
        let items = outline(db, &doc, self.level)?;
        Ok(OutlineOutput {
            document: DocumentRef::of(&doc),
            items,
        })
    }
}

plain_outcome!(OutlineOutput);

impl Render for OutlineOutput {
    fn human(&self, _style: &Style) -> String {
        let mut out = format!("{}\n", self.document.label());
        for i in &self.items {
            let level = i.level as usize;
            match i.kind.as_str() {
                "heading" => out.push_str(&format!(
                    "{}{} {}{}\n",
                    "  ".repeat(level.saturating_sub(1) + 1),
                    "#".repeat(level),
                    i.text,
                    i.page.map(|p| format!(" (p.{p})")).unwrap_or_default()
                )),
                "page" => out.push_str(&format!(
                    "  p.{} {}\n",
                    i.page.unwrap_or_default(),
                    i.text
                )),
                _ => out.push_str(&format!("{}{}\n", "  ".repeat(level.max(1)), i.text)),
            }
        }
        out
    }
}
