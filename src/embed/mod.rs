//! Text to vectors: the model registry (models.toml), ONNX Runtime, the
//! embedder, the one resolver that decides which model and where its files
//! are, the binding between a knowledge base and its model, the one loop
//! that embeds stored chunks again (back-fill and reindex), and the
//! cross-encoder that re-ranks a search's candidates.

mod api;
mod cross_encoder;
pub mod declared;
pub mod hub;
mod model;
pub mod reembed;
pub mod registry;
pub mod resolve;
pub mod runtime;
mod sessions;
#[cfg(test)]
mod test_embedder;
#[cfg(feature = "e2e")]
pub mod test_pause;
mod tokenizer_file;
mod tokens;

pub use api::Embed;
pub use cross_encoder::{CrossEncoder, Passage, ScorePairs};
pub use model::{Embedder, ModelFiles, ModelUse};
pub use registry::{all_models, model_spec, reranker_spec, ModelSpec, Pooling, RerankerSpec};
pub use resolve::{bind, BindOutcome, ModelChoice, Origin};
pub use sessions::GraphFormat;
#[cfg(test)]
pub use test_embedder::TestEmbedder;
pub use tokenizer_file::parse as parse_tokenizer;
pub use tokens::TokenCounter;
