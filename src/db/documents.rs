//! Documents, chunks and tags: writes and lookups.

use rusqlite::{params, OptionalExtension};

use super::Database;
use crate::document::{ChunkMeta, DocType, DocumentMeta};
use crate::error::Result;

/// A document type is stored by its name; a name this kb does not know
/// (written by a newer kb) is an error naming it.
impl rusqlite::ToSql for DocType {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

impl rusqlite::types::FromSql for DocType {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        v.as_str()?
            .parse()
            .map_err(|e: String| rusqlite::types::FromSqlError::Other(e.into()))
    }
}

/// A document as the ingest pipeline hands it to the database.
#[derive(Debug, Clone)]
pub struct NewDocument {
    pub title: String,
    pub source_path: String,
    pub content_hash: String,
    pub doc_type: DocType,
    pub language: Option<String>,
    pub file_size: u64,
    /// None when the file was written in the second it was read (see
    /// `ingest::change`).
    pub file_mtime: Option<i64>,
    pub metadata: DocumentMeta,
    pub tags: Vec<String>,
    /// The document's text as indexed (for `kb open` and `kb show --section`).
    pub content: Option<String>,
    /// The version of the reader that read it (`ingest::readers`).
    pub reader_version: u32,
}

#[derive(Debug, Clone, Default)]
pub struct NewChunk {
    pub text: String,
    pub token_count: usize,
    /// Its place in the document (section, page, lines, symbol).
    pub metadata: ChunkMeta,
    /// The header embedded before the text (see `text::header`).
    pub context: String,
    /// The document's title (or file name as words) and the chunk's
    /// section, keyword-indexed in columns of their own.
    pub doc_title: String,
    pub section: String,
    /// Extra searchable forms of the text (see `text::terms`).
    pub terms: String,
}

/// What the database knows of an indexed file, to decide skip or re-index.
#[derive(Debug, Clone)]
pub struct IndexedFile {
    pub id: i64,
    pub content_hash: String,
    pub file_size: Option<u64>,
    pub file_mtime: Option<i64>,
    /// The link the walks reach the file through, when only through it.
    pub via_link: Option<String>,
    /// The version of the reader that read it (`ingest::readers`).
    pub reader_version: u32,
}

