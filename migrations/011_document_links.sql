-- 011: the link a document was reached through, when the walks of `kb add`
-- reach its file only through that one link (stored like source_path; NULL
-- when the file is reached directly, through several links, or by a root
-- another run walks). With the link gone or pointing elsewhere the
-- document is stale: the next walk no longer reaches it.

ALTER TABLE documents ADD COLUMN via_link TEXT;
