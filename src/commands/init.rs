//! `kb init [--model NAME] [--model-dir DIR]`: sets up the embedding model
//! and binds the knowledge base to it.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::embed::reembed::{reembed, Pending};
use crate::embed::{bind, resolve, BindOutcome};
use crate::error::{KbError, Result};
use crate::fetch;
use crate::progress::Work;
use crate::output::{Render, Style};
use crate::session::Session;

/// Set up the embedding model (download it, or use a local copy) and bind the knowledge base to it; fetch ONNX Runtime and pdfium from PyPI if they are missing
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct InitArgs {
    /// Model name from models.toml (all-MiniLM-L6-v2 for fp32) [env: KB_MODEL] [default: all-MiniLM-L6-v2-int8]
    #[arg(long)]
    pub model: Option<String>,
    /// Use a local directory holding the model's ONNX file, tokenizer.json and config.json instead of downloading
    #[arg(long, value_name = "DIR")]
    pub model_dir: Option<PathBuf>,
    /// No progress bar
    #[arg(long, short)]
    #[serde(skip)]
    #[schemars(skip)]
    pub quiet: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct InitOutput {
    /// initialised, or already initialised
    pub status: &'static str,
    /// The model the knowledge base is bound to.
    pub model_name: String,
    /// Its vectors' dimensions.
    pub embedding_dim: usize,
    /// The most tokens the model reads of one chunk.
    pub model_max_tokens: usize,
    /// Where the model's files are.
    pub model_dir: Option<String>,
    /// The model's ONNX file.
    pub onnx_file: Option<String>,
    /// The knowledge base's file.
    pub db_path: String,
    /// Chunks indexed before a model was bound, embedded now.
    pub embedded_chunks: usize,
    /// The libraries fetched from PyPI because kb found none (ONNX
    /// Runtime, pdfium): their paths.
    pub fetched: Vec<String>,
}

impl Command for InitArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "init",
        title: "Set up the model",
        summary: "Set up the embedding model and bind the knowledge base to it; fetch ONNX \
                  Runtime and pdfium from PyPI if they are missing.",
        output: OutputKind::Report,
        mcp: Mcp::Hidden,
    };
    type Output = InitOutput;

    fn run(self, session: &mut Session) -> Result<InitOutput> {
        let progress = session.show_progress() && !self.quiet;
        let fetched = fetch_missing(session, self.quiet)?;
        // A knowledge base may not exist yet: init creates it.
        let current = if session.config().db_path().exists() {
            session.db()?.model_binding()?
        } else {
            None
        };
        let (model, choice) = session.load_chosen(|config| {
            resolve::for_init(
                config,
                self.model.as_deref(),
                self.model_dir.as_deref(),
                current.as_ref(),
                progress,
            )
        })?;
        let probe = model.embed_query("kb init probe")?;
        if probe.len() != model.dim() {
            return Err(KbError::Model(format!(
                "{} produced {}-dimensional vectors, models.toml says {}",
                model.model_name(),
                probe.len(),
                model.dim()
            )));
        }
        let binding = model.binding()?;
        let _writer = session.lock_writer()?;
        let db = session.db_or_create()?;
        let status = match bind(db, model.as_ref())? {
            BindOutcome::Bound => "initialised",
            BindOutcome::AlreadyBound => "already initialised",
        };
        let bar = session.progress(Work::Backfill, self.quiet);
        bar.chunks_found(db.index_counts()?.chunks_without_vectors.unwrap_or(0) as u64);
        let embedded = reembed(
            db,
            &model,
            Pending::WithoutVectors,
            session.config().embedding.batch_size,
            session.cancel_flag(),
            |n| bar.chunks_done(n as u64),
        );
        bar.finish();
        Ok(InitOutput {
            status,
            model_name: binding.model_name,
            embedding_dim: binding.embedding_dim,
            model_max_tokens: binding.model_max_tokens,
            model_dir: binding.model_dir,
            onnx_file: choice.map(|c| c.files.onnx.display().to_string()),
            db_path: db.path().display().to_string(),
            embedded_chunks: embedded?,
            fetched,
        })
    }
}

/// Fetches ONNX Runtime and pdfium from PyPI when kb would not find them;
/// returns the paths written. Without ONNX Runtime nothing works, so a
/// failed fetch of it is the error; without pdfium only PDFs cannot be
/// read, so that is a note.
fn fetch_missing(session: &Session, quiet: bool) -> Result<Vec<String>> {
    let mut fetched = Vec::new();
    for lib in [fetch::ONNX_RUNTIME, fetch::PDFIUM] {
        if lib.present(session.config()) {
            continue;
        }
        let what = format!("{} {}", lib.package, lib.version);
        let attempt = fetch::find_wheel(&lib).and_then(|wheel| {
            session.note(&format!(
                "{} is not installed: fetching {} ({:.1} MB) from PyPI",
                lib.what,
                wheel.filename,
                wheel.size as f64 / 1e6
            ));
            let bar = session.progress(Work::Backfill, quiet);
            let path = fetch::fetch(&lib, &wheel, &|done, total| {
                bar.downloading(&what, done, total)
            });
            bar.finish();
            path
        });
        match attempt {
            Ok(path) => {
                session.note(&format!("{} {} is in {}", lib.what, lib.version, path.display()));
                fetched.push(path.display().to_string());
            }
            Err(e) if lib.kind == fetch::Kind::Runtime => {
                return Err(KbError::RuntimeMissing(lib.offline_advice(&e.to_string())))
            }
            Err(e) => session.note(&format!(
                "PDFs cannot be read yet: {}",
                lib.offline_advice(&e.to_string())
            )),
        }
    }
    Ok(fetched)
}

plain_outcome!(InitOutput);

impl Render for InitOutput {
    fn human(&self, _style: &Style) -> String {
        format!(
            "kb: {}: {} ({} dimensions) from {}; database {}{}\n",
            self.status,
            self.model_name,
            self.embedding_dim,
            self.model_dir.as_deref().unwrap_or("(built in)"),
            self.db_path,
            if self.embedded_chunks > 0 {
                format!("; embedded {} chunks", self.embedded_chunks)
            } else {
                String::new()
            }
        )
    }
}
