//! `kb list`: the indexed documents, filtered.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::db::{DocumentSummary, ListFilters};
use crate::document::{DocType, SkillInfo};
use crate::error::{KbError, Result};
use crate::output::{display_path, one_line, plural, Render, Style};
use crate::session::Session;

/// List indexed documents (filters combine with AND)
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct ListArgs {
    /// Only documents of this type
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    #[serde(rename = "type")]
    pub doc_type: Option<DocType>,
    /// Only documents carrying this tag
    #[arg(long)]
    pub tag: Option<String>,
    /// Case-insensitive substring of the title, the path or a skill's description
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,
    /// Only skills declaring this capability (exact match); repeat to require several
    #[arg(long = "capability", value_name = "CAP")]
    #[schemars(
        description = "Only skills declaring all of these capabilities (exact match); one or a \
                       list",
        schema_with = "super::one_or_many::schema::<String>"
    )]
    #[serde(
        default,
        rename = "capability",
        deserialize_with = "super::one_or_many::deserialize"
    )]
    pub capabilities: Vec<String>,
    /// Only skills (SKILL.md files with frontmatter)
    #[arg(long)]
    pub skills: bool,
    /// At most N documents (0: all); with --offset to page
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    #[schemars(
        description = "At most this many documents (100 unless given; 0: all); offset pages on"
    )]
    #[serde(default = "mcp_limit")]
    pub limit: Option<usize>,
    /// Skip the first N documents (in id order)
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub offset: usize,
}

/// Documents one MCP call lists unless it asks for more: a knowledge base
/// of thousands of files would flood an agent's context.
fn mcp_limit() -> Option<usize> {
    Some(100)
}

impl ListArgs {
    /// The database filters these arguments ask for.
    fn filters(&self) -> Result<ListFilters> {
        let capabilities: Vec<String> = self
            .capabilities
            .iter()
            .map(|c| c.trim().to_string())
            .collect();
        if capabilities.iter().any(String::is_empty) {
            return Err(KbError::invalid(
                "capability",
                "--capability needs a non-empty value",
            ));
        }
        Ok(ListFilters {
            doc_type: self.doc_type,
            tag: self.tag.clone(),
            search: self.search.clone(),
            capabilities,
            skills_only: self.skills,
        })
    }
}

/// A skill in one line: `v1.2 [read, write] first line of the description`.
fn skill_line(s: &SkillInfo) -> String {
    let mut parts = Vec::new();
    if let Some(v) = &s.version {
        parts.push(format!("v{v}"));
    }
    if !s.capabilities.is_empty() {
        parts.push(format!("[{}]", s.capabilities.join(", ")));
    }
    if let Some(d) = &s.description {
        parts.push(d.lines().next().unwrap_or("").to_string());
    }
    parts.join(" ")
}

/// One listed document.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ListedDocument {
    /// The document's id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its type.
    #[serde(rename = "type")]
    pub doc_type: DocType,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its chunks.
    pub chunk_count: i64,
    /// When it was first indexed (UTC, ISO 8601).
    pub created_at: String,
    /// The file it was read from (null for a document without a file).
    pub path: Option<String>,
    /// When it was last re-indexed (UTC, ISO 8601).
    pub updated_at: String,
    /// Skills only (other documents have none of these fields): name,
    /// description, version, capabilities from the SKILL.md frontmatter.
    #[serde(flatten)]
    pub skill: Option<SkillInfo>,
}

impl ListedDocument {
    fn of(d: DocumentSummary) -> ListedDocument {
        ListedDocument {
            id: d.id,
            title: d.title,
            doc_type: d.doc_type,
            tags: d.tags,
            chunk_count: d.chunk_count,
            created_at: d.created_at,
            path: d.path,
            updated_at: d.updated_at,
            skill: d.skill,
        }
    }
}

/// Ordered by id.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(transparent)]
pub(crate) struct ListOutput {
    pub items: Vec<ListedDocument>,
    /// Documents matching the filters, before offset and limit.
    #[serde(skip)]
    pub total: usize,
    #[serde(skip)]
    pub offset: usize,
}

/// A page of the list as an MCP call returns it: an agent sees how many
/// documents there are and where the next page starts.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ListPage<'a> {
    /// Documents matching the filters.
    pub total: usize,
    /// This page of them, ordered by id.
    pub items: &'a [ListedDocument],
    /// The offset of the next page (null on the last page).
    pub next_offset: Option<usize>,
}

impl ListOutput {
    fn page(&self) -> ListPage<'_> {
        let end = self.offset + self.items.len();
        ListPage {
            total: self.total,
            items: &self.items,
            next_offset: (end < self.total).then_some(end),
        }
    }
}

impl Command for ListArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "list",
        title: "List documents",
        summary: "List indexed documents in id order; filters combine with AND. At most 100 \
                  per call unless limit says otherwise. Returns {total, items, next_offset}: \
                  the documents matching, this page of them, and the offset of the next page \
                  (null on the last).",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = ListOutput;

    fn run(self, session: &mut Session) -> Result<ListOutput> {
        let filters = self.filters()?;
        let docs = session.db()?.list_documents(&filters)?;
        Ok(ListOutput {
            total: docs.len(),
            offset: self.offset,
            items: docs
                .into_iter()
                .skip(self.offset)
                // 0 is no limit, as in sources: a page of none would page on forever.
                .take(self.limit.filter(|&n| n > 0).unwrap_or(usize::MAX))
                .map(ListedDocument::of)
                .collect(),
        })
    }

    fn mcp_output_schema() -> serde_json::Value {
        super::output_schema_of::<ListPage>()
    }
}

impl super::Outcome for ListOutput {
    fn to_json(&self) -> Result<String> {
        crate::output::to_json(self)
    }

    fn mcp_json(&self) -> Result<String> {
        crate::output::to_json(&self.page())
    }
}

impl Render for ListOutput {
    fn human(&self, _style: &Style) -> String {
        if self.items.is_empty() {
            return "No documents.\n".into();
        }
        let mut out = String::new();
        for d in &self.items {
            let tags = if d.tags.is_empty() {
                String::new()
            } else {
                format!(" [{}]", one_line(&d.tags.join(", ")))
            };
            out.push_str(&format!(
                "{:>5}  {} [{}]{} ({})\n       {}\n",
                d.id,
                one_line(&d.title),
                d.doc_type,
                tags,
                plural(d.chunk_count as u64, "chunk", "chunks"),
                d.path.as_deref().map(display_path).unwrap_or_default()
            ));
            if let Some(s) = &d.skill {
                out.push_str(&format!("       skill: {}\n", skill_line(s)));
            }
        }
        out
    }
}
