//! The human layout of each command's output.

use super::{SearchJson, StatusJson, TagJson};

/// ```text
/// Search: "install git" (47 matches, showing top 10)
///
/// 1. [0.031] Git Admin Guide (p.12) [pdf] [git, admin]
///    To install the latest version of git from source...
/// ```
pub fn search_human(s: &SearchJson) -> String {
    let mut out = format!(
        "Search: \"{}\" ({} matches, showing top {})\n",
        s.query, s.total_matches, s.returned
    );
    if s.results.is_empty() {
        out.push_str("\nNo results.\n");
    }
    for (i, r) in s.results.iter().enumerate() {
        let src = &r.source;
        let mut label = if src.doc_type == "pdf" {
            src.title.clone()
        } else {
            src.path
                .as_deref()
                .and_then(|p| std::path::Path::new(p).file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| src.title.clone())
        };
        if let Some(p) = src.page {
            label.push_str(&format!(" (p.{p})"));
        }
        if let Some(sec) = &src.section {
            label.push_str(&format!(" §{sec}"));
        }
        let tags = if src.tags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", src.tags.join(", "))
        };
        out.push_str(&format!(
            "\n{}. [{:.3}] {} [{}]{}\n   {}\n",
            i + 1,
            r.score,
            label,
            src.doc_type,
            tags,
            highlight(&r.snippet)
        ));
    }
    out
}

/// Renders [MATCH] markers as bold yellow on a terminal (unless NO_COLOR
/// is set), as plain text otherwise.
pub fn highlight(snippet: &str) -> String {
    use std::io::IsTerminal;
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (open, close) = if color {
        ("\x1b[1;33m", "\x1b[0m")
    } else {
        ("", "")
    };
    snippet
        .replace("[MATCH]", open)
        .replace("[/MATCH]", close)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn status_human(s: &StatusJson) -> String {
    let mut out = format!("Knowledge base: {}\n", s.db_path);
    out.push_str(&format!(
        "Documents: {} ({})\n",
        s.total_documents,
        s.documents
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out.push_str(&format!("Chunks: {}\n", s.total_chunks));
    out.push_str(&format!(
        "Size: {:.1} MB\n",
        s.db_size_bytes as f64 / 1_048_576.0
    ));
    match (&s.model_name, s.embedding_dim) {
        (Some(m), Some(d)) => out.push_str(&format!("Model: {m} ({d} dimensions)\n")),
        _ => out.push_str("Model: none (run `kb init`)\n"),
    }
    out.push_str(&format!("Schema version: {}\n", s.schema_version));
    if let Some(t) = &s.last_ingest_at {
        out.push_str(&format!("Last ingest: {t}\n"));
    }
    if s.stale_documents > 0 {
        out.push_str(&format!(
            "Stale: {} documents changed or missing since indexing (kb add to refresh, kb remove --missing to drop)\n",
            s.stale_documents
        ));
    }
    out
}

pub fn tags_human(tags: &[TagJson]) -> String {
    if tags.is_empty() {
        return "No tags.\n".into();
    }
    let width = tags.iter().map(|t| t.name.len()).max().unwrap_or(0);
    tags.iter()
        .map(|t| format!("{:<width$}  {}\n", t.name, t.count))
        .collect()
}
