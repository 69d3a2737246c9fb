-- 013: files the user removed with `kb remove` while they are still on
-- disk under an added folder (stored like documents.source_path): walks
-- pass them by, so `kb update` does not bring them back. Naming such a
-- file to `kb add` lets it in again.

CREATE TABLE IF NOT EXISTS kept_out (
    path TEXT PRIMARY KEY,
    removed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) WITHOUT ROWID;
