//! `kb open DOC [--lines A:B | --pages A:B] [--max-lines N]`: the text of
//! a document as indexed, whole or in part.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{document_file_status, DocRef, DocumentRef, FileStatus};
use super::sections::truncate_lines;
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::{KbError, Result};
use crate::ingest::pdf::PageIndex;
use crate::output::{Render, Style};
use crate::session::Session;

/// Lines one MCP call returns when it asks for no range: an agent pages
/// through a long document rather than pulling it whole.
const MCP_MAX_LINES: usize = 400;

fn mcp_max_lines() -> Option<usize> {
    Some(MCP_MAX_LINES)
}

const EXAMPLES: &str = "Examples:
  kb open 6 --lines 40:120                       some lines of a document
  kb open report.pdf --pages 3:4                 some pages of a PDF
  kb open 6 --max-lines 200                      at most 200 lines";

/// The whole text of a document as indexed, or some of its lines or pages
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = EXAMPLES)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpenArgs {
    /// Document id or path
    #[arg(value_name = "DOC")]
    pub document: DocRef,
    /// Only these lines, 1-based and inclusive: 40:80, 40: (to the end), :80, 12
    #[arg(long, value_name = "FROM:TO", conflicts_with = "pages", allow_negative_numbers = true)]
    pub lines: Option<Range>,
    /// Only these pages of a PDF: 3:5, 3, 7:
    #[arg(long, value_name = "FROM:TO", allow_negative_numbers = true)]
    pub pages: Option<Range>,
    /// Show at most N lines; 0 shows none, only the counts
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    #[schemars(
        description = "At most this many lines (400 unless given); 0 shows none, only the counts"
    )]
    #[serde(default = "mcp_max_lines")]
    pub max_lines: Option<usize>,
}

/// A 1-based inclusive range, `FROM:TO` with either end left open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(try_from = "String")]
#[schemars(with = "String")]
pub(crate) struct Range {
    pub from: usize,
    pub to: Option<usize>,
}

impl std::str::FromStr for Range {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Range, String> {
        let bad = || format!("`{s}` is not a range: give FROM:TO, FROM:, :TO or N (1-based)");
        let num = |t: &str| -> std::result::Result<Option<usize>, String> {
            let t = t.trim();
            if t.is_empty() {
                return Ok(None);
            }
            match t.parse::<usize>() {
                Ok(0) | Err(_) => Err(bad()),
                Ok(n) => Ok(Some(n)),
            }
        };
        let (from, to) = match s.split_once(':') {
            Some((a, b)) => (num(a)?.unwrap_or(1), num(b)?),
            None => {
                let n = num(s)?.ok_or_else(bad)?;
                (n, Some(n))
            }
        };
        if to.is_some_and(|t| t < from) {
            return Err(bad());
        }
        Ok(Range { from, to })
    }
}

impl TryFrom<String> for Range {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Range, String> {
        s.parse()
    }
}

