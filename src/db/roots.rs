//! The roots of a knowledge base: the files and folders given to `kb add`
//! (by canonical path, stored like `documents.source_path`) with what add
//! was told about them (tags, following links), and which of them the walk
//! reached each document from (`document_roots`).

use std::collections::HashSet;

use rusqlite::{params, OptionalExtension};

use super::Database;
use crate::error::Result;

/// What a root is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RootKind {
    Folder,
    File,
}

impl RootKind {
    fn as_str(self) -> &'static str {
        match self {
            RootKind::Folder => "folder",
            RootKind::File => "file",
        }
    }
}

/// A recorded root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub id: i64,
    /// The canonical path in its stored form (`source_path::encode`).
    pub path: String,
    pub kind: RootKind,
    /// The tags every new or changed document under it gets.
    pub tags: Vec<String>,
    /// Links under it are followed wherever they lead.
    pub follow_external_links: bool,
}

/// A root as one run of `kb add` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRoot {
    pub path: String,
    pub kind: RootKind,
    /// Added to the tags recorded for it.
    pub tags: Vec<String>,
    /// Once given, kept: a later add without it walks the root the same way.
    pub follow_external_links: bool,
}

impl Root {
    /// Whether the stored path `path` lies inside this root (is the file
    /// itself, or under the folder).
    pub fn holds(&self, path: &str) -> bool {
        match self.kind {
            RootKind::File => path == self.path,
            RootKind::Folder => {
                path == self.path
                    || path
                        .strip_prefix(self.path.as_str())
                        .is_some_and(|rest| rest.starts_with('/') || self.path.ends_with('/'))
            }
        }
    }
}

