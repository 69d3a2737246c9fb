//! A deterministic stand-in for the embedding model, for unit tests only:
//! each word (lower-cased, with a crude plural/-ing strip) is hashed into
//! one of `dim` buckets and the counts are L2-normalised, so texts that
//! share words are similar and nothing needs model files or ONNX Runtime.

use super::{Embed, TokenCounter};
use crate::db::ModelBinding;
use crate::error::Result;

pub struct TestEmbedder {
    dim: usize,
    /// The longest input it reads, special tokens included.
    max_tokens: usize,
}

impl TestEmbedder {
    pub const NAME: &'static str = "kb-test-embedder";

    pub fn new(dim: usize) -> TestEmbedder {
        TestEmbedder {
            dim,
            max_tokens: 256,
        }
    }

    /// A model of its own that reads at most `max_tokens` tokens.
    pub fn reading(max_tokens: usize) -> TestEmbedder {
        TestEmbedder {
            max_tokens,
            ..TestEmbedder::default()
        }
    }

    fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dim];
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let w = word.to_lowercase();
            let w = w
                .strip_suffix("ing")
                .or_else(|| w.strip_suffix('s'))
                .filter(|s| s.len() >= 3)
                .unwrap_or(&w);
            // FNV-1a: stable across runs and platforms.
            let mut h: u64 = 0xcbf29ce484222325;
            for b in w.bytes() {
                h ^= b as u64;
                h = h.wrapping_mul(0x100000001b3);
            }
            v[(h % self.dim as u64) as usize] += 1.0;
        }
        if v.iter().all(|x| *x == 0.0) {
            v[0] = 1.0;
        }
        crate::vector_math::normalize(&mut v);
        v
    }
}

impl Default for TestEmbedder {
    fn default() -> Self {
        TestEmbedder::new(64)
    }
}

impl Embed for TestEmbedder {
    fn model_name(&self) -> &str {
        Self::NAME
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn max_chunk_tokens(&self) -> usize {
        self.max_tokens - 2
    }

    fn token_counter(&self) -> TokenCounter {
        TokenCounter::Whitespace
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        Ok(self.embed(query))
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.embed(t)).collect())
    }

    fn binding(&self) -> Result<ModelBinding> {
        Ok(ModelBinding {
            model_name: Self::NAME.into(),
            embedding_dim: self.dim,
            model_max_tokens: self.max_tokens,
            model_fingerprint: match self.max_tokens {
                256 => format!("test:{}", self.dim),
                n => format!("test:{}:{n}", self.dim),
            },
            model_dir: None,
            passage_prefix: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_words_are_closer() {
        let e = TestEmbedder::default();
        let q = e.embed_query("rotate ssh keys").unwrap();
        let p = e
            .embed_passages(&["Rotating your SSH keys yearly", "sourdough bread recipe"])
            .unwrap();
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        assert!(dot(&q, &p[0]) > dot(&q, &p[1]));
        assert!((dot(&p[0], &p[0]) - 1.0).abs() < 1e-5);
        assert_eq!(
            e.embed_query("same text").unwrap(),
            e.embed_query("same text").unwrap()
        );
    }
}
