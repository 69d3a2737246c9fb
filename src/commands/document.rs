//! Naming a document: by id (as search results give it) or by the path of
//! an indexed file, safely; and how every result names a document.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::db::{Database, DocumentRecord};
use crate::document::DocType;
use crate::error::{Hint, KbError, Result};
use crate::ingest::source_path;

/// A document named by its id (`source.document_id` in search results) or
/// by the path of an indexed file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub(crate) enum DocRef {
    Id(i64),
    Path(String),
}

impl std::str::FromStr for DocRef {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> std::result::Result<DocRef, Self::Err> {
        Ok(match s.trim().parse::<i64>() {
            Ok(id) if s.trim().chars().all(|c| c.is_ascii_digit()) => DocRef::Id(id),
            _ => DocRef::Path(s.to_string()),
        })
    }
}

impl std::fmt::Display for DocRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocRef::Id(id) => write!(f, "{id}"),
            DocRef::Path(p) => f.write_str(p),
        }
    }
}

impl JsonSchema for DocRef {
    fn schema_name() -> Cow<'static, str> {
        "DocRef".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["integer", "string"],
            "description": "A document id (source.document_id in search results) or the path of an indexed file"
        })
    }
}

impl DocRef {
    /// The indexed document this names. A path must resolve to an indexed
    /// document: one that climbs out with `..`, or a symlink to a file that
    /// is not indexed, is refused with `E_PATH_ESCAPE`.
    pub(crate) fn resolve(&self, db: &Database) -> Result<DocumentRecord> {
        let arg = self.to_string();
        let arg = arg.trim();
        // "12" given as a string (MCP clients do) is an id too.
        if !arg.is_empty() && arg.chars().all(|c| c.is_ascii_digit()) {
            let id: i64 = arg
                .parse()
                .map_err(|_| KbError::NotFound(format!("no document with id {arg}")))?;
            return db.document(id)?.ok_or_else(|| {
                KbError::NotFound(format!("no document with id {id}")).hint(Hint::ListDocuments)
            });
        }
        let raw = Path::new(arg);
        let lexical = normalize(&std::path::absolute(raw).unwrap_or_else(|_| raw.to_path_buf()));
        // As results print it (the stored form, escapes included), then as
        // a file name.
        for stored in [
            lexical.to_string_lossy().into_owned(),
            source_path::encode(&lexical),
        ] {
            if let Some(id) = db.document_id_by_path(&stored)? {
                return db.document(id)?.ok_or_else(|| {
                    KbError::NotFound(format!("no document at {}", lexical.display()))
                });
            }
        }
        let canonical = std::fs::canonicalize(raw).ok();
        if let Some(c) = &canonical {
            if let Some(id) = db.document_id_by_path(&source_path::encode(c))? {
                return db
                    .document(id)?
                    .ok_or_else(|| KbError::NotFound(format!("no document at {}", c.display())));
            }
        }
        let climbs = raw.components().any(|c| c == Component::ParentDir);
        // A file name, or the end of a path, that one indexed document's
        // path ends with: an agent's working folder is rarely the one that
        // holds the files.
        // Not when the path names a file here: that file is what was
        // meant, and it is not indexed.
        if !raw.is_absolute() && !climbs {
            if let Some(id) = by_path_tail(db, raw)? {
                let doc = db
                    .document(id)?
                    .ok_or_else(|| KbError::NotFound(format!("no document at {arg}")))?;
                if canonical.is_none() {
                    return Ok(doc);
                }
                return Err(KbError::NotFound(format!(
                    "{arg}: the file {} is not indexed; the indexed document whose path ends the same way is {} (id {id})",
                    lexical.display(),
                    doc.summary.path.as_deref().unwrap_or(&doc.summary.title),
                )));
            }
        }
        let redirected = canonical.as_ref().is_some_and(|c| *c != lexical);
        if climbs || redirected {
            // Where it leads is not said: that is outside what was added.
            return Err(KbError::PathEscape(format!(
                "{arg}: leads outside the indexed documents (through `..` or a link); kb only opens files it has indexed"
            )));
        }
        Err(KbError::NotFound(format!("{arg}: not an indexed document"))
            .hint(Hint::FindDocumentByPath))
    }
}

