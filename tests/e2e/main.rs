//! The integration tests, one binary (one link of every dependency) with a
//! module per area. The modules behind the `e2e` feature drive the real
//! `kb` binary with the real model and ONNX Runtime, which `./test.sh`
//! prepares; the property tests need neither and run under a plain
//! `cargo test` too.

#[cfg(feature = "e2e")]
mod common;

#[cfg(feature = "e2e")]
mod cli;
#[cfg(feature = "e2e")]
mod code;
#[cfg(feature = "e2e")]
mod embedding;
#[cfg(feature = "e2e")]
mod error_codes;
#[cfg(feature = "e2e")]
mod evidence;
#[cfg(feature = "e2e")]
mod first_run;
#[cfg(feature = "e2e")]
mod formats;
#[cfg(feature = "e2e")]
mod images;
#[cfg(feature = "e2e")]
mod ingest;
#[cfg(feature = "e2e")]
mod inspect;
#[cfg(feature = "e2e")]
mod limits;
#[cfg(feature = "e2e")]
mod long_documents;
#[cfg(feature = "e2e")]
mod mcp;
#[cfg(feature = "e2e")]
mod model_setup;
#[cfg(feature = "e2e")]
mod pdf;
#[cfg(feature = "e2e")]
mod reindex;
#[cfg(feature = "e2e")]
mod reliability;
#[cfg(feature = "e2e")]
mod retrieval;
#[cfg(feature = "e2e")]
mod scoping;
#[cfg(feature = "e2e")]
mod skills;

mod query_props;
