-- 008: the codes of a fresh process's vector ranker stored in blocks of
-- 1,024 per row, so the scan reads a few hundred long blobs instead of a
-- row per chunk scattered through the file (at 1,000,000 chunks the row
-- scan cost about 0.7 s). New codes still go to chunk_codes, one row each;
-- kb seals them into a block once 1,024 are waiting (they are the newest
-- chunks, so blocks cover ascending, disjoint chunk id ranges). A deleted
-- chunk's code leaves chunk_codes at once; one inside a block is noted in
-- chunk_codes_removed, and the transaction that deleted it rewrites the
-- block without it. kb seals the codes already stored when this migration
-- runs.
CREATE TABLE chunk_code_blocks (
    id INTEGER PRIMARY KEY,
    first_chunk INTEGER NOT NULL,
    last_chunk INTEGER NOT NULL,
    -- Bytes per code: scale (f32), error (f32), one int8 per dimension.
    width INTEGER NOT NULL,
    -- The chunk ids, 8 bytes each (little-endian), in code order.
    chunk_ids BLOB NOT NULL,
    codes BLOB NOT NULL
);

CREATE INDEX chunk_code_blocks_range ON chunk_code_blocks(last_chunk, first_chunk);

CREATE TABLE chunk_codes_removed (
    chunk_id INTEGER PRIMARY KEY
);

DROP TRIGGER chunk_codes_ad;

CREATE TRIGGER chunk_codes_ad AFTER DELETE ON chunks BEGIN
    DELETE FROM chunk_codes WHERE chunk_id = old.id;
    INSERT OR IGNORE INTO chunk_codes_removed(chunk_id)
        SELECT old.id WHERE EXISTS (
            SELECT 1 FROM chunk_code_blocks
            WHERE last_chunk >= old.id AND first_chunk <= old.id
        );
END;
