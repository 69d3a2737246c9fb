-- 009: the files and folders given to `kb add` (its roots, by canonical
-- path, stored like documents.source_path) and which of them the walk
-- reached each document from. A document is pruned when no walk reaches it
-- any more (a link that brought it in is gone), links are followed only to
-- targets inside a root, and `kb doctor` names documents outside every
-- root. Knowledge bases built before this have no roots: their documents
-- are linked as the next `kb add` of each folder reaches them.

CREATE TABLE IF NOT EXISTS roots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('folder', 'file')),
    added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    -- When a walk of it last ran to the end.
    walked_at TEXT
);

CREATE TABLE IF NOT EXISTS document_roots (
    root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    PRIMARY KEY (root_id, document_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS document_roots_document ON document_roots(document_id);
