//! A cache of passage vectors by the exact text embedded, for evaluations
//! that index the same corpus again after a change to chunking: chunks that
//! come out the same are not embedded again. Only kb-eval uses it; `kb add`
//! always embeds.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use kb::db::ModelBinding;
use kb::embed::{Embed, TokenCounter};
use kb::error::{KbError, Result};

/// The model, with a file of vectors it already made.
pub(crate) struct CachedEmbedder {
    inner: Arc<dyn Embed>,
    path: PathBuf,
    vectors: Mutex<HashMap<[u8; 32], Vec<f32>>>,
}

fn key(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

impl CachedEmbedder {
    /// The cache for `inner` at `path` (one file per model: records of a
    /// 32-byte key and `dim` little-endian floats).
    pub(crate) fn open(inner: Arc<dyn Embed>, path: &Path) -> Result<CachedEmbedder> {
        let dim = inner.dim();
        let mut vectors = HashMap::new();
        if let Ok(bytes) = std::fs::read(path) {
            let record = 32 + 4 * dim;
            for r in bytes.chunks_exact(record) {
                let mut k = [0u8; 32];
                k.copy_from_slice(&r[..32]);
                let v = r[32..]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                vectors.insert(k, v);
            }
        }
        eprintln!(
            "kb-eval: {} cached vectors in {}",
            vectors.len(),
            path.display()
        );
        Ok(CachedEmbedder {
            inner,
            path: path.to_path_buf(),
            vectors: Mutex::new(vectors),
        })
    }

    fn append(&self, new: &[([u8; 32], Vec<f32>)]) -> Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| KbError::io(&self.path, e))?;
        let mut buf = Vec::new();
        for (k, v) in new {
            buf.extend_from_slice(k);
            for x in v {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
        f.write_all(&buf).map_err(|e| KbError::io(&self.path, e))
    }
}

impl Embed for CachedEmbedder {
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }

    fn dim(&self) -> usize {
        self.inner.dim()
    }

    fn max_chunk_tokens(&self) -> usize {
        self.inner.max_chunk_tokens()
    }

    fn token_counter(&self) -> TokenCounter {
        self.inner.token_counter()
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        self.inner.embed_query(query)
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let keys: Vec<[u8; 32]> = texts.iter().map(|t| key(t)).collect();
        let missing: Vec<usize> = {
            let cache = self.vectors.lock().unwrap_or_else(|e| e.into_inner());
            (0..texts.len())
                .filter(|i| !cache.contains_key(&keys[*i]))
                .collect()
        };
        if !missing.is_empty() {
            let inputs: Vec<&str> = missing.iter().map(|i| texts[*i]).collect();
            let made = self.inner.embed_passages(&inputs)?;
            let new: Vec<([u8; 32], Vec<f32>)> = missing
                .iter()
                .zip(made)
                .map(|(i, v)| (keys[*i], v))
                .collect();
            self.append(&new)?;
            let mut cache = self.vectors.lock().unwrap_or_else(|e| e.into_inner());
            cache.extend(new);
        }
        let cache = self.vectors.lock().unwrap_or_else(|e| e.into_inner());
        Ok(keys.iter().map(|k| cache[k].clone()).collect())
    }

    fn binding(&self) -> Result<ModelBinding> {
        self.inner.binding()
    }
}
