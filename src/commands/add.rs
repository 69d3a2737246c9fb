//! `kb add PATH...`: indexes files and folders.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::db::{normalize_tags, Root, RootKind};
use crate::embed::ModelUse;
use crate::error::{KbError, Result};
use crate::document::DocType;
use crate::ingest::pipeline::{IngestOptions, IngestSummary, Ingester, ModelSource};
use crate::ingest::source_path;
use crate::output::one_line;
use crate::progress::Work;
use crate::session::{Session, SessionKind};

mod summary;

pub(crate) use summary::AddOutput;

const EXAMPLES: &str = "Examples:
  kb add ~/notes ~/docs/handbook --tags work     index two folders (again: only what changed)
  kb add report.pdf                              one file
  kb add ~/notes --format json                   the summary as JSON on stdout";

/// Index files and folders: documents, PDFs, slides, web pages, e-books, spreadsheets, data files, images and code
///
/// Unchanged files are skipped, changed ones re-indexed, and documents whose
/// files vanished from an added folder are removed. Files are parsed in
/// parallel (ingestion.workers) while the model embeds; a progress bar shows
/// files, chunks, rate and ETA. Files that cannot be indexed are logged to
/// <data_dir>/ingest-errors.log and the run goes on. Ctrl-C (or a crash)
/// keeps every committed document; run the same command again to continue.
#[derive(Debug, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = format!("{EXAMPLES}\n\n{}", DocType::HELP))]
#[serde(deny_unknown_fields)]
pub(crate) struct AddArgs {
    /// Files or folders; folders are walked recursively, skipping hidden and .gitignored entries
    #[arg(required = true, value_name = "PATH")]
    #[schemars(
        description = "Files or folders (folders are walked recursively, skipping hidden and \
                       .gitignored entries): absolute paths, or relative to the server's working \
                       directory, under the files and folders already added or under \
                       mcp.write_roots; one path or a list",
        schema_with = "super::one_or_many::schema::<PathBuf>"
    )]
    #[serde(deserialize_with = "super::one_or_many::deserialize")]
    pub paths: Vec<PathBuf>,
    /// Tags to put on every document of this run, and on the files found under these paths later
    /// (kb update, kb add again): the paths keep them (comma-separated on the command line)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    #[schemars(
        description = "Tags to put on every document of this run, and on the files found under \
                       these paths later (the paths keep them); one tag or a list",
        schema_with = "super::one_or_many::schema::<String>"
    )]
    #[serde(default, deserialize_with = "super::one_or_many::deserialize")]
    pub tags: Vec<String>,
    /// Leave out files and folders matching this glob (as in a .gitignore; repeat it).
    /// A .kbignore file in a folder does the same for that folder
    #[arg(long, value_name = "GLOB")]
    #[schemars(
        description = "Leave out files and folders matching these globs (as in a .gitignore); a \
                       .kbignore file in a folder does the same for that folder; one glob or a \
                       list",
        schema_with = "super::one_or_many::schema::<String>"
    )]
    #[serde(default, deserialize_with = "super::one_or_many::deserialize")]
    pub exclude: Vec<String>,
    /// Follow symbolic links whose target lies outside every file and folder given to kb add
    /// (by default they are skipped and logged: a link in a downloaded folder could otherwise put
    /// ~/.ssh/id_rsa into the index, and into what kb search and kb mcp show); the paths keep it,
    /// so kb update follows them again. ingestion.follow_external_links: true does it under every
    /// path
    #[arg(long)]
    #[serde(skip)]
    #[schemars(skip)]
    pub follow_external_links: bool,
    /// Read every file found again, changed or not: after upgrading kb, what its readers now
    /// read better (a PDF's columns, a table of contents) reaches the files indexed before.
    /// Chunks read as before keep their vectors; only what reads differently is embedded
    #[arg(long)]
    #[serde(skip)]
    #[schemars(skip)]
    pub reread: bool,
    /// No progress bar
    #[arg(long, short)]
    #[serde(skip)]
    #[schemars(skip)]
    pub quiet: bool,
}

