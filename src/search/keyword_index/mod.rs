//! The in-memory keyword index of a long-running process (`kb mcp`): every
//! token's posting list read once from FTS5's own index, refreshed as
//! documents come and go. It ranks a query by exactly FTS5's bm25 (the
//! same formula, IDF and average length, evaluated in the same order, so
//! the same floating-point scores) and breaks ties as SQLite's
//! `ORDER BY score` does (by chunk id), so a search through it returns
//! what `chunks_fts MATCH` returns. FTS5 scores every row a query word
//! matches through per-row SQL lookups (80 ms for a five-word query that
//! matches a fifth of a million chunks); here the same work is a pass over
//! packed postings with the rows' lengths in memory.
//!
//! It ranks queries whose every phrase is one token, which is what
//! `query::keyword_phrases` makes of ordinary words; the caller asks FTS5
//! for anything else.

mod postings;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Mutex;

use postings::{has_overflow, ColumnCounts, PostingList};

use super::allowed::Allowed;
use crate::db::{ColumnWeights, Database, FtsTotals, TokenPurpose};
use crate::error::{KbError, Result};

/// bm25's constants, as FTS5 fixes them.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Removed rows stay in the posting lists, skipped, until they are this
/// share of all rows; then the lists are rewritten without them.
const COMPACT_SHARE: usize = 4;

#[derive(Default)]
pub struct KeywordIndex {
    /// Each row's chunk id, ascending (a row is an index into this).
    ids: Vec<i64>,
    /// Each row's size in tokens, all columns together (FTS5's docsize).
    sizes: Vec<u32>,
    alive: Vec<bool>,
    removed: usize,
    /// The live rows and their tokens: FTS5's averages record, which a
    /// refresh checks.
    totals: FtsTotals,
    terms: HashMap<Box<[u8]>, u32>,
    lists: Vec<PostingList>,
    scratch: Mutex<Scratch>,
}

impl Clone for KeywordIndex {
    fn clone(&self) -> Self {
        KeywordIndex {
            ids: self.ids.clone(),
            sizes: self.sizes.clone(),
            alive: self.alive.clone(),
            removed: self.removed,
            totals: self.totals,
            terms: self.terms.clone(),
            lists: self.lists.clone(),
            scratch: Mutex::default(),
        }
    }
}

/// Per-row buffers of a ranking, kept between searches (8 MB at a million
/// rows: allocating them each time costs page faults).
#[derive(Default)]
struct Scratch {
    scores: Vec<f64>,
    touched: Vec<bool>,
    rows: Vec<u32>,
    /// One phrase's live postings: (row, weighted frequency).
    postings: Vec<(u32, f64)>,
}

/// What a refresh did, or that a full load is needed instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refreshed {
    Updated {
        added: usize,
        removed: usize,
    },
    /// So much changed, or the index no longer agrees with FTS5's totals
    /// (rows rewritten in place): load it again.
    Reload,
}

/// A ranking: the best hits, how many rows matched under the filters,
/// and which rows matched at all.
pub struct KeywordRanking<'a> {
    /// (chunk id, bm25), best first.
    pub hits: Vec<(i64, f64)>,
    /// Matching chunks the filters allow.
    pub total: usize,
    /// The score at the depth asked for, or 0 when fewer rows matched.
    pub bottom: Option<f64>,
    pub matched: MatchedRows<'a>,
}

/// The bottom of the keyword scale: the score at the depth, or 0 when
/// fewer chunks matched; `None` without a depth.
pub(crate) fn bottom_at(depth: usize, at_depth: Option<f64>) -> Option<f64> {
    (depth > 0).then(|| at_depth.unwrap_or(0.0))
}

/// The rows a query matched, filters aside.
pub struct MatchedRows<'a> {
    /// A bit per row of `index`.
    bits: Vec<u64>,
    index: &'a KeywordIndex,
}

