//! The MCP tools: their arguments (with the JSON Schemas clients see), the
//! checks beyond what a schema can say, and the definitions `tools/list`
//! returns. Each tool maps onto one `kb` command and returns its JSON.

use std::borrow::Cow;
use std::sync::Arc;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::validate::{validate, Issue};
use crate::ingest::DocType;
use crate::search::Mode;

/// A document named by its id (as in search results' `source.document_id`)
/// or by the path of an indexed file.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum DocRef {
    Id(i64),
    Path(String),
}

impl DocRef {
    /// The form `kb` commands take: digits for an id, else a path.
    pub fn as_arg(&self) -> String {
        match self {
            DocRef::Id(id) => id.to_string(),
            DocRef::Path(p) => p.clone(),
        }
    }
}

impl JsonSchema for DocRef {
    fn schema_name() -> Cow<'static, str> {
        "DocRef".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": ["integer", "string"],
            "description": "A document id (source.document_id in search results) or the path of an indexed file"
        })
    }
}

/// Arguments of `search`: every option of `kb search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// What to look for, in plain words
    pub query: String,
    /// Number of results (default: search.default_top from the configuration, 10)
    #[schemars(range(min = 1))]
    pub top: Option<usize>,
    /// Only documents carrying all of these tags
    pub tags: Option<Vec<String>>,
    /// Only documents of this type
    #[serde(rename = "type")]
    pub doc_type: Option<DocType>,
    /// Ranking: hybrid (default; keyword and semantic fused), keyword (BM25 only), vector (embeddings only)
    pub mode: Option<Mode>,
    /// Same as mode: keyword (the CLI's --fts-only)
    pub fts_only: Option<bool>,
    /// Same as mode: vector (the CLI's --vec-only)
    pub vec_only: Option<bool>,
    /// Drop results whose fused score is below this
    pub threshold: Option<f64>,
}

impl SearchParams {
    /// The ranking asked for, or the issue when the mode options disagree.
    pub fn mode(&self) -> Result<Mode, Issue> {
        let flag = match (self.fts_only == Some(true), self.vec_only == Some(true)) {
            (true, true) => {
                return Err(Issue::new(
                    "vec_only",
                    "fts_only and vec_only exclude each other; use mode",
                ))
            }
            (true, false) => Some(Mode::Keyword),
            (false, true) => Some(Mode::Vector),
            (false, false) => None,
        };
        match (self.mode, flag) {
            (Some(m), Some(f)) if m != f => Err(Issue::new(
                "mode",
                format!(
                    "mode {} contradicts {}",
                    serde_json::to_string(&m).unwrap_or_default(),
                    if f == Mode::Keyword {
                        "fts_only"
                    } else {
                        "vec_only"
                    }
                ),
            )),
            (m, f) => Ok(m.or(f).unwrap_or(Mode::Hybrid)),
        }
    }
}

/// Arguments of `show`: a chunk with its neighbours, or a section.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// A chunk id from search results (chunk_id); shows that chunk
    pub chunk_id: Option<i64>,
    /// Neighbouring chunks to include before and after the chunk (default 0)
    pub context: Option<usize>,
    /// With section: the document whose section to show
    pub document: Option<DocRef>,
    /// A heading of the document (case-insensitive; as listed by outline); shows that section
    pub section: Option<String>,
    /// With section: show at most this many lines
    pub max_lines: Option<usize>,
}

/// Arguments of `outline`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutlineParams {
    pub document: DocRef,
    /// Only headings of this level or above (1-6)
    #[schemars(range(min = 1, max = 6))]
    pub level: Option<u8>,
}

/// Arguments of `open`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenParams {
    pub document: DocRef,
    /// Return at most this many lines
    pub max_lines: Option<usize>,
}

/// Arguments of tools that take none.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// Arguments of `add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddParams {
    /// Files or folders to index (absolute paths; relative ones are taken from the server's working directory)
    #[schemars(length(min = 1))]
    pub paths: Vec<String>,
    /// Tags to put on every document of this run
    pub tags: Option<Vec<String>>,
}

/// Arguments of `remove`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveParams {
    /// Documents to remove (ids or paths)
    pub documents: Option<Vec<DocRef>>,
    /// Remove every document whose source file is gone
    pub missing: Option<bool>,
}

/// The tools, in the order `tools/list` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolName {
    Search,
    Show,
    Outline,
    Open,
    List,
    Tags,
    Status,
    Add,
    Remove,
}

