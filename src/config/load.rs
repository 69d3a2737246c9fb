//! Resolving the configuration from its sources with figment, remembering
//! where each value came from, so errors name the file or the environment
//! variable at fault and `kb config` can show it.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use figment::providers::{Format as _, Serialized, Yaml};
use figment::value::{Dict, Map};
use figment::{Figment, Metadata, Profile, Provider};
use serde::Serialize;

use super::Config;
use crate::error::{KbError, Result};

/// Flags from the command line that override every other source.
#[derive(Debug, Default, Clone)]
pub struct CliOverrides {
    pub data_dir: Option<PathBuf>,
}

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "name")]
pub enum Source {
    /// kb's built-in default.
    Default,
    /// The configuration file (its path).
    File(PathBuf),
    /// An environment variable (its name).
    Environment(String),
    /// A command-line flag (its name).
    Flag(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("the default"),
            Source::File(p) => write!(f, "{}", p.display()),
            Source::Environment(v) => write!(f, "the environment variable {v}"),
            Source::Flag(flag) => write!(f, "the flag {flag}"),
        }
    }
}

/// Environment variables with a short alias, mapped to their key path.
const ENV_ALIASES: &[(&str, &str)] = &[
    ("KB_MODEL", "embedding.model"),
    ("KB_DEFAULT_TOP", "search.default_top"),
];

/// `KB_*` variables kb reads that are not settings (or belong to its test
/// and benchmark tools): never reported as unknown.
const OTHER_VARIABLES: &[&str] = &[
    "KB_DATA_DIR",
    "KB_CACHE_DIR",
    "KB_UPDATE_GOLDEN",
    crate::timings::VARIABLE,
];
const OTHER_PREFIXES: &[&str] = &[
    "KB_TEST_",
    "KB_BENCH_",
    "KB_REQUIRE_",
    "KB_ORT_",
    "KB_MODEL_",
];

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