impl MatchedRows<'_> {
    /// How many of `ids` match the query (filters aside).
    pub fn among(&self, ids: &[i64]) -> usize {
        ids.iter()
            .filter(|id| match self.index.ids.binary_search(id) {
                Ok(row) => self.bits[row / 64] & (1 << (row % 64)) != 0,
                Err(_) => false,
            })
            .count()
    }
}

/// Each phrase's single token as FTS5 splits a quoted string of a MATCH,
/// or `None` when a phrase is not exactly one token (the index ranks only
/// those).
pub fn query_tokens(db: &Database, phrases: &[String]) -> Result<Option<Vec<Vec<u8>>>> {
    let tokenizer = db.fts_tokenizer()?;
    let mut out = Vec::with_capacity(phrases.len());
    for p in phrases {
        let mut tokens: Vec<Vec<u8>> = Vec::new();
        let mut colocated = false;
        tokenizer.tokens(p, TokenPurpose::Query, &mut |t, c| {
            colocated |= c;
            tokens.push(t.to_vec());
        })?;
        if tokens.len() != 1 || colocated {
            return Ok(None);
        }
        out.extend(tokens);
    }
    Ok(Some(out))
}

/// The row of chunk `id`, searching forward from `from` (rows of one
/// token come in ascending order, so the search gallops).
fn find_row(ids: &[i64], from: usize, id: i64) -> Option<usize> {
    let mut lo = from.min(ids.len());
    let mut step = 1;
    let mut hi = lo;
    while hi < ids.len() && ids[hi] < id {
        lo = hi;
        hi += step;
        step *= 2;
    }
    let hi = (hi + 1).min(ids.len());
    let at = lo + ids[lo..hi].partition_point(|&x| x < id);
    (at < ids.len() && ids[at] == id).then_some(at)
}

/// Finds a chunk's row while the index loads (~50 million times at a
/// million chunks): a table by id when the ids are dense, as AUTOINCREMENT
/// ids usually are, else a search forward from the previous row.
enum RowLookup {
    Dense { first: i64, rows: Vec<u32> },
    Sparse,
}

impl RowLookup {
    fn new(ids: &[i64]) -> RowLookup {
        if let (Some(&first), Some(&last)) = (ids.first(), ids.last()) {
            let span = (last as i128 - first as i128 + 1) as u128;
            if span <= 4 * ids.len() as u128 {
                let mut rows = vec![u32::MAX; span as usize];
                for (r, &id) in ids.iter().enumerate() {
                    rows[(id - first) as usize] = r as u32;
                }
                return RowLookup::Dense { first, rows };
            }
        }
        RowLookup::Sparse
    }

    /// The row of `id` if it is at `from` or after.
    fn find(&self, ids: &[i64], from: usize, id: i64) -> Option<usize> {
        match self {
            RowLookup::Dense { first, rows } => {
                let at = usize::try_from(id.checked_sub(*first)?).ok()?;
                let r = *rows.get(at)? as usize;
                (r != u32::MAX as usize && r >= from).then_some(r)
            }
            RowLookup::Sparse => find_row(ids, from, id),
        }
    }
}

/// A token's weighted frequency in a row, added up occurrence by
/// occurrence in column order as FTS5's bm25 does (so the sum rounds the
/// same way for any weights).
fn weighted(counts: &ColumnCounts, weights: &[f64; 4]) -> f64 {
    let mut f = 0.0;
    for (n, w) in counts.iter().zip(weights) {
        for _ in 0..*n {
            f += w;
        }
    }
    f
}

