-- 001_initial: documents, chunks, the FTS5 keyword index, tags, config.
-- The vector table chunks_vec is created by `kb init`, because its dimension
-- depends on the embedding model.

CREATE TABLE documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    source_path TEXT,
    content_hash TEXT NOT NULL,               -- SHA-256 of the file's bytes
    doc_type TEXT NOT NULL CHECK (doc_type IN ('pdf', 'markdown', 'code', 'note')),
    language TEXT,                            -- for code: python, bash, go
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    file_size INTEGER,                        -- bytes, when indexed
    file_mtime INTEGER,                       -- seconds since the epoch, when indexed
    metadata TEXT NOT NULL DEFAULT '{}'       -- JSON: frontmatter, page_count, ...
);
CREATE UNIQUE INDEX documents_source_path ON documents(source_path);
CREATE INDEX documents_doc_type ON documents(doc_type);

CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    text TEXT NOT NULL,
    token_count INTEGER,
    metadata TEXT NOT NULL DEFAULT '{}',      -- JSON: section, page, symbol_name, lines
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE UNIQUE INDEX chunks_document_index ON chunks(document_id, chunk_index);

CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text,
    content = 'chunks',
    content_rowid = 'id',
    tokenize = 'porter unicode61'
);

CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;

CREATE TABLE tags (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT UNIQUE NOT NULL
);

CREATE TABLE document_tags (
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    PRIMARY KEY (document_id, tag_id)
);
CREATE INDEX document_tags_tag ON document_tags(tag_id);

-- What the database was built with: schema_version, model_name,
-- embedding_dim, model_max_tokens, model_fingerprint, ...
CREATE TABLE config (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
