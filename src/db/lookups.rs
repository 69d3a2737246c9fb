//! Reading documents and chunks for the inspection commands (list, info,
//! show, outline, open) and removing or re-tagging documents.

use rusqlite::types::Value as SqlValue;
use rusqlite::{params, OptionalExtension, Row};
use serde::Serialize;

use super::Database;
use crate::document::{ChunkMeta, DocType, DocumentMeta, SkillInfo};
use crate::error::Result;

/// Filters of `kb list` (and the MCP `list` tool); all given ones must hold.
#[derive(Debug, Clone, Default)]
pub struct ListFilters {
    pub doc_type: Option<DocType>,
    pub tag: Option<String>,
    /// Case-insensitive substring of the title, the path or a skill's
    /// description.
    pub search: Option<String>,
    /// Skills declaring every one of these capabilities (exact,
    /// case-sensitive membership).
    pub capabilities: Vec<String>,
    /// Only skills (SKILL.md files whose frontmatter was read).
    pub skills_only: bool,
}

/// One line of `kb list`.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentSummary {
    pub id: i64,
    pub title: String,
    #[serde(rename = "type")]
    pub doc_type: DocType,
    pub tags: Vec<String>,
    pub chunk_count: i64,
    pub created_at: String,
    pub path: Option<String>,
    pub updated_at: String,
    /// Set for skills: name, description, version, capabilities appear as
    /// fields of their own; other documents print none of them.
    #[serde(flatten)]
    pub skill: Option<SkillInfo>,
}

/// Everything stored about one document.
#[derive(Debug, Clone)]
pub struct DocumentRecord {
    pub summary: DocumentSummary,
    pub language: Option<String>,
    pub content_hash: String,
    pub file_size: Option<u64>,
    pub file_mtime: Option<i64>,
    /// The link the walks reach the file through, when only through it.
    pub via_link: Option<String>,
    pub metadata: DocumentMeta,
    pub content: Option<String>,
}

/// A chunk of a document, without its text.
#[derive(Debug, Clone)]
pub struct ChunkSummary {
    pub chunk_id: i64,
    pub chunk_index: i64,
    pub token_count: Option<i64>,
    pub meta: ChunkMeta,
}

/// An indexed file: what was recorded about it, for staleness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentFile {
    pub id: i64,
    /// Stored form (`source_path`).
    pub path: String,
    pub file_size: Option<u64>,
    pub file_mtime: Option<i64>,
    /// The link the walks reach the file through, when only through it.
    pub via_link: Option<String>,
    pub content_hash: String,
}

const SUMMARY_COLUMNS: &str = "d.id, d.title, d.doc_type, d.created_at, d.source_path, d.updated_at,
    (SELECT count(*) FROM chunks c WHERE c.document_id = d.id),
    (SELECT json_group_array(name) FROM (SELECT t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
        WHERE dt.document_id = d.id ORDER BY t.name)),
    json_extract(d.metadata, '$.skill')";

fn summary_from(r: &Row) -> rusqlite::Result<DocumentSummary> {
    let tags: String = r.get(7)?;
    let skill: Option<String> = r.get(8)?;
    Ok(DocumentSummary {
        id: r.get(0)?,
        title: r.get(1)?,
        doc_type: r.get(2)?,
        created_at: r.get(3)?,
        path: r.get(4)?,
        updated_at: r.get(5)?,
        chunk_count: r.get(6)?,
        tags: serde_json::from_str(&tags).unwrap_or_default(),
        skill: skill.and_then(|s| serde_json::from_str(&s).ok()),
    })
}

