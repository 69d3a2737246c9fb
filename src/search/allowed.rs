//! The chunks a filtered search may return, read before ranking so the
//! in-memory rankers need no connection and can run on another thread;
//! and when such an index is better read again than refreshed.

use std::collections::HashSet;

use crate::db::{Database, Filters};
use crate::error::Result;

/// The chunks a filtered search may return.
pub enum Allowed {
    All,
    Only(HashSet<i64>),
}

impl Allowed {
    pub fn of(db: &Database, filters: &Filters) -> Result<Allowed> {
        Ok(if filters.is_empty() {
            Allowed::All
        } else {
            Allowed::Only(db.filtered_chunk_ids(filters)?.into_iter().collect())
        })
    }
}

/// Whether a warm in-memory index had better be read again than refreshed
/// with `added` new rows out of `rows`: past a quarter of them (and a few
/// hundred), one full read is cheaper than adding them one by one.
pub(crate) fn reload_is_cheaper(added: usize, rows: usize) -> bool {
    added > 256 && added * 4 > rows
}
