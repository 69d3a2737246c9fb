//! The one loop that embeds chunks already in the database: the back-fill
//! of `kb init` (chunks written before a model was bound) and `kb reindex`
//! (every chunk, staged beside the old vectors until the swap).

use std::sync::atomic::{AtomicBool, Ordering};

use super::Embed;
use crate::db::Database;
use crate::error::{KbError, Result};

/// Which chunks to embed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    /// Chunks without a vector; each group is committed as it is embedded.
    WithoutVectors,
    /// Chunks not yet staged for the reindex in progress.
    Reindex,
}

/// Chunks read per step, and sorted by length so each model batch pads
/// little.
pub const GROUP: usize = 256;

/// Embeds the pending chunks a model batch (`batch` chunks) at a time,
/// storing each batch as it is done and reporting its size to
/// `on_progress`; stops with `E_INTERRUPTED` (keeping every batch stored)
/// when `cancel` is set, so Ctrl-C waits for one model batch at most.
/// Returns how many chunks it embedded.
pub fn reembed(
    db: &Database,
    embedder: &dyn Embed,
    pending: Pending,
    batch: usize,
    cancel: &AtomicBool,
    mut on_progress: impl FnMut(usize),
) -> Result<usize> {
    let mut done = 0;
    let mut after = 0i64;
    loop {
        if cancel.load(Ordering::SeqCst) {
            return Err(KbError::Interrupted);
        }
        let mut group = match pending {
            Pending::WithoutVectors => db.chunks_without_vectors(GROUP)?,
            Pending::Reindex => db.reindex_pending(after, GROUP)?,
        };
        let Some(last) = group.last() else { break };
        after = last.id;
        let mut inputs: Vec<(i64, String)> = group
            .drain(..)
            .map(|c| (c.id, c.input().into_owned()))
            .collect();
        inputs.sort_by_key(|(_, text)| text.len());
        for part in inputs.chunks(batch.max(1)) {
            let texts: Vec<&str> = part.iter().map(|(_, t)| t.as_str()).collect();
            let vectors = embedder.embed_passages(&texts)?;
            let ids: Vec<i64> = part.iter().map(|(id, _)| *id).collect();
            match pending {
                Pending::WithoutVectors => {
                    let tx = db.begin_write()?;
                    db.insert_vectors(&ids, &vectors)?;
                    tx.commit()?;
                }
                Pending::Reindex => db.stage_vectors(&ids, &vectors)?,
            }
            done += part.len();
            on_progress(part.len());
            if cancel.load(Ordering::SeqCst) {
                return Err(KbError::Interrupted);
            }
        }
    }
    Ok(done)
}
