//! Progressive disclosure over indexed documents: naming a document by id
//! or path (safely), whether its file changed, its outline, its sections.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::db::{Database, DocumentRecord};
use crate::error::{KbError, Result};

/// Finds a document by id (digits) or by path. A path must resolve to an
/// indexed document: one that climbs out with `..`, or a symlink to a file
/// that is not indexed, is refused with `E_PATH_ESCAPE`.
pub fn resolve_document(db: &Database, arg: &str) -> Result<DocumentRecord> {
    let arg = arg.trim();
    if !arg.is_empty() && arg.chars().all(|c| c.is_ascii_digit()) {
        let id: i64 = arg
            .parse()
            .map_err(|_| KbError::NotFound(format!("no document with id {arg}")))?;
        return db.document(id)?.ok_or_else(|| {
            KbError::NotFound(format!(
                "no document with id {id}; `kb list` shows the indexed documents"
            ))
        });
    }
    let raw = Path::new(arg);
    let lexical = normalize(&std::path::absolute(raw).unwrap_or_else(|_| raw.to_path_buf()));
    if let Some(id) = db.document_id_by_path(&lexical.to_string_lossy())? {
        return db
            .document(id)?
            .ok_or_else(|| KbError::NotFound(format!("no document at {}", lexical.display())));
    }
    let canonical = std::fs::canonicalize(raw).ok();
    if let Some(c) = &canonical {
        if let Some(id) = db.document_id_by_path(&c.to_string_lossy())? {
            return db
                .document(id)?
                .ok_or_else(|| KbError::NotFound(format!("no document at {}", c.display())));
        }
    }
    let climbs = raw.components().any(|c| c == Component::ParentDir);
    let redirected = canonical.as_ref().is_some_and(|c| *c != lexical);
    if climbs || redirected {
        return Err(KbError::PathEscape(format!(
            "{arg}: resolves to {}, which is not an indexed document; kb only opens files it has indexed",
            canonical.as_ref().unwrap_or(&lexical).display()
        )));
    }
    Err(KbError::NotFound(format!(
        "{arg}: not an indexed document; `kb list --search NAME` finds documents by path"
    )))
}

/// Removes `.` and resolves `..` without touching the filesystem.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

pub use crate::ingest::change::{file_status, FileStatus};

pub fn document_file_status(doc: &DocumentRecord) -> Option<FileStatus> {
    doc.summary.path.as_deref().map(|p| {
        file_status(
            p,
            doc.file_size,
            doc.file_mtime,
            Some(doc.content_hash.as_str()),
        )
    })
}

/// An entry of a document's outline.
#[derive(Debug, Clone, Serialize)]
pub struct OutlineItem {
    /// heading, page or symbol
    pub kind: String,
    pub level: u8,
    pub text: String,
    /// 1-based line in the indexed text (headings), else null.
    pub line: Option<u64>,
    /// 1-based page (PDF), else null.
    pub page: Option<u64>,
}

/// The document's structure in order: headings (down to `max_level`;
/// for PDFs with their page), else PDF pages or code symbols.
pub fn outline(
    db: &Database,
    doc: &DocumentRecord,
    max_level: Option<u8>,
) -> Result<Vec<OutlineItem>> {
    let mut items = Vec::new();
    if let Some(hs) = doc.metadata.get("headings").and_then(|h| h.as_array()) {
        // A PDF's indexed text has a form-feed line between pages.
        let pages = doc
            .content
            .as_deref()
            .filter(|_| doc.summary.doc_type == "pdf")
            .map(crate::ingest::pdf::PageIndex::new);
        for h in hs {
            let level = h["level"].as_u64().unwrap_or(1) as u8;
            if max_level.is_some_and(|m| level > m) {
                continue;
            }
            let line = h["line"].as_u64();
            items.push(OutlineItem {
                kind: "heading".into(),
                level,
                text: h["text"].as_str().unwrap_or("").to_string(),
                line,
                page: pages
                    .as_ref()
                    .zip(line)
                    .map(|(p, l)| u64::from(p.page(l as usize))),
            });
        }
        return Ok(items);
    }
    // PDFs and code: one entry per page or symbol, from the chunks.
    let mut last_page = None;
    for c in db.chunk_summaries(doc.summary.id)? {
        if let Some(p) = c.page {
            if last_page != Some(p) {
                last_page = Some(p);
                items.push(OutlineItem {
                    kind: "page".into(),
                    level: 1,
                    text: c.section.clone().unwrap_or_else(|| format!("Page {p}")),
                    line: None,
                    page: Some(p),
                });
            }
        } else if let Some(sym) = c.symbol_name {
            items.push(OutlineItem {
                kind: "symbol".into(),
                level: 1,
                text: sym,
                line: None,
                page: None,
            });
        }
    }
    Ok(items)
}