/// The one indexed document whose stored path ends with `tail` (whole
/// names: `3M_2018_10K.pdf`, `reports/3M_2018_10K.pdf`); none when no path
/// does; an error listing them when several do.
fn by_path_tail(db: &Database, tail: &Path) -> Result<Option<i64>> {
    let parts: Vec<String> = tail
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        return Ok(None);
    }
    let plain = format!("/{}", parts.join("/"));
    let stored = source_path::encode(Path::new(&plain));
    let found: Vec<(i64, String)> = db
        .document_files()?
        .into_iter()
        .filter(|f| f.path.ends_with(&plain) || f.path.ends_with(&stored))
        .map(|f| (f.id, f.path))
        .collect();
    match found.as_slice() {
        [] => Ok(None),
        [(id, _)] => Ok(Some(*id)),
        many => {
            let shown: Vec<String> = many
                .iter()
                .take(10)
                .map(|(id, p)| format!("{id} {p}"))
                .collect();
            Err(KbError::invalid(
                "document",
                format!(
                    "{} indexed documents' paths end with {}: {}{}; give the id or more of the path",
                    many.len(),
                    tail.display(),
                    shown.join(", "),
                    if many.len() > shown.len() { ", ..." } else { "" }
                ),
            ))
        }
    }
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

pub(crate) use crate::ingest::change::{file_status, FileStatus, Recorded};

/// The state of a document's file, or none for a document without one.
pub(crate) fn document_file_status(doc: &DocumentRecord) -> Option<FileStatus> {
    doc.summary.path.as_deref().map(|path| {
        file_status(&Recorded {
            path,
            via_link: doc.via_link.as_deref(),
            size: doc.file_size,
            mtime: doc.file_mtime,
            hash: Some(doc.content_hash.as_str()),
        })
    })
}

/// How a document is named in every inspection result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct DocumentRef {
    /// The document's id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// The file it was read from (null for a document without a file).
    pub path: Option<String>,
    /// Its type.
    #[serde(rename = "type")]
    pub doc_type: DocType,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its chunks.
    pub total_chunks: i64,
}

impl DocumentRef {
    pub(crate) fn of(d: &DocumentRecord) -> DocumentRef {
        DocumentRef {
            id: d.summary.id,
            title: d.summary.title.clone(),
            path: d.summary.path.clone(),
            doc_type: d.summary.doc_type,
            tags: d.summary.tags.clone(),
            total_chunks: d.summary.chunk_count,
        }
    }

    /// "Title (path)", the path relative to the current folder when under
    /// it: what people recognise a document by, and cite.
    pub(crate) fn label(&self) -> String {
        match self.path.as_deref() {
            Some(p) => format!(
                "{} ({})",
                crate::output::one_line(&self.title),
                crate::output::display_path(p)
            ),
            None => crate::output::one_line(&self.title),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_paths() {
        assert_eq!("12".parse::<DocRef>().unwrap(), DocRef::Id(12));
        assert_eq!(
            "notes/a.md".parse::<DocRef>().unwrap(),
            DocRef::Path("notes/a.md".into())
        );
        assert_eq!(
            "-3".parse::<DocRef>().unwrap(),
            DocRef::Path("-3".into()),
            "only plain digits are ids"
        );
        let v: DocRef = serde_json::from_str("7").unwrap();
        assert_eq!(v, DocRef::Id(7));
        let v: DocRef = serde_json::from_str("\"/x/y.md\"").unwrap();
        assert_eq!(v.to_string(), "/x/y.md");
    }

    #[test]
    fn lexical_normalisation() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }
}
