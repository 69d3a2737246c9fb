//! `kb status`: what the knowledge base holds.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{file_status, FileStatus};
use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::error::Result;
use crate::document::DocType;
use crate::output::{plural, Render, Style};
use crate::session::Session;

/// Counts of documents and chunks, database size, model and schema version
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StatusArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StatusOutput {
    /// Document counts by type (every type listed, zeros included).
    pub documents: BTreeMap<DocType, i64>,
    /// Documents indexed.
    pub total_documents: i64,
    /// Chunks indexed.
    pub total_chunks: i64,
    /// The size of kb.db with its write-ahead log.
    pub db_size_bytes: u64,
    /// The embedding model the knowledge base is bound to (null before `kb
    /// init` or the first add).
    pub model_name: Option<String>,
    /// Its vectors' dimensions.
    pub embedding_dim: Option<usize>,
    /// The version of kb.db's schema.
    pub schema_version: i64,
    /// When a document was last added or re-indexed (UTC, ISO 8601).
    pub last_ingest_at: Option<String>,
    /// Indexed documents whose source file changed or vanished since (or
    /// the only link that led to it).
    pub stale_documents: usize,
    /// Documents indexed by an older kb whose reader of their kind read less well: the next
    /// kb update reads them again (their chunks that read as before keep their vectors).
    pub read_by_older_kb: i64,
    /// Files removed with kb remove while still under an added folder: kb update passes them by
    /// until kb add names them.
    pub kept_out: Vec<String>,
    /// The knowledge base's file.
    pub db_path: String,
}

impl Command for StatusArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "status",
        title: "Knowledge base status",
        summary: "Counts of documents and chunks, database size, embedding model, schema version, \
                  last ingest, stale documents.",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = StatusOutput;

    fn run(self, session: &mut Session) -> Result<StatusOutput> {
        let db = session.db()?;
        let mut documents: BTreeMap<DocType, i64> = DocType::ALL.iter().map(|t| (*t, 0)).collect();
        for (t, n) in db.documents_by_type()? {
            documents.insert(t, n);
        }
        let binding = db.model_binding()?;
        let stale_documents = db
            .document_files()?
            .into_iter()
            .filter(|f| file_status(&f.into()) != FileStatus::Unchanged)
            .count();
        let read_by_older_kb = db
            .documents_by_reader()?
            .into_iter()
            .filter(|(t, v, _)| crate::ingest::readers::read_by_older(*t, *v))
            .map(|(_, _, n)| n)
            .sum();
        let mut kept_out: Vec<String> = db.kept_out()?.into_iter().collect();
        kept_out.sort();
        Ok(StatusOutput {
            stale_documents,
            read_by_older_kb,
            kept_out,
            total_documents: documents.values().sum(),
            documents,
            total_chunks: db.chunk_count()?,
            db_size_bytes: db.size_bytes(),
            model_name: binding.as_ref().map(|b| b.model_name.clone()),
            embedding_dim: binding.as_ref().map(|b| b.embedding_dim),
            schema_version: db.schema_version()?,
            last_ingest_at: db.last_ingest_at()?,
            db_path: db.path().display().to_string(),
        })
    }
}

plain_outcome!(StatusOutput);

impl Render for StatusOutput {
    fn human(&self, _style: &Style) -> String {
        let mut out = format!("Knowledge base: {}\n", self.db_path);
        out.push_str(&format!(
            "Documents: {} ({})\n",
            self.total_documents,
            self.documents
                .iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        out.push_str(&format!("Chunks: {}\n", self.total_chunks));
        out.push_str(&format!(
            "Size: {:.1} MB\n",
            self.db_size_bytes as f64 / 1_048_576.0
        ));
        match (&self.model_name, self.embedding_dim) {
            (Some(m), Some(d)) => out.push_str(&format!("Model: {m} ({d} dimensions)\n")),
            _ => out.push_str("Model: none (run `kb init`)\n"),
        }
        out.push_str(&format!("Schema version: {}\n", self.schema_version));
        if let Some(t) = &self.last_ingest_at {
            out.push_str(&format!("Last ingest: {t}\n"));
        }
        if self.stale_documents > 0 {
            out.push_str(&format!(
                "Stale: {} changed or missing since indexing (kb add to refresh, kb remove \
                 --missing to drop)\n",
                plural(self.stale_documents as u64, "document", "documents")
            ));
        }
        if self.read_by_older_kb > 0 {
            out.push_str(&format!(
                "Read by an older kb: {} this kb reads better (kb update reads them again)\n",
                plural(self.read_by_older_kb as u64, "document", "documents")
            ));
        }
        for p in &self.kept_out {
            out.push_str(&format!(
                "Kept out of kb update: {} (kb add it by name to bring it back)\n",
                crate::output::one_line(p)
            ));
        }
        out
    }
}