impl Database {
    /// Every recorded root, oldest first.
    pub fn roots(&self) -> Result<Vec<Root>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT id, path, kind, tags, follow_external_links FROM roots ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            let kind: String = r.get(2)?;
            let tags: String = r.get(3)?;
            Ok(Root {
                id: r.get(0)?,
                path: r.get(1)?,
                kind: if kind == "file" {
                    RootKind::File
                } else {
                    RootKind::Folder
                },
                tags: serde_json::from_str(&tags).unwrap_or_default(),
                follow_external_links: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Records roots (a path recorded already keeps its id; its kind is
    /// brought up to date, the tags given join its own, and following links
    /// once asked for stays) in one transaction; returns their ids in order.
    pub fn record_roots(&self, roots: &[NewRoot]) -> Result<Vec<i64>> {
        let tx = self.begin_write()?;
        let mut ids = Vec::with_capacity(roots.len());
        for root in roots {
            let before: Option<(i64, String)> = self
                .conn()
                .query_row(
                    "SELECT id, tags FROM roots WHERE path = ?1",
                    [&root.path],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let mut tags: Vec<String> = before
                .as_ref()
                .and_then(|(_, t)| serde_json::from_str(t).ok())
                .unwrap_or_default();
            tags.extend(root.tags.iter().cloned());
            let tags = serde_json::to_string(&super::normalize_tags(&tags))
                .map_err(|e| crate::error::KbError::Internal(e.to_string()))?;
            self.conn().execute(
                "INSERT INTO roots (path, kind, tags, follow_external_links) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, tags = excluded.tags,
                    follow_external_links = follow_external_links OR excluded.follow_external_links",
                params![root.path, root.kind.as_str(), tags, root.follow_external_links],
            )?;
            ids.push(self.conn().query_row(
                "SELECT id FROM roots WHERE path = ?1",
                [&root.path],
                |r| r.get(0),
            )?);
        }
        tx.commit()?;
        Ok(ids)
    }

    /// Forgets roots: they are no longer walked, warned about or counted
    /// (their documents stay until no root reaches them).
    pub fn forget_roots(&self, ids: &[i64]) -> Result<usize> {
        let tx = self.begin_write()?;
        let mut n = 0;
        for id in ids {
            n += self
                .conn()
                .execute("DELETE FROM roots WHERE id = ?1", [id])?;
        }
        tx.commit()?;
        Ok(n)
    }

    /// Keeps files out of every walk (`kb remove` of a file still under an
    /// added folder), so `kb update` does not add them again.
    pub fn keep_out(&self, paths: &[String]) -> Result<()> {
        let tx = self.begin_write()?;
        for path in paths {
            self.conn().execute(
                "INSERT INTO kept_out (path) VALUES (?1) ON CONFLICT(path) DO NOTHING",
                [path],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Lets files kept out into walks again (named to `kb add`).
    pub fn let_in(&self, paths: &[String]) -> Result<()> {
        let tx = self.begin_write()?;
        for path in paths {
            self.conn()
                .execute("DELETE FROM kept_out WHERE path = ?1", [path])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The files kept out of walks (stored form).
    pub fn kept_out(&self) -> Result<HashSet<String>> {
        let paths: Vec<String> = self.column_values("SELECT path FROM kept_out", [])?;
        Ok(paths.into_iter().collect())
    }

    /// The documents a root's walks reached.
    pub fn root_documents(&self, root_id: i64) -> Result<HashSet<i64>> {
        let ids: Vec<i64> = self.column_values(
            "SELECT document_id FROM document_roots WHERE root_id = ?1",
            [root_id],
        )?;
        Ok(ids.into_iter().collect())
    }

    /// Records that a walk of `root_id` reached `reached` and, when the walk
    /// ran to its end (`complete`), that it no longer reaches `lost`;
    /// stamps the root as walked then. One transaction.
    pub fn set_root_documents(
        &self,
        root_id: i64,
        reached: &[i64],
        lost: &[i64],
        complete: bool,
    ) -> Result<()> {
        let tx = self.begin_write()?;
        {
            let mut link = self.conn().prepare_cached(
                "INSERT OR IGNORE INTO document_roots (root_id, document_id) VALUES (?1, ?2)",
            )?;
            for id in reached {
                link.execute(params![root_id, id])?;
            }
            let mut unlink = self.conn().prepare_cached(
                "DELETE FROM document_roots WHERE root_id = ?1 AND document_id = ?2",
            )?;
            for id in lost {
                unlink.execute(params![root_id, id])?;
            }
        }
        if complete {
            self.conn().execute(
                "UPDATE roots SET walked_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = ?1",
                [root_id],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The roots whose walks reached a document.
    pub fn document_root_ids(&self, document_id: i64) -> Result<Vec<i64>> {
        self.column_values(
            "SELECT root_id FROM document_roots WHERE document_id = ?1 ORDER BY root_id",
            [document_id],
        )
    }

    /// Those of `ids` that no root reaches (any more).
    pub fn unreached_documents(&self, ids: &[i64]) -> Result<Vec<i64>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM document_roots WHERE document_id = ?1)",
        )?;
        let mut out = Vec::new();
        for id in ids {
            let reached: bool = stmt.query_row([id], |r| r.get(0))?;
            if !reached {
                out.push(*id);
            }
        }
        Ok(out)
    }

    /// Documents no recorded root reaches, with their stored paths (those
    /// indexed before roots were recorded, or through a link since gone).
    pub fn documents_without_root(&self) -> Result<Vec<(i64, String)>> {
        let mut stmt = self.conn().prepare(
            "SELECT id, source_path FROM documents d
             WHERE source_path IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM document_roots r WHERE r.document_id = d.id)
             ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::test_support::note;
    use crate::db::OpenMode;

    #[test]
    fn roots_hold_their_paths_and_links_follow_documents() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("kb.db"), OpenMode::Create).unwrap();
        let root = |path: &str, kind, tags: &[&str], follow| NewRoot {
            path: path.into(),
            kind,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            follow_external_links: follow,
        };
        let ids = db
            .record_roots(&[
                root("/home/me/notes", RootKind::Folder, &["work"], true),
                root("/home/me/report.pdf", RootKind::File, &[], false),
            ])
            .unwrap();
        // Recording again keeps the id, adds tags and keeps following links.
        assert_eq!(
            db.record_roots(&[root("/home/me/notes", RootKind::Folder, &["Ops"], false)])
                .unwrap(),
            ids[..1]
        );
        let roots = db.roots().unwrap();
        assert_eq!(roots.len(), 2);
        let (notes, report) = (&roots[0], &roots[1]);
        assert_eq!(notes.tags, ["work", "ops"]);
        assert!(notes.follow_external_links && !report.follow_external_links);
        assert!(notes.holds("/home/me/notes/a.md") && notes.holds("/home/me/notes"));
        assert!(!notes.holds("/home/me/notes-old/a.md") && !notes.holds("/etc/shadow"));
        assert!(report.holds("/home/me/report.pdf") && !report.holds("/home/me/report.pdf.bak"));

        let a = db.write_document(&note("/home/me/notes/a.md", "a"), &[], None);
        let b = db.write_document(&note("/etc/shadow", "b"), &[], None);
        let (a, b) = match (a.unwrap(), b.unwrap()) {
            (crate::db::WriteOutcome::Added(a), crate::db::WriteOutcome::Added(b)) => (a, b),
            other => panic!("{other:?}"),
        };
        db.set_root_documents(notes.id, &[a, b], &[], false)
            .unwrap();
        assert_eq!(db.root_documents(notes.id).unwrap(), HashSet::from([a, b]));
        assert!(db.unreached_documents(&[a, b]).unwrap().is_empty());
        db.set_root_documents(notes.id, &[a], &[b], true).unwrap();
        assert_eq!(db.unreached_documents(&[a, b]).unwrap(), [b]);
        assert_eq!(
            db.documents_without_root().unwrap(),
            [(b, "/etc/shadow".to_string())]
        );
        // Removing a document drops its links.
        db.remove_documents(&[a]).unwrap();
        assert!(db.root_documents(notes.id).unwrap().is_empty());
        // A forgotten root is gone with its links.
        assert_eq!(db.forget_roots(&[report.id]).unwrap(), 1);
        assert_eq!(db.roots().unwrap().len(), 1);
    }
}
