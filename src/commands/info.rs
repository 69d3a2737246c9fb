//! `kb info DOC`: everything kb knows about one document.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::document::{document_file_status, DocRef, FileStatus};
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::Result;
use crate::document::{Citation, DocType, DocumentMeta, SkillInfo};
use crate::output::{one_line, Render, Style};
use crate::session::Session;

/// A document's metadata, tags, chunks, and whether its file changed since indexing
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct InfoArgs {
    /// Document id or path
    #[arg(value_name = "DOC")]
    pub document: DocRef,
}

/// A chunk of the document, without its text.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct InfoChunk {
    /// The chunk's id.
    pub chunk_id: i64,
    /// Its position in the document, from 0.
    pub chunk_index: i64,
    /// Its length in the model's tokens.
    pub token_count: Option<i64>,
    /// Where the chunk is: section, page, lines, symbol.
    #[serde(flatten)]
    pub citation: Citation,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct InfoOutput {
    /// The document's id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its type.
    #[serde(rename = "type")]
    pub doc_type: DocType,
    /// The file it was read from (null for a document without a file).
    pub path: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its chunks.
    pub chunk_count: i64,
    /// When it was first indexed (UTC, ISO 8601).
    pub created_at: String,
    /// When it was last re-indexed (UTC, ISO 8601).
    pub updated_at: String,
    /// The programming language of a code document (null otherwise).
    pub language: Option<String>,
    /// An e-book's author (null for other documents).
    pub author: Option<String>,
    /// The SHA-256 of the file as indexed.
    pub content_hash: String,
    /// The file's size in bytes as indexed.
    pub file_size: Option<u64>,
    /// unchanged, changed or missing (the file, or the only link that led to
    /// it, is gone); null for a document without a file.
    pub file_status: Option<FileStatus>,
    /// Pages of a PDF or an image, slides of a presentation (null for
    /// other documents).
    pub pages: Option<u32>,
    /// PDF pages without extractable text (0 for other documents).
    pub pages_without_text: u32,
    /// PDF pages whose text was recognised by OCR.
    pub pages_ocr: u32,
    /// How the PDF's pages were read, in words ("2 of 5 pages recognised
    /// by OCR", "text layer on every page").
    pub ocr: String,
    /// The Markdown frontmatter, as written.
    pub metadata: Value,
    /// Its chunks in order, without their text.
    pub chunks: Vec<InfoChunk>,
    /// Skills only: name, description, version, capabilities.
    #[serde(flatten)]
    pub skill: Option<SkillInfo>,
}

impl Command for InfoArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "info",
        title: "Document details",
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
                citation: c.meta.citation(),
            })
            .collect();
        Ok(InfoOutput {
            file_status: document_file_status(&d),
            id: d.summary.id,
            title: d.summary.title.clone(),
            doc_type: d.summary.doc_type,
            path: d.summary.path.clone(),
            tags: d.summary.tags.clone(),
            chunk_count: d.summary.chunk_count,
            created_at: d.summary.created_at.clone(),
            updated_at: d.summary.updated_at.clone(),
            language: d.language.clone(),
            author: d.metadata.author.clone(),
            content_hash: d.content_hash.clone(),
            file_size: d.file_size,
            pages: d.metadata.pages,
            pages_without_text: d.metadata.pages_without_text.unwrap_or(0),
            pages_ocr: d.metadata.pages_ocr.unwrap_or(0),
            ocr: ocr_summary(&d.metadata),
            metadata: Value::Object(d.metadata.frontmatter.clone().unwrap_or_default()),
            chunks,
            skill: d.summary.skill.clone(),
        })
    }
}

/// How a PDF's pages were read, from its stored page counts.
fn ocr_summary(meta: &DocumentMeta) -> String {
    let Some(pages) = meta.pages else {
        return "not a PDF".into();
    };
    let (ocr, without) = (
        meta.pages_ocr.unwrap_or(0),
        meta.pages_without_text.unwrap_or(0),
    );
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
            one_line(&self.title),
            self.doc_type,
            self.id,
            self.path.as_deref().map(one_line).unwrap_or_default(),
            one_line(&self.tags.join(", ")),
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
            let cite = &c.citation;
            let place = cite
                .section
                .as_ref()
                .map(|s| format!("§{s}"))
                .or_else(|| cite.page.map(|p| format!("p.{p}")))
                .or_else(|| cite.symbol_name.clone())
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
