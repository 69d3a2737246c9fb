//! Settings, resolved once per process.
//!
//! Precedence, lowest to highest: built-in defaults < `<data_dir>/config.yaml`
//! < environment (`KB_DATA_DIR`, `KB_MODEL`, `KB_DEFAULT_TOP`, and `KB_` + the
//! upper-snake-case key path for every other key, e.g.
//! `KB_CHUNKING_MARKDOWN_MAX_TOKENS`) < command-line flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use figment::providers::{Format as _, Serialized, Yaml};
use figment::Figment;
use serde::{Deserialize, Serialize};

use crate::error::{KbError, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum OutputFormat {
    Json,
    Human,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub data_dir: PathBuf,
    pub embedding: EmbeddingConfig,
    pub search: SearchConfig,
    pub chunking: ChunkingConfig,
    pub ingestion: IngestionConfig,
    /// True when the user chose `embedding.model` (flag, environment or
    /// config.yaml) rather than taking the default; only then does a
    /// different model bound to the index count as a mismatch.
    #[serde(skip)]
    pub model_explicit: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct EmbeddingConfig {
    /// A model name from models.toml.
    pub model: String,
    /// Overrides the model's query prefix from models.toml when set.
    pub query_prefix: Option<String>,
    /// Overrides the model's passage prefix from models.toml when set.
    pub passage_prefix: Option<String>,
    /// A local directory holding the model (ONNX file, tokenizer.json,
    /// config.json); overrides the directory recorded by `kb init`.
    pub model_dir: Option<PathBuf>,
    /// Path to libonnxruntime; when unset kb searches the usual places.
    pub onnxruntime: Option<PathBuf>,
    /// Intra-op threads for inference; 0 means all cores.
    pub threads: usize,
    /// Chunks per inference batch.
    pub batch_size: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    pub default_top: usize,
    pub default_format: OutputFormat,
    pub rrf_k: f64,
    /// Record every search in the database's search log.
    pub log: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ChunkingConfig {
    pub defaults: ChunkDefaults,
    pub pdf: PdfChunking,
    pub markdown: MarkdownChunking,
    pub code: CodeChunking,
    pub note: NoteChunking,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ChunkDefaults {
    pub max_tokens: usize,
    pub overlap_tokens: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PdfStrategy {
    Hierarchy,
    Fixed,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PdfChunking {
    pub strategy: PdfStrategy,
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MarkdownStrategy {
    Header,
    Fixed,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MarkdownChunking {
    pub strategy: MarkdownStrategy,
    pub min_tokens: usize,
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CodeStrategy {
    Ast,
    Fixed,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CodeChunking {
    pub strategy: CodeStrategy,
    pub include_context: bool,
    pub max_tokens: usize,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NoteStrategy {
    Whole,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NoteChunking {
    pub strategy: NoteStrategy,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OcrMode {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IngestionConfig {
    /// Files parsed in parallel; 0 means one per core.
    pub workers: usize,
    /// Most documents in one embedding group; each is committed on its own.
    pub batch_size: usize,
    /// OCR is not implemented; pages without text are counted and reported.
    pub enable_ocr: OcrMode,
    /// Files larger than this are skipped with a logged reason.
    pub max_file_mb: u64,
    /// Seconds a PDF's text extraction may spend loading the file or on any
    /// one page before it is abandoned.
    pub pdf_timeout_secs: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            data_dir: PathBuf::from("~/.kb"),
            embedding: EmbeddingConfig::default(),
            search: SearchConfig::default(),
            chunking: ChunkingConfig::default(),
            ingestion: IngestionConfig::default(),
            model_explicit: false,
        }
    }
}

impl Default for EmbeddingConfig {
    fn default() -> Self {
        EmbeddingConfig {
            model: "all-MiniLM-L6-v2".into(),
            query_prefix: None,
            passage_prefix: None,
            model_dir: None,
            onnxruntime: None,
            threads: 0,
            batch_size: 32,
        }
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            default_top: 10,
            default_format: OutputFormat::Json,
            rrf_k: 60.0,
            log: true,
        }
    }
}

impl Default for ChunkingConfig {
    fn default() -> Self {
        ChunkingConfig {
            defaults: ChunkDefaults {
                max_tokens: 512,
                overlap_tokens: 50,
            },
            pdf: PdfChunking {
                strategy: PdfStrategy::Hierarchy,
                max_tokens: 1024,
            },
            markdown: MarkdownChunking {
                strategy: MarkdownStrategy::Header,
                min_tokens: 50,
                max_tokens: 1024,
            },
            code: CodeChunking {
                strategy: CodeStrategy::Ast,
                include_context: true,
                max_tokens: 1024,
            },
            note: NoteChunking {
                strategy: NoteStrategy::Whole,
            },
        }
    }
}

impl Default for ChunkDefaults {
    fn default() -> Self {
        ChunkingConfig::default().defaults
    }
}
impl Default for PdfChunking {
    fn default() -> Self {
        ChunkingConfig::default().pdf
    }
}
impl Default for MarkdownChunking {
    fn default() -> Self {
        ChunkingConfig::default().markdown
    }
}
impl Default for CodeChunking {
    fn default() -> Self {
        ChunkingConfig::default().code
    }
}
impl Default for NoteChunking {
    fn default() -> Self {
        ChunkingConfig::default().note
    }
}

impl Default for IngestionConfig {
    fn default() -> Self {
        IngestionConfig {
            workers: 0,
            batch_size: 50,
            enable_ocr: OcrMode::Auto,
            max_file_mb: 20,
            pdf_timeout_secs: 60,
        }
    }
}

/// Flags from the command line that override every other source.
#[derive(Debug, Default, Clone)]
pub struct CliOverrides {
    pub data_dir: Option<PathBuf>,
    pub model: Option<String>,
}

/// Environment variable names with a short alias, mapped to their key path.
const ENV_ALIASES: &[(&str, &str)] = &[
    ("KB_MODEL", "embedding.model"),
    ("KB_DEFAULT_TOP", "search.default_top"),
];

impl Config {
    pub fn db_path(&self) -> PathBuf {
        self.data_dir.join("kb.db")
    }

    pub fn errors_log_path(&self) -> PathBuf {
        self.data_dir.join("ingest-errors.log")
    }

    /// Resolves the configuration from every source, reading the process
    /// environment.
    pub fn load(cli: &CliOverrides) -> Result<Config> {
        let env: BTreeMap<String, String> = std::env::vars().collect();
        Self::load_from(cli, &env)
    }

    /// Resolves the configuration with an explicit environment (for tests).
    pub fn load_from(cli: &CliOverrides, env: &BTreeMap<String, String>) -> Result<Config> {
        let home = dirs::home_dir();
        // The data dir decides where config.yaml is, so it is resolved first
        // from the flag, then the environment, then the default.
        let data_dir_raw = cli
            .data_dir
            .clone()
            .or_else(|| env.get("KB_DATA_DIR").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("~/.kb"));
        let data_dir = expand_tilde(&data_dir_raw, home.as_deref());
        let config_file = data_dir.join("config.yaml");

        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        let mut model_in_file = false;
        if config_file.exists() {
            model_in_file = check_yaml_file(&config_file)?;
            figment = figment.merge(Yaml::file_exact(&config_file));
        }
        figment = figment.merge(Serialized::defaults(env_overrides(env)?));
        if let Some(model) = &cli.model {
            figment = figment.merge(Serialized::default("embedding.model", model));
        }

        let mut config: Config = figment
            .extract()
            .map_err(|e| config_error(e, &config_file))?;
        // The flag and KB_DATA_DIR win over a data_dir key in config.yaml.
        if cli.data_dir.is_some() || env.contains_key("KB_DATA_DIR") {
            config.data_dir = data_dir;
        } else {
            config.data_dir = expand_tilde(&config.data_dir, home.as_deref());
        }
        if let Some(p) = &config.embedding.model_dir {
            config.embedding.model_dir = Some(expand_tilde(p, home.as_deref()));
        }
        config.model_explicit = cli.model.is_some()
            || env.contains_key("KB_MODEL")
            || env.contains_key("KB_EMBEDDING_MODEL")
            || model_in_file;
        config.validate(&config_file)?;
        Ok(config)
    }

    fn validate(&self, file: &Path) -> Result<()> {
        let bad = |key: &str, why: &str| {
            Err(KbError::Config(format!(
                "key `{key}` {why} (set in {} or the environment variable {})",
                file.display(),
                env_name(key)
            )))
        };
        if self.search.default_top == 0 {
            return bad("search.default_top", "must be at least 1");
        }
        if !(self.search.rrf_k.is_finite() && self.search.rrf_k > 0.0) {
            return bad("search.rrf_k", "must be a positive number");
        }
        if self.embedding.batch_size == 0 {
            return bad("embedding.batch_size", "must be at least 1");
        }
        if self.ingestion.batch_size == 0 {
            return bad("ingestion.batch_size", "must be at least 1");
        }
        if self.ingestion.pdf_timeout_secs == 0 {
            return bad("ingestion.pdf_timeout_secs", "must be at least 1");
        }
        let c = &self.chunking;
        for (key, v) in [
            ("chunking.defaults.max_tokens", c.defaults.max_tokens),
            ("chunking.pdf.max_tokens", c.pdf.max_tokens),
            ("chunking.markdown.max_tokens", c.markdown.max_tokens),
            ("chunking.code.max_tokens", c.code.max_tokens),
        ] {
            if v < 16 {
                return bad(key, "must be at least 16");
            }
        }
        if c.defaults.overlap_tokens * 2 > c.defaults.max_tokens {
            return bad(
                "chunking.defaults.overlap_tokens",
                "must be at most half of chunking.defaults.max_tokens",
            );
        }
        if c.markdown.min_tokens > c.markdown.max_tokens {
            return bad(
                "chunking.markdown.min_tokens",
                "must not exceed chunking.markdown.max_tokens",
            );
        }
        Ok(())
    }
}

/// The environment variable that sets a key path.
pub fn env_name(key: &str) -> String {
    format!("KB_{}", key.replace('.', "_").to_uppercase())
}

/// Every leaf key path of the configuration, e.g. `chunking.pdf.max_tokens`.
pub fn key_paths() -> Vec<String> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&p, v, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }
    let mut out = Vec::new();
    let v = serde_json::to_value(Config::default()).expect("config serialises");
    walk("", &v, &mut out);
    out
}

/// Builds a nested map of the values set through `KB_*` variables.
/// Unrelated `KB_*` variables are ignored; each value is parsed as YAML so
/// `KB_DEFAULT_TOP=5` is a number and `KB_SEARCH_LOG=false` a boolean.
fn env_overrides(env: &BTreeMap<String, String>) -> Result<serde_json::Value> {
    let mut root = serde_json::Map::new();
    let mut names: Vec<(String, String)> = key_paths()
        .into_iter()
        .filter(|k| k != "data_dir")
        .map(|k| (env_name(&k), k))
        .collect();
    names.extend(
        ENV_ALIASES
            .iter()
            .map(|(n, k)| (n.to_string(), k.to_string())),
    );
    for (name, key) in names {
        let Some(raw) = env.get(&name) else { continue };
        let value: serde_json::Value = if raw.trim().is_empty() {
            serde_json::Value::String(raw.clone())
        } else {
            match serde_yaml::from_str::<serde_yaml::Value>(raw) {
                Ok(serde_yaml::Value::String(s)) => serde_json::Value::String(s),
                Ok(v @ (serde_yaml::Value::Number(_) | serde_yaml::Value::Bool(_))) => {
                    serde_json::to_value(v).unwrap_or(serde_json::Value::String(raw.clone()))
                }
                _ => serde_json::Value::String(raw.clone()),
            }
        };
        let parts: Vec<&str> = key.split('.').collect();
        let mut node = &mut root;
        for p in &parts[..parts.len() - 1] {
            node = node
                .entry(p.to_string())
                .or_insert_with(|| serde_json::Value::Object(Default::default()))
                .as_object_mut()
                .ok_or_else(|| KbError::Config(format!("bad environment variable {name}")))?;
        }
        node.insert(parts[parts.len() - 1].to_string(), value);
    }
    Ok(serde_json::Value::Object(root))
}

/// Parses the YAML file once on its own so a syntax error names the file
/// and line rather than surfacing as a generic extraction failure. Returns
/// whether the file sets `embedding.model`.
fn check_yaml_file(path: &Path) -> Result<bool> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| KbError::Config(format!("cannot read {}: {e}", path.display())))?;
    match serde_yaml::from_str::<serde_yaml::Value>(&text) {
        Ok(v @ serde_yaml::Value::Mapping(_)) => {
            Ok(v.get("embedding").and_then(|e| e.get("model")).is_some())
        }
        Ok(serde_yaml::Value::Null) => Ok(false),
        Ok(_) => Err(KbError::Config(format!(
            "{}: the file must be a YAML mapping of keys (see config.example.yaml)",
            path.display()
        ))),
        Err(e) => Err(KbError::Config(format!(
            "{}: invalid YAML: {e}",
            path.display()
        ))),
    }
}

fn config_error(e: figment::Error, file: &Path) -> KbError {
    let mut msgs = Vec::new();
    for err in e {
        let key = err.path.join(".");
        let source = match &err.metadata {
            Some(md) => match &md.source {
                Some(figment::Source::File(p)) => p.display().to_string(),
                Some(other) => other.to_string(),
                None => md.name.to_string(),
            },
            None => file.display().to_string(),
        };
        let what = match &err.kind {
            figment::error::Kind::UnknownField(field, _) => {
                let full = if key.is_empty() {
                    field.to_string()
                } else {
                    format!("{key}.{field}")
                };
                format!("unknown key `{full}`")
            }
            kind => {
                if key.is_empty() {
                    kind.to_string()
                } else {
                    format!("key `{key}`: {kind}")
                }
            }
        };
        msgs.push(format!("{what} (from {source})"));
    }
    KbError::Config(msgs.join("; "))
}

pub fn expand_tilde(path: &Path, home: Option<&Path>) -> PathBuf {
    let s = path.to_string_lossy();
    if let Some(home) = home {
        if s == "~" {
            return home.to_path_buf();
        }
        if let Some(rest) = s.strip_prefix("~/") {
            return home.join(rest);
        }
    }
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_without_file_or_env() {
        let dir = tempfile::tempdir().unwrap();
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
            ..Default::default()
        };
        let c = Config::load_from(&cli, &env(&[])).unwrap();
        assert_eq!(c.search.default_top, 10);
        assert_eq!(c.embedding.model, "all-MiniLM-L6-v2");
        assert_eq!(c.data_dir, dir.path());
    }

    #[test]
    fn precedence_default_file_env_cli() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.yaml"),
            "search:\n  default_top: 3\n  rrf_k: 10\nembedding:\n  model: from-file\nchunking:\n  markdown:\n    max_tokens: 300\n",
        )
        .unwrap();
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
            ..Default::default()
        };
        let c = Config::load_from(&cli, &env(&[])).unwrap();
        assert_eq!(c.search.default_top, 3);
        assert_eq!(c.search.rrf_k, 10.0);
        assert_eq!(c.embedding.model, "from-file");
        assert_eq!(c.chunking.markdown.max_tokens, 300);
        assert_eq!(
            c.chunking.markdown.min_tokens, 50,
            "untouched keys keep defaults"
        );

        let e = env(&[
            ("KB_DEFAULT_TOP", "7"),
            ("KB_MODEL", "from-env"),
            ("KB_CHUNKING_MARKDOWN_MAX_TOKENS", "400"),
            ("KB_SEARCH_LOG", "false"),
            ("KB_UNRELATED_THING", "x"),
        ]);
        let c = Config::load_from(&cli, &e).unwrap();
        assert_eq!(c.search.default_top, 7);
        assert_eq!(c.embedding.model, "from-env");
        assert_eq!(c.chunking.markdown.max_tokens, 400);
        assert!(!c.search.log);
        assert_eq!(
            c.search.rrf_k, 10.0,
            "file value survives when env is silent"
        );

        let cli2 = CliOverrides {
            data_dir: Some(dir.path().into()),
            model: Some("from-cli".into()),
        };
        let c = Config::load_from(&cli2, &e).unwrap();
        assert_eq!(c.embedding.model, "from-cli");
    }

    #[test]
    fn kb_data_dir_env_and_tilde() {
        let c = Config::load_from(
            &CliOverrides::default(),
            &env(&[("KB_DATA_DIR", "/tmp/kb-test-nonexistent")]),
        )
        .unwrap();
        assert_eq!(c.data_dir, PathBuf::from("/tmp/kb-test-nonexistent"));
        let home = PathBuf::from("/home/u");
        assert_eq!(
            expand_tilde(Path::new("~/.kb"), Some(&home)),
            PathBuf::from("/home/u/.kb")
        );
    }

    #[test]
    fn malformed_file_names_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.yaml");
        std::fs::write(&f, "search: [unclosed\n").unwrap();
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
            ..Default::default()
        };
        let err = Config::load_from(&cli, &env(&[])).unwrap_err();
        assert_eq!(err.code(), "E_CONFIG");
        assert!(err.to_string().contains("config.yaml"), "{err}");
    }

    #[test]
    fn unknown_key_and_bad_value_name_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.yaml");
        let cli = CliOverrides {
            data_dir: Some(dir.path().into()),
            ..Default::default()
        };
        std::fs::write(&f, "search:\n  defualt_top: 3\n").unwrap();
        let err = Config::load_from(&cli, &env(&[])).unwrap_err().to_string();
        assert!(err.contains("search.defualt_top"), "{err}");
        assert!(err.contains("config.yaml"), "{err}");

        std::fs::write(&f, "chunking:\n  pdf:\n    strategy: magic\n").unwrap();
        let err = Config::load_from(&cli, &env(&[])).unwrap_err().to_string();
        assert!(err.contains("chunking.pdf.strategy"), "{err}");

        std::fs::write(&f, "search:\n  default_top: many\n").unwrap();
        let err = Config::load_from(&cli, &env(&[])).unwrap_err().to_string();
        assert!(err.contains("search.default_top"), "{err}");

        std::fs::write(&f, "").unwrap();
        let err = Config::load_from(&cli, &env(&[("KB_DEFAULT_TOP", "0")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("search.default_top"), "{err}");

        let err = Config::load_from(&cli, &env(&[("KB_INGESTION_PDF_TIMEOUT_SECS", "0")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("ingestion.pdf_timeout_secs"), "{err}");
    }

    #[test]
    fn every_key_has_an_env_name_and_an_example_entry() {
        let example = include_str!("../config.example.yaml");
        for key in key_paths() {
            let leaf = key.rsplit('.').next().unwrap();
            assert!(
                example.contains(&format!("{leaf}:")),
                "config.example.yaml does not document {key}"
            );
            assert!(env_name(&key).starts_with("KB_"));
        }
    }
}
