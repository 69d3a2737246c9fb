//! `kb show CHUNK [--context N]` widens a search hit with its neighbours;
//! `kb show DOC --section HEADING` prints one section of a document.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{DocRef, DocumentRef};
use super::sections::{find_section, truncate_lines, SectionMatch};
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::db::ChunkDetails;
use crate::error::{Hint, KbError, Result};
use crate::ingest::pdf::PageIndex;
use crate::document::Citation;
use crate::output::{display_path, Render, Style};
use crate::session::Session;

const EXAMPLES: &str = "Examples:
  kb show 41 --context 1                         a search hit with one chunk either side
  kb show 6 --section \"Using ssh-agent\"          one section (a heading from kb outline)
  kb show shlex.py --section \"def split\"         a code symbol, as search results name it";

/// Show a chunk with N neighbours, or with --section a section of a document
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = EXAMPLES)]
#[serde(deny_unknown_fields)]
pub(crate) struct ShowArgs {
    /// A chunk id (from search results), or with --section a document id or path
    #[arg(required = true, value_name = "TARGET")]
    #[serde(skip)]
    #[schemars(skip)]
    pub target: Option<String>,
    /// A chunk id from search results (chunk_id); shows that chunk
    #[arg(skip)]
    pub chunk_id: Option<i64>,
    /// Neighbouring chunks to show before and after the chunk (default 0)
    #[arg(long, short = 'C', value_name = "N", allow_negative_numbers = true)]
    pub context: Option<usize>,
    /// With section: the document whose section to show
    #[arg(skip)]
    pub document: Option<DocRef>,
    /// Show this section (a heading of the document as outline lists it; case-insensitive)
    #[arg(long, value_name = "HEADING")]
    pub section: Option<String>,
    /// With section: when several headings match, show the Nth (from 1; the
    /// output's `matches` lists them)
    #[arg(long, value_name = "N", requires = "section", allow_negative_numbers = true)]
    #[schemars(range(min = 1))]
    pub occurrence: Option<usize>,
    /// With section: show at most this many lines (0: none, only the counts)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_lines: Option<usize>,
}

/// What `kb show` was asked for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ShowRequest {
    Chunk {
        id: i64,
        context: usize,
    },
    Section {
        document: DocRef,
        heading: String,
        occurrence: Option<usize>,
        max_lines: Option<usize>,
    },
}

impl ShowArgs {
    /// The request, from the command line's `TARGET [--section H]` or the
    /// MCP tool's `chunk_id` / `document` + `section`.
    pub(crate) fn request(self) -> Result<ShowRequest> {
        let context = self.context.unwrap_or(0);
        if let Some(target) = self.target {
            return match self.section {
                Some(heading) => Ok(ShowRequest::Section {
                    document: target.parse().unwrap_or(DocRef::Path(target)),
                    heading,
                    occurrence: self.occurrence,
                    max_lines: self.max_lines,
                }),
                None => {
                    let id = target.trim().parse().map_err(|_| {
                        KbError::Usage(format!(
                            "`{target}` is not a chunk id; use --section HEADING to show a section of a document"
                        ))
                    })?;
                    Ok(ShowRequest::Chunk { id, context })
                }
            };
        }
        match (self.chunk_id, self.document, self.section) {
            (Some(id), None, None) => Ok(ShowRequest::Chunk { id, context }),
            (None, Some(document), Some(heading)) => Ok(ShowRequest::Section {
                document,
                heading,
                occurrence: self.occurrence,
                max_lines: self.max_lines,
            }),
            (Some(_), _, Some(_)) => Err(KbError::invalid(
                "chunk_id",
                "give either chunk_id (a chunk) or document with section (a section)",
            )),
            (_, None, Some(_)) => Err(KbError::invalid(
                "document",
                "is required with section: the document id or path (search results carry \
                 source.document_id)",
            )),
            (Some(_), Some(_), None) => Err(KbError::invalid(
                "document",
                "goes with section; to show a chunk give chunk_id alone",
            )),
            (None, Some(_), None) => Err(KbError::invalid(
                "section",
                "is required with document: a heading from outline (use open for the whole text)",
            )),
            (None, None, None) => Err(KbError::invalid(
                "chunk_id",
                "give chunk_id (from search results), or document with section",
            )),
        }
    }
}