impl ToolName {
    pub const ALL: [ToolName; 9] = [
        ToolName::Search,
        ToolName::Show,
        ToolName::Outline,
        ToolName::Open,
        ToolName::List,
        ToolName::Tags,
        ToolName::Status,
        ToolName::Add,
        ToolName::Remove,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::Search => "search",
            ToolName::Show => "show",
            ToolName::Outline => "outline",
            ToolName::Open => "open",
            ToolName::List => "list",
            ToolName::Tags => "tags",
            ToolName::Status => "status",
            ToolName::Add => "add",
            ToolName::Remove => "remove",
        }
    }

    pub fn parse(name: &str) -> Option<ToolName> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// Tools that change the knowledge base (offered with --allow-write).
    pub fn writes(self) -> bool {
        matches!(self, ToolName::Add | ToolName::Remove)
    }

    fn description(self) -> &'static str {
        match self {
            ToolName::Search => {
                "Search the knowledge base: keyword (BM25) and semantic (embedding) rankings fused with \
                 Reciprocal Rank Fusion. Returns the JSON of `kb search`: results with chunk_id, score \
                 (fused, for ordering only), score_breakdown (bm25 and cosine are absolute: cosine \
                 below about 0.35 means a weak match), snippet ([MATCH] marks query words), text and \
                 source (document_id, title, path, section, page). Widen a hit with show (chunk_id, \
                 context) or outline + show (document, section)."
            }
            ToolName::Show => {
                "Show a chunk with its neighbours (chunk_id, context: N chunks before and after), or \
                 a section of a document (document, section: a heading from outline). Returns the \
                 JSON of `kb show`."
            }
            ToolName::Outline => {
                "A document's structure: Markdown headings with levels and lines, PDF pages, code \
                 symbols. Use the heading text with show's section. Returns the JSON of `kb outline`."
            }
            ToolName::Open => {
                "The whole text of a document as indexed (max_lines to cut it short). Returns the \
                 JSON of `kb open`."
            }
            ToolName::List => {
                "List indexed documents; filters combine with AND. Returns the JSON of `kb list`."
            }
            ToolName::Tags => "Every tag with the number of documents carrying it (`kb tags`).",
            ToolName::Status => {
                "Counts of documents and chunks, database size, embedding model, schema version, \
                 last ingest, stale documents (`kb status`)."
            }
            ToolName::Add => {
                "Index files and folders (Markdown, text, PDF, code); unchanged files are skipped, \
                 changed ones re-indexed. Returns the JSON summary of `kb add`."
            }
            ToolName::Remove => {
                "Remove documents (by id or path) or, with missing: true, every document whose file \
                 is gone. Returns the JSON of `kb remove`."
            }
        }
    }

    fn schema(self) -> Value {
        let generator = schemars::generate::SchemaSettings::draft2020_12()
            .with(|s| s.inline_subschemas = true)
            .into_generator();
        let schema = match self {
            ToolName::Search => generator.into_root_schema_for::<SearchParams>(),
            ToolName::Show => generator.into_root_schema_for::<ShowParams>(),
            ToolName::Outline => generator.into_root_schema_for::<OutlineParams>(),
            ToolName::Open => generator.into_root_schema_for::<OpenParams>(),
            ToolName::List => generator.into_root_schema_for::<crate::cli::ListArgs>(),
            ToolName::Tags | ToolName::Status => generator.into_root_schema_for::<NoParams>(),
            ToolName::Add => generator.into_root_schema_for::<AddParams>(),
            ToolName::Remove => generator.into_root_schema_for::<RemoveParams>(),
        };
        let mut v = schema.to_value();
        if let Some(o) = v.as_object_mut() {
            // The Rust type name and the type's own doc comment say nothing
            // to a client; the tool description does.
            o.remove("title");
            o.remove("description");
            o.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
        }
        v
    }
}

/// A tool's definition with its input schema, kept for validation.
#[derive(Debug, Clone)]
pub struct ToolDef {
    pub name: ToolName,
    pub schema: Arc<Map<String, Value>>,
}

impl ToolDef {
    pub fn new(name: ToolName) -> ToolDef {
        let schema = match name.schema() {
            Value::Object(o) => o,
            _ => Map::new(),
        };
        ToolDef {
            name,
            schema: Arc::new(schema),
        }
    }

