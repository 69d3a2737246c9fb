-- 002: the document text as indexed (for `kb open` and `kb show --section`)
-- and the search log (for `kb stats`).

ALTER TABLE documents ADD COLUMN content TEXT;

CREATE TABLE search_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    source TEXT NOT NULL DEFAULT 'cli',      -- cli or mcp
    query TEXT NOT NULL,
    mode TEXT NOT NULL,                      -- hybrid, keyword, vector
    filters TEXT NOT NULL DEFAULT '{}',      -- JSON: tags, type, top, threshold
    result_count INTEGER NOT NULL DEFAULT 0,
    duration_ms REAL NOT NULL DEFAULT 0,
    error TEXT
);
CREATE INDEX search_log_ts ON search_log(ts);
