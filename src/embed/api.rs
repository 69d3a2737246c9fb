//! What every user of an embedding model needs, as a trait: the ONNX
//! embedder implements it, and so does a small deterministic embedder that
//! stands in for the model in unit tests (no model files needed).

use super::TokenCounter;
use crate::db::ModelBinding;
use crate::error::Result;

/// A model that turns text into unit vectors.
pub trait Embed: Send + Sync {
    /// The model's name, as models.toml and the binding call it.
    fn model_name(&self) -> &str;

    /// Dimensions of the vectors it makes.
    fn dim(&self) -> usize;

    /// The most tokens a chunk may have so the model never truncates it.
    fn max_chunk_tokens(&self) -> usize;

    /// Counts tokens the way this model sees them.
    fn token_counter(&self) -> TokenCounter;

    /// Embeds one search query (query prefix applied).
    fn embed_query(&self, query: &str) -> Result<Vec<f32>>;

    /// Embeds chunks (passage prefix applied); results in input order.
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;

    /// What a knowledge base records to tie its vectors to this model.
    fn binding(&self) -> Result<ModelBinding>;
}