impl Range {
    fn contains(&self, n: usize) -> bool {
        n >= self.from && self.to.is_none_or(|t| n <= t)
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct OpenOutput {
    /// The document.
    pub document: DocumentRef,
    /// unchanged, changed or missing: whether the file still says what was
    /// indexed (missing also when the only link that led to it is gone;
    /// null for a document without a file).
    pub file_status: Option<FileStatus>,
    /// Lines in the document's text as indexed.
    pub total_lines: usize,
    /// Lines cut by `max_lines` (0 when none): continue after last_line.
    /// With `max_lines` 0 nothing is shown and this counts every selected
    /// line.
    pub truncated_lines: usize,
    /// The text asked for, as indexed.
    pub content: String,
    /// The 1-based lines of the document `content` holds (before any
    /// truncation); 0 and 0 for an empty selection.
    pub first_line: usize,
    /// The last 1-based line `content` holds (0 for an empty selection;
    /// first_line - 1 when `max_lines` 0 shows none).
    pub last_line: usize,
}

impl Command for OpenArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "open",
        title: "Read a document",
        summary: "The text of a document as indexed: lines (\"40:80\") or PDF pages (\"3:5\"), \
                  at most 400 lines per call unless max_lines says otherwise; truncated_lines \
                  and last_line tell where to continue.",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = OpenOutput;

    fn run(self, session: &mut Session) -> Result<OpenOutput> {
        // The command line refuses both; an MCP call comes here with both.
        if self.lines.is_some() && self.pages.is_some() {
            return Err(KbError::invalid(
                "pages",
                "give lines or pages, not both",
            ));
        }
        let db = session.db()?;
        let doc = self.document.resolve(db)?;
        let text = doc.content.clone().unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        let selected: Vec<(usize, &str)> = match (self.lines, self.pages) {
            (Some(r), _) => all
                .iter()
                .enumerate()
                .map(|(i, l)| (i + 1, *l))
                .filter(|(n, _)| r.contains(*n))
                .collect(),
            (None, Some(r)) => {
                if !doc.summary.doc_type.has_pages() {
                    return Err(KbError::invalid(
                        "pages",
                        format!(
                            "{} is not a PDF; give lines instead of pages",
                            doc.summary.title
                        ),
                    ));
                }
                let pages = PageIndex::new(&text);
                all.iter()
                    .enumerate()
                    .map(|(i, l)| (i + 1, *l))
                    .filter(|(n, l)| r.contains(page_of(l, *n, &pages) as usize))
                    .collect()
            }
            (None, None) => all.iter().enumerate().map(|(i, l)| (i + 1, *l)).collect(),
        };
        if selected.is_empty() && !all.is_empty() {
            return Err(past_the_end(&doc.summary.title, &text, self.lines, self.pages));
        }
        let first_line = selected.first().map(|s| s.0).unwrap_or(0);
        let pages = PageIndex::new(&text);
        let body = selected
            .iter()
            .map(|&(n, line)| readable_line(line, n, &pages))
            .collect::<Vec<_>>()
            .join("\n");
        let (content, more) = truncate_lines(&body, self.max_lines);
        // The last line shown; with nothing shown (--max-lines 0) the line
        // before the first, so that reading on after it loses nothing.
        let shown = selected.len() - more;
        let last_line = match shown.checked_sub(1) {
            Some(i) => selected[i].0,
            None => first_line.saturating_sub(1),
        };
        Ok(OpenOutput {
            document: DocumentRef::of(&doc),
            file_status: document_file_status(&doc),
            total_lines: all.len(),
            truncated_lines: more,
            first_line,
            last_line,
            content,
        })
    }
}

/// A line as people and agents read it: the line between two pages (a
/// form feed in the indexed text) as `--- page N ---`, N the page it
/// opens; every other line as it is.
pub(crate) fn readable_line<'l>(
    line: &'l str,
    number: usize,
    pages: &PageIndex,
) -> std::borrow::Cow<'l, str> {
    if line == crate::ingest::pdf::PAGE_SEPARATOR {
        format!("--- page {} ---", page_of(line, number, pages)).into()
    } else {
        line.into()
    }
}

/// The page a line is on; the line between two pages belongs to the page
/// it opens, as its `--- page N ---` says.
fn page_of(line: &str, number: usize, pages: &PageIndex) -> u32 {
    pages.page(number) + u32::from(line == crate::ingest::pdf::PAGE_SEPARATOR)
}

/// The error for a range that selects nothing of a non-empty document:
/// it starts past its end.
fn past_the_end(title: &str, text: &str, lines: Option<Range>, pages: Option<Range>) -> KbError {
    match (lines, pages) {
        (_, Some(r)) => {
            let pages = PageIndex::new(text).page(text.lines().count());
            KbError::invalid(
                "pages",
                format!(
                    "{title} has {pages} pages; --pages {} starts after the last",
                    r.from
                ),
            )
        }
        (r, None) => KbError::invalid(
            "lines",
            format!(
                "{title} has {} lines; --lines {} starts after the last",
                text.lines().count(),
                r.map_or(0, |r| r.from)
            ),
        ),
    }
}

plain_outcome!(OpenOutput);

impl Render for OpenOutput {
    fn human(&self, _style: &Style) -> String {
        if self.content.is_empty() && self.truncated_lines > 0 {
            return format!("({} lines, none shown)\n", self.truncated_lines);
        }
        format!("{}\n", self.content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let r: Range = "40:80".parse().unwrap();
        assert_eq!((r.from, r.to), (40, Some(80)));
        assert!(r.contains(40) && r.contains(80) && !r.contains(81));
        let r: Range = "7:".parse().unwrap();
        assert!(r.contains(10_000));
        let r: Range = ":3".parse().unwrap();
        assert_eq!(r.from, 1);
        let r: Range = "12".parse().unwrap();
        assert_eq!((r.from, r.to), (12, Some(12)));
        for bad in ["0:3", "5:2", "a:b", "", "3-5"] {
            assert!(bad.parse::<Range>().is_err(), "{bad}");
        }
        let r: Range = serde_json::from_str("\"2:4\"").unwrap();
        assert_eq!(r.to, Some(4));
    }
}