impl AddArgs {
    /// Checks the paths and tags before anything is opened.
    fn request(&self) -> Result<Vec<String>> {
        if self.paths.is_empty() {
            return Err(KbError::invalid(
                "paths",
                "name at least one file or folder to add",
            ));
        }
        for p in &self.paths {
            match std::fs::symlink_metadata(p) {
                // A link named on the command line must lead somewhere.
                Ok(m) if m.is_symlink() => {
                    if let Err(e) = std::fs::metadata(p) {
                        return Err(KbError::invalid(
                            "paths",
                            format!(
                                "{}: a link that leads to nothing kb can read ({e}); fix the \
                                 link or name what it should lead to",
                                one_line(&p.display().to_string())
                            ),
                        ));
                    }
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(KbError::PathNotFound(p.clone()))
                }
                Err(e) => {
                    return Err(KbError::invalid(
                        "paths",
                        format!(
                            "{}: cannot be read ({e}); check its permissions and those of the folders above it",
                            one_line(&p.display().to_string())
                        ),
                    ))
                }
            }
        }
        super::tag::printable_names(&self.tags, "--tags")?;
        let normalized = normalize_tags(&self.tags);
        if self.tags.iter().any(|t| t.trim().is_empty()) && normalized.is_empty() {
            return Err(KbError::invalid(
                "tags",
                "--tags: empty tag names are not allowed",
            ));
        }
        Ok(normalized)
    }
}

impl Command for AddArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "add",
        title: "Add files",
        summary: "Index files and folders (documents, PDFs, slides, web pages, e-books, \
                  spreadsheets, data files, images, code); unchanged files are \
                  skipped, changed ones re-indexed. Only paths under the files and folders \
                  already added (or the user's mcp.write_roots) are accepted. Returns what was \
                  added, updated, skipped and failed.",
        output: OutputKind::Report,
        mcp: Mcp::Write {
            destructive: false,
            idempotent: false,
        },
    };
    type Output = AddOutput;

    fn run(self, session: &mut Session) -> Result<AddOutput> {
        // Before the paths are looked at: whether a path outside exists is
        // not the agent's to learn.
        if session.kind() == SessionKind::Server {
            agent_may_add(session, &self.paths)?;
        }
        let tags = self.request()?;
        let only_files = self.paths.iter().all(|p| !p.is_dir());
        // A device, FIFO or socket is no document, nor a place to sync.
        let (paths, not_documents): (Vec<PathBuf>, Vec<PathBuf>) =
            self.paths.into_iter().partition(|p| p.is_file() || p.is_dir());
        let not_documents: Vec<String> = not_documents
            .iter()
            .map(|p| one_line(&p.display().to_string()))
            .collect();
        let mut out = if paths.is_empty() {
            AddOutput::of(IngestSummary::default())
        } else {
            let how = How {
                follow_external_links: self.follow_external_links,
                reread: self.reread,
                quiet: self.quiet,
            };
            ingest(session, &paths, tags, self.exclude, how)?
        };
        out.named_files_failed = only_files
            && out.failed + not_documents.len() > 0
            && out.added + out.updated + out.skipped + out.empty == 0;
        out.named_not_documents = not_documents;
        Ok(out)
    }
}