/// A chunk as show gives it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ChunkView {
    /// The chunk's id.
    pub chunk_id: i64,
    /// Its position in the document, from 0.
    pub chunk_index: i64,
    /// Its length in the model's tokens.
    pub token_count: Option<i64>,
    /// The chunk's own text, as in the file.
    pub text: String,
    /// Where the chunk is: section, page, lines, symbol.
    #[serde(flatten)]
    pub citation: Citation,
}

impl ChunkView {
    fn of(c: &ChunkDetails) -> ChunkView {
        ChunkView {
            chunk_id: c.chunk_id,
            chunk_index: c.chunk_index,
            token_count: c.token_count,
            text: c.text.clone(),
            citation: c.meta.citation(),
        }
    }
}

/// A chunk with its neighbours.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ChunkWithContext {
    /// The document the chunk is from.
    pub document: DocumentRef,
    /// The chunk asked for.
    pub chunk: ChunkView,
    /// Its neighbours before it, in order (`context`).
    pub before: Vec<ChunkView>,
    /// Its neighbours after it, in order.
    pub after: Vec<ChunkView>,
}

/// One section of a document.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SectionOutput {
    /// The document the section is from.
    pub document: DocumentRef,
    /// The heading that matched, as written.
    pub heading: String,
    /// Its level (1 is the highest).
    pub level: u8,
    /// The heading's 1-based line in the document's text.
    pub line: u64,
    /// The section's last line (before any `max_lines` cut).
    pub line_end: u64,
    /// The PDF page the heading is on (null for other documents).
    pub page: Option<u64>,
    /// The section's text: from the heading to the next heading of the same or
    /// a higher level.
    pub content: String,
    /// Lines cut by `max_lines` (0 when none).
    pub truncated_lines: usize,
    /// Every heading that matched, in document order: more than one when a
    /// heading occurs twice or more; `occurrence` N shows the Nth.
    pub matches: Vec<SectionMatch>,
    /// Which of `matches` this is, from 1.
    pub occurrence: usize,
    /// How the section was asked for (for the warning; not part of the
    /// JSON).
    #[serde(skip)]
    asked: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum ShowOutput {
    Chunk(ChunkWithContext),
    Section(SectionOutput),
}

impl Command for ShowArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "show",
        title: "Show a chunk or a section",
        summary: "Show a chunk with its neighbours (chunk_id, context: N chunks before and after), \
                  or a section of a document (document, section: a heading from outline).",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = ShowOutput;

    fn run(self, session: &mut Session) -> Result<ShowOutput> {
        let request = self.request()?;
        let db = session.db()?;
        match request {
            ShowRequest::Chunk { id, context } => {
                let window = db.chunk_window(id, context)?.ok_or_else(|| {
                    KbError::NotFound(format!("no chunk with id {id}"))
                        .hint(Hint::ChunkIdsFromSearch)
                })?;
                let details = db.chunk_details(&window)?;
                let pos = details
                    .iter()
                    .position(|c| c.chunk_id == id)
                    .ok_or_else(|| KbError::NotFound(format!("no chunk with id {id}")))?;
                let doc = db.document(details[pos].document_id)?.ok_or_else(|| {
                    KbError::NotFound(format!("the document of chunk {id} is gone"))
                })?;
                Ok(ShowOutput::Chunk(ChunkWithContext {
                    document: DocumentRef::of(&doc),
                    chunk: ChunkView::of(&details[pos]),
                    before: details[..pos].iter().map(ChunkView::of).collect(),
                    after: details[pos + 1..].iter().map(ChunkView::of).collect(),
                }))
            }
            ShowRequest::Section {
                document,
                heading,
                occurrence,
                max_lines,
            } => {
                let doc = document.resolve(db)?;
                let s = find_section(&doc, &heading, occurrence)?;
                let (content, more) = truncate_lines(&s.content, max_lines);
                let page = doc
                    .content
                    .as_deref()
                    .filter(|_| doc.summary.doc_type.has_pages())
                    .map(|text| u64::from(PageIndex::new(text).page(s.line as usize)));
                Ok(ShowOutput::Section(SectionOutput {
                    document: DocumentRef::of(&doc),
                    heading: s.heading,
                    level: s.level,
                    line: s.line,
                    line_end: s.line + (s.content.lines().count() as u64).saturating_sub(1),
                    page,
                    content,
                    truncated_lines: more,
                    asked: heading.trim().to_string(),
                    matches: s.matches,
                    occurrence: s.occurrence,
                }))
            }
        }
    }
}

