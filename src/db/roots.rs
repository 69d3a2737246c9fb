//! The roots of a knowledge base: the files and folders given to `kb add`
//! (by canonical path, stored like `documents.source_path`), and which of
//! them the walk reached each document from (`document_roots`).

use std::collections::HashSet;

use rusqlite::params;

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
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT id, path, kind FROM roots ORDER BY id")?;
        let rows = stmt.query_map([], |r| {
            let kind: String = r.get(2)?;
            Ok(Root {
                id: r.get(0)?,
                path: r.get(1)?,
                kind: if kind == "file" {
                    RootKind::File
                } else {
                    RootKind::Folder
                },
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Records roots (a path recorded already keeps its id; its kind is
    /// brought up to date) in one transaction; returns their ids in order.
    pub fn record_roots(&self, roots: &[(String, RootKind)]) -> Result<Vec<i64>> {
        let tx = self.begin_write()?;
        let mut ids = Vec::with_capacity(roots.len());
        for (path, kind) in roots {
            self.conn().execute(
                "INSERT INTO roots (path, kind) VALUES (?1, ?2)
                 ON CONFLICT(path) DO UPDATE SET kind = excluded.kind",
                params![path, kind.as_str()],
            )?;
            ids.push(self.conn().query_row(
                "SELECT id FROM roots WHERE path = ?1",
                [path],
                |r| r.get(0),
            )?);
        }
        tx.commit()?;
        Ok(ids)
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
        let ids = db
            .record_roots(&[
                ("/home/me/notes".into(), RootKind::Folder),
                ("/home/me/report.pdf".into(), RootKind::File),
            ])
            .unwrap();
        // Recording again keeps the id.
        assert_eq!(
            db.record_roots(&[("/home/me/notes".into(), RootKind::Folder)])
                .unwrap(),
            ids[..1]
        );
        let roots = db.roots().unwrap();
        assert_eq!(roots.len(), 2);
        let (notes, report) = (&roots[0], &roots[1]);
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
    }
}
