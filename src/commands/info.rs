//! `kb info DOC`: everything kb knows about one document.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::document::{document_file_status, DocRef, FileStatus};
use super::list::SkillFields;
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::Result;
use crate::output::{Render, Style};
use crate::session::Session;

/// A document's metadata, tags, chunks, and whether its file changed since indexing
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InfoArgs {
    /// Document id or path
    #[arg(value_name = "DOC")]
    pub document: DocRef,
}

/// A chunk of the document, without its text.
#[derive(Debug, Serialize)]
pub struct InfoChunk {
    pub chunk_id: i64,
    pub chunk_index: i64,
    pub token_count: Option<i64>,
    pub section: Option<String>,
    pub page: Option<u64>,
    pub symbol_name: Option<String>,
    /// 1-based lines in the file (absent where kb does not know them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_start: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_end: Option<u64>,
    /// The last page of a PDF chunk that runs onto the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_end: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct InfoOutput {
    pub id: i64,
    pub title: String,
    #[serde(rename = "type")]
    pub doc_type: String,
    pub path: Option<String>,
    pub tags: Vec<String>,
    pub chunk_count: i64,
    pub created_at: String,
    pub updated_at: String,
    pub language: Option<String>,
    pub content_hash: String,
    pub file_size: Option<u64>,
    /// unchanged, changed or missing (null for a document without a file).
    pub file_status: Option<FileStatus>,
    /// PDF pages (null for other documents).
    pub pages: Option<u64>,
    pub pages_without_text: u64,
    /// PDF pages whose text was recognised by OCR.
    pub pages_ocr: u64,
    /// How the PDF's pages were read, in words ("2 of 5 pages recognised
    /// by OCR", "text layer on every page").
    pub ocr: String,
    /// The Markdown frontmatter, as written.
    pub metadata: Value,
    pub chunks: Vec<InfoChunk>,
    /// Skills only: name, description, version, capabilities.
    #[serde(flatten)]
    pub skill: Option<SkillFields>,
}

impl Command for InfoArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "info",
        summary: "A document's metadata, tags, chunk list and whether its file changed since \
                  indexing (`kb info`).",
        output: OutputKind::Query,
        mcp: Mcp::Hidden,
    };
    type Output = InfoOutput;

    fn run(self, session: &mut Session) -> Result<InfoOutput> {
        let db = session.db()?;
        let d = self.document.resolve(db)?;
        let chunks = db
            .chunk_summaries(d.summary.id)?
            .into_iter()
            .map(|c| InfoChunk {
                chunk_id: c.chunk_id,
                chunk_index: c.chunk_index,
                token_count: c.token_count,
                section: c.section,
                page: c.page,
                symbol_name: c.symbol_name,
                line_start: c.line_start,
                line_end: c.line_end,
                page_end: c.page_end,
            })
            .collect();
        Ok(InfoOutput {
            file_status: document_file_status(&d),
            id: d.summary.id,
            title: d.summary.title.clone(),
            doc_type: d.summary.doc_type.clone(),
            path: d.summary.path.clone(),
            tags: d.summary.tags.clone(),
            chunk_count: d.summary.chunk_count,
            created_at: d.summary.created_at.clone(),
            updated_at: d.summary.updated_at.clone(),
            language: d.language.clone(),
            content_hash: d.content_hash.clone(),
            file_size: d.file_size,
            pages: d.metadata.get("pages").and_then(Value::as_u64),
            pages_without_text: d
                .metadata
                .get("pages_without_text")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            pages_ocr: d
                .metadata
                .get("pages_ocr")
                .and_then(Value::as_u64)
                .unwrap_or(0),
            ocr: ocr_summary(&d.metadata),
            metadata: d
                .metadata
                .get("frontmatter")
                .cloned()
                .unwrap_or_else(|| Value::Object(Default::default())),
            chunks,
            skill: d.summary.skill.as_ref().map(SkillFields::of),
        })
    }
}

/// How a PDF's pages were read, from its stored page counts.
fn ocr_summary(meta: &Value) -> String {
    let count = |k: &str| meta.get(k).and_then(Value::as_u64).unwrap_or(0);
    let Some(pages) = meta.get("pages").and_then(Value::as_u64) else {
        return "not a PDF".into();
    };
    let (ocr, without) = (count("pages_ocr"), count("pages_without_text"));
    let mut parts = Vec::new();
    if ocr > 0 {
        parts.push(format!("{ocr} of {pages} recognised by OCR"));
    }
    if without > 0 {
        parts.push(format!("{without} without extractable text"));
    }
    if parts.is_empty() {
        "text layer on every page".into()
    } else {
        parts.join("; ")
    }
}

plain_outcome!(InfoOutput);

impl Render for InfoOutput {
    fn human(&self, _style: &Style) -> String {
        let status = match self.file_status {
            Some(FileStatus::Unchanged) => "unchanged",
            Some(FileStatus::Changed) => "changed",
            Some(FileStatus::Missing) => "missing",
            None => "n/a",
        };
        let mut out = format!(
            "{} [{}] (id {})\n{}\nTags: {}\nChunks: {}\nFile: {}\nIndexed: {} (updated {})\n",
            self.title,
            self.doc_type,
            self.id,
            self.path.as_deref().unwrap_or(""),
            self.tags.join(", "),
            self.chunk_count,
            status,
            self.created_at,
            self.updated_at,
        );
        if let Some(s) = &self.skill {
            out.push_str(&format!(
                "Skill: {} (version {})\nCapabilities: {}\nDescription: {}\n",
                s.name.as_deref().unwrap_or(""),
                s.version.as_deref().unwrap_or("none"),
                s.capabilities.join(", "),
                s.description.as_deref().unwrap_or("")
            ));
        }
        if let Some(pages) = self.pages {
            out.push_str(&format!("Pages: {pages} ({})\n", self.ocr));
        }
        for c in &self.chunks {
            let place = c
                .section
                .as_ref()
                .map(|s| format!("§{s}"))
                .or_else(|| c.page.map(|p| format!("p.{p}")))
                .or_else(|| c.symbol_name.clone())
                .unwrap_or_default();
            out.push_str(&format!(
                "  #{:<4} chunk {:<6} {:>4} tokens  {}\n",
                c.chunk_index,
                c.chunk_id,
                c.token_count.map(|t| t.to_string()).unwrap_or_default(),
                place
            ));
        }
        out
    }
}
