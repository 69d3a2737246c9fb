//! The server's state between calls: one connection to kb.db, the
//! embedding model (loaded on the first call that needs it) and every vector
//! in memory. Before each search both are checked against the database: a
//! `kb reindex` to another model reloads them, a `kb add` or `kb remove` in
//! another process updates the vectors, so results never mix models.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::tools::{
    AddParams, NoParams, OpenParams, OutlineParams, RemoveParams, SearchParams, ShowParams,
    ToolDef, ToolName,
};
use super::validate::Issue;
use crate::cli::ListArgs;
use crate::commands::{self, SearchOptions};
use crate::config::Config;
use crate::db::{Database, ModelBinding, OpenMode, SearchLogEntry, BUSY_TIMEOUT};
use crate::embed::{self, Embedder, ModelUse};
use crate::error::{KbError, Result};
use crate::ingest::pipeline::ModelSource;
use crate::output;
use crate::search::{self, vector::VectorIndex};

/// Why a tool call did not produce its result.
#[derive(Debug)]
pub enum ToolError {
    /// The arguments are wrong: each issue names its field.
    Invalid(Vec<Issue>),
    /// The tool ran and failed.
    Failed(KbError),
}

impl From<KbError> for ToolError {
    fn from(e: KbError) -> Self {
        ToolError::Failed(e)
    }
}

fn invalid(field: &str, message: impl Into<String>) -> ToolError {
    ToolError::Invalid(vec![Issue::new(field, message)])
}

/// What the server has done so far, reported in every result's `_meta`.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Counters {
    /// Times the embedding model was loaded (1 after the first semantic
    /// search; again only when the knowledge base switches models).
    pub model_loads: u64,
    /// Full loads of the vectors into memory.
    pub vector_loads: u64,
    /// Incremental updates after other processes changed the database.
    pub vector_refreshes: u64,
    pub searches: u64,
}

/// What the vectors and the model were made with; a change means reload.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BindingKey {
    model_name: String,
    fingerprint: String,
    dim: usize,
}

impl BindingKey {
    fn of(b: &ModelBinding) -> BindingKey {
        BindingKey {
            model_name: b.model_name.clone(),
            fingerprint: b.model_fingerprint.clone(),
            dim: b.embedding_dim,
        }
    }
}

struct LoadedModel {
    key: BindingKey,
    embedder: Embedder,
}

struct LoadedVectors {
    key: BindingKey,
    /// `PRAGMA data_version` when loaded: another process's commit changes it.
    data_version: i64,
    index: VectorIndex,
}

/// Search log entries kept while the database is busy.
const MAX_PENDING_LOG: usize = 1000;

pub struct Engine {
    config: Config,
    cancel: &'static AtomicBool,
    db: Option<Database>,
    model: Option<LoadedModel>,
    vectors: Option<LoadedVectors>,
    /// This connection wrote (add, remove): data_version does not show that.
    wrote: bool,
    pending_log: Vec<SearchLogEntry>,
    counters: Counters,
}

impl Engine {
    pub fn new(config: Config, cancel: &'static AtomicBool) -> Engine {
        Engine {
            config,
            cancel,
            db: None,
            model: None,
            vectors: None,
            wrote: false,
            pending_log: Vec::new(),
            counters: Counters::default(),
        }
    }

    pub fn counters(&self) -> Counters {
        self.counters
    }

    pub fn db_path(&self) -> PathBuf {
        self.config.db_path()
    }

