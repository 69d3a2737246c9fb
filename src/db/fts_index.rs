//! Reading the keyword index (`chunks_fts`) as FTS5 holds it, for the
//! in-memory copy of `kb mcp` (`search::keyword_index`): every token
//! occurrence (through an `fts5vocab` table), each row's size in tokens
//! (the `docsize` table FTS5's bm25 reads) and the totals bm25 averages
//! over (the `averages` record).

use rusqlite::params_from_iter;

use super::Database;
use crate::error::{KbError, Result};

/// The keyword index's columns, in the order bm25's weights are given.
pub const FTS_COLUMNS: [&str; 4] = ["text", "doc_title", "section", "terms"];

/// The averages record's row in `chunks_fts_data` (`FTS5_AVERAGES_ROWID`).
const AVERAGES_ROWID: i64 = 1;

/// What bm25 averages over: the rows of the keyword index and their
/// tokens, all columns together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FtsTotals {
    pub rows: u64,
    pub tokens: u64,
}

/// A chunk's columns as the keyword index was given them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtsRow {
    pub chunk_id: i64,
    pub columns: [String; 4],
}

/// Reads one SQLite varint (FTS5's records use them): the value and the
/// bytes it took, `None` when the buffer ends first.
fn read_varint(buf: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for (i, &b) in buf.iter().enumerate().take(9) {
        if i == 8 {
            return Some(((v << 8) | b as u64, 9));
        }
        v = (v << 7) | (b & 0x7f) as u64;
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// The varints of a record, in order.
fn read_varints(mut buf: &[u8], what: &str) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    while !buf.is_empty() {
        let (v, n) = read_varint(buf).ok_or_else(|| {
            KbError::Db(format!("the keyword index's {what} record is cut short"))
        })?;
        out.push(v);
        buf = &buf[n..];
    }
    Ok(out)
}

impl Database {
    /// Checks that `chunks_fts` has the columns kb's keyword index reads.
    fn check_fts_columns(&self) -> Result<()> {
        let names: Vec<String> = self.column_values(
            "SELECT name FROM pragma_table_info('chunks_fts') ORDER BY cid",
            [],
        )?;
        if names != FTS_COLUMNS {
            return Err(KbError::Db(format!(
                "the keyword index has the columns {names:?}, not {FTS_COLUMNS:?}"
            )));
        }
        Ok(())
    }

    /// Every token occurrence in the keyword index, grouped by token and
    /// within a token by chunk id, ascending: `f(token, chunk id, column)`.
    pub fn for_each_fts_instance(
        &self,
        mut f: impl FnMut(&[u8], i64, usize) -> Result<()>,
    ) -> Result<()> {
        self.check_fts_columns()?;
        self.conn().execute_batch(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.kb_fts_instances
                 USING fts5vocab(main, chunks_fts, instance);",
        )?;
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT term, doc, col FROM temp.kb_fts_instances")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let term = bytes(row.get_ref(0)?)?;
            let doc: i64 = row.get(1)?;
            let col = bytes(row.get_ref(2)?)?;
            let col = FTS_COLUMNS
                .iter()
                .position(|c| c.as_bytes() == col)
                .ok_or_else(|| {
                    KbError::Db(format!(
                        "the keyword index has an unknown column {}",
                        String::from_utf8_lossy(col)
                    ))
                })?;
            f(term, doc, col)?;
        }
        Ok(())
    }

    /// Each row's size in tokens, per column, as bm25 reads it (FTS5's
    /// `docsize` table), ascending by chunk id.
    pub fn for_each_fts_row_size(&self, mut f: impl FnMut(i64, [u32; 4])) -> Result<()> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT id, sz FROM chunks_fts_docsize ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            f(id, row_sizes(bytes(row.get_ref(1)?)?)?);
        }
        Ok(())
    }

    /// The chunk ids the keyword index holds up to `last`, ascending.
    pub fn fts_row_ids_up_to(&self, last: i64) -> Result<Vec<i64>> {
        self.column_values(
            "SELECT id FROM chunks_fts_docsize WHERE id <= ?1 ORDER BY id",
            [last],
        )
    }

    /// The chunk ids the keyword index holds after `last`, ascending.
    pub fn fts_row_ids_after(&self, last: i64) -> Result<Vec<i64>> {
        self.column_values(
            "SELECT id FROM chunks_fts_docsize WHERE id > ?1 ORDER BY id",
            [last],
        )
    }

    /// `select` (ending in `WHERE id IN`) over `ids`, 500 at a time:
    /// each row mapped by `f`, ascending by `key`.
    fn rows_by_id<T>(
        &self,
        select: &str,
        ids: &[i64],
        mut f: impl FnMut(&rusqlite::Row<'_>) -> Result<T>,
        key: impl Fn(&T) -> i64,
    ) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(ids.len());
        for part in ids.chunks(500) {
            let marks = vec!["?"; part.len()].join(",");
            let mut stmt = self.conn().prepare_cached(&format!("{select} ({marks})"))?;
            let mut rows = stmt.query(params_from_iter(part))?;
            while let Some(row) = rows.next()? {
                out.push(f(row)?);
            }
        }
        out.sort_by_key(key);
        Ok(out)
    }

    /// The sizes of the given rows (those still in the index).
    pub fn fts_row_sizes(&self, ids: &[i64]) -> Result<Vec<(i64, [u32; 4])>> {
        self.rows_by_id(
            "SELECT id, sz FROM chunks_fts_docsize WHERE id IN",
            ids,
            |row| Ok((row.get(0)?, row_sizes(bytes(row.get_ref(1)?)?)?)),
            |r| r.0,
        )
    }

    /// The row count and token total bm25 averages over.
    pub fn fts_totals(&self) -> Result<FtsTotals> {
        let block: Option<Vec<u8>> = self
            .conn()
            .query_row(
                "SELECT block FROM chunks_fts_data WHERE id = ?1",
                [AVERAGES_ROWID],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })?;
        let Some(block) = block else {
            return Ok(FtsTotals::default());
        };
        let values = read_varints(&block, "averages")?;
        let Some((&rows, columns)) = values.split_first() else {
            return Ok(FtsTotals::default());
        };
        Ok(FtsTotals {
            rows,
            tokens: columns.iter().sum(),
        })
    }

    /// The keyword index's columns of the given chunks, ascending by id.
    pub fn fts_rows(&self, ids: &[i64]) -> Result<Vec<FtsRow>> {
        self.rows_by_id(
            "SELECT id, text, doc_title, section, terms FROM chunks WHERE id IN",
            ids,
            |r| {
                Ok(FtsRow {
                    chunk_id: r.get(0)?,
                    columns: [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?],
                })
            },
            |r| r.chunk_id,
        )
    }
}

