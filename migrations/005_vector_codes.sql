-- A compact copy of every vector for a fresh process's vector ranker:
-- int8 codes with the scale that maps them back and the size of the
-- rounding error, 392 bytes per 384-dimension vector against vec0's 1,536.
-- The codes pick candidates with a proven error bound; the exact floats in
-- chunks_vec re-score them, so results equal an exact scan. Written in the
-- same transaction as the vectors; kb fills it for existing vectors when
-- this migration runs.
CREATE TABLE chunk_codes (
    chunk_id INTEGER PRIMARY KEY,
    code BLOB NOT NULL
);

CREATE TRIGGER chunk_codes_ad AFTER DELETE ON chunks BEGIN
    DELETE FROM chunk_codes WHERE chunk_id = old.id;
END;