/// The closest of `candidates` to `wanted`, if it is close enough to be a
/// typo of it.
fn did_you_mean<'a>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(wanted, c), c))
        .filter(|(score, _)| *score > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// One setting from one source that figment can name: an environment
/// variable or a flag.
struct Named {
    metadata: Metadata,
    key: String,
    value: serde_json::Value,
}

impl Provider for Named {
    fn metadata(&self) -> Metadata {
        self.metadata.clone()
    }

    fn data(&self) -> figment::Result<Map<Profile, Dict>> {
        Serialized::default(&self.key, &self.value).data()
    }
}

const ENV_SOURCE: &str = "environment variable ";

impl Named {
    fn env(name: &str, key: &str, value: serde_json::Value) -> Named {
        Named {
            metadata: Metadata::named(format!("{ENV_SOURCE}{name}"))
                .source(figment::Source::Custom(format!("{ENV_SOURCE}{name}"))),
            key: key.into(),
            value,
        }
    }
}

/// The source figment recorded for a value.
fn source_of(md: Option<&Metadata>) -> Source {
    let Some(md) = md else {
        return Source::Default;
    };
    match &md.source {
        Some(figment::Source::File(p)) => Source::File(p.clone()),
        Some(figment::Source::Custom(c)) => match c.strip_prefix(ENV_SOURCE) {
            Some(v) => Source::Environment(v.to_string()),
            None => Source::Default,
        },
        _ => Source::Default,
    }
}

impl Config {
    /// Resolves the configuration from every source, reading the process
    /// environment. A `KB_*` variable that is not valid UTF-8 is an error
    /// naming it; other variables are not kb's business.
    pub fn load(cli: &CliOverrides) -> Result<Config> {
        let mut env = BTreeMap::new();
        for (name, value) in std::env::vars_os() {
            let Some(name) = name.to_str() else { continue };
            if !name.starts_with("KB_") {
                continue;
            }
            let value = value.into_string().map_err(|raw: OsString| {
                KbError::Config(format!(
                    "the environment variable {name} is not valid UTF-8 ({:?})",
                    raw
                ))
            })?;
            env.insert(name.to_string(), value);
        }
        Self::load_from(cli, &env)
    }

    /// Resolves the configuration with an explicit environment (for tests).
    pub fn load_from(cli: &CliOverrides, env: &BTreeMap<String, String>) -> Result<Config> {
        Self::load_with_home(cli, env, dirs::home_dir())
    }

    /// [`Config::load_from`] with the home folder `~` stands for.
    pub(crate) fn load_with_home(
        cli: &CliOverrides,
        env: &BTreeMap<String, String>,
        home: Option<PathBuf>,
    ) -> Result<Config> {
        // The data dir decides where config.yaml is, so it is resolved first
        // from the flag, then the environment, then the default.
        let (data_dir_raw, data_dir_source) = match (&cli.data_dir, env.get("KB_DATA_DIR")) {
            (Some(d), _) => (d.clone(), Source::Flag("--data-dir".into())),
            // Set but empty (`KB_DATA_DIR=`) is unset, not the working folder.
            (None, Some(d)) if !d.is_empty() => {
                (PathBuf::from(d), Source::Environment("KB_DATA_DIR".into()))
            }
            (None, _) => (PathBuf::from("~/.kb"), Source::Default),
        };
        let named = expand_tilde(&data_dir_raw, home.as_deref());
        // A file named as the data directory is a database (a copy kb
        // backup wrote): its folder holds the rest.
        let (data_dir, db_file) = as_data_dir(named);
        let config_file = data_dir.join("config.yaml");

        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if !config_file.exists() && std::fs::symlink_metadata(&config_file).is_ok() {
            // A link to nothing (or a loop): a file the user meant kb to read.
            return Err(KbError::Config(format!(
                "{} is a link to a file that does not exist; point it at your config.yaml or \
                 remove it",
                config_file.display()
            )));
        }
        if config_file.exists() && check_yaml_file(&config_file)? {
            figment = figment.merge(Yaml::file_exact(&config_file));
        }
        let (settings, warnings) = env_settings(env)?;
        for s in settings {
            figment = figment.merge(s);
        }

        let mut config: Config = figment.extract().map_err(config_error)?;
        config.sources = key_paths()
            .into_iter()
            .map(|k| {
                let s = source_of(figment.find_metadata(&k));
                (k, s)
            })
            .collect();
        // The flag and KB_DATA_DIR win over a data_dir key in config.yaml.
        if data_dir_source != Source::Default {
            config.data_dir = data_dir;
            config.db_file = db_file;
            config.sources.insert("data_dir".into(), data_dir_source);
        } else {
            (config.data_dir, config.db_file) =
                as_data_dir(expand_tilde(&config.data_dir, home.as_deref()));
        }
        if let Some(p) = &config.embedding.model_dir {
            config.embedding.model_dir = Some(expand_tilde(p, home.as_deref()));
        }
        for p in &mut config.mcp.write_roots {
            *p = expand_tilde(p, home.as_deref());
        }
        config.config_path = Some(config_file);
        config.model_explicit = config.source_of("embedding.model") != Source::Default;
        config.warnings = warnings;
        config.validate()?;
        Ok(config)
    }
}

/// The data directory and the database file, for a path given as the
/// data directory: a folder (or a path not made yet) holds kb.db; an
/// SQLite file is the database, in the folder that holds it. Any other
/// file stays the data directory, and opening it says it is no folder.
fn as_data_dir(path: PathBuf) -> (PathBuf, Option<PathBuf>) {
    if !path.is_file() || !starts_as_sqlite(&path) {
        return (path, None);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    (dir, Some(path))
}

/// Whether a file starts as every SQLite database does.
fn starts_as_sqlite(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"SQLite format 3\0")
}

/// The settings made through `KB_*` variables, one named provider each,
/// and warnings for `KB_*` variables that are no setting (a typo goes
/// noticed). Each value is parsed as YAML so `KB_DEFAULT_TOP=5` is a number
/// and `KB_SEARCH_LOG=false` a boolean.
fn env_settings(env: &BTreeMap<String, String>) -> Result<(Vec<Named>, Vec<String>)> {
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
    let mut settings = Vec::new();
    for (name, key) in &names {
        let Some(raw) = env.get(name) else { continue };
        let value: serde_json::Value = if raw.trim().is_empty() {
            serde_json::Value::String(raw.clone())
        } else {
            match serde_norway::from_str::<serde_norway::Value>(raw) {
                Ok(serde_norway::Value::String(s)) => serde_json::Value::String(s),
                // A flow sequence (`[~/notes, ~/work]`) is a list setting's value.
                Ok(
                    v @ (serde_norway::Value::Number(_)
                    | serde_norway::Value::Bool(_)
                    | serde_norway::Value::Sequence(_)),
                ) => serde_json::to_value(v).unwrap_or(serde_json::Value::String(raw.clone())),
                _ => serde_json::Value::String(raw.clone()),
            }
        };
        settings.push(Named::env(name, key, value));
    }
    let mut warnings = Vec::new();
    for name in env.keys() {
        let known = names.iter().any(|(n, _)| n == name)
            || OTHER_VARIABLES.contains(&name.as_str())
            || OTHER_PREFIXES.iter().any(|p| name.starts_with(p));
        if known || !name.starts_with("KB_") {
            continue;
        }
        let hint = did_you_mean(name, names.iter().map(|(n, _)| n.as_str()))
            .map(|n| format!("; did you mean {n}?"))
            .unwrap_or_else(|| "; `kb config` lists the settings".into());
        warnings.push(format!(
            "the environment variable {name} is not a kb setting and is ignored{hint}"
        ));
    }
    Ok((settings, warnings))
}

/// Parses the YAML file once on its own so a syntax error names the file
/// and line rather than surfacing as a generic extraction failure.
fn check_yaml_file(path: &Path) -> Result<bool> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| KbError::Config(format!("cannot read {}: {e}", path.display())))?;
    match serde_norway::from_str::<serde_norway::Value>(&text) {
        Ok(serde_norway::Value::Mapping(_)) => Ok(true),
        // Empty, comments only, or `~`: nothing set.
        Ok(serde_norway::Value::Null) => Ok(false),
        Ok(_) => Err(KbError::Config(format!(
            "{}: the file must be a YAML mapping of keys (see config.example.yaml)",
            path.display()
        ))),
        Err(e) => {
            // A tab where YAML wants spaces gets only "cannot start any token".
            let line = e.location().map_or(0, |l| l.line());
            let tab = text
                .lines()
                .nth(line.wrapping_sub(1))
                .is_some_and(|l| l.trim_start_matches(' ').starts_with('\t'));
            let hint = if tab {
                " (a tab: indent with spaces)"
            } else {
                ""
            };
            Err(KbError::Config(format!(
                "{}: invalid YAML: {e}{hint}",
                path.display()
            )))
        }
    }
}

