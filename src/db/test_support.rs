//! Fixtures for unit tests of storage and ranking: a database bound to a
//! test model, documents and chunks with vectors, pseudo-random unit
//! vectors.

use std::path::Path;

use super::{Database, ModelBinding, NewChunk, NewDocument, OpenMode};

/// A new kb.db in `dir` bound to a model of `dim` dimensions.
pub(crate) fn bound_database(dir: &Path, dim: usize) -> Database {
    let db = Database::open(&dir.join("kb.db"), OpenMode::Create).unwrap();
    db.bind_model(&ModelBinding {
        model_name: "m".into(),
        embedding_dim: dim,
        model_max_tokens: 16,
        model_fingerprint: "f".into(),
        model_dir: None,
        passage_prefix: None,
    })
    .unwrap();
    db
}

/// A note at `path` (its title too) with content hash `hash`.
pub(crate) fn note(path: &str, hash: &str) -> NewDocument {
    NewDocument {
        title: path.into(),
        source_path: path.into(),
        content_hash: hash.into(),
        doc_type: crate::document::DocType::Note,
        language: None,
        file_size: 1,
        file_mtime: Some(1),
        metadata: Default::default(),
        tags: vec![],
        content: None,
        reader_version: 1,
    }
}

/// `n` chunks whose texts are `{prefix} {i}`.
pub(crate) fn chunks(prefix: &str, n: usize) -> Vec<NewChunk> {
    (0..n)
        .map(|i| NewChunk {
            text: format!("{prefix} {i}"),
            token_count: 2,
            metadata: Default::default(),
            ..Default::default()
        })
        .collect()
}

/// Writes a note at `path` with one chunk per vector (texts `{path} {i}`).
pub(crate) fn write_note(db: &Database, path: &str, hash: &str, vectors: &[Vec<f32>]) {
    db.write_document(
        &note(path, hash),
        &chunks(path, vectors.len()),
        Some(vectors),
    )
    .unwrap();
}

/// Pseudo-random unit vectors of `dim` dimensions from `seed` (an LCG: the
/// same vectors on every run, no extra dependency).
pub(crate) fn unit_vectors(seed: u64, dim: usize) -> impl FnMut() -> Vec<f32> {
    let mut state = seed;
    move || {
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) as f32 / (1u64 << 31) as f32) - 0.5
            })
            .collect();
        crate::vector_math::normalize(&mut v);
        v
    }
}