impl Database {
    pub fn list_documents(&self, f: &ListFilters) -> Result<Vec<DocumentSummary>> {
        let mut sql = format!("SELECT {SUMMARY_COLUMNS} FROM documents d WHERE 1 = 1");
        let mut p: Vec<SqlValue> = Vec::new();
        if let Some(t) = &f.doc_type {
            p.push(SqlValue::Text(t.as_str().into()));
            sql.push_str(&format!(" AND d.doc_type = ?{}", p.len()));
        }
        if let Some(tag) = &f.tag {
            p.push(SqlValue::Text(tag.trim().to_lowercase()));
            sql.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
                   WHERE dt.document_id = d.id AND t.name = ?{})",
                p.len()
            ));
        }
        for cap in &f.capabilities {
            p.push(SqlValue::Text(cap.clone()));
            sql.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM json_each(d.metadata, '$.skill.capabilities') cap
                   WHERE cap.value = ?{})",
                p.len()
            ));
        }
        if f.skills_only {
            sql.push_str(" AND json_type(d.metadata, '$.skill') = 'object'");
        }
        sql.push_str(" ORDER BY d.id");
        let mut stmt = self.conn().prepare(&sql)?;
        let rows = stmt.query_map(rusqlite::params_from_iter(p), summary_from)?;
        let mut docs: Vec<DocumentSummary> = rows.collect::<rusqlite::Result<_>>()?;
        // Matched here rather than with LIKE: `_` and `%` are plain
        // characters, and every letter folds, not only ASCII.
        if let Some(s) = &f.search {
            let needle = s.to_lowercase();
            let holds = |text: &str| text.to_lowercase().contains(&needle);
            docs.retain(|d| {
                holds(&d.title)
                    || d.path.as_deref().is_some_and(holds)
                    || d.skill
                        .as_ref()
                        .and_then(|k| k.description.as_deref())
                        .is_some_and(holds)
            });
        }
        Ok(docs)
    }

    pub fn document_id_by_path(&self, path: &str) -> Result<Option<i64>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id FROM documents WHERE source_path = ?1",
                [path],
                |r| r.get(0),
            )
            .optional()?)
    }

    pub fn document(&self, id: i64) -> Result<Option<DocumentRecord>> {
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS}, d.language, d.content_hash, d.file_size, d.file_mtime,
                    d.metadata, d.content, d.via_link
             FROM documents d WHERE d.id = ?1"
        );
        Ok(self
            .conn()
            .query_row(&sql, [id], |r| {
                let metadata: String = r.get(13)?;
                Ok(DocumentRecord {
                    summary: summary_from(r)?,
                    language: r.get(9)?,
                    content_hash: r.get(10)?,
                    file_size: r.get::<_, Option<i64>>(11)?.map(|v| v as u64),
                    file_mtime: r.get(12)?,
                    via_link: r.get(15)?,
                    metadata: DocumentMeta::from_json(&metadata),
                    content: r.get(14)?,
                })
            })
            .optional()?)
    }

    pub fn chunk_summaries(&self, document_id: i64) -> Result<Vec<ChunkSummary>> {
        let mut stmt = self.conn().prepare(
            "SELECT id, chunk_index, token_count, metadata
             FROM chunks WHERE document_id = ?1 ORDER BY chunk_index",
        )?;
        let rows = stmt.query_map([document_id], |r| {
            Ok(ChunkSummary {
                chunk_id: r.get(0)?,
                chunk_index: r.get(1)?,
                token_count: r.get(2)?,
                meta: ChunkMeta::from_json(&r.get::<_, String>(3)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The ids of a chunk's neighbours within `n` positions, in order
    /// (the chunk itself included).
    pub fn chunk_window(&self, chunk_id: i64, n: usize) -> Result<Option<Vec<i64>>> {
        let Some((doc, idx)) = self
            .conn()
            .query_row(
                "SELECT document_id, chunk_index FROM chunks WHERE id = ?1",
                [chunk_id],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
            )
            .optional()?
        else {
            return Ok(None);
        };
        let mut stmt = self.conn().prepare(
            "SELECT id FROM chunks WHERE document_id = ?1 AND chunk_index BETWEEN ?2 AND ?3
             ORDER BY chunk_index",
        )?;
        // Any width is allowed; past i64 it is the whole document.
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let rows = stmt.query_map(
            params![doc, idx.saturating_sub(n), idx.saturating_add(n)],
            |r| r.get(0),
        )?;
        Ok(Some(rows.collect::<rusqlite::Result<_>>()?))
    }

    /// Every indexed file with what was recorded about it (for staleness).
    pub fn document_files(&self) -> Result<Vec<DocumentFile>> {
        let mut stmt = self.conn().prepare(
            "SELECT id, source_path, file_size, file_mtime, via_link, content_hash FROM documents
             WHERE source_path IS NOT NULL ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(DocumentFile {
                id: r.get(0)?,
                path: r.get(1)?,
                file_size: r.get::<_, Option<i64>>(2)?.map(|v| v as u64),
                file_mtime: r.get(3)?,
                via_link: r.get(4)?,
                content_hash: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Deletes documents with their chunks, vectors and tag links, in one
    /// transaction; unused tags go too. Returns how many were deleted.
    pub fn remove_documents(&self, ids: &[i64]) -> Result<usize> {
        let tx = self.begin_write()?;
        let (mut n, mut chunks) = (0, 0);
        for id in ids {
            // Chunks first so the FTS and vector triggers see each row.
            chunks += self
                .conn()
                .execute("DELETE FROM chunks WHERE document_id = ?1", [id])?;
            n += self
                .conn()
                .execute("DELETE FROM documents WHERE id = ?1", [id])?;
        }
        self.conn().execute(
            "DELETE FROM tags WHERE id NOT IN (SELECT tag_id FROM document_tags)",
            [],
        )?;
        self.apply_removed_codes()?;
        tx.commit()?;
        // Each deleted row leaves a delete marker in the keyword index. The
        // documents are gone whatever the merge does: a failed one loses
        // nothing and is tried again later.
        let _ = self.note_keyword_writes(chunks as u64, true, || {});
        Ok(n)
    }

    /// Adds and removes tags of one document, in one transaction.
    pub fn edit_tags(&self, doc_id: i64, add: &[String], remove: &[String]) -> Result<()> {
        let tx = self.begin_write()?;
        self.add_tags(doc_id, add)?;
        self.remove_tags(doc_id, remove)?;
        tx.commit()?;
        Ok(())
    }
}
