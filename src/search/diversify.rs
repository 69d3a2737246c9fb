//! Diversifying the fused list: at most N chunks of one document, the next
//! best documents filling the places freed.

use std::collections::HashMap;

use super::fusion::Fused;
use crate::db::Database;
use crate::error::Result;

/// Keeps at most `max` chunks of each document (0: no limit), in order,
/// until `top` are kept.
pub(crate) fn per_document(
    db: &Database,
    fused: Vec<Fused>,
    max: usize,
    top: usize,
) -> Result<Vec<Fused>> {
    if max == 0 {
        let mut fused = fused;
        fused.truncate(top);
        return Ok(fused);
    }
    let ids: Vec<i64> = fused.iter().map(|f| f.chunk_id).collect();
    let documents = db.chunk_documents(&ids)?;
    let mut seen: HashMap<i64, usize> = HashMap::new();
    let mut kept = Vec::with_capacity(top);
    for f in fused {
        if kept.len() == top {
            break;
        }
        // A chunk deleted meanwhile has no document; chunk_details drops it.
        let doc = documents.get(&f.chunk_id).copied().unwrap_or(-f.chunk_id);
        let n = seen.entry(doc).or_insert(0);
        if *n < max {
            *n += 1;
            kept.push(f);
        }
    }
    Ok(kept)
}