impl KeywordIndex {
    /// Reads FTS5's index: the rows' sizes, then every token occurrence
    /// (in the caller's read snapshot).
    pub fn load(db: &Database) -> Result<KeywordIndex> {
        let mut index = KeywordIndex::default();
        db.for_each_fts_row_size(|id, sizes| {
            index.push_row(id, sizes);
        })?;
        let mut term: Vec<u8> = Vec::new();
        let mut list = PostingList::default();
        let mut row: Option<usize> = None;
        let mut counts: ColumnCounts = [0; 4];
        let lookup = RowLookup::new(&index.ids);
        db.for_each_fts_instance(|token, id, col| {
            if token != term.as_slice() {
                index.finish_term(&term, &mut list, row, &counts)?;
                term.clear();
                term.extend_from_slice(token);
                row = None;
            }
            let here = match row {
                Some(r) if index.ids[r] == id => r,
                _ => {
                    let from = row.map_or(0, |r| r + 1);
                    let found = lookup.find(&index.ids, from, id).ok_or_else(|| {
                        KbError::Db(format!(
                            "the keyword index lists chunk {id} out of order or without a size"
                        ))
                    })?;
                    if let Some(r) = row {
                        list.push(r as u32, counts);
                    }
                    counts = [0; 4];
                    row = Some(found);
                    found
                }
            };
            debug_assert_eq!(row, Some(here));
            counts[col] += 1;
            Ok(())
        })?;
        index.finish_term(&term, &mut list, row, &counts)?;
        let stored = db.fts_totals()?;
        if stored != index.totals {
            return Err(KbError::Db(format!(
                "the keyword index's totals ({stored:?}) disagree with its rows ({:?})",
                index.totals
            )));
        }
        Ok(index)
    }

    /// Closes the posting list of `term` being read (with its last row).
    fn finish_term(
        &mut self,
        term: &[u8],
        list: &mut PostingList,
        row: Option<usize>,
        counts: &ColumnCounts,
    ) -> Result<()> {
        if let Some(r) = row {
            list.push(r as u32, *counts);
        }
        if list.is_empty() {
            return Ok(());
        }
        let mut done = std::mem::take(list);
        done.shrink();
        let id = self.lists.len() as u32;
        if self.terms.insert(term.into(), id).is_some() {
            return Err(KbError::Db(format!(
                "the keyword index lists the token {} twice",
                String::from_utf8_lossy(term)
            )));
        }
        self.lists.push(done);
        Ok(())
    }

    fn push_row(&mut self, id: i64, sizes: [u32; 4]) -> u32 {
        let size: u32 = sizes.iter().sum();
        self.ids.push(id);
        self.sizes.push(size);
        self.alive.push(true);
        self.totals.rows += 1;
        self.totals.tokens += size as u64;
        (self.ids.len() - 1) as u32
    }