/// A text or blob column's bytes.
#[inline]
fn bytes(v: rusqlite::types::ValueRef<'_>) -> Result<&[u8]> {
    match v {
        rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => Ok(b),
        other => Err(KbError::Db(format!(
            "the keyword index holds a {:?} where text was expected",
            other.data_type()
        ))),
    }
}

/// Counts chunks written or deleted since the keyword index was last
/// merged (`config`), across runs.
const WRITES_KEY: &str = "keyword_index_writes";

/// The keyword index is merged once the chunks written or deleted since
/// it last was reach this share of its rows (1 in 4).
const MERGE_SHARE: (u64, u64) = (1, 4);

/// The structure record's row in `chunks_fts_data` (`FTS5_STRUCTURE_ROWID`).
const STRUCTURE_ROWID: i64 = 10;

impl Database {
    /// Records `written` chunks written to (or deleted from) the keyword
    /// index and, with `merge` and once those since it was last merged
    /// reach a quarter of its rows, merges it into one segment (FTS5's
    /// `optimize`); returns whether it did. A chunk written again leaves
    /// its old postings and a delete marker behind: after `kb update
    /// --reread` of 37 filings the index held 3.7 times the pages it
    /// needs and a keyword search took 2.5 to 3.7 times as long. Merging
    /// costs about a second per 25,000 chunks, and a quarter of the index
    /// written costs far more to read and embed; `merging` is told just
    /// before a merge starts (a progress line says why the run waits).
    pub fn note_keyword_writes(
        &self,
        written: u64,
        merge: bool,
        merging: impl FnOnce(),
    ) -> Result<bool> {
        if written == 0 {
            return Ok(false);
        }
        let before = self
            .get_config(WRITES_KEY)?
            .and_then(|v| v.parse::<u64>().ok());
        let since = before.unwrap_or(0).saturating_add(written);
        let rows = u64::try_from(self.chunk_count()?).unwrap_or(0);
        let (share, of) = MERGE_SHARE;
        if merge && since.saturating_mul(of) >= rows.saturating_mul(share) {
            self.writable()?;
            merging();
            self.conn
                .execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')", [])?;
            self.set_config(WRITES_KEY, "0")?;
            return Ok(true);
        }
        self.set_config(WRITES_KEY, &since.to_string())?;
        Ok(false)
    }

