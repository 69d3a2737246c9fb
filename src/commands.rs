//! What the commands compute, shared by the two front ends: the CLI
//! (`cli`) and the MCP server (`mcp`). Each function takes an open database
//! and typed options and returns the value whose JSON is the output
//! contract; the front ends only parse arguments and print or send it, so a
//! tool result and `kb ... --format json` cannot drift apart.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use serde_json::{json, Value};

use crate::config::Config;
use crate::db::{normalize_tags, Database, Filters, SearchLogEntry};
use crate::embed::{self, Embedder};
use crate::error::{KbError, Result};
use crate::ingest::pipeline::{IngestOptions, IngestSummary, Ingester, ModelSource};
use crate::ingest::DocType;
use crate::inspect;
use crate::output;
use crate::search::{Mode, SearchRequest, SearchResponse};

/// `kb status`.
pub fn status(db: &Database) -> Result<output::StatusJson> {
    let mut documents: BTreeMap<String, i64> = [
        DocType::Pdf,
        DocType::Markdown,
        DocType::Code,
        DocType::Note,
    ]
    .iter()
    .map(|t| (t.as_str().to_string(), 0))
    .collect();
    for (t, n) in db.documents_by_type()? {
        documents.insert(t, n);
    }
    let binding = db.model_binding()?;
    let stale_documents = db
        .document_files()?
        .into_iter()
        .filter(|(_, path, size, mtime)| {
            inspect::file_status(path, *size, *mtime, None) != inspect::FileStatus::Unchanged
        })
        .count();
    Ok(output::StatusJson {
        stale_documents,
        total_documents: documents.values().sum(),
        documents,
        total_chunks: db.chunk_count()?,
        db_size_bytes: db.size_bytes(),
        model_name: binding.as_ref().map(|b| b.model_name.clone()),
        embedding_dim: binding.as_ref().map(|b| b.embedding_dim),
        schema_version: db.schema_version()?,
        last_ingest_at: db.last_ingest_at()?,
        db_path: db.path().display().to_string(),
    })
}

/// `kb tags`.
pub fn tags(db: &Database) -> Result<Vec<output::TagJson>> {
    Ok(db
        .tag_counts()?
        .into_iter()
        .map(|(name, count)| output::TagJson { name, count })
        .collect())
}

/// `kb show CHUNK --context N`: the chunk with up to N neighbours each side.
pub fn show_chunk(db: &Database, chunk_id: i64, context: usize) -> Result<output::ShowJson> {
    let window = db.chunk_window(chunk_id, context)?.ok_or_else(|| {
        KbError::NotFound(format!(
            "no chunk with id {chunk_id}; chunk ids come from `kb search` results"
        ))
    })?;
    let details = db.chunk_details(&window)?;
    let pos = details
        .iter()
        .position(|c| c.chunk_id == chunk_id)
        .ok_or_else(|| KbError::NotFound(format!("no chunk with id {chunk_id}")))?;
    let doc = db
        .document(details[pos].document_id)?
        .ok_or_else(|| KbError::NotFound(format!("the document of chunk {chunk_id} is gone")))?;
    Ok(output::ShowJson {
        document: output::document_ref(&doc),
        chunk: output::chunk_json(&details[pos]),
        before: details[..pos].iter().map(output::chunk_json).collect(),
        after: details[pos + 1..].iter().map(output::chunk_json).collect(),
    })
}

/// A section found by `kb show DOC --section HEADING`.
pub struct SectionView {
    pub json: Value,
    /// The (possibly truncated) text, which the human format prints alone.
    pub content: String,
    /// Other headings that matched too (the first is shown).
    pub other_matches: usize,
}

/// `kb show DOC --section HEADING [--max-lines N]`.
pub fn show_section(
    db: &Database,
    doc: &str,
    heading: &str,
    max_lines: Option<usize>,
) -> Result<SectionView> {
    let doc = inspect::resolve_document(db, doc)?;
    let s = inspect::find_section(&doc, heading)?;
    let (content, more) = inspect::truncate_lines(&s.content, max_lines);
    Ok(SectionView {
        json: output::section_json(&doc, &s, &content, more),
        content,
        other_matches: s.other_matches,
    })
}

/// `kb outline DOC [--level N]`.
pub fn outline(db: &Database, doc: &str, level: Option<u8>) -> Result<Value> {
    let doc = inspect::resolve_document(db, doc)?;
    let items = inspect::outline(db, &doc, level)?;
    Ok(output::outline_json(&doc, &items))
}

/// A document's text from `kb open`.
pub struct OpenView {
    pub json: Value,
    pub content: String,
}

/// `kb open DOC [--max-lines N]`.
pub fn open(db: &Database, doc: &str, max_lines: Option<usize>) -> Result<OpenView> {
    let doc = inspect::resolve_document(db, doc)?;
    let status = inspect::document_file_status(&doc);
    let text = doc.content.clone().unwrap_or_default();
    let total = text.lines().count();
    let (content, more) = inspect::truncate_lines(&text, max_lines);
    Ok(OpenView {
        json: output::open_json(&doc, status, &content, total, more),
        content,
    })
}

/// What `kb remove` did.
pub struct Removal {
    pub removed: usize,
    pub documents: Vec<output::DocumentRef>,
}

impl Removal {
    pub fn json(&self) -> Value {
        json!({ "removed": self.removed, "documents": self.documents })
    }
}

