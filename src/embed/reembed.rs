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

/// Chunks read and embedded per step: enough to fill the model's batches,
/// few enough that Ctrl-C is honoured soon.
pub const GROUP: usize = 256;

/// Embeds the pending chunks group by group, reporting each group's size to
/// `on_progress`; stops with `E_INTERRUPTED` (keeping every group written)
/// when `cancel` is set. Returns how many chunks it embedded.
pub fn reembed(
    db: &Database,
    embedder: &dyn Embed,
    pending: Pending,
    cancel: &AtomicBool,
    mut on_progress: impl FnMut(usize),
) -> Result<usize> {
    let mut done = 0;
    let mut after = 0i64;
    loop {
        if cancel.load(Ordering::SeqCst) {
            return Err(KbError::Interrupted);
        }
        let batch = match pending {
            Pending::WithoutVectors => db.chunks_without_vectors(GROUP)?,
            Pending::Reindex => db.reindex_pending(after, GROUP)?,
        };
        let Some(last) = batch.last() else { break };
        after = last.0;
        let texts: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
        let vectors = embedder.embed_passages(&texts)?;
        let ids: Vec<i64> = batch.iter().map(|(id, _)| *id).collect();
        match pending {
            Pending::WithoutVectors => {
                let tx = db.begin()?;
                db.insert_vectors(&ids, &vectors)?;
                tx.commit()?;
            }
            Pending::Reindex => db.stage_vectors(&ids, &vectors)?,
        }
        done += batch.len();
        on_progress(batch.len());
    }
    Ok(done)
}
