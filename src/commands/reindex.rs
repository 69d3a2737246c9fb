//! `kb reindex [--model NAME] [--model-dir DIR]`: embeds every chunk again,
//! optionally with another model, without ever leaving a mixed index.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::embed::reembed::{reembed, Pending};
use crate::embed::resolve;
use crate::error::Result;
use crate::ingest::context::fill_missing_headers;
use crate::progress::Work;
use crate::output::{Render, Style};
use crate::session::Session;

/// Re-embed every chunk, optionally with another model; the old index stays usable until it finishes
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReindexArgs {
    /// Switch to this model from models.toml (default: the model the index uses, or the one an
    /// interrupted reindex was switching to)
    #[arg(long)]
    pub model: Option<String>,
    /// Use a local directory holding the model's files instead of the Hugging Face cache
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// No progress bar
    #[arg(long, short)]
    #[serde(skip)]
    #[schemars(skip)]
    pub quiet: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ReindexOutput {
    /// The model the knowledge base is now bound to.
    pub model_name: String,
    /// Its vectors' dimensions.
    pub embedding_dim: usize,
    /// The model it was bound to before (null when it had none).
    pub previous_model: Option<String>,
    /// Chunks embedded.
    pub chunks: usize,
}

impl Command for ReindexArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "reindex",
        title: "Re-embed every chunk",
        summary: "Re-embed every chunk, optionally with another model.",
        output: OutputKind::Report,
        mcp: Mcp::Hidden,
    };
    type Output = ReindexOutput;

    /// New vectors are staged beside the old ones and swapped in one
    /// transaction, so an interrupted reindex leaves the old index whole
    /// and a re-run continues where it stopped.
    fn run(self, session: &mut Session) -> Result<ReindexOutput> {
        let progress = session.show_progress() && !self.quiet;
        session.db()?;
        let _writer = session.lock_writer()?;
        let db = session.db()?;
        let current = db.model_binding()?;
        let unfinished = db.unfinished_reindex()?;
        let bar = session.progress(Work::Reindex, self.quiet);
        bar.loading_model(true);
        let (model, _) = session.load_chosen(|config| {
            resolve::for_reindex(
                config,
                current.as_ref(),
                unfinished.as_deref(),
                self.model.as_deref(),
                self.model_dir.as_deref(),
                progress,
            )
        })?;
        let target = model.binding()?;
        if db.headers_to_fill()? {
            // Chunks from before context headers: give them headers, and
            // drop vectors a reindex staged without them (once: a re-run
            // after Ctrl-C keeps what this one staged).
            db.discard_staged_vectors()?;
            fill_missing_headers(db, &model.token_counter(), model.max_chunk_tokens())?;
            db.set_config("headers_pending", "filled")?;
        }
        db.begin_reindex(&target)?;
        let (done_before, total) = db.reindex_counts()?;
        bar.loading_model(false);
        bar.chunks_found(total as u64);
        bar.already_done(done_before as u64);
        let embedded = reembed(
            db,
            &model,
            Pending::Reindex,
            session.config().embedding.batch_size,
            session.cancel_flag(),
            |n| bar.chunks_done(n as u64),
        );
        bar.finish();
        embedded?;
        db.finish_reindex(&target)?;
        Ok(ReindexOutput {
            model_name: target.model_name,
            embedding_dim: target.embedding_dim,
            previous_model: current.map(|b| b.model_name),
            chunks: total,
        })
    }
}

plain_outcome!(ReindexOutput);

impl Render for ReindexOutput {
    fn human(&self, _style: &Style) -> String {
        format!(
            "kb: reindexed {} chunks with {} ({} dimensions)\n",
            self.chunks, self.model_name, self.embedding_dim
        )
    }
}