/// A section found by `kb show --section`.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub heading: String,
    pub level: u8,
    pub line: u64,
    pub content: String,
    /// Other headings that matched too (the first is shown).
    pub other_matches: usize,
}

/// Normalises a section query: trimmed, with a trailing ` — description`
/// cut off, lower-cased.
pub fn normalize_heading_query(q: &str) -> String {
    let q = q.trim();
    let q = match q.find(" — ") {
        Some(i) => &q[..i],
        None => q,
    };
    q.trim().to_lowercase()
}

/// Finds a heading (case-insensitive) and returns its content: from the
/// heading line to the next heading of the same or a higher level.
pub fn find_section(doc: &DocumentRecord, query: &str) -> Result<Section> {
    let wanted = normalize_heading_query(query);
    let headings: Vec<(u8, String, u64)> = doc
        .metadata
        .get("headings")
        .and_then(|h| h.as_array())
        .map(|hs| {
            hs.iter()
                .map(|h| {
                    (
                        h["level"].as_u64().unwrap_or(1) as u8,
                        h["text"].as_str().unwrap_or("").to_string(),
                        h["line"].as_u64().unwrap_or(1),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let matches: Vec<usize> = headings
        .iter()
        .enumerate()
        .filter(|(_, h)| h.1.trim().to_lowercase() == wanted)
        .map(|(i, _)| i)
        .collect();
    let Some(&first) = matches.first() else {
        let suggestions: Vec<&str> = headings
            .iter()
            .map(|h| h.1.as_str())
            .filter(|t| {
                let t = t.to_lowercase();
                !wanted.is_empty()
                    && (t.starts_with(&wanted) || t.contains(&wanted) || wanted.contains(&t))
            })
            .take(5)
            .collect();
        let mut msg = format!(
            "section not found: '{}' in {}",
            query.trim(),
            doc.summary.title
        );
        if !suggestions.is_empty() {
            msg.push_str("\n\nDid you mean one of these?\n");
            for s in suggestions {
                msg.push_str(&format!("  - {s}\n"));
            }
        } else if !headings.is_empty() {
            msg.push_str("; `kb outline DOC` lists its headings");
        }
        return Err(KbError::SectionNotFound(msg.trim_end().to_string()));
    };
    let (level, heading, line) = headings[first].clone();
    let end_line = headings[first + 1..]
        .iter()
        .find(|h| h.0 <= level)
        .map(|h| h.2);
    let content = doc.content.as_deref().unwrap_or("");
    let text: Vec<&str> = content
        .lines()
        .skip(line.saturating_sub(1) as usize)
        .take(end_line.map(|e| (e - line) as usize).unwrap_or(usize::MAX))
        .collect();
    Ok(Section {
        heading,
        level,
        line,
        content: text.join("\n").trim_end().to_string(),
        other_matches: matches.len() - 1,
    })
}

/// Keeps the first `max` lines and appends `... (N more lines)`.
pub fn truncate_lines(text: &str, max: Option<usize>) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    match max {
        Some(m) if lines.len() > m => {
            let more = lines.len() - m;
            (
                format!("{}\n... ({more} more lines)", lines[..m].join("\n")),
                more,
            )
        }
        _ => (text.to_string(), 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_query_normalisation() {
        assert_eq!(
            normalize_heading_query("  Install — how to set up "),
            "install"
        );
        assert_eq!(normalize_heading_query("API Reference"), "api reference");
    }

    #[test]
    fn truncation() {
        assert_eq!(
            truncate_lines("a\nb\nc", Some(2)),
            ("a\nb\n... (1 more lines)".into(), 1)
        );
        assert_eq!(truncate_lines("a\nb", Some(5)).1, 0);
    }

    #[test]
    fn lexical_normalisation() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }
}