    /// Runs a tool and returns its JSON text, exactly what the matching
    /// `kb` command prints with `--format json`.
    pub fn call(&mut self, def: &ToolDef, args: &Value) -> Result<String, ToolError> {
        let parse_err = ToolError::Invalid;
        match def.name {
            ToolName::Search => self.search(def.parse(args).map_err(parse_err)?),
            ToolName::Show => self.show(def.parse(args).map_err(parse_err)?),
            ToolName::Outline => {
                let p: OutlineParams = def.parse(args).map_err(parse_err)?;
                let db = self.open_db()?;
                Ok(output::to_json(&commands::outline(
                    db,
                    &p.document.as_arg(),
                    p.level,
                )?))
            }
            ToolName::Open => {
                let p: OpenParams = def.parse(args).map_err(parse_err)?;
                let db = self.open_db()?;
                let o = commands::open(db, &p.document.as_arg(), p.max_lines)?;
                Ok(output::to_json(&o.json))
            }
            ToolName::List => {
                let a: ListArgs = def.parse(args).map_err(parse_err)?;
                let db = self.open_db()?;
                Ok(output::to_json(&db.list_documents(&a.filters()?)?))
            }
            ToolName::Tags => {
                let _: NoParams = def.parse(args).map_err(parse_err)?;
                Ok(output::to_json(&commands::tags(self.open_db()?)?))
            }
            ToolName::Status => {
                let _: NoParams = def.parse(args).map_err(parse_err)?;
                Ok(output::to_json(&commands::status(self.open_db()?)?))
            }
            ToolName::Add => self.add(def.parse(args).map_err(parse_err)?),
            ToolName::Remove => self.remove(def.parse(args).map_err(parse_err)?),
        }
    }

    /// The database, opened on first use (so the server starts, and says
    /// why each call fails, even before `kb add` created it).
    fn open_db(&mut self) -> Result<&Database> {
        if self.db.is_none() {
            self.db = Some(Database::open(&self.config.db_path(), OpenMode::Existing)?);
        }
        Ok(self.db.as_ref().expect("opened above"))
    }

    fn search(&mut self, p: SearchParams) -> Result<String, ToolError> {
        let mode = p.mode().map_err(|i| ToolError::Invalid(vec![i]))?;
        if p.query.trim().is_empty() {
            return Err(invalid("query", "must contain words to search for"));
        }
        let req = commands::search_request(
            &self.config,
            &SearchOptions {
                query: p.query,
                top: p.top,
                tags: p.tags.unwrap_or_default(),
                doc_type: p.doc_type,
                mode,
                threshold: p.threshold,
            },
        )?;
        self.open_db()?;
        let started = Instant::now();
        let result = self.run_search(&req);
        self.counters.searches += 1;
        if self.config.search.log {
            self.pending_log.push(commands::search_log_entry(
                "mcp",
                &req,
                &result,
                started.elapsed(),
            ));
        }
        Ok(output::to_json(&output::search_json(&result?)))
    }

    fn run_search(&mut self, req: &search::SearchRequest) -> Result<search::SearchResponse> {
        let no_embedding = None::<fn(&str) -> Result<Vec<f32>>>;
        if !req.mode.uses_vector() {
            let db = self.open_db()?;
            return search::search_with(db, req, no_embedding, None);
        }
        self.prepare(true)?;
        let (Some(db), Some(model), Some(vectors)) = (&self.db, &self.model, &self.vectors) else {
            return Err(KbError::Model(
                "the model or the vectors did not load".into(),
            ));
        };
        let embedder = &model.embedder;
        search::search_with(
            db,
            req,
            Some(|q: &str| embedder.embed_query(q)),
            Some(&vectors.index),
        )
    }