/// Over MCP an agent adds only what lies under the files and folders the
/// user added already, or under `mcp.write_roots`: otherwise it could put
/// any file the user may read (a token in a `.json`, `.yml` or `.toml`)
/// into the index and read it back. Paths are compared canonical, so a
/// link inside a root to a file outside it is outside.
fn agent_may_add(session: &Session, paths: &[PathBuf]) -> Result<()> {
    let mut allowed = if session.config().db_path().exists() {
        session.db()?.roots()?
    } else {
        Vec::new()
    };
    for root in &session.config().mcp.write_roots {
        if let Ok(meta) = std::fs::metadata(root) {
            allowed.push(Root {
                id: 0,
                path: source_path::encode(&source_path::canonical(root)),
                kind: if meta.is_dir() {
                    RootKind::Folder
                } else {
                    RootKind::File
                },
                tags: Vec::new(),
                follow_external_links: false,
            });
        }
    }
    for p in paths {
        let held = resolved(p)
            .is_some_and(|r| allowed.iter().any(|root| root.holds(&source_path::encode(&r))));
        if !held {
            // The path as given: where a link leads is not the agent's to learn.
            return Err(KbError::WriteRefused(format!(
                "{}: not under the files and folders added to this knowledge base, nor under \
                 mcp.write_roots in {}; over MCP, add takes only paths under those. Add it \
                 yourself with `kb add`, or list its folder in mcp.write_roots",
                one_line(&p.display().to_string()),
                session.config().config_file().display()
            )));
        }
    }
    Ok(())
}

/// Where `path` leads, links and `..` resolved: the canonical path of a
/// file that exists, else that of its nearest folder that exists with the
/// rest joined on, so a path is inside or outside the same whether or not
/// it exists. `None` when `..` follows a name that does not exist.
fn resolved(path: &Path) -> Option<PathBuf> {
    let path = source_path::absolute(path);
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let mut base = path.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(base) {
            let mut out = real;
            for name in rest.iter().rev() {
                out.push(name);
            }
            return Some(out);
        }
        match base.components().next_back()? {
            std::path::Component::Normal(name) => rest.push(name),
            std::path::Component::CurDir => {}
            _ => return None,
        }
        base = base.parent()?;
    }
}

/// How a run reads what it finds.
pub(super) struct How {
    /// Follow links to targets outside every path given.
    pub(super) follow_external_links: bool,
    /// Read unchanged files again.
    pub(super) reread: bool,
    /// No progress line.
    pub(super) quiet: bool,
}

/// Indexes `paths` (what `kb add` and `kb update` do): new and changed
/// files in, gone ones out, one writer at a time.
pub(super) fn ingest(
    session: &mut Session,
    paths: &[PathBuf],
    tags: Vec<String>,
    exclude: Vec<String>,
    how: How,
) -> Result<AddOutput> {
    // One add at a time: a second one waits, then skips what this one
    // committed instead of embedding it again.
    let _writer = session.lock_writer()?;
    // A knowledge base bound to a model loads it only when a file needs
    // embedding (re-adding an unchanged folder never does); a server
    // keeps its model; a new knowledge base binds the configured model
    // when it is on disk (and is not created when it is not).
    let binding = if session.config().db_path().exists() {
        let db = session.db()?;
        if db.headers_pending()? {
            // New chunks would be embedded with headers, the old ones
            // were not: never mix the two in one vector index.
            return Err(KbError::ModelMismatch(format!(
                "{} was indexed before chunks were embedded with their document's title and \
                 section; run `kb reindex` once to re-embed it, then add",
                db.path().display()
            )));
        }
        db.model_binding()?
    } else {
        None
    };
    let bar = session.progress(Work::Ingest, how.quiet);
    let source = match binding {
        Some(binding) if session.kind() == SessionKind::OneShot => {
            ModelSource::Lazy(session.model_loader(&binding, ModelUse::Passages)?)
        }
        Some(_) => ModelSource::Ready(session.bound_model(ModelUse::Server)?),
        None => {
            bar.loading_model(true);
            let model = session.bind_configured_model()?;
            bar.loading_model(false);
            ModelSource::Ready(model)
        }
    };
    let db = session.db_or_create()?;
    session.mark_written();
    let summary = Ingester::new(session.config(), db, source).run(
        paths,
        &IngestOptions {
            tags,
            exclude,
            progress: bar,
            cancel: session.cancel_arc(),
            follow_external_links: how.follow_external_links,
            follow_everywhere: session.config().ingestion.follow_external_links,
            reread: how.reread,
        },
    )?;
    Ok(AddOutput::of(summary))
}
