//! `kb config`: the effective configuration, each value with where it came
//! from (default, config file, environment variable, flag).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Command, CommandSpec, Mcp, OutputKind};
use crate::config::{key_paths, Source};
use crate::error::{KbError, Result};
use crate::output::{Render, Style};
use crate::session::Session;

/// The effective configuration: every setting, its value and where it came from
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigArgs {}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Setting {
    /// The key path, as in config.yaml (`search.default_top`).
    pub key: String,
    /// Its effective value.
    pub value: Value,
    /// default, file, environment or flag
    pub source: &'static str,
    /// The file, variable or flag that set it (null for defaults).
    pub from: Option<String>,
    /// The value in effect when it differs from `value`: a chunk size the
    /// model's token limit caps (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective: Option<Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ConfigOutput {
    /// Where kb reads config.yaml.
    pub config_file: String,
    /// Whether that file exists.
    pub config_file_exists: bool,
    /// Every setting with its value and where the value came from.
    pub settings: Vec<Setting>,
}

impl Command for ConfigArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "config",
        title: "Effective configuration",
        summary: "The effective configuration with the source of each value.",
        output: OutputKind::Query,
        mcp: Mcp::Hidden,
    };
    type Output = ConfigOutput;

    fn run(self, session: &mut Session) -> Result<ConfigOutput> {
        let config = session.config();
        let values = serde_json::to_value(config)
            .map_err(|e| KbError::Internal(format!("configuration: {e}")))?;
        // Chunk sizes above what the model reads are capped: the model the
        // knowledge base is bound to, else the configured one. The passage
        // prefix's few tokens (counted by the model's tokenizer) come off
        // too, so this is what a chunk holds at most.
        let bound = match config.db_path().exists() {
            true => session.db().ok().and_then(|db| db.model_binding().ok().flatten()),
            false => None,
        };
        let model = bound.map_or(config.embedding.model.clone(), |b| b.model_name);
        let limit = crate::embed::model_spec(&model)
            .ok()
            .map(|spec| crate::ingest::chunk_token_limit(config, spec.max_chunk_tokens(0)));
        let settings = key_paths()
            .into_iter()
            .map(|key| {
                let value = key
                    .split('.')
                    .fold(&values, |v, part| &v[part])
                    .clone();
                let (source, from) = match config.source_of(&key) {
                    Source::Default => ("default", None),
                    Source::File(p) => ("file", Some(p.display().to_string())),
                    Source::Environment(v) => ("environment", Some(v)),
                    Source::Flag(f) => ("flag", Some(f)),
                };
                let effective = match (limit, value.as_u64()) {
                    (Some(limit), Some(v))
                        if key.starts_with("chunking.")
                            && key.ends_with("max_tokens")
                            && v as usize > limit =>
                    {
                        Some(Value::from(limit))
                    }
                    _ => None,
                };
                Setting {
                    key,
                    value,
                    source,
                    from,
                    effective,
                }
            })
            .collect();
        let file = config.config_file();
        Ok(ConfigOutput {
            config_file_exists: file.is_file(),
            config_file: file.display().to_string(),
            settings,
        })
    }
}

plain_outcome!(ConfigOutput);

impl Render for ConfigOutput {
    fn human(&self, _style: &Style) -> String {
        let mut out = format!(
            "Configuration file: {}{}\n\n",
            self.config_file,
            if self.config_file_exists {
                ""
            } else {
                " (none; defaults apply)"
            }
        );
        let width = self.settings.iter().map(|s| s.key.len()).max().unwrap_or(0);
        for s in &self.settings {
            let value = match &s.value {
                Value::String(v) => v.clone(),
                other => other.to_string(),
            };
            let origin = match &s.from {
                Some(from) => format!("{} {from}", s.source),
                None => s.source.to_string(),
            };
            let capped = match &s.effective {
                Some(e) => format!("; chunks hold at most {e} tokens, what the model reads"),
                None => String::new(),
            };
            out.push_str(&format!(
                "{:<width$} = {value}  ({origin}{capped})\n",
                s.key
            ));
        }
        out
    }
}
