-- 006: contextual chunks. Each chunk keeps the header it is embedded with
-- (context: document title or file name as words, section chain, code
-- context lines), its document title and section as keyword-index columns
-- of their own (weighted in BM25), and extra searchable forms of its numbers,
-- identifiers and CJK text (terms). The keyword index is rebuilt with the new
-- columns. Vectors made before this version were embedded without headers:
-- the database is marked so `kb add` asks for `kb reindex` (which fills the
-- headers and re-embeds) instead of mixing the two kinds.

ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN doc_title TEXT NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN terms TEXT NOT NULL DEFAULT '';

DROP TRIGGER chunks_ai;
DROP TRIGGER chunks_ad;
DROP TRIGGER chunks_au;
DROP TABLE chunks_fts;

UPDATE chunks SET
    doc_title = (SELECT d.title FROM documents d WHERE d.id = chunks.document_id),
    section = coalesce(json_extract(metadata, '$.section'), '');

CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text,
    doc_title,
    section,
    terms,
    content = 'chunks',
    content_rowid = 'id',
    tokenize = 'porter unicode61'
);
INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');

CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, doc_title, section, terms)
    VALUES (new.id, new.text, new.doc_title, new.section, new.terms);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, doc_title, section, terms)
    VALUES ('delete', old.id, old.text, old.doc_title, old.section, old.terms);
END;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, doc_title, section, terms)
    VALUES ('delete', old.id, old.text, old.doc_title, old.section, old.terms);
    INSERT INTO chunks_fts(rowid, text, doc_title, section, terms)
    VALUES (new.id, new.text, new.doc_title, new.section, new.terms);
END;

INSERT INTO config(key, value)
SELECT 'headers_pending', '1' WHERE EXISTS (SELECT 1 FROM chunks)
ON CONFLICT(key) DO UPDATE SET value = excluded.value;