    /// Makes the loaded model (and with `vectors`, the in-memory vectors)
    /// match the database: loads them on first use, reloads them when the
    /// knowledge base was rebound to another model, and updates the vectors
    /// when another process committed since they were read.
    fn prepare(&mut self, vectors: bool) -> Result<()> {
        let config = &self.config;
        let db = match &self.db {
            Some(db) => db,
            None => return Err(KbError::NoIndex(config.db_path())),
        };
        // Read before the snapshot starts, so a commit in between shows up
        // as a change next time rather than being missed.
        let version = db.data_version()?;
        // One read snapshot for the binding and the vectors: a reindex that
        // commits meanwhile cannot pair one model's binding with another's
        // vectors. It lasts as long as a load, not across calls.
        let snapshot = db.begin()?;
        let binding = db.model_binding()?.ok_or_else(|| {
            KbError::ModelMissing(
                "this knowledge base has no embedding model yet; run `kb init`, or search with \
                 mode: keyword"
                    .into(),
            )
        })?;
        let key = BindingKey::of(&binding);
        let load_model = self.model.as_ref().is_none_or(|m| m.key != key);
        let mut vector_state = match &self.vectors {
            _ if !vectors => VectorState::Fresh,
            Some(v) if v.key != key => VectorState::Missing,
            None => VectorState::Missing,
            Some(v) if v.data_version != version || self.wrote => VectorState::Stale,
            Some(_) => VectorState::Fresh,
        };
        if load_model {
            // Checks the model files against the binding (cheap) here; the
            // load itself runs beside the vector load.
            let (spec, files, bound) = embed::resolve_bound(db, config)?;
            let started = Instant::now();
            let (model, loaded) = std::thread::scope(|s| {
                let job = s
                    .spawn(|| embed::load_checked(&spec, &files, &bound, config, ModelUse::Server));
                let loaded = match vector_state {
                    VectorState::Missing => Some(load_vectors(db)),
                    _ => None,
                };
                let model = job
                    .join()
                    .unwrap_or_else(|_| Err(KbError::Model("the model loader crashed".into())));
                (model, loaded)
            });
            if let Some(index) = loaded {
                self.vectors = Some(LoadedVectors {
                    key: key.clone(),
                    data_version: version,
                    index: index?,
                });
                self.counters.vector_loads += 1;
                vector_state = VectorState::Fresh;
            }
            let embedder = model?;
            self.counters.model_loads += 1;
            eprintln!(
                "kb mcp: loaded {} ({} dimensions) in {} ms (model load {})",
                spec.name,
                embedder.dim(),
                started.elapsed().as_millis(),
                self.counters.model_loads
            );
            self.model = Some(LoadedModel {
                key: key.clone(),
                embedder,
            });
        }
        match vector_state {
            VectorState::Fresh => {}
            VectorState::Missing => {
                self.vectors = Some(LoadedVectors {
                    key,
                    data_version: version,
                    index: load_vectors(db)?,
                });
                self.counters.vector_loads += 1;
            }
            VectorState::Stale => {
                let started = Instant::now();
                let v = self.vectors.as_mut().expect("stale vectors exist");
                match v.index.refresh(db)? {
                    Some(stats) => {
                        self.counters.vector_refreshes += 1;
                        if stats.added + stats.removed > 0 {
                            eprintln!(
                                "kb mcp: vectors updated: {} added, {} removed ({} ms)",
                                stats.added,
                                stats.removed,
                                started.elapsed().as_millis()
                            );
                        }
                    }
                    None => {
                        v.index = load_vectors(db)?;
                        self.counters.vector_loads += 1;
                    }
                }
                v.data_version = version;
            }
        }
        drop(snapshot);
        if vectors {
            self.wrote = false;
        }
        Ok(())
    }

    fn show(&mut self, p: ShowParams) -> Result<String, ToolError> {
        enum Target {
            Chunk(i64),
            Section(String, String),
        }
        let target =
            match (p.chunk_id, &p.document, &p.section) {
                (None, Some(doc), Some(section)) => Target::Section(doc.as_arg(), section.clone()),
                (Some(id), None, None) => Target::Chunk(id),
                (Some(_), _, Some(_)) => {
                    return Err(invalid(
                        "chunk_id",
                        "give either chunk_id (a chunk) or document with section (a section)",
                    ))
                }
                (_, None, Some(_)) => {
                    return Err(invalid(
                        "document",
                        "is required with section: the document id or path (search results carry \
                     source.document_id)",
                    ))
                }
                (Some(_), Some(_), None) => {
                    return Err(invalid(
                        "document",
                        "goes with section; to show a chunk give chunk_id alone",
                    ))
                }
                (None, Some(_), None) => return Err(invalid(
                    "section",
                    "is required with document: a heading from outline (use open for the whole \
                     text)",
                )),
                (None, None, None) => {
                    return Err(invalid(
                        "chunk_id",
                        "give chunk_id (from search results), or document with section",
                    ))
                }
            };
        let db = self.open_db()?;
        match target {
            Target::Chunk(id) => Ok(output::to_json(&commands::show_chunk(
                db,
                id,
                p.context.unwrap_or(0),
            )?)),
            Target::Section(doc, section) => {
                let s = commands::show_section(db, &doc, &section, p.max_lines)?;
                Ok(output::to_json(&s.json))
            }
        }
    }

