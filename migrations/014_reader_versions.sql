-- 014: which version of kb's reader of its kind of file read each document
-- (see `ingest::readers`). A document read by an older version is read
-- again at the next `kb add` or `kb update` that reaches its file, so what
-- a newer kb reads better reaches it. Documents indexed before this
-- migration were read by a reader older than every numbered one.
ALTER TABLE documents ADD COLUMN reader_version INTEGER NOT NULL DEFAULT 0;
