//! JSON and human output of the inspection commands: list, info, show,
//! outline, open, remove, tag and stats.

use serde::Serialize;
use serde_json::{json, Value};

use crate::db::{ChunkDetails, ChunkSummary, DocumentRecord, DocumentSummary, SkillInfo};
use crate::inspect::{FileStatus, OutlineItem, Section};

/// How a document is named in every inspection result.
#[derive(Debug, Serialize)]
pub struct DocumentRef {
    pub id: i64,
    pub title: String,
    pub path: Option<String>,
    #[serde(rename = "type")]
    pub doc_type: String,
    pub tags: Vec<String>,
    pub total_chunks: i64,
}

pub fn document_ref(d: &DocumentRecord) -> DocumentRef {
    DocumentRef {
        id: d.summary.id,
        title: d.summary.title.clone(),
        path: d.summary.path.clone(),
        doc_type: d.summary.doc_type.clone(),
        tags: d.summary.tags.clone(),
        total_chunks: d.summary.chunk_count,
    }
}

/// A chunk as `kb show` prints it.
#[derive(Debug, Serialize)]
pub struct ChunkJson {
    pub chunk_id: i64,
    pub chunk_index: i64,
    pub section: Option<String>,
    pub page: Option<u64>,
    pub token_count: Option<i64>,
    pub text: String,
}

pub fn chunk_json(c: &ChunkDetails) -> ChunkJson {
    ChunkJson {
        chunk_id: c.chunk_id,
        chunk_index: c.chunk_index,
        section: c
            .metadata
            .get("section")
            .and_then(Value::as_str)
            .map(str::to_string),
        page: c.metadata.get("page").and_then(Value::as_u64),
        token_count: c.token_count,
        text: c.text.clone(),
    }
}

/// `kb show CHUNK --context N`.
#[derive(Debug, Serialize)]
pub struct ShowJson {
    pub document: DocumentRef,
    pub chunk: ChunkJson,
    pub before: Vec<ChunkJson>,
    pub after: Vec<ChunkJson>,
}

/// `kb info DOC`.
pub fn info_json(d: &DocumentRecord, status: Option<FileStatus>, chunks: &[ChunkSummary]) -> Value {
    let pages_without_text = d
        .metadata
        .get("pages_without_text")
        .cloned()
        .unwrap_or(json!(0));
    let mut v = json!({
        "id": d.summary.id,
        "title": d.summary.title,
        "type": d.summary.doc_type,
        "path": d.summary.path,
        "tags": d.summary.tags,
        "chunk_count": d.summary.chunk_count,
        "created_at": d.summary.created_at,
        "updated_at": d.summary.updated_at,
        "language": d.language,
        "content_hash": d.content_hash,
        "file_size": d.file_size,
        "file_status": status,
        "pages": d.metadata.get("pages").cloned().unwrap_or(Value::Null),
        "pages_without_text": pages_without_text,
        "ocr": "not supported: pages without extractable text are counted, not read",
        "metadata": d.metadata.get("frontmatter").cloned().unwrap_or(json!({})),
        "chunks": chunks,
    });
    // Skills only, so other documents' JSON is unchanged.
    if let (Some(skill), Some(obj)) = (&d.summary.skill, v.as_object_mut()) {
        if let Ok(Value::Object(fields)) = serde_json::to_value(skill) {
            obj.extend(fields);
        }
    }
    v
}

pub fn outline_json(d: &DocumentRecord, items: &[OutlineItem]) -> Value {
    json!({ "document": document_ref(d), "items": items })
}

pub fn section_json(d: &DocumentRecord, s: &Section, content: &str, more_lines: usize) -> Value {
    json!({
        "document": document_ref(d),
        "heading": s.heading,
        "level": s.level,
        "line": s.line,
        "content": content,
        "truncated_lines": more_lines,
    })
}

pub fn open_json(
    d: &DocumentRecord,
    status: Option<FileStatus>,
    content: &str,
    total_lines: usize,
    more_lines: usize,
) -> Value {
    json!({
        "document": document_ref(d),
        "file_status": status,
        "total_lines": total_lines,
        "truncated_lines": more_lines,
        "content": content,
    })
}

pub fn list_human(docs: &[DocumentSummary]) -> String {
    if docs.is_empty() {
        return "No documents.\n".into();
    }
    let mut out = String::new();
    for d in docs {
        let tags = if d.tags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", d.tags.join(", "))
        };
        out.push_str(&format!(
            "{:>5}  {} [{}]{} ({} chunks)\n       {}\n",
            d.id,
            d.title,
            d.doc_type,
            tags,
            d.chunk_count,
            d.path.as_deref().unwrap_or("")
        ));
        if let Some(s) = &d.skill {
            out.push_str(&format!("       skill: {}\n", skill_line(s)));
        }
    }
    out
}