    pub fn to_tool(&self) -> rmcp::model::Tool {
        use rmcp::model::{Tool, ToolAnnotations};
        let annotations = match self.name {
            ToolName::Add => ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .open_world(false),
            ToolName::Remove => ToolAnnotations::new()
                .read_only(false)
                .destructive(true)
                .idempotent(true)
                .open_world(false),
            _ => ToolAnnotations::new().read_only(true).open_world(false),
        };
        Tool::new(
            self.name.as_str(),
            self.name.description(),
            self.schema.clone(),
        )
        .annotate(annotations)
    }

    /// Every way `args` breaks the input schema.
    pub fn check(&self, args: &Value) -> Vec<Issue> {
        validate(&Value::Object((*self.schema).clone()), args)
    }

    /// Checks `args` against the schema, then parses them; every problem
    /// is returned, each with its field.
    pub fn parse<T: serde::de::DeserializeOwned>(&self, args: &Value) -> Result<T, Vec<Issue>> {
        let issues = self.check(args);
        if !issues.is_empty() {
            return Err(issues);
        }
        // The schema and the type agree, so this fails only where the
        // schema cannot say enough (e.g. an integer too large for the type).
        serde_json::from_value(args.clone()).map_err(|e| vec![Issue::new("", e.to_string())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_are_plain_objects_without_refs() {
        for name in ToolName::ALL {
            let def = ToolDef::new(name);
            let text = serde_json::to_string(&*def.schema).unwrap();
            assert!(!text.contains("$ref"), "{}: {text}", name.as_str());
            assert_eq!(def.schema["type"], "object", "{}", name.as_str());
            assert_eq!(def.schema["additionalProperties"], false);
        }
        let search = ToolDef::new(ToolName::Search);
        assert_eq!(search.schema["required"], json!(["query"]));
        let props = search.schema["properties"].as_object().unwrap();
        for key in [
            "query",
            "top",
            "tags",
            "type",
            "mode",
            "fts_only",
            "vec_only",
            "threshold",
        ] {
            assert!(props.contains_key(key), "{key} missing: {props:?}");
        }
    }

    #[test]
    fn search_arguments_are_checked() {
        let def = ToolDef::new(ToolName::Search);
        let p: SearchParams = def
            .parse(&json!({"query": "git", "top": 3, "type": "markdown", "mode": "keyword"}))
            .unwrap();
        assert_eq!(p.top, Some(3));
        assert_eq!(p.doc_type, Some(DocType::Markdown));
        assert_eq!(p.mode().unwrap(), Mode::Keyword);
        let issues = def
            .parse::<SearchParams>(&json!({"top": "ten", "type": "movie"}))
            .unwrap_err();
        let fields: Vec<&str> = issues.iter().map(|i| i.field.as_str()).collect();
        assert_eq!(fields, ["query", "top", "type"], "{issues:?}");
        let both: SearchParams = def
            .parse(&json!({"query": "x", "fts_only": true, "vec_only": true}))
            .unwrap();
        assert!(both.mode().is_err());
        let clash: SearchParams = def
            .parse(&json!({"query": "x", "mode": "vector", "fts_only": true}))
            .unwrap();
        assert_eq!(clash.mode().unwrap_err().field, "mode");
    }

    #[test]
    fn documents_are_ids_or_paths() {
        let def = ToolDef::new(ToolName::Outline);
        let p: OutlineParams = def.parse(&json!({"document": 12})).unwrap();
        assert_eq!(p.document.as_arg(), "12");
        let p: OutlineParams = def.parse(&json!({"document": "/a/b.md"})).unwrap();
        assert_eq!(p.document.as_arg(), "/a/b.md");
        let issues = def
            .parse::<OutlineParams>(&json!({"document": [1], "level": 9}))
            .unwrap_err();
        assert_eq!(issues.len(), 2, "{issues:?}");
    }

    #[test]
    fn list_takes_the_cli_filters() {
        let def = ToolDef::new(ToolName::List);
        let props = def.schema["properties"].as_object().unwrap();
        assert!(
            props.contains_key("type") && props.contains_key("tag") && props.contains_key("search")
        );
        let a: crate::cli::ListArgs = def.parse(&json!({"type": "note"})).unwrap();
        assert_eq!(a.filters().unwrap().doc_type.as_deref(), Some("note"));
        let a: crate::cli::ListArgs = def
            .parse(&json!({"capability": ["pdf", "forms"], "skills": true}))
            .unwrap();
        let f = a.filters().unwrap();
        assert_eq!(f.capabilities, ["pdf", "forms"]);
        assert!(f.skills_only);
    }
}