/// Names every bad key with where its value came from, and suggests the
/// key that was probably meant.
fn config_error(e: figment::Error) -> KbError {
    let keys = key_paths();
    let mut msgs = Vec::new();
    for err in e {
        let from = source_of(err.metadata.as_ref());
        let key = err.path.join(".");
        let what = match &err.kind {
            figment::error::Kind::UnknownField(field, _) => {
                // figment's path already ends with the unknown field.
                let full = if key.is_empty() {
                    field.to_string()
                } else if key == *field || key.ends_with(&format!(".{field}")) {
                    key.clone()
                } else {
                    format!("{key}.{field}")
                };
                // Compared with the keys as deep as it (`serch` with the
                // sections, `search.default_tp` with their keys).
                let depth = full.split('.').count();
                let mut as_deep: Vec<String> = keys
                    .iter()
                    .map(|k| k.split('.').take(depth).collect::<Vec<_>>().join("."))
                    .collect();
                as_deep.dedup();
                let hint = did_you_mean(&full, as_deep.iter().map(String::as_str))
                    .map(|k| format!("; did you mean `{k}`?"))
                    .unwrap_or_default();
                format!("unknown key `{full}`{hint}")
            }
            kind => match (key.is_empty(), expected_value(&key)) {
                (true, _) => kind.to_string(),
                (false, Some(expected)) => format!("key `{key}`: {}; {expected}", found(kind)),
                (false, None) => format!("key `{key}`: {kind}"),
            },
        };
        msgs.push(format!("{what} (from {from})"));
    }
    KbError::Config(msgs.join("; "))
}

