-- 007: source paths are stored losslessly: bytes of a file name that are not
-- UTF-8 as \xHH escapes, so a backslash itself is written \\ (see
-- src/ingest/source_path.rs). Paths stored before keep their meaning.

UPDATE documents SET source_path = replace(source_path, '\', '\\')
WHERE instr(source_path, '\') > 0;