    /// How many segments the keyword index is in (its structure record's
    /// count; a query reads each).
    pub fn keyword_segments(&self) -> Result<u64> {
        let block: Vec<u8> = self.conn.query_row(
            "SELECT block FROM chunks_fts_data WHERE id = ?1",
            [STRUCTURE_ROWID],
            |r| r.get(0),
        )?;
        // A 4-byte cookie, FTS5's mark of its second layout if present,
        // then the levels and the segments.
        let rest = block.get(4..).unwrap_or_default();
        let rest = rest.strip_prefix(&[0xff, 0, 0, 1][..]).unwrap_or(rest);
        let counts = read_varint(rest).and_then(|(_, n)| read_varint(&rest[n..]));
        counts
            .map(|(segments, _)| segments)
            .ok_or_else(|| KbError::Db("the keyword index's structure record is cut short".into()))
    }
}

/// A `docsize` record: one varint per column.
fn row_sizes(blob: &[u8]) -> Result<[u32; 4]> {
    let values = read_varints(blob, "row size")?;
    let mut sizes = [0u32; 4];
    if values.len() != sizes.len() {
        return Err(KbError::Db(format!(
            "a keyword index row size names {} columns, not {}",
            values.len(),
            sizes.len()
        )));
    }
    for (s, v) in sizes.iter_mut().zip(values) {
        *s = u32::try_from(v).map_err(|_| KbError::Db("a keyword index row too long".into()))?;
    }
    Ok(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keyword_index_is_merged_once_a_quarter_of_it_was_written_since() {
        use crate::db::test_support::{bound_database, note, unit_vectors};
        let dir = tempfile::tempdir().unwrap();
        let db = bound_database(dir.path(), 4);
        let mut vector = unit_vectors(1, 4);
        let mut ids = Vec::new();
        for i in 0..40 {
            let chunks = crate::db::test_support::chunks(&format!("alpha {i}"), 2);
            let vectors: Vec<Vec<f32>> = (0..2).map(|_| vector()).collect();
            let doc = note(&format!("n{i}.txt"), &i.to_string());
            let written = db.write_document(&doc, &chunks, Some(&vectors)).unwrap();
            let (crate::db::WriteOutcome::Added(id) | crate::db::WriteOutcome::Replaced(id)) =
                written;
            ids.push(id);
        }
        assert!(db.keyword_segments().unwrap() > 1);
        // 80 rows: 10 written is under a quarter, 10 more reaches it.
        let told = std::cell::Cell::new(0);
        let merging = || told.set(told.get() + 1);
        assert!(!db.note_keyword_writes(10, true, merging).unwrap());
        assert!(!db.note_keyword_writes(0, true, merging).unwrap());
        assert!(!db.note_keyword_writes(10, false, merging).unwrap());
        assert_eq!(told.get(), 0);
        assert!(db.note_keyword_writes(1, true, merging).unwrap());
        assert_eq!(told.get(), 1, "a merge is told before it starts");
        assert_eq!(db.keyword_segments().unwrap(), 1);
        assert!(!db.note_keyword_writes(1, true, merging).unwrap());
        let hits: i64 = db
            .conn
            .query_row(
                "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'alpha'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(hits, 80);
        // Deleting leaves delete markers: with the 1 counted before, 10
        // rows deleted are under a quarter of the 70 left, 16 reach one of 64.
        db.remove_documents(&ids[..5]).unwrap();
        assert!(db.keyword_segments().unwrap() > 1);
        db.remove_documents(&ids[5..8]).unwrap();
        assert_eq!(db.keyword_segments().unwrap(), 1);
    }

    #[test]
    fn varints_as_sqlite_writes_them() {
        assert_eq!(read_varint(&[0x05]), Some((5, 1)));
        assert_eq!(read_varint(&[0x81, 0x00]), Some((128, 2)));
        assert_eq!(read_varint(&[0x82, 0x80, 0x01]), Some((0x8001, 3)));
        assert_eq!(read_varint(&[0xff; 9]), Some((u64::MAX, 9)));
        assert_eq!(read_varint(&[0x81]), None);
    }
}