impl IndexedFile {
    /// Forgets what the file was when read, so it is read again as if it
    /// had changed.
    pub fn forget_reading(&mut self) {
        self.file_size = None;
        self.content_hash.clear();
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteOutcome {
    Added(i64),
    Replaced(i64),
}

/// Lower-cased, trimmed, de-duplicated tags; empty ones dropped. A comma
/// separates tags wherever they come from, as on the command line
/// (`--tags a,b`): an agent's `"a,b"` or front matter's `tags: "a, b"` is
/// two tags, never one that `--tags` could not name.
pub fn normalize_tags<I, S>(tags: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out: Vec<String> = Vec::new();
    let given: Vec<S> = tags.into_iter().collect();
    for t in given.iter().flat_map(|t| t.as_ref().split(',')) {
        // A document's own tags (front matter) may hold a line break: one line.
        let t = t
            .split(char::is_control)
            .filter(|p| !p.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        if !t.is_empty() && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

impl Database {
    /// Every indexed file by path, read once at the start of `kb add` so the
    /// parallel parsers can decide skip or re-index without the database.
    pub fn indexed_files(&self) -> Result<std::collections::HashMap<String, IndexedFile>> {
        let mut stmt = self.conn().prepare(
            "SELECT source_path, id, content_hash, file_size, file_mtime, via_link, reader_version
             FROM documents WHERE source_path IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                IndexedFile {
                    id: r.get(1)?,
                    content_hash: r.get(2)?,
                    file_size: r.get::<_, Option<i64>>(3)?.map(|v| v as u64),
                    file_mtime: r.get(4)?,
                    via_link: r.get(5)?,
                    reader_version: r.get(6)?,
                },
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn find_document_by_path(&self, source_path: &str) -> Result<Option<IndexedFile>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, content_hash, file_size, file_mtime, via_link, reader_version
                 FROM documents WHERE source_path = ?1",
                [source_path],
                |r| {
                    Ok(IndexedFile {
                        id: r.get(0)?,
                        content_hash: r.get(1)?,
                        file_size: r.get::<_, Option<i64>>(2)?.map(|v| v as u64),
                        file_mtime: r.get(3)?,
                        via_link: r.get(4)?,
                        reader_version: r.get(5)?,
                    })
                },
            )
            .optional()?)
    }

    /// Records a new size and mtime for a file whose content is unchanged
    /// (touched or copied), so the next run can skip it without hashing.
    pub fn touch_document(&self, id: i64, file_size: u64, file_mtime: Option<i64>) -> Result<()> {
        self.writable()?;
        self.conn().execute(
            "UPDATE documents SET file_size = ?2, file_mtime = ?3 WHERE id = ?1",
            params![id, file_size as i64, file_mtime],
        )?;
        Ok(())
    }

    /// Keeps the document of a file that is empty now without its text:
    /// its chunks go (searches find nothing of it), and the tags its file
    /// gave, but the user's tags stay, so a file emptied for a moment (a
    /// save, a checkout) keeps them when its text comes back. `file` is
    /// the empty file's size, mtime and content hash, so an unchanged one
    /// is passed by; without it the next walk reads the file again.
    pub fn empty_document(
        &self,
        id: i64,
        file: Option<(u64, Option<i64>, String)>,
        reader_version: u32,
    ) -> Result<()> {
        let tx = self.begin_write()?;
        let conn = self.conn();
        let file_tags: Option<String> = conn.query_row(
            "SELECT json_extract(metadata, '$.file_tags') FROM documents WHERE id = ?1",
            [id],
            |r| r.get(0),
        )?;
        let file_tags: Vec<String> = file_tags
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        conn.execute("DELETE FROM chunks WHERE document_id = ?1", [id])?;
        self.apply_removed_codes()?;
        self.remove_tags(id, &file_tags)?;
        let (size, mtime, hash) = match file {
            Some((size, mtime, hash)) => (Some(size as i64), mtime, hash),
            None => (None, None, String::new()),
        };
        conn.execute(
            "UPDATE documents SET content = '', content_hash = ?2, file_size = ?3,
                file_mtime = ?4, metadata = '{}', reader_version = ?5,
                updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
             WHERE id = ?1",
            params![id, hash, size, mtime, reader_version],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Forgets what was recorded of these documents' files (stored paths):
    /// size, mtime and content hash, so the next walk that reaches such a
    /// file reads it again, unchanged or not.
    pub fn forget_file_stamps(&self, paths: &[String]) -> Result<()> {
        if paths.is_empty() {
            return Ok(());
        }
        let tx = self.begin_write()?;
        let mut forget = self.conn().prepare_cached(
            "UPDATE documents SET file_size = NULL, file_mtime = NULL, content_hash = ''
             WHERE source_path = ?1",
        )?;
        for path in paths {
            forget.execute([path])?;
        }
        drop(forget);
        tx.commit()?;
        Ok(())
    }

    /// Records the link each document is reached through (`None`: directly,
    /// or through more than one), in one transaction.
    pub fn set_via_links(&self, links: &[(i64, Option<String>)]) -> Result<()> {
        if links.is_empty() {
            return Ok(());
        }
        let tx = self.begin_write()?;
        {
            let mut set = self
                .conn()
                .prepare_cached("UPDATE documents SET via_link = ?2 WHERE id = ?1")?;
            for (id, link) in links {
                set.execute(params![id, link])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Writes a document with its chunks, tags and (when given) vectors in
    /// one transaction, replacing an earlier version of the same path.
    pub fn write_document(
        &self,
        doc: &NewDocument,
        chunks: &[NewChunk],
        vectors: Option<&[Vec<f32>]>,
    ) -> Result<WriteOutcome> {
        let tx = self.begin_write()?;
        let outcome = self.write_document_in_tx(doc, chunks, vectors)?;
        tx.commit()?;
        Ok(outcome)
    }

    /// As [`Database::write_document`], inside a transaction the caller owns
    /// (batched commits).
    pub fn write_document_in_tx(
        &self,
        doc: &NewDocument,
        chunks: &[NewChunk],
        vectors: Option<&[Vec<f32>]>,
    ) -> Result<WriteOutcome> {
        let conn = self.conn();
        // Only the file's tags of the old metadata are read, not its
        // headings (a long PDF's run to thousands).
        let existing: Option<(i64, Option<String>)> = conn
            .query_row(
                "SELECT id, json_extract(metadata, '$.file_tags') FROM documents
                 WHERE source_path = ?1",
                [&doc.source_path],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        // The tags the file gave before and gives no more go (also when the
        // user gave the same one with kb tag); the user's others stay.
        let dropped: Vec<String> = existing
            .as_ref()
            .and_then(|(_, tags)| tags.as_deref())
            .and_then(|tags| serde_json::from_str::<Vec<String>>(tags).ok())
            .unwrap_or_default()
            .into_iter()
            .filter(|t| !doc.tags.contains(t))
            .collect();
        let outcome = match existing.map(|(id, _)| id) {
            Some(id) => {
                // Chunks go (FTS and vector rows follow through triggers);
                // the document row stays so its id and created_at are stable.
                conn.execute("DELETE FROM chunks WHERE document_id = ?1", [id])?;
                self.apply_removed_codes()?;
                conn.execute(
                    "UPDATE documents SET title = ?2, content_hash = ?3, doc_type = ?4,
                        language = ?5, file_size = ?6, file_mtime = ?7, metadata = ?8,
                        content = ?9, reader_version = ?10,
                        updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')
                     WHERE id = ?1",
                    params![
                        id,
                        doc.title,
                        doc.content_hash,
                        doc.doc_type,
                        doc.language,
                        doc.file_size as i64,
                        doc.file_mtime,
                        doc.metadata.to_json(),
                        doc.content,
                        doc.reader_version
                    ],
                )?;
                WriteOutcome::Replaced(id)
            }
            None => {
                conn.execute(
                    "INSERT INTO documents (title, source_path, content_hash, doc_type, language,
                        file_size, file_mtime, metadata, content, reader_version)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                    params![
                        doc.title,
                        doc.source_path,
                        doc.content_hash,
                        doc.doc_type,
                        doc.language,
                        doc.file_size as i64,
                        doc.file_mtime,
                        doc.metadata.to_json(),
                        doc.content,
                        doc.reader_version
                    ],
                )?;
                WriteOutcome::Added(conn.last_insert_rowid())
            }
        };
        let doc_id = match outcome {
            WriteOutcome::Added(id) | WriteOutcome::Replaced(id) => id,
        };
        self.add_tags(doc_id, &doc.tags)?;
        if !dropped.is_empty() {
            self.remove_tags(doc_id, &dropped)?;
        }

        let mut insert_chunk = conn.prepare_cached(
            "INSERT INTO chunks (document_id, chunk_index, text, token_count, metadata,
                context, doc_title, section, terms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        let mut chunk_ids = Vec::with_capacity(chunks.len());
        for (i, c) in chunks.iter().enumerate() {
            insert_chunk.execute(params![
                doc_id,
                i as i64,
                c.text,
                c.token_count as i64,
                c.metadata.to_json(),
                c.context,
                c.doc_title,
                c.section,
                c.terms
            ])?;
            chunk_ids.push(conn.last_insert_rowid());
        }
        if let Some(vectors) = vectors {
            self.insert_vectors(&chunk_ids, vectors)?;
        }
        Ok(outcome)
    }

    pub fn add_tags(&self, doc_id: i64, tags: &[String]) -> Result<()> {
        let conn = self.conn();
        let mut insert_tag =
            conn.prepare_cached("INSERT INTO tags(name) VALUES (?1) ON CONFLICT(name) DO NOTHING")?;
        let mut link = conn.prepare_cached(
            "INSERT OR IGNORE INTO document_tags(document_id, tag_id)
             SELECT ?1, id FROM tags WHERE name = ?2",
        )?;
        for t in tags {
            insert_tag.execute([t])?;
            link.execute(params![doc_id, t])?;
        }
        Ok(())
    }

    /// Takes `tags` off a document; a tag no document holds any more goes.
    pub fn remove_tags(&self, doc_id: i64, tags: &[String]) -> Result<()> {
        let conn = self.conn();
        let mut unlink = conn.prepare_cached(
            "DELETE FROM document_tags WHERE document_id = ?1
             AND tag_id = (SELECT id FROM tags WHERE name = ?2)",
        )?;
        for t in tags {
            unlink.execute(params![doc_id, t])?;
        }
        conn.execute(
            "DELETE FROM tags WHERE id NOT IN (SELECT tag_id FROM document_tags)",
            [],
        )?;
        Ok(())
    }

    pub fn document_count(&self) -> Result<i64> {
        Ok(self
            .conn()
            .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))?)
    }

    /// Every chunk id, ascending.
    pub fn chunk_ids(&self) -> Result<Vec<i64>> {
        self.column_values("SELECT id FROM chunks ORDER BY id", [])
    }

    /// The ids of the chunks after `last`, ascending.
    pub fn chunk_ids_after(&self, last: i64) -> Result<Vec<i64>> {
        self.column_values("SELECT id FROM chunks WHERE id > ?1 ORDER BY id", [last])
    }

    /// SQLite's `PRAGMA data_version`: changes whenever another connection
    /// commits to the database (this connection's own writes do not count).
    pub fn data_version(&self) -> Result<i64> {
        Ok(self
            .conn()
            .query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    pub fn chunk_count(&self) -> Result<i64> {
        Ok(self
            .conn()
            .query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))?)
    }

    /// Document counts by type, in a stable order.
    pub fn documents_by_type(&self) -> Result<Vec<(DocType, i64)>> {
        let mut stmt = self.conn().prepare(
            "SELECT doc_type, count(*) FROM documents GROUP BY doc_type ORDER BY doc_type",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Document counts by type and the version of the reader that read
    /// them (`ingest::readers`).
    pub fn documents_by_reader(&self) -> Result<Vec<(DocType, u32, i64)>> {
        let mut stmt = self
            .conn()
            .prepare("SELECT doc_type, reader_version, count(*) FROM documents GROUP BY 1, 2")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Tags with the number of documents carrying each, most used first.
    pub fn tag_counts(&self) -> Result<Vec<(String, i64)>> {
        let mut stmt = self.conn().prepare(
            "SELECT t.name, count(dt.document_id) AS n
             FROM tags t JOIN document_tags dt ON dt.tag_id = t.id
             GROUP BY t.id ORDER BY n DESC, t.name ASC",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// When the last document was added or re-indexed.
    pub fn last_ingest_at(&self) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row("SELECT max(updated_at) FROM documents", [], |r| r.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::OpenMode;

    fn doc(path: &str, hash: &str, tags: &[&str]) -> NewDocument {
        NewDocument {
            title: "T".into(),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            ..crate::db::test_support::note(path, hash)
        }
    }

    fn chunk(text: &str) -> NewChunk {
        NewChunk {
            text: text.into(),
            token_count: 1,
            ..Default::default()
        }
    }

    #[test]
    fn write_replace_and_tags() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        let out = db
            .write_document(
                &doc("/a", "h1", &["x", "y"]),
                &[chunk("alpha"), chunk("beta")],
                None,
            )
            .unwrap();
        let WriteOutcome::Added(id) = out else {
            panic!()
        };
        assert_eq!(db.chunk_count().unwrap(), 2);
        let out = db
            .write_document(&doc("/a", "h2", &["x"]), &[chunk("gamma")], None)
            .unwrap();
        assert_eq!(out, WriteOutcome::Replaced(id));
        assert_eq!(db.chunk_count().unwrap(), 1);
        assert_eq!(
            db.find_document_by_path("/a")
                .unwrap()
                .unwrap()
                .content_hash,
            "h2"
        );
        let fts: i64 = db
            .conn()
            .query_row(
                "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'alpha'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(fts, 0, "replaced chunks leave the keyword index");
        assert_eq!(
            db.tag_counts().unwrap(),
            vec![("x".to_string(), 1), ("y".to_string(), 1)]
        );
    }

    #[test]
    fn a_writer_waits_for_another_writers_lock_instead_of_failing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("kb.db");
        let db = Database::open(&p, OpenMode::Create).unwrap();
        let other = rusqlite::Connection::open(&p).unwrap();
        other
            .execute_batch("BEGIN IMMEDIATE; INSERT INTO config(key, value) VALUES ('x', '1');")
            .unwrap();
        let committer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            other.execute_batch("COMMIT").unwrap();
        });
        // write_document reads before it writes: in a deferred transaction
        // SQLite would refuse the upgrade at once ("database is locked").
        db.write_document(&doc("/a", "h1", &[]), &[chunk("alpha")], None)
            .unwrap();
        committer.join().unwrap();
        assert_eq!(db.get_config("x").unwrap().as_deref(), Some("1"));
        assert_eq!(db.chunk_count().unwrap(), 1);
    }

    #[test]
    fn tags_are_normalized() {
        assert_eq!(
            normalize_tags([" Git ", "git", "", "Admin"]),
            vec!["git", "admin"]
        );
        assert_eq!(
            normalize_tags(["Field\nNotes", "\t", "a \r\n b"]),
            vec!["field notes", "a b"]
        );
        assert_eq!(
            normalize_tags(["team,urgent", "a, b,", "urgent"]),
            vec!["team", "urgent", "a", "b"]
        );
    }
}