/// `kb remove DOC...` or `kb remove --missing`. Every named document is
/// resolved before anything is deleted, so one bad name removes nothing.
pub fn remove(db: &Database, docs: &[String], missing: bool) -> Result<Removal> {
    let mut found = Vec::new();
    if missing {
        for (id, path, _, _) in db.document_files()? {
            if std::fs::symlink_metadata(&path).is_err() {
                if let Some(d) = db.document(id)? {
                    found.push(d);
                }
            }
        }
    } else {
        for a in docs {
            found.push(inspect::resolve_document(db, a)?);
        }
    }
    let ids: Vec<i64> = found.iter().map(|d| d.summary.id).collect();
    let removed = db.remove_documents(&ids)?;
    Ok(Removal {
        removed,
        documents: found.iter().map(output::document_ref).collect(),
    })
}

/// The options of `kb search`, as either front end received them.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub query: String,
    /// Results wanted; `search.default_top` when not given.
    pub top: Option<usize>,
    pub tags: Vec<String>,
    pub doc_type: Option<DocType>,
    pub mode: Mode,
    pub threshold: Option<f64>,
}

/// Checks search options and turns them into a request.
pub fn search_request(config: &Config, o: &SearchOptions) -> Result<SearchRequest> {
    if o.query.trim().is_empty() {
        return Err(KbError::EmptyQuery);
    }
    let top = o.top.unwrap_or(config.search.default_top);
    if top == 0 {
        return Err(KbError::Usage("--top must be at least 1".into()));
    }
    Ok(SearchRequest {
        query: o.query.clone(),
        top,
        filters: Filters {
            tags: normalize_tags(&o.tags),
            doc_type: o.doc_type.map(|t| t.as_str().to_string()),
        },
        mode: o.mode,
        threshold: o.threshold,
        rrf_k: config.search.rrf_k,
        snippets: true,
    })
}

/// The search log entry for a search (`source`: cli or mcp).
pub fn search_log_entry(
    source: &str,
    req: &SearchRequest,
    result: &Result<SearchResponse>,
    took: std::time::Duration,
) -> SearchLogEntry {
    let filters = json!({
        "top": req.top,
        "tags": req.filters.tags,
        "type": req.filters.doc_type,
        "threshold": req.threshold,
    });
    SearchLogEntry {
        source: source.into(),
        query: req.query.clone(),
        mode: serde_json::to_value(req.mode)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        filters: filters.to_string(),
        result_count: result.as_ref().map(|r| r.hits.len()).unwrap_or(0),
        duration_ms: took.as_secs_f64() * 1000.0,
        error: result.as_ref().err().map(|e| e.to_string()),
    }
}

/// The model for `kb add`: the bound one, or on a new knowledge base the
/// configured model when its files can be found without a download.
/// The model `kb add` embeds with. A knowledge base already bound to a
/// model is checked now and loads it only when a file needs indexing, so
/// re-adding an unchanged folder is quick; a new one loads and binds the
/// configured model at once.
pub fn model_for_add<'a>(db: &Database, config: &'a Config) -> Result<ModelSource<'a>> {
    if db.model_binding()?.is_some() {
        let (spec, files, binding) = embed::resolve_bound(db, config)?;
        return Ok(ModelSource::Lazy(Box::new(move || {
            embed::load_checked(&spec, &files, &binding, config, embed::ModelUse::Passages)
                .map(|e| Box::new(e) as Box<dyn embed::Embed>)
        })));
    }
    Ok(ModelSource::Owned(Box::new(embedder_for_add(db, config)?)))
}

/// The model `kb add` embeds with, loaded now: the bound one, or on a new
/// knowledge base the configured model when its files can be found without
/// a download (it is bound then).
pub fn embedder_for_add(db: &Database, config: &Config) -> Result<Embedder> {
    if db.model_binding()?.is_some() {
        return embed::load_bound(db, config);
    }
    let spec = embed::model_spec(&config.embedding.model)?;
    let files = embed::locate(&spec, config, None).map_err(|_| {
        KbError::ModelMissing(format!(
            "no embedding model is set up for {}; run `kb init` first (it downloads {}), \
             or `kb init --model-dir DIR` with a local copy",
            db.path().display(),
            spec.name
        ))
    })?;
    let embedder = Embedder::load(&spec, &files, config)?;
    db.bind_model(&embed::binding_for(&embedder)?)?;
    eprintln!("kb: using {} from {}", spec.name, files.dir.display());
    Ok(embedder)
}

/// Checks the paths and tags of `kb add` before anything is opened.
pub fn check_add_args(paths: &[PathBuf], tags: &[String]) -> Result<Vec<String>> {
    for p in paths {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(KbError::PathNotFound(p.clone()));
        }
    }
    let normalized = normalize_tags(tags);
    if tags.iter().any(|t| t.trim().is_empty()) && normalized.is_empty() {
        return Err(KbError::Usage(
            "--tags: empty tag names are not allowed".into(),
        ));
    }
    Ok(normalized)
}

/// `kb add PATH...`: indexes the paths with `embedder`.
pub fn add(
    config: &Config,
    db: &Database,
    model: ModelSource<'_>,
    paths: &[PathBuf],
    tags: Vec<String>,
    show_progress: bool,
    cancel: &AtomicBool,
) -> Result<IngestSummary> {
    Ingester::new(config, db, model).run(
        paths,
        &IngestOptions {
            tags,
            show_progress,
            cancel,
        },
    )
}