/// `v1.2 [read, write] first line of the description`, for human output.
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

pub fn info_human(v: &Value) -> String {
    let mut out = format!(
        "{} [{}] (id {})\n{}\nTags: {}\nChunks: {}\nFile: {}\nIndexed: {} (updated {})\n",
        v["title"].as_str().unwrap_or(""),
        v["type"].as_str().unwrap_or(""),
        v["id"],
        v["path"].as_str().unwrap_or(""),
        v["tags"]
            .as_array()
            .map(|t| t
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "))
            .unwrap_or_default(),
        v["chunk_count"],
        v["file_status"].as_str().unwrap_or("n/a"),
        v["created_at"].as_str().unwrap_or(""),
        v["updated_at"].as_str().unwrap_or(""),
    );
    if let Some(caps) = v.get("capabilities").and_then(Value::as_array) {
        let text = |k: &str| v[k].as_str().unwrap_or("").to_string();
        out.push_str(&format!(
            "Skill: {} (version {})\nCapabilities: {}\nDescription: {}\n",
            text("name"),
            v["version"].as_str().unwrap_or("none"),
            caps.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            text("description")
        ));
    }
    let without = v["pages_without_text"].as_u64().unwrap_or(0);
    if let Some(pages) = v["pages"].as_u64() {
        out.push_str(&format!("Pages: {pages}"));
        if without > 0 {
            out.push_str(&format!(
                " ({without} without extractable text; OCR is not supported)"
            ));
        }
        out.push('\n');
    } else if without > 0 {
        out.push_str(&format!("Pages without text: {without} (no OCR)\n"));
    }
    for c in v["chunks"].as_array().into_iter().flatten() {
        let place = c["section"]
            .as_str()
            .map(|s| format!("§{s}"))
            .or_else(|| c["page"].as_u64().map(|p| format!("p.{p}")))
            .or_else(|| c["symbol_name"].as_str().map(str::to_string))
            .unwrap_or_default();
        out.push_str(&format!(
            "  #{:<4} chunk {:<6} {:>4} tokens  {}\n",
            c["chunk_index"], c["chunk_id"], c["token_count"], place
        ));
    }
    out
}

pub fn show_human(s: &ShowJson) -> String {
    let mut out = format!(
        "{} ({}) chunk {} of {}\n",
        s.document.title,
        s.document.path.as_deref().unwrap_or(""),
        s.chunk.chunk_index + 1,
        s.document.total_chunks
    );
    for (c, marker) in s
        .before
        .iter()
        .map(|c| (c, " "))
        .chain(std::iter::once((&s.chunk, ">")))
        .chain(s.after.iter().map(|c| (c, " ")))
    {
        let place = c
            .section
            .as_deref()
            .map(|x| format!(" §{x}"))
            .or_else(|| c.page.map(|p| format!(" p.{p}")))
            .unwrap_or_default();
        out.push_str(&format!(
            "\n{marker} [chunk {} #{}]{place}\n{}\n",
            c.chunk_id, c.chunk_index, c.text
        ));
    }
    out
}

pub fn outline_human(v: &Value) -> String {
    let mut out = format!(
        "{}\n",
        v["document"]["path"]
            .as_str()
            .or(v["document"]["title"].as_str())
            .unwrap_or("")
    );
    for i in v["items"].as_array().into_iter().flatten() {
        let level = i["level"].as_u64().unwrap_or(1) as usize;
        let text = i["text"].as_str().unwrap_or("");
        match i["kind"].as_str() {
            Some("heading") => out.push_str(&format!(
                "{}{} {}{}\n",
                "  ".repeat(level.saturating_sub(1) + 1),
                "#".repeat(level),
                text,
                i["page"]
                    .as_u64()
                    .map(|p| format!(" (p.{p})"))
                    .unwrap_or_default()
            )),
            Some("page") => out.push_str(&format!("  p.{} {}\n", i["page"], text)),
            _ => out.push_str(&format!("  {text}\n")),
        }
    }
    out
}

pub fn stats_human(v: &Value) -> String {
    let mut out = format!(
        "Searches: {} ({} with no results, {} failed)\nLatency: p50 {} ms, p95 {} ms, p99 {} ms\n",
        v["total_searches"],
        v["zero_result_searches"],
        v["failed_searches"],
        v["latency_ms"]["p50"],
        v["latency_ms"]["p95"],
        v["latency_ms"]["p99"]
    );
    for (key, title) in [
        ("top_queries", "Most frequent"),
        ("zero_result_queries", "No results"),
    ] {
        let list = v[key].as_array().cloned().unwrap_or_default();
        if list.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}:\n"));
        for q in list {
            out.push_str(&format!(
                "  {:>4}  {}\n",
                q["count"],
                q["query"].as_str().unwrap_or("")
            ));
        }
    }
    out
}
