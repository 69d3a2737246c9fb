//! Text analysis shared by the ingest side and the query side, so both
//! see the same words: extra searchable forms of numbers and identifiers
//! and CJK character bigrams (`terms`), and the context header a chunk is
//! embedded with (`header`); which scripts a model reads (`script`); how close two strings are
//! (`similar`).

pub mod cjk;
pub mod header;
pub mod numbers;
pub mod script;
pub mod similar;
pub mod terms;