    /// Live rows.
    pub fn len(&self) -> usize {
        self.ids.len() - self.removed
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held by the posting lists.
    pub fn posting_bytes(&self) -> usize {
        self.lists.iter().map(PostingList::bytes).sum()
    }

    /// Brings the index in step with FTS5's after other writers committed:
    /// removed chunks are skipped from now on, new ones tokenized by FTS5's
    /// own tokenizer and appended (chunk ids only grow, so a changed
    /// document is removed ids plus new ones). A chunk rewritten in place
    /// (its title or terms filled in by `kb reindex`) shows as totals that
    /// no longer agree with FTS5's, and asks for a reload.
    pub fn refresh(&mut self, db: &Database) -> Result<Refreshed> {
        let stored = db.fts_totals()?;
        let last = self.ids.last().copied().unwrap_or(i64::MIN);
        let added = db.fts_row_ids_after(last)?;
        let rows = stored.rows as usize;
        if super::allowed::reload_is_cheaper(added.len(), rows) {
            return Ok(Refreshed::Reload);
        }
        // Every row up to `last` was known, so when the rows are those
        // still known plus the new ones, none was removed (the common case,
        // told without reading a million ids).
        let gone = if rows == self.len() + added.len() {
            Vec::new()
        } else {
            match self.removed_rows(&db.fts_row_ids_up_to(last)?) {
                Some(gone) => gone,
                None => return Ok(Refreshed::Reload),
            }
        };
        for &row in &gone {
            self.alive[row] = false;
            self.removed += 1;
            self.totals.rows -= 1;
            self.totals.tokens -= self.sizes[row] as u64;
        }
        if !self.append(db, &added)? {
            return Ok(Refreshed::Reload);
        }
        if stored != self.totals {
            return Ok(Refreshed::Reload);
        }
        if self.removed > 0 && self.removed * COMPACT_SHARE > self.ids.len() {
            self.compact();
        }
        Ok(Refreshed::Updated {
            added: added.len(),
            removed: gone.len(),
        })
    }

    /// The live rows whose ids are not in `known` (the index's ids still in
    /// FTS5, ascending); `None` when `known` holds an id this index never
    /// saw (it could not be appended in order).
    fn removed_rows(&self, known: &[i64]) -> Option<Vec<usize>> {
        let mut gone = Vec::new();
        let mut at = 0;
        for (row, &id) in self.ids.iter().enumerate() {
            if at < known.len() && known[at] < id {
                return None;
            }
            if at < known.len() && known[at] == id {
                at += 1;
            } else if self.alive[row] {
                gone.push(row);
            }
        }
        (at == known.len()).then_some(gone)
    }

    /// Tokenizes new chunks as FTS5 did and appends their postings; false
    /// when a count disagrees with FTS5's row sizes.
    fn append(&mut self, db: &Database, ids: &[i64]) -> Result<bool> {
        if ids.is_empty() {
            return Ok(true);
        }
        let rows = db.fts_rows(ids)?;
        let sizes = db.fts_row_sizes(ids)?;
        if rows.len() != sizes.len() {
            return Ok(false);
        }
        let tokenizer = db.fts_tokenizer()?;
        let mut occurrences: Vec<(u32, u8)> = Vec::new();
        for (row, (id, size)) in rows.iter().zip(&sizes) {
            if row.chunk_id != *id {
                return Ok(false);
            }
            occurrences.clear();
            for (col, text) in row.columns.iter().enumerate() {
                let mut counted = 0u32;
                tokenizer.tokens(text, TokenPurpose::Document, &mut |token, colocated| {
                    // FTS5 counts a column's size in positions; a synonym
                    // shares its token's.
                    if !colocated || counted == 0 {
                        counted += 1;
                    }
                    let next = self.lists.len() as u32;
                    let term = *self.terms.entry(token.into()).or_insert(next);
                    if term == next {
                        self.lists.push(PostingList::default());
                    }
                    occurrences.push((term, col as u8));
                })?;
                if counted != size[col] {
                    return Ok(false);
                }
            }
            let r = self.push_row(*id, *size);
            occurrences.sort_unstable();
            let mut i = 0;
            while i < occurrences.len() {
                let term = occurrences[i].0;
                let mut counts: ColumnCounts = [0; 4];
                while i < occurrences.len() && occurrences[i].0 == term {
                    counts[occurrences[i].1 as usize] += 1;
                    i += 1;
                }
                self.lists[term as usize].push(r, counts);
            }
        }
        Ok(true)
    }

    /// Rewrites the posting lists without the removed rows.
    fn compact(&mut self) {
        let mut keep = Vec::with_capacity(self.ids.len());
        let mut next = 0u32;
        for &alive in &self.alive {
            keep.push(alive.then(|| {
                next += 1;
                next - 1
            }));
        }
        let old_terms = std::mem::take(&mut self.terms);
        let old_lists = std::mem::take(&mut self.lists);
        for (term, id) in old_terms {
            let list = old_lists[id as usize].remap(&keep);
            if !list.is_empty() {
                self.terms.insert(term, self.lists.len() as u32);
                self.lists.push(list);
            }
        }
        let rows: Vec<usize> = (0..self.ids.len()).filter(|&r| self.alive[r]).collect();
        self.ids = rows.iter().map(|&r| self.ids[r]).collect();
        self.sizes = rows.iter().map(|&r| self.sizes[r]).collect();
        self.alive = vec![true; rows.len()];
        self.removed = 0;
        *self.scratch.get_mut().unwrap_or_else(|e| e.into_inner()) = Scratch::default();
    }

    /// Ranks the rows matching any of `tokens` (one per phrase of the
    /// query, in its order) by bm25 with the column `weights`: the best
    /// `limit` the filters allow, best first, ties by chunk id; with the
    /// score at `depth` (as FTS5's ranking gives it).
    pub fn rank(
        &self,
        tokens: &[Vec<u8>],
        weights: &ColumnWeights,
        allowed: &Allowed,
        (limit, depth): (usize, usize),
    ) -> KeywordRanking<'_> {
        let weights = [weights.text, weights.title, weights.section, weights.terms];
        let n = self.ids.len();
        let mut scratch = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let Scratch {
            scores,
            touched,
            rows,
            postings,
        } = &mut *scratch;
        if scores.len() != n {
            *scores = vec![0.0; n];
            *touched = vec![false; n];
        }
        rows.clear();
        // The weighted frequency of every count byte without an overflow.
        let mut by_byte = [0.0f64; 256];
        for (b, f) in by_byte.iter_mut().enumerate() {
            *f = weighted(&postings::unpack(b as u8), &weights);
        }
        let total_rows = self.totals.rows as i64;
        let avgdl = self.totals.tokens as f64 / self.totals.rows as f64;
        for token in tokens {
            let Some(&term) = self.terms.get(token.as_slice()) else {
                continue;
            };
            postings.clear();
            self.lists[term as usize].for_each(|row, packed, counts| {
                if self.alive[row as usize] {
                    let f = if has_overflow(packed) {
                        weighted(&counts, &weights)
                    } else {
                        by_byte[packed as usize]
                    };
                    postings.push((row, f));
                }
            });
            let hits = postings.len() as i64;
            // FTS5's IDF, floored so that a word in more than half the
            // rows still counts a little.
            let mut idf = ((total_rows - hits) as f64 + 0.5) / (hits as f64 + 0.5);
            idf = idf.ln();
            if idf <= 0.0 {
                idf = 1e-6;
            }
            for &(row, f) in postings.iter() {
                let r = row as usize;
                let d = self.sizes[r] as f64;
                let score = idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / avgdl)));
                if !touched[r] {
                    touched[r] = true;
                    scores[r] = 0.0;
                    rows.push(row);
                }
                scores[r] += score;
            }
        }
        let mut matched = vec![0u64; n.div_ceil(64)];
        let mut candidates: Vec<(f64, u32)> = Vec::new();
        for &row in rows.iter() {
            let r = row as usize;
            touched[r] = false;
            matched[r / 64] |= 1 << (r % 64);
            let ok = match allowed {
                Allowed::All => true,
                Allowed::Only(set) => set.contains(&self.ids[r]),
            };
            if ok {
                candidates.push((scores[r], row));
            }
        }
        let total = candidates.len();
        // Best first; equal scores by row, which is chunk id order.
        let order = |a: &(f64, u32), b: &(f64, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        let at_depth = (depth > 0 && candidates.len() >= depth).then(|| {
            candidates.select_nth_unstable_by(depth - 1, order);
            candidates[depth - 1].0
        });
        let bottom = bottom_at(depth, at_depth);
        if candidates.len() > limit && limit > 0 {
            candidates.select_nth_unstable_by(limit - 1, order);
        }
        candidates.truncate(limit);
        candidates.sort_unstable_by(order);
        KeywordRanking {
            hits: candidates
                .into_iter()
                .map(|(s, row)| (self.ids[row as usize], s))
                .collect(),
            total,
            bottom,
            matched: MatchedRows {
                bits: matched,
                index: self,
            },
        }
    }
}
