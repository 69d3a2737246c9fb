//! kb: a local knowledge base in one SQLite file, with hybrid keyword and
//! semantic search.
//!
//! Data flows one way. The front ends, `cli` (parse, run, render) and `mcp`
//! (protocol glue), run the same `commands`, one file each, in a `session`
//! (configuration, database, model). Below them: `ingest` turns files into
//! chunks, `embed` turns text into vectors (its resolver decides which model
//! and where), `search` ranks, `output` renders typed results as JSON or
//! text. Underneath them all, `config` resolves settings once and `db` owns
//! the schema and every SQL statement; `error` is the one error type.

#![warn(unreachable_pub)]

pub mod cli;
pub(crate) mod commands;
pub mod config;
pub mod db;
pub mod document;
pub mod embed;
pub mod error;
pub mod fetch;
pub mod ingest;
pub(crate) mod mcp;
pub(crate) mod output;
pub mod progress;
pub mod search;
pub(crate) mod session;
pub mod text;
pub mod timings;
pub mod vector_math;