/// What was given, in a config error: the value when figment names it.
fn found(kind: &figment::error::Kind) -> String {
    use figment::error::{Actual, Kind};
    let shown = |a: &Actual| match a {
        Actual::Bool(b) => format!("`{b}`"),
        Actual::Unsigned(n) => format!("`{n}`"),
        Actual::Signed(n) => format!("`{n}`"),
        Actual::Float(x) => format!("`{x}`"),
        Actual::Char(c) => format!("`{c}`"),
        Actual::Str(t) => format!("`{t}`"),
        Actual::Seq => "a list".into(),
        Actual::Map => "a mapping".into(),
        Actual::Unit => "nothing".into(),
        other => other.to_string(),
    };
    match kind {
        Kind::InvalidType(actual, _) | Kind::InvalidValue(actual, _) => {
            format!("{} is not a valid value", shown(actual))
        }
        Kind::UnknownVariant(v, _) => format!("`{v}` is not a valid value"),
        _ => "not a valid value".into(),
    }
}

/// What a key takes, in words, from the configuration's JSON Schema:
/// "one of `on`, `off`", "a whole number from 1", "a number", ...
fn expected_value(key: &str) -> Option<String> {
    let schema = serde_json::to_value(schemars::schema_for!(Config)).ok()?;
    let defs = schema.get("$defs").cloned().unwrap_or_default();
    let resolve = |v: &serde_json::Value| -> serde_json::Value {
        match v.get("$ref").and_then(|r| r.as_str()) {
            Some(r) => defs[r.trim_start_matches("#/$defs/")].clone(),
            None => v.clone(),
        }
    };
    let mut at = schema.clone();
    for part in key.split('.') {
        let here = resolve(&at);
        at = match part.parse::<usize>() {
            Ok(_) => resolve(&here["items"]),
            Err(_) => resolve(&here["properties"][part]),
        };
    }
    let kinds: Vec<String> = match at.get("anyOf").or_else(|| at.get("oneOf")) {
        Some(serde_json::Value::Array(alts)) => {
            alts.iter().map(|a| described(&resolve(a))).collect()
        }
        _ => vec![described(&at)],
    };
    let kinds: Vec<String> = kinds.into_iter().filter(|k| !k.is_empty()).collect();
    (!kinds.is_empty()).then(|| format!("it takes {}", kinds.join(", or ")))
}

/// One JSON Schema alternative in words (empty when it says nothing).
fn described(s: &serde_json::Value) -> String {
    if let Some(values) = s.get("enum").and_then(|e| e.as_array()) {
        if let [one] = values.as_slice() {
            return format!("`{}`", one.as_str().unwrap_or_default());
        }
        let names: Vec<String> = values
            .iter()
            .map(|v| format!("`{}`", v.as_str().unwrap_or_default()))
            .collect();
        return format!("one of {}", names.join(", "));
    }
    if let Some(v) = s.get("const").and_then(|v| v.as_str()) {
        return format!("`{v}`");
    }
    // A minimum of 0 is the type's (a count), not a rule of the key's.
    let from = s
        .get("minimum")
        .and_then(|m| m.as_f64())
        .filter(|m| *m > 0.0)
        .map(|m| format!(" from {m}"))
        .unwrap_or_default();
    let unsigned = s.get("minimum").and_then(|m| m.as_f64()) == Some(0.0);
    match s.get("type").and_then(|t| t.as_str()) {
        Some("integer") if unsigned => "a whole number, not negative".into(),
        Some("integer") => format!("a whole number{from}"),
        Some("number") => format!("a number{from}"),
        Some("boolean") => "true or false".into(),
        Some("string") => "text".into(),
        Some("array") => "a list".into(),
        Some("object") => "keys under it (see config.example.yaml)".into(),
        _ => String::new(),
    }
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
