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
    /// The heading (or page label, or symbol) as written: what show takes
    /// as `section`.
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
        // Code's headings are its symbols (`Config`, `Config.new`).
        let kind = if doc.summary.doc_type.has_symbols() {
            "symbol"
        } else {
            "heading"
        };
        for h in hs {
            if max_level.is_some_and(|m| h.level > m) {
                continue;
            }
            items.push(OutlineItem {
                kind: kind.into(),
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
        } else if let Some(sym) = c
            .meta
            .symbol_name
            // A file's own name (a script without functions) is no symbol
            // show could find by it.
            .filter(|_| c.meta.symbol_kind != Some(crate::document::SymbolKind::Module))
        {
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

/// A heading that matched a section query.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct SectionMatch {
    /// The heading as written.
    pub heading: String,
    /// Its level (1 is the highest).
    pub level: u8,
    /// Its 1-based line in the document's text.
    pub line: u64,
}

/// A section found by heading.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    pub heading: String,
    pub level: u8,
    pub line: u64,
    pub content: String,
    /// Every heading that matched, in document order (the one shown too).
    pub matches: Vec<SectionMatch>,
    /// Which of `matches` is shown, from 1.
    pub occurrence: usize,
}

/// Dashes a heading may use between its parts: hyphen, en and em dash,
/// figure dash, horizontal bar, minus sign.
const DASHES: [char; 6] = [
    '-', '\u{2013}', '\u{2014}', '\u{2012}', '\u{2015}', '\u{2212}',
];

/// The form headings are compared in: lower-cased, whitespace collapsed,
/// inline code marks left out (`Special \`systemd\` UID ranges` is
/// `special systemd uid ranges`), and every dash with or without spaces
/// around it one `-`, so that `Generating a key — ed25519 only` (as `kb
/// outline` prints it) equals `generating a key - ed25519 only` or
/// `Generating a key–ed25519 only`.
pub(crate) fn heading_key(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.trim().chars() {
        if c == '`' {
            continue;
        }
        if DASHES.contains(&c) {
            while out.ends_with(' ') {
                out.pop();
            }
            out.push('-');
            space = false;
        } else if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() && !out.ends_with('-') {
                out.push(' ');
            }
            space = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The part of a heading before its first dash that has a space on
/// either side, or before its first en or em dash (`Generating a key —
/// ed25519 only` → `Generating a key`): None when there is no such dash.
/// A hyphen inside a word (`ssh-agent`) is no such dash.
fn heading_head(text: &str) -> Option<&str> {
    let t = text.trim();
    let cut = t.char_indices().find(|&(i, c)| {
        DASHES.contains(&c)
            && (c != '-'
                || t[..i].ends_with(char::is_whitespace)
                || t[i + 1..].starts_with(char::is_whitespace))
    })?;
    let head = t[..cut.0].trim();
    (!head.is_empty()).then_some(head)
}

/// The indexes of the headings that match `query`, trying in turn: the
/// whole heading; the part of the heading before a dash; the part of the
/// query before a dash against the heading, whole or its part.
fn heading_matches(headings: &[crate::document::Heading], query: &str) -> Vec<usize> {
    let whole = |t: &str| heading_key(t);
    let head = |t: &str| heading_head(t).map(heading_key);
    let q_whole = whole(query);
    let q_head = head(query);
    let tiers: [&dyn Fn(&str) -> bool; 4] = [
        &|h| whole(h) == q_whole,
        &|h| head(h).as_deref() == Some(q_whole.as_str()),
        &|h| q_head.as_deref() == Some(whole(h).as_str()),
        &|h| q_head.is_some() && head(h) == q_head,
    ];
    for tier in tiers {
        let found: Vec<usize> = headings
            .iter()
            .enumerate()
            .filter(|(_, h)| !q_whole.is_empty() && tier(&h.text))
            .map(|(i, _)| i)
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
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
            for keyword in [
                "export ",
                "pub ",
                "async ",
                "def ",
                "class ",
                "func ",
                "function ",
                "type ",
                "fn ",
                "impl ",
                "trait ",
                "struct ",
                "enum ",
                "interface ",
                "mod ",
            ] {
                if let Some(rest) = p.strip_prefix(keyword) {
                    p = rest.trim_start();
                }
            }
            // A Rust trait impl is filed under its type.
            if let Some((_, ty)) = p.split_once(" for ") {
                p = ty.trim();
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
            let p = p.replace("::", ".");
            let name = p.split(['(', ':', ' ']).next().unwrap_or("").trim();
            (!name.is_empty()).then(|| name.to_lowercase())
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Finds a heading (case-insensitive, dashes alike, see [`heading_key`])
/// and returns its content: from the heading line to the next heading of
/// the same or a higher level. For code, a symbol matches however it is
/// written (see [`symbol_key`]). When several headings match,
/// `occurrence` (from 1) picks one, else the first is shown.
pub(crate) fn find_section(
    doc: &DocumentRecord,
    query: &str,
    occurrence: Option<usize>,
) -> Result<Section> {
    let headings = &doc.metadata.headings;
    let mut matches = heading_matches(headings, query);
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
    if matches.is_empty() {
        return Err(not_found(doc, query));
    }
    let listed: Vec<SectionMatch> = matches
        .iter()
        .map(|&i| SectionMatch {
            heading: headings[i].text.clone(),
            level: headings[i].level,
            line: headings[i].line as u64,
        })
        .collect();
    let n = occurrence.unwrap_or(1);
    let Some(&index) = n.checked_sub(1).and_then(|i| matches.get(i)) else {
        let lines: Vec<String> = listed.iter().map(|m| m.line.to_string()).collect();
        return Err(KbError::invalid(
            "occurrence",
            format!(
                "must be from 1 to {} (got {n}): {} heading{} of {} match '{}' (line{} {})",
                listed.len(),
                listed.len(),
                if listed.len() == 1 { "" } else { "s" },
                doc.summary.title,
                query.trim(),
                if listed.len() == 1 { "" } else { "s" },
                lines.join(", ")
            ),
        ));
    };
    let h = &headings[index];
    let end_line = headings[index + 1..]
        .iter()
        .find(|next| next.level <= h.level)
        .map(|next| next.line);
    let content = doc.content.as_deref().unwrap_or("");
    let pages = crate::ingest::pdf::PageIndex::new(content);
    let text: Vec<std::borrow::Cow<str>> = content
        .lines()
        .enumerate()
        .skip(h.line.saturating_sub(1))
        .take(end_line.map_or(usize::MAX, |e| e.saturating_sub(h.line)))
        .map(|(i, l)| super::open::readable_line(l, i + 1, &pages))
        .collect();
    Ok(Section {
        heading: h.text.clone(),
        level: h.level,
        line: h.line as u64,
        content: text.join("\n").trim_end().to_string(),
        matches: listed,
        occurrence: n,
    })
}

/// The error for a heading no section has, with the closest headings as
/// suggestions: those that contain the query or are contained in it, then
/// those a few typing mistakes away, each heading once.
fn not_found(doc: &DocumentRecord, query: &str) -> KbError {
    let headings = &doc.metadata.headings;
    let wanted = heading_key(query);
    let code = doc.summary.doc_type.has_symbols();
    // (typing mistakes, difference in length, place in the document)
    let mut scored: Vec<(usize, usize, usize, &str)> = Vec::new();
    for (order, h) in headings.iter().enumerate() {
        if wanted.is_empty() || scored.iter().any(|s| s.3 == h.text) {
            continue;
        }
        let key = heading_key(&h.text);
        let mut forms = vec![key.clone()];
        forms.extend(heading_head(&h.text).map(heading_key));
        if code {
            let sym = symbol_key(&h.text);
            forms.extend(sym.rsplit('.').next().map(str::to_string));
            forms.push(sym);
        }
        let wanted_forms = if code {
            vec![wanted.clone(), symbol_key(query)]
        } else {
            vec![wanted.clone()]
        };
        let best = forms
            .iter()
            .filter(|f| !f.is_empty())
            .flat_map(|f| wanted_forms.iter().map(move |w| (f, w)))
            .filter_map(|(f, w)| {
                let (lf, lw) = (f.chars().count(), w.chars().count());
                if f.contains(w.as_str()) || w.contains(f.as_str()) {
                    Some((0, lf.abs_diff(lw)))
                } else {
                    let d = crate::text::similar::edit_distance(f, w);
                    // A typo in the first words of a long heading: the
                    // heading's start of the same length.
                    let start: String = f.chars().take(lw).collect();
                    let d_start = crate::text::similar::edit_distance(&start, w) + 1;
                    let d = d.min(d_start);
                    (d <= (lf.max(lw) / 4).max(1) || d_start <= (lw / 4).max(1) + 1)
                        .then_some((d, lf.abs_diff(lw)))
                }
            })
            .min();
        if let Some((d, diff)) = best {
            scored.push((d, diff, order, &h.text));
        }
    }
    scored.sort();
    let suggestions: Vec<String> = scored.iter().take(5).map(|s| s.3.to_string()).collect();
    let mut message = format!(
        "section not found: '{}' in {}",
        query.trim(),
        doc.summary.title
    );
    if !suggestions.is_empty() {
        message.push_str(&format!(". Did you mean: {}?", suggestions.join(", ")));
    } else if !headings.is_empty() {
        // Read by people at a terminal and by MCP clients alike: the name
        // is both the command and the tool.
        message.push_str("; `outline` of this document lists its headings");
    }
    KbError::SectionNotFound {
        message,
        suggestions,
    }
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

    use crate::document::Heading;

    #[test]
    fn heading_query_normalisation() {
        assert_eq!(
            heading_key("  Generating a key — ed25519 only "),
            "generating a key-ed25519 only"
        );
        for same in [
            "generating a key - ed25519 only",
            "Generating a key–ed25519 only",
            "GENERATING  a key \u{2013} ed25519 only",
            "Generating a key -ed25519 only",
        ] {
            assert_eq!(heading_key(same), "generating a key-ed25519 only", "{same}");
        }
        assert_eq!(heading_key("Using ssh-agent"), "using ssh-agent");
        assert_eq!(
            heading_key("Special `systemd` UID ranges"),
            heading_key("special systemd UID ranges")
        );
        assert_eq!(heading_head("Install — how to set up"), Some("Install"));
        assert_eq!(heading_head("Install—how"), Some("Install"));
        assert_eq!(heading_head("Install - how"), Some("Install"));
        assert_eq!(heading_head("Using ssh-agent"), None);
        assert_eq!(heading_head("— only a tail"), None);
    }

    fn headings(texts: &[&str]) -> Vec<Heading> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Heading {
                level: 2,
                text: t.to_string(),
                line: i * 3 + 1,
            })
            .collect()
    }

    #[test]
    fn headings_match_whole_or_before_a_dash() {
        let hs = headings(&[
            "Generating a key — ed25519 only",
            "Using ssh-agent",
            "Install",
            "Install",
        ]);
        for q in [
            "Generating a key — ed25519 only",
            "generating a key - ED25519 only",
            "Generating a key–ed25519 only",
            "Generating a key",
            "generating a key — whatever follows",
        ] {
            assert_eq!(heading_matches(&hs, q), [0], "{q}");
        }
        assert_eq!(heading_matches(&hs, "using ssh–agent"), [1]);
        assert_eq!(heading_matches(&hs, "Using ssh"), Vec::<usize>::new());
        assert_eq!(heading_matches(&hs, "INSTALL — quick start"), [2, 3]);
        assert!(heading_matches(&hs, "  ").is_empty());
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
        assert_eq!(
            symbol_key("impl fmt::Display for Config > fn fmt"),
            "config.fmt"
        );
        assert_eq!(symbol_key("Config::new"), "config.new");
        assert_eq!(symbol_key("class Server > start"), "server.start");
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
