//! Embedding and writing documents in groups: the step `kb add`, `kb
//! reindex` and `kb-eval` share.

use std::collections::HashMap;

use crate::db::{Database, NewChunk, NewDocument, WriteOutcome};
use crate::embed::Embed;
use crate::error::Result;
use crate::text::header::embedding_input;

/// Chunks gathered from several documents before one embedding call, so
/// small documents still fill the model's batches.
pub(super) const EMBED_GROUP_CHUNKS: usize = 256;

/// A parsed and chunked document waiting to be embedded and written.
pub struct ReadyDocument {
    pub document: NewDocument,
    pub chunks: Vec<NewChunk>,
}

/// Embeds the chunks of a group of documents in one call (so small
/// documents still fill the model's batches).
pub fn embed_group(embedder: &dyn Embed, group: &[ReadyDocument]) -> Result<Vec<Vec<f32>>> {
    let inputs = model_inputs(group);
    let texts: Vec<&str> = inputs.iter().map(|t| t.as_ref()).collect();
    embedder.embed_passages(&texts)
}

/// What the model embeds for each chunk of a group, in order: its header,
/// then its text.
fn model_inputs(group: &[ReadyDocument]) -> Vec<std::borrow::Cow<'_, str>> {
    group
        .iter()
        .flat_map(|d| {
            d.chunks
                .iter()
                .map(|c| embedding_input(&c.context, &c.text))
        })
        .collect()
}

/// Writes each document of a group with its chunks and (when given) their
/// vectors, in order, each in its own transaction. Returns each document's
/// outcome and chunk count.
pub fn write_group(
    db: &Database,
    group: &[ReadyDocument],
    vectors: Option<&[Vec<f32>]>,
) -> Result<Vec<(WriteOutcome, usize)>> {
    let mut offset = 0;
    let mut outcomes = Vec::with_capacity(group.len());
    for doc in group {
        let n = doc.chunks.len();
        let vecs = vectors.map(|v| &v[offset..offset + n]);
        offset += n;
        outcomes.push((db.write_document(&doc.document, &doc.chunks, vecs)?, n));
    }
    Ok(outcomes)
}

/// What [`embed_group_in_batches`] gives: a vector for each chunk of the
/// group, in order, and how many of them were earlier vectors kept.
pub(super) struct GroupVectors {
    pub(super) vectors: Vec<Vec<f32>>,
    pub(super) kept: usize,
}

/// [`embed_group`] a model batch (`batch` chunks, the shortest first so
/// each batch pads little) at a time, telling `done` after each; a chunk
/// whose model input is in `earlier` (the vectors of the documents these
/// replace) keeps that vector instead. `None` when `halt` says stop
/// between two batches, so Ctrl-C waits for one model call at most.
pub(super) fn embed_group_in_batches(
    embedder: &dyn Embed,
    group: &[ReadyDocument],
    earlier: &HashMap<String, Vec<f32>>,
    batch: usize,
    halt: &dyn Fn() -> bool,
    done: &dyn Fn(usize),
) -> Result<Option<GroupVectors>> {
    let inputs: Vec<std::borrow::Cow<str>> = model_inputs(group);
    let texts: Vec<&str> = inputs.iter().map(|t| t.as_ref()).collect();
    let mut vectors: Vec<Vec<f32>> = texts
        .iter()
        .map(|t| earlier.get(*t).cloned().unwrap_or_default())
        .collect();
    let mut order: Vec<usize> = (0..texts.len())
        .filter(|&i| vectors[i].is_empty())
        .collect();
    let kept = texts.len() - order.len();
    if kept > 0 {
        done(kept);
    }
    order.sort_by_key(|&i| texts[i].len());
    for part in order.chunks(batch.max(1)) {
        if halt() {
            return Ok(None);
        }
        let batch_texts: Vec<&str> = part.iter().map(|&i| texts[i]).collect();
        for (&i, v) in part.iter().zip(embedder.embed_passages(&batch_texts)?) {
            vectors[i] = v;
        }
        done(part.len());
    }
    Ok(Some(GroupVectors { vectors, kept }))
}

/// [`embed_group`] then [`write_group`], for callers without a pipeline.
pub fn embed_and_write(
    db: &Database,
    embedder: Option<&dyn Embed>,
    group: Vec<ReadyDocument>,
) -> Result<Vec<(WriteOutcome, usize)>> {
    let vectors = match embedder {
        Some(e) => Some(embed_group(e, &group)?),
        None => None,
    };
    write_group(db, &group, vectors.as_deref())
}
