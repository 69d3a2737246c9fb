-- 012: what `kb add` was told about each root, so that `kb update` (and a
-- later `kb add` of the same root) walks it the same way: the tags its new
-- and changed documents get (a JSON array; tags belong to the root, as
-- collections do in qmd), and whether links to outside every root are
-- followed under it (`--follow-external-links`).

ALTER TABLE roots ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE roots ADD COLUMN follow_external_links INTEGER NOT NULL DEFAULT 0;