    fn add(&mut self, p: AddParams) -> Result<String, ToolError> {
        let paths: Vec<PathBuf> = p.paths.iter().map(PathBuf::from).collect();
        let tags = commands::check_add_args(&paths, &p.tags.unwrap_or_default())?;
        if self.db.is_none() {
            self.db = Some(Database::open(&self.config.db_path(), OpenMode::Create)?);
        }
        let bound = match &self.db {
            Some(db) => db.model_binding()?.is_some(),
            None => false,
        };
        if bound {
            self.prepare(false)?;
        } else if let Some(db) = &self.db {
            // A new knowledge base: bind the configured model, as `kb add` does.
            let embedder = commands::embedder_for_add(db, &self.config)?;
            let binding = db
                .model_binding()?
                .ok_or_else(|| KbError::Model("binding the model failed".into()))?;
            self.counters.model_loads += 1;
            self.model = Some(LoadedModel {
                key: BindingKey::of(&binding),
                embedder,
            });
        }
        let (Some(db), Some(model)) = (&self.db, &self.model) else {
            return Err(KbError::Model("the model did not load".into()).into());
        };
        self.wrote = true;
        let summary = commands::add(
            &self.config,
            db,
            ModelSource::Borrowed(&model.embedder),
            &paths,
            tags,
            false,
            self.cancel,
        )?;
        eprintln!("kb mcp: add: {}", summary.line());
        Ok(output::to_json(&summary))
    }

    fn remove(&mut self, p: RemoveParams) -> Result<String, ToolError> {
        let missing = p.missing == Some(true);
        let docs: Vec<String> = p
            .documents
            .unwrap_or_default()
            .iter()
            .map(|d| d.as_arg())
            .collect();
        match (docs.is_empty(), missing) {
            (true, false) => {
                return Err(invalid(
                    "documents",
                    "give the documents to remove (ids or paths), or missing: true",
                ))
            }
            (false, true) => {
                return Err(invalid(
                    "missing",
                    "missing: true removes every document whose file is gone; do not combine it \
                     with documents",
                ))
            }
            _ => {}
        }
        let db = self.open_db()?;
        let r = commands::remove(db, &docs, missing)?;
        self.wrote = true;
        Ok(output::to_json(&r.json()))
    }

    /// Writes the queued search log entries. Runs after the response is
    /// sent, and never waits for another writer: while `kb add` holds the
    /// write lock the entries stay queued for the next try.
    pub fn flush_log(&mut self) {
        if self.pending_log.is_empty() {
            return;
        }
        let Some(db) = &self.db else {
            self.pending_log.clear();
            return;
        };
        let _ = db.set_busy_timeout(Duration::ZERO);
        let written = (|| -> Result<()> {
            let tx = db.begin()?;
            for e in &self.pending_log {
                db.log_search(e)?;
            }
            tx.commit()?;
            Ok(())
        })();
        let _ = db.set_busy_timeout(BUSY_TIMEOUT);
        if written.is_ok() {
            self.pending_log.clear();
        } else if self.pending_log.len() > MAX_PENDING_LOG {
            let excess = self.pending_log.len() - MAX_PENDING_LOG;
            self.pending_log.drain(..excess);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VectorState {
    Fresh,
    Stale,
    Missing,
}

fn load_vectors(db: &Database) -> Result<VectorIndex> {
    let started = Instant::now();
    let index = VectorIndex::load(db)?;
    eprintln!(
        "kb mcp: loaded {} vectors into memory in {} ms",
        index.len(),
        started.elapsed().as_millis()
    );
    Ok(index)
}
