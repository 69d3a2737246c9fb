-- 010: any document type kb knows may be stored. The type list was a CHECK
-- constraint of documents.doc_type; kb checks the type itself (it reads
-- only the names it knows), so the constraint is removed rather than
-- widened, and a new format needs no migration. SQLite cannot drop a
-- constraint in place, and rebuilding the table would cascade-delete its
-- chunks, so the stored schema text is edited (SQLite documents this for
-- removing CHECK constraints; the file's content does not change); the
-- schema cookie is bumped by the caller (src/db/mod.rs).

PRAGMA writable_schema = ON;
UPDATE sqlite_master
SET sql = replace(sql, ' CHECK (doc_type IN (''pdf'', ''markdown'', ''code'', ''note''))', '')
WHERE type = 'table' AND name = 'documents';
PRAGMA writable_schema = OFF;
