//! A document's structure as `kb outline` and `kb show --section` see it:
//! its headings (Markdown, PDF) in order, else its pages or code symbols,
//! and the text of one section.

use schemars::JsonSchema;
use serde::Serialize;

use crate::db::{Database, DocumentRecord};
use crate::error::{KbError, Result};

/// An entry of a document's outline.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct OutlineItem {
    /// heading, page or symbol
    pub kind: String,
    /// Its level (1 is the highest).
    pub level: u8,
    /// The heading (or page label, or symbol) as written: what `kb show
    /// --section` takes.
    pub text: String,
    /// 1-based line in the indexed text (headings), else null.
    pub line: Option<u64>,
    /// 1-based page (PDF), else null.
    pub page: Option<u64>,
}

/// The document's structure in order: headings (down to `max_level`; for
/// PDFs with their page), else PDF pages or code symbols.
pub(crate) fn outline(
    db: &Database,
    doc: &DocumentRecord,
    max_level: Option<u8>,
) -> Result<Vec<OutlineItem>> {
    let mut items = Vec::new();
    let hs = &doc.metadata.headings;
    if !hs.is_empty() {
        // A PDF's indexed text has a form-feed line between pages.
        let pages = doc
            .content
            .as_deref()
            .filter(|_| doc.summary.doc_type.has_pages())
            .map(crate::ingest::pdf::PageIndex::new);
        for h in hs {
            if max_level.is_some_and(|m| h.level > m) {
                continue;
            }
            items.push(OutlineItem {
                kind: "heading".into(),
                level: h.level,
                text: h.text.clone(),
                line: Some(h.line as u64),
                page: pages.as_ref().map(|p| u64::from(p.page(h.line))),
            });
        }
        return Ok(items);
    }
    // PDFs and code: one entry per page or symbol, from the chunks.
    let mut last_page = None;
    for c in db.chunk_summaries(doc.summary.id)? {
        if let Some(p) = c.meta.page {
            if last_page != Some(p) {
                last_page = Some(p);
                items.push(OutlineItem {
                    kind: "page".into(),
                    level: 1,
                    text: c
                        .meta
                        .section
                        .clone()
                        .unwrap_or_else(|| format!("Page {p}")),
                    line: None,
                    page: Some(u64::from(p)),
                });
            }
        } else if let Some(sym) = c.meta.symbol_name {
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

/// A section found by heading.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    pub heading: String,
    pub level: u8,
    pub line: u64,
    pub content: String,
    /// Other headings that matched too (the first is shown).
    pub other_matches: usize,
}

/// Normalises a section query: trimmed, with a trailing ` — description`
/// cut off, lower-cased.
pub(crate) fn normalize_heading_query(q: &str) -> String {
    let q = q.trim();
    let q = match q.find(" — ") {
        Some(i) => &q[..i],
        None => q,
    };
    q.trim().to_lowercase()
}

/// The symbol a code section names, whichever way it is written: the
/// search result's section (`class TextWrapper > def _handle_long_word`,
/// `func (s *Server) Start`), the outline's name (`TextWrapper._handle_long_word`)
/// or the bare name, all become `textwrapper._handle_long_word` (or
/// `server.start`), lower-cased.
pub(crate) fn symbol_key(text: &str) -> String {
    text.split('>')
        .filter_map(|part| {
            let mut p = part.trim();
            for keyword in ["async ", "def ", "class ", "func ", "function ", "type "] {
                if let Some(rest) = p.strip_prefix(keyword) {
                    p = rest.trim_start();
                }
            }
            // A Go method: `(s *Server) Start` is Server.Start.
            let owned;
            if let Some(rest) = p.strip_prefix('(') {
                if let Some((receiver, name)) = rest.split_once(')') {
                    let ty = receiver
                        .split_whitespace()
                        .last()
                        .unwrap_or("")
                        .trim_start_matches('*');
                    owned = format!("{ty}.{}", name.trim());
                    p = &owned;
                }
            }
            // Parameter lists and a trailing colon are not part of the name.
            let name = p.split(['(', ':', ' ']).next().unwrap_or("").trim();
            (!name.is_empty()).then(|| name.to_lowercase())
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Finds a heading (case-insensitive) and returns its content: from the
/// heading line to the next heading of the same or a higher level. For code,
/// a symbol matches however it is written (see [`symbol_key`]).
pub(crate) fn find_section(doc: &DocumentRecord, query: &str) -> Result<Section> {
    let wanted = normalize_heading_query(query);
    let headings = &doc.metadata.headings;
    let mut matches: Vec<usize> = headings
        .iter()
        .enumerate()
        .filter(|(_, h)| h.text.trim().to_lowercase() == wanted)
        .map(|(i, _)| i)
        .collect();
    if matches.is_empty() && doc.summary.doc_type.has_symbols() {
        let key = symbol_key(query);
        // The whole dotted name, else its last part (a method asked for by
        // its own name).
        for exact in [true, false] {
            matches = headings
                .iter()
                .enumerate()
                .filter(|(_, h)| {
                    let k = symbol_key(&h.text);
                    !key.is_empty()
                        && (k == key || (!exact && k.rsplit('.').next() == Some(key.as_str())))
                })
                .map(|(i, _)| i)
                .collect();
            if !matches.is_empty() {
                break;
            }
        }
    }
    let Some(&first) = matches.first() else {
        let suggestions: Vec<&str> = headings
            .iter()
            .map(|h| h.text.as_str())
            .filter(|t| {
                let t = t.to_lowercase();
                !wanted.is_empty()
                    && (t.starts_with(&wanted) || t.contains(&wanted) || wanted.contains(&t))
            })
            .take(5)
            .collect();
        let mut message = format!(
            "section not found: '{}' in {}",
            query.trim(),
            doc.summary.title
        );
        if !suggestions.is_empty() {
            message.push_str(&format!(". Did you mean: {}?", suggestions.join(", ")));
        } else if !headings.is_empty() {
            message.push_str("; `kb outline DOC` lists its headings");
        }
        return Err(KbError::SectionNotFound {
            message,
            suggestions: suggestions.into_iter().map(str::to_string).collect(),
        });
    };
    let h = &headings[first];
    let end_line = headings[first + 1..]
        .iter()
        .find(|next| next.level <= h.level)
        .map(|next| next.line);
    let content = doc.content.as_deref().unwrap_or("");
    let text: Vec<&str> = content
        .lines()
        .skip(h.line.saturating_sub(1))
        .take(end_line.map_or(usize::MAX, |e| e.saturating_sub(h.line)))
        .collect();
    Ok(Section {
        heading: h.text.clone(),
        level: h.level,
        line: h.line as u64,
        content: text.join("\n").trim_end().to_string(),
        other_matches: matches.len() - 1,
    })
}

/// Keeps the first `max` lines and appends `... (N more lines)`; returns
/// the text and how many lines were cut. `max` 0 keeps nothing, not even
/// the marker: the caller asked for the counts alone.
pub(crate) fn truncate_lines(text: &str, max: Option<usize>) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    match max {
        Some(0) => (String::new(), lines.len()),
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
    fn code_sections_are_found_by_any_of_their_names() {
        assert_eq!(symbol_key("def split"), "split");
        assert_eq!(
            symbol_key("class TextWrapper > def _handle_long_word"),
            "textwrapper._handle_long_word"
        );
        assert_eq!(
            symbol_key("TextWrapper._handle_long_word"),
            "textwrapper._handle_long_word"
        );
        assert_eq!(symbol_key("func (s *Server) Start"), "server.start");
        assert_eq!(symbol_key("Server.Start"), "server.start");
        assert_eq!(symbol_key("async def fetch(url):"), "fetch");
        assert_eq!(symbol_key("function backup_db"), "backup_db");
    }

    #[test]
    fn truncation() {
        assert_eq!(
            truncate_lines("a\nb\nc", Some(2)),
            ("a\nb\n... (1 more lines)".into(), 1)
        );
        assert_eq!(truncate_lines("a\nb", Some(5)).1, 0);
        assert_eq!(truncate_lines("a\nb", Some(0)), (String::new(), 2));
        assert_eq!(truncate_lines("", Some(0)), (String::new(), 0));
    }
}
