//! A switch to a model that reads fewer tokens (`kb reindex --model`)
//! leaves chunks cut for the old model longer than the new one reads: it
//! would embed their beginnings only, and a question about their ends
//! would find them by keywords alone. Their documents are read from their
//! files again and chunked for the new model ([`Ingester::reread`]).
//!
//! [`Ingester::reread`]: super::Ingester::reread

use std::collections::{HashMap, HashSet};

use crate::db::Database;
use crate::embed::TokenCounter;
use crate::error::Result;
use crate::ingest::source_path;

/// Chunks counted per query.
const GROUP: usize = 1024;

/// What a switch to a model reading `limit` tokens of a chunk's text
/// leaves to read again.
#[derive(Debug, Default)]
pub struct Resplit {
    /// Documents with a chunk longer than the model reads, whose files are
    /// there to read again.
    pub documents: HashSet<i64>,
    /// Their chunks.
    pub chunks: usize,
    /// Such documents whose files are gone (stored paths): their chunks
    /// are embedded as they are, the model reading their beginnings.
    pub gone: Vec<String>,
}

impl Resplit {
    pub fn find(db: &Database, tokens: &TokenCounter, limit: usize) -> Result<Resplit> {
        let mut over = HashSet::new();
        let mut chunks: HashMap<i64, usize> = HashMap::new();
        let mut after = 0;
        loop {
            let group = db.chunk_texts(after, GROUP)?;
            let Some(last) = group.last() else {
                break;
            };
            after = last.id;
            for c in &group {
                *chunks.entry(c.document_id).or_default() += 1;
                if !over.contains(&c.document_id) && tokens.count(&c.text) > limit {
                    over.insert(c.document_id);
                }
            }
        }
        let mut found = Resplit::default();
        for file in db.document_files()? {
            if !over.contains(&file.id) {
                continue;
            }
            if source_path::decode(&file.path).is_file() {
                found.documents.insert(file.id);
                found.chunks += chunks.get(&file.id).copied().unwrap_or(0);
            } else {
                found.gone.push(file.path);
            }
        }
        found.gone.sort();
        Ok(found)
    }
}