plain_outcome!(ShowOutput);

impl Render for ShowOutput {
    fn human(&self, _style: &Style) -> String {
        match self {
            ShowOutput::Section(s) => {
                // A header to cite: the document, the section and its place.
                let place = match s.page {
                    Some(p) => format!("p.{p}"),
                    None => format!("lines {}-{}", s.line, s.line_end),
                };
                format!(
                    "{} § {}, {place}\n\n{}\n",
                    s.document.label(),
                    s.heading,
                    s.content
                )
            }
            ShowOutput::Chunk(s) => {
                // Chunks are numbered from 1, as people count them.
                let total = s.document.total_chunks;
                let mut out = format!(
                    "{} ({}) document {}\n",
                    crate::output::one_line(&s.document.title),
                    s.document.path.as_deref().map(display_path).unwrap_or_default(),
                    s.document.id,
                );
                for (c, marker) in s
                    .before
                    .iter()
                    .map(|c| (c, " "))
                    .chain(std::iter::once((&s.chunk, ">")))
                    .chain(s.after.iter().map(|c| (c, " ")))
                {
                    // Cited as a search result cites it.
                    let place = super::search::place(
                        &s.document.title,
                        s.document.path.as_deref(),
                        s.document.doc_type,
                        &c.citation,
                    );
                    out.push_str(&format!(
                        "\n{marker} [chunk {} · {} of {total}] {place}\n{}\n",
                        c.chunk_id,
                        c.chunk_index + 1,
                        c.text
                    ));
                }
                out
            }
        }
    }

    fn warnings(&self) -> Vec<String> {
        match self {
            ShowOutput::Section(s) if s.matches.len() > 1 => {
                let lines: Vec<String> = s.matches.iter().map(|m| m.line.to_string()).collect();
                vec![format!(
                    "{} headings match \"{}\" (lines {}); showing number {} \
                     (--occurrence N picks another)",
                    s.matches.len(),
                    s.asked,
                    lines.join(", "),
                    s.occurrence
                )]
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_from_either_front_end() {
        let cli = ShowArgs {
            target: Some("41".into()),
            context: Some(1),
            ..Default::default()
        };
        assert_eq!(
            cli.request().unwrap(),
            ShowRequest::Chunk { id: 41, context: 1 }
        );
        let cli = ShowArgs {
            target: Some("notes/a.md".into()),
            section: Some("Setup".into()),
            ..Default::default()
        };
        assert!(matches!(
            cli.request().unwrap(),
            ShowRequest::Section { document: DocRef::Path(_), .. }
        ));
        let bad = ShowArgs {
            target: Some("notes/a.md".into()),
            ..Default::default()
        };
        assert_eq!(bad.request().unwrap_err().code(), "E_USAGE");
        let mcp: ShowArgs =
            serde_json::from_value(serde_json::json!({"section": "Setup"})).unwrap();
        assert_eq!(mcp.request().unwrap_err().field(), Some("document"));
        let mcp: ShowArgs =
            serde_json::from_value(serde_json::json!({"document": 3, "section": "Setup"}))
                .unwrap();
        assert!(matches!(
            mcp.request().unwrap(),
            ShowRequest::Section { document: DocRef::Id(3), .. }
        ));
    }
}
