//! Ranking. A search runs as named phases (`run`): the rankers in
//! parallel (`rankers`: the keyword ranker of `keyword` over FTS5 or the
//! in-memory `keyword_index`, the vector ranker of `vector` over the int8
//! codes or its in-memory index, and, when weighted, the page ranker of
//! `page`, and for a query long enough to be copied from a document, the
//! passage ranker of `passage`), query refinement (`feedback`), fusion of
//! their lists (`fusion`), identifiers typed whole first (`identifiers`),
//! threshold and count, re-ranking by a cross-encoder when asked
//! (`rerank`), per-document diversity (`diversify`), and the results
//! (`present`); `ties` orders what scores
//! alike by path and place. `request` builds the one
//! request every caller makes; `query` turns a query into the keyword
//! ranker's phrases; `snippet` cuts a passage for a hit.

pub mod allowed;
mod diversify;
pub mod feedback;
pub mod fusion;
mod identifiers;
mod keyword;
pub mod keyword_index;
mod page;
mod passage;
mod present;
pub mod query;
mod rankers;
pub mod request;
mod rerank;
mod run;
pub mod snippet;
mod ties;
pub mod vector;

pub use crate::config::MAX_TOP;
pub use allowed::Allowed;
pub use fusion::{fuse, Fused, FusionSettings, Ranking};
pub use present::{SearchHit, SearchResponse};
pub use rankers::{InMemory, RankerId};
pub use request::{Feedback, Mode, RerankSettings, SearchOverrides, SearchRequest};
pub use rerank::Reranked;
pub use run::{in_listed_order, keep_quoted, search, search_with};
