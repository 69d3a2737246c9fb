//! `kb reindex [--model NAME] [--model-dir DIR]`: embeds every chunk again,
//! optionally with another model, without ever leaving a mixed index.

use std::path::PathBuf;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::embed::reembed::{reembed, Pending};
use crate::embed::{resolve, Embed};
use crate::error::{KbError, Result};
use crate::ingest::{chunk_token_limit, source_path};
use crate::ingest::context::fill_missing_headers;
use crate::ingest::pipeline::resplit::Resplit;
use crate::ingest::pipeline::{IngestOptions, Ingester, ModelSource};
use crate::output::{plural, Render, Style};
use crate::progress::{Progress, Work};
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
    /// Documents read again from their files and chunked anew, their chunks
    /// having been longer than this model reads (a switch to a model that
    /// reads fewer tokens).
    pub read_again: usize,
    /// Such documents not read again, their files gone or unreadable (the
    /// errors log says why): their chunks stay as they were, the model
    /// reading their beginnings, until an add or update finds their files.
    pub not_read_again: Vec<String>,
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
        // A model that reads fewer tokens than the chunks were cut for:
        // their documents are read again for it rather than embedded.
        let shorter = current
            .as_ref()
            .is_some_and(|c| target.model_max_tokens < c.model_max_tokens);
        let switched_from = db.resplit_pending()?;
        let pending = switched_from.is_some();
        let resplit = if shorter || pending {
            let limit = chunk_token_limit(session.config(), model.max_chunk_tokens());
            Resplit::find(db, &model.token_counter(), limit)?
        } else {
            Resplit::default()
        };
        // A reindex stopped while reading documents again finishes that.
        let continuing = pending
            && unfinished.is_none()
            && current.as_ref().is_some_and(|c| {
                c.model_name == target.model_name && c.model_fingerprint == target.model_fingerprint
            });
        let chunks = if continuing {
            bar.finish();
            0
        } else {
            embed_and_swap(session, &model, &target, &resplit, bar.as_ref())?
        };
        let (read_again, mut not_read_again) = if pending || !resplit.documents.is_empty() {
            read_again(session, &model, &resplit, self.quiet)?
        } else {
            (0, Vec::new())
        };
        not_read_again.extend(resplit.gone);
        not_read_again.sort();
        // Their files, when back or readable, are read again by the next add.
        session.db()?.forget_file_stamps(&not_read_again)?;
        Ok(ReindexOutput {
            model_name: target.model_name,
            embedding_dim: target.embedding_dim,
            // A resumed switch names the model it switched from.
            previous_model: if continuing {
                switched_from.filter(|m| !m.is_empty())
            } else {
                current.map(|b| b.model_name)
            },
            chunks,
            read_again,
            not_read_again,
        })
    }
}

/// Stages a vector by `model` for every chunk but those of the documents
/// `resplit` reads again, then swaps them in and binds `target`. Returns
/// how many chunks it embedded.
fn embed_and_swap(
    session: &mut Session,
    model: &Arc<dyn Embed>,
    target: &crate::db::ModelBinding,
    resplit: &Resplit,
    bar: &dyn Progress,
) -> Result<usize> {
    let db = session.db()?;
    db.begin_reindex(target)?;
    let (done_before, total) = db.reindex_counts()?;
    bar.loading_model(false);
    bar.chunks_found(total.saturating_sub(resplit.chunks) as u64);
    bar.already_done(done_before as u64);
    let embedded = reembed(
        db,
        model,
        Pending::Reindex {
            skip: &resplit.documents,
        },
        session.config().embedding.batch_size,
        session.cancel_flag(),
        |n| bar.chunks_done(n as u64),
    );
    bar.finish();
    embedded?;
    db.finish_reindex(target, &resplit.documents)?;
    Ok(total - resplit.chunks.min(total))
}

/// Reads the documents `resplit` found again, chunked for `model`, then
/// embeds what is still without a vector (a document whose file could
/// not be read again keeps its chunks, the model reading their
/// beginnings). Returns how many documents were read again, and the
/// paths of those that could not be.
fn read_again(
    session: &mut Session,
    model: &Arc<dyn Embed>,
    resplit: &Resplit,
    quiet: bool,
) -> Result<(usize, Vec<String>)> {
    let db = session.db()?;
    let summary = if resplit.documents.is_empty() {
        None
    } else {
        let opts = IngestOptions {
            tags: Vec::new(),
            exclude: Vec::new(),
            progress: session.progress(Work::Ingest, quiet),
            cancel: session.cancel_arc(),
            follow_external_links: false,
            follow_everywhere: false,
            reread: false,
        };
        let ingester = Ingester::new(session.config(), db, ModelSource::Ready(model.clone()));
        Some(ingester.reread(&resplit.documents, &opts)?)
    };
    if summary.as_ref().is_some_and(|(s, _)| s.interrupted) {
        return Err(KbError::Interrupted);
    }
    reembed(
        db,
        model,
        Pending::WithoutVectors,
        session.config().embedding.batch_size,
        session.cancel_flag(),
        |_| {},
    )?;
    db.resplit_done()?;
    Ok(summary.map_or((0, Vec::new()), |(s, mut gone)| {
        gone.extend(s.failed_files.iter().map(|(p, _)| source_path::encode(p)));
        (s.updated, gone)
    }))
}

plain_outcome!(ReindexOutput);

impl Render for ReindexOutput {
    fn human(&self, _style: &Style) -> String {
        let mut s = format!(
            "kb: reindexed {} chunks with {} ({} dimensions)\n",
            self.chunks, self.model_name, self.embedding_dim
        );
        if self.read_again > 0 {
            s.push_str(&format!(
                "kb: {} read again from their files and chunked anew: their chunks were \
                 longer than {} reads\n",
                plural(self.read_again as u64, "document", "documents"),
                self.model_name
            ));
        }
        if !self.not_read_again.is_empty() {
            s.push_str(&format!(
                "kb: {} longer than {} reads could not be read again (file gone or unreadable; \
                 the errors log says why), so only their beginnings are embedded until \
                 kb add or kb update finds their files: {}\n",
                plural(
                    self.not_read_again.len() as u64,
                    "document has chunks",
                    "documents have chunks"
                ),
                self.model_name,
                self.not_read_again.join(", ")
            ));
        }
        s
    }
}
