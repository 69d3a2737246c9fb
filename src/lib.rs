//! kb: a local knowledge base in one SQLite file, with hybrid keyword and
//! semantic search.
//!
//! Data flows one way: `cli` parses and dispatches, and `mcp` serves the same
//! commands to LLM tools, both through `commands`; `ingest` turns files into
//! chunks; `embed` turns text into vectors; `search` ranks; `output` renders.
//! Underneath them all, `config` resolves settings once and `db` owns the
//! schema and every SQL statement; `error` is the one error type.

pub mod cli;
pub mod commands;
pub mod config;
pub mod db;
pub mod embed;
pub mod error;
pub mod ingest;
pub mod inspect;
pub mod mcp;
pub mod output;
pub mod search;
