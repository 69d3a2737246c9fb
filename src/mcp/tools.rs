//! The MCP tools: one per command the registry offers over MCP, with the
//! command's argument schema and the annotations its registry row implies,
//! its title, and the schema of the structured result it returns.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::validate::{coerce, validate, Issue};
use crate::commands::{self, CommandSpec, Mcp};

/// A tool's definition with its input schema, kept for validation.
#[derive(Debug, Clone)]
pub(super) struct ToolDef {
    pub spec: &'static CommandSpec,
    pub schema: Arc<Map<String, Value>>,
    /// The JSON Schema of the tool's structured result (an object).
    pub output_schema: Arc<Map<String, Value>>,
}

/// The newest protocol version without tool titles, output schemas and
/// structured results (they came with 2025-06-18).
pub(super) const BEFORE_STRUCTURED: &str = "2025-03-26";

impl ToolDef {
    /// Every command offered over MCP (the writing ones with `allow_write`),
    /// in registry order.
    pub(super) fn all(allow_write: bool) -> Vec<ToolDef> {
        commands::SPECS
            .iter()
            .filter(|s| match s.mcp {
                Mcp::Hidden => false,
                Mcp::Read => true,
                Mcp::Write { .. } => allow_write,
            })
            .map(ToolDef::new)
            .collect()
    }

    fn new(spec: &'static CommandSpec) -> ToolDef {
        let mut schema = commands::args_schema(spec.name).unwrap_or_else(|| json!({}));
        without_null(&mut schema);
        let schema = match schema {
            Value::Object(o) => o,
            _ => Map::new(),
        };
        ToolDef {
            spec,
            schema: Arc::new(schema),
            output_schema: Arc::new(output_schema(spec.name)),
        }
    }

    pub(super) fn name(&self) -> &'static str {
        self.spec.name
    }

    /// The tool as `tools/list` lists it; `structured`: the client's
    /// protocol has titles and output schemas.
    pub(super) fn to_tool(&self, structured: bool) -> rmcp::model::Tool {
        use rmcp::model::{Tool, ToolAnnotations};
        let annotations = match self.spec.mcp {
            Mcp::Write {
                destructive,
                idempotent,
            } => ToolAnnotations::new()
                .read_only(false)
                .destructive(destructive)
                .idempotent(idempotent)
                .open_world(false),
            _ => ToolAnnotations::new().read_only(true).open_world(false),
        };
        let tool =
            Tool::new(self.spec.name, self.spec.summary, self.schema.clone()).annotate(annotations);
        if structured {
            tool.with_title(self.spec.title)
                .with_raw_output_schema(self.output_schema.clone())
        } else {
            tool
        }
    }

    /// The arguments as the command reads them: numeric strings turned into
    /// numbers where the schema wants one; then every way they break the
    /// input schema. An optional argument given as null is left out.
    pub(super) fn check(&self, mut args: Value) -> (Value, Vec<Issue>) {
        let schema = Value::Object((*self.schema).clone());
        coerce(&schema, &mut args);
        let issues = validate(&schema, &args);
        if let Value::Object(fields) = &mut args {
            fields.retain(|_, v| !v.is_null());
        }
        (args, issues)
    }
}

/// The schema of a tool's structured result: MCP wants an object schema
/// at the root (`show` returns one of two objects).
fn output_schema(name: &str) -> Map<String, Value> {
    let mut schema = match commands::mcp_output_schema(name) {
        Some(Value::Object(o)) => o,
        _ => Map::new(),
    };
    schema.remove("$schema");
    schema.remove("title");
    schema
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    let mut schema = Value::Object(schema);
    portable_output(&mut schema);
    match schema {
        Value::Object(o) => o,
        _ => Map::new(),
    }
}

/// The `format` values JSON Schema defines (draft 2020-12); validators
/// reject or ignore others (`uint32`, `double` are Rust's).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// An output schema every client reads alike: a nullable field as
/// `anyOf` branches of one type each (`type: [T, "null"]` is legal JSON
/// Schema, but clients that map schemas onto a single-type dialect reject
/// it), and only the `format` values JSON Schema defines.
fn portable_output(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            if o.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
            {
                o.remove("format");
            }
            if let Some(Value::Array(types)) = o.get("type").cloned() {
                o.remove("type");
                // What applies to the value, not to null, goes with its type.
                let typed: Vec<&str> = [
                    "format",
                    "minimum",
                    "maximum",
                    "items",
                    "properties",
                    "required",
                    "additionalProperties",
                    "enum",
                    "minItems",
                    "maxItems",
                ]
                .into_iter()
                .filter(|k| o.contains_key(*k))
                .collect();
                let branches: Vec<Value> = types
                    .iter()
                    .map(|t| {
                        let mut b = Map::new();
                        b.insert("type".into(), t.clone());
                        if t != "null" {
                            for k in &typed {
                                if let Some(v) = o.get(*k) {
                                    b.insert((*k).to_string(), v.clone());
                                }
                            }
                        }
                        Value::Object(b)
                    })
                    .collect();
                for k in typed {
                    o.remove(k);
                }
                o.insert("anyOf".into(), Value::Array(branches));
            }
            for v in o.values_mut() {
                portable_output(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(portable_output),
        _ => {}
    }
}

/// A nullable argument as plain optional: no `type: [T, "null"]`, no null
/// branch, enum value or default. Clients differ in what they make of type
/// arrays (MCP Inspector's strict mode reports each one), and kb takes an
/// absent argument and a null one alike. Numbers lose the Rust formats
/// (`uint`, `int64`) JSON Schema does not define; strict validators
/// reject unknown formats, and the minimum says what matters.
fn without_null(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            if let Some(Value::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                let types = std::mem::take(types);
                if types.len() == 1 {
                    o.insert("type".into(), types[0].clone());
                } else {
                    // Several types (an id or a path): one branch each.
                    o.remove("type");
                    let branches = types.into_iter().map(|t| json!({ "type": t })).collect();
                    o.insert("anyOf".into(), Value::Array(branches));
                }
            }
            if matches!(o.get("type"), Some(t) if t == "integer" || t == "number") {
                o.remove("format");
            }
            if let Some(Value::Array(values)) = o.get_mut("enum") {
                values.retain(|v| !v.is_null());
            }
            if o.get("default") == Some(&Value::Null) {
                o.remove("default");
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = o.get_mut(key) {
                    branches.retain(|b| b.get("type") != Some(&json!("null")));
                    if branches.len() == 1 {
                        let only = branches.remove(0);
                        o.remove(key);
                        if let Value::Object(branch) = only {
                            for (k, v) in branch {
                                o.entry(k).or_insert(v);
                            }
                        }
                    }
                }
            }
            for v in o.values_mut() {
                without_null(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_null),
        _ => {}
    }
}

/// Whether `name` is a command that changes the knowledge base.
pub(super) fn writes(name: &str) -> bool {
    commands::spec(name).is_some_and(|s| matches!(s.mcp, Mcp::Write { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> ToolDef {
        ToolDef::all(true)
            .into_iter()
            .find(|t| t.name() == name)
            .unwrap()
    }

    #[test]
    fn the_tools_and_their_order() {
        let names: Vec<&str> = ToolDef::all(false).iter().map(|t| t.name()).collect();
        assert_eq!(
            names,
            ["search", "show", "outline", "open", "list", "sources", "tags", "status"]
        );
        let names: Vec<&str> = ToolDef::all(true).iter().map(|t| t.name()).collect();
        assert_eq!(names[8..], ["add", "update", "remove"]);
        assert!(writes("remove") && !writes("search"));
    }

    #[test]
    fn schemas_are_plain_objects_without_refs() {
        for def in ToolDef::all(true) {
            let text = serde_json::to_string(&*def.schema).unwrap();
            assert!(!text.contains("$ref"), "{}: {text}", def.name());
            assert_eq!(def.schema["type"], "object", "{}", def.name());
            assert_eq!(def.schema["additionalProperties"], false, "{}", def.name());
        }
        let search = tool("search");
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
        let show = tool("show");
        let props = show.schema["properties"].as_object().unwrap();
        assert!(!props.contains_key("target"), "CLI-only argument leaked");
        for key in ["chunk_id", "context", "document", "section", "max_lines"] {
            assert!(props.contains_key(key), "{key} missing: {props:?}");
        }
    }

    #[test]
    fn arguments_are_checked_against_the_schema() {
        let issues = tool("search")
            .check(json!({"top": "ten", "type": "movie"}))
            .1;
        let fields: Vec<&str> = issues.iter().map(|i| i.field.as_str()).collect();
        assert_eq!(fields, ["query", "top", "type"], "{issues:?}");
        assert!(tool("search")
            .check(json!({"query": "git", "top": 3, "type": "markdown", "mode": "keyword"}))
            .1
            .is_empty());
        let outline = tool("outline");
        assert!(outline.check(json!({"document": 12})).1.is_empty());
        assert!(outline.check(json!({"document": "/a/b.md"})).1.is_empty());
        assert_eq!(
            outline.check(json!({"document": [1], "level": 9})).1.len(),
            2
        );
        let list = tool("list");
        assert!(list
            .check(json!({"capability": ["pdf", "forms"], "skills": true}))
            .1
            .is_empty());
    }

    /// What MCP Inspector 0.15 sends: every number as a string.
    #[test]
    fn numeric_strings_are_read_as_numbers() {
        let (args, issues) =
            tool("search").check(json!({"query": "7 habits", "top": "5", "threshold": "0.5"}));
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(
            args,
            json!({"query": "7 habits", "top": 5, "threshold": 0.5})
        );
        let (args, issues) = tool("show").check(json!({"chunk_id": "12", "context": "2"}));
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(args, json!({"chunk_id": 12, "context": 2}));
        let (args, issues) = tool("list").check(json!({"limit": "10", "offset": "20"}));
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(args, json!({"limit": 10, "offset": 20}));
        // A document id stays what was sent: the command reads both forms.
        let (args, _) = tool("outline").check(json!({"document": "12"}));
        assert_eq!(args, json!({"document": "12"}));
        let (_, issues) = tool("search").check(json!({"query": "x", "top": "five"}));
        assert_eq!(issues[0].field, "top", "{issues:?}");
    }

    /// Inspector's --strict reports every type array; a nullable argument
    /// is an optional one, and null is still taken as absent.
    #[test]
    fn input_schemas_have_no_null_types() {
        fn walk(name: &str, path: &str, v: &Value) {
            match v {
                Value::Object(o) => {
                    assert!(
                        !o.get("type").is_some_and(Value::is_array),
                        "{name}: a type array at {path}: {v}"
                    );
                    assert!(
                        !o.contains_key("format"),
                        "{name}: a format JSON Schema does not define at {path}: {v}"
                    );
                    for (key, branch) in o {
                        if key == "anyOf" || key == "oneOf" {
                            for b in branch.as_array().unwrap() {
                                assert_ne!(b.get("type"), Some(&json!("null")), "{name} {path}");
                            }
                        }
                        if key == "enum" {
                            assert!(!branch.as_array().unwrap().contains(&Value::Null));
                        }
                        walk(name, &format!("{path}/{key}"), branch);
                    }
                }
                Value::Array(items) => items.iter().for_each(|i| walk(name, path, i)),
                _ => {}
            }
        }
        for def in ToolDef::all(true) {
            walk(def.name(), "", &Value::Object((*def.schema).clone()));
        }
        let (args, issues) = tool("search").check(json!({"query": "x", "top": null, "mode": null}));
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(args, json!({"query": "x"}));
    }

    #[test]
    fn tools_have_titles_and_object_output_schemas() {
        for def in ToolDef::all(true) {
            let tool = serde_json::to_value(def.to_tool(true)).unwrap();
            assert!(
                tool["title"].as_str().is_some_and(|t| !t.is_empty()),
                "{tool}"
            );
            assert_eq!(tool["outputSchema"]["type"], "object", "{}", def.name());
            let old = serde_json::to_value(def.to_tool(false)).unwrap();
            assert!(old.get("title").is_none() && old.get("outputSchema").is_none());
        }
        let list = tool("list");
        let props = list.output_schema["properties"].as_object().unwrap();
        let keys: Vec<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(keys, ["total", "items", "next_offset"]);
        assert_eq!(tool("tags").output_schema["required"], json!(["tags"]));
    }

    /// Output schemas as strict clients want them (MCP Inspector's
    /// `--strict`): no type arrays, only JSON Schema's own formats.
    #[test]
    fn output_schemas_are_portable() {
        fn walk(name: &str, path: &str, v: &Value, found: &mut Vec<String>) {
            match v {
                Value::Object(o) => {
                    if o.get("type").is_some_and(Value::is_array) {
                        found.push(format!("{name}{path}: a type array"));
                    }
                    if let Some(f) = o.get("format").and_then(Value::as_str) {
                        if !STANDARD_FORMATS.contains(&f) {
                            found.push(format!("{name}{path}: format {f}"));
                        }
                    }
                    for (k, c) in o {
                        walk(name, &format!("{path}/{k}"), c, found);
                    }
                }
                Value::Array(items) => {
                    for (i, c) in items.iter().enumerate() {
                        walk(name, &format!("{path}/{i}"), c, found);
                    }
                }
                _ => {}
            }
        }
        let mut found = Vec::new();
        for def in ToolDef::all(true) {
            walk(
                def.name(),
                "",
                &Value::Object((*def.output_schema).clone()),
                &mut found,
            );
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
        // A nullable number keeps its bounds on its own branch.
        let mut v = json!({"type": ["integer", "null"], "format": "uint32", "minimum": 0, "description": "d"});
        portable_output(&mut v);
        assert_eq!(
            v,
            json!({"description": "d", "anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]})
        );
    }

    /// Descriptions, of the arguments and of the result (`outputSchema`),
    /// are read by a model calling the tool: no command-line spellings
    /// (flags, stdin, `--`) that mean nothing over MCP.
    #[test]
    fn descriptions_are_written_for_mcp() {
        fn descriptions<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
            match v {
                Value::Object(o) => {
                    if let Some(Value::String(d)) = o.get("description") {
                        out.push(d);
                    }
                    o.values().for_each(|v| descriptions(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| descriptions(v, out)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        for def in ToolDef::all(true) {
            let schema = Value::Object((*def.schema).clone());
            let output = Value::Object((*def.output_schema).clone());
            let mut texts = vec![def.spec.summary];
            descriptions(&schema, &mut texts);
            descriptions(&output, &mut texts);
            for text in texts {
                for cli in [
                    "stdin",
                    " --",
                    "`--",
                    "(--",
                    "command line",
                    "`kb ",
                    "repeat",
                    "over MCP",
                ] {
                    if text.contains(cli) {
                        found.push(format!("{}: CLI-only text {cli:?} in {text:?}", def.name()));
                    }
                }
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
    }
}
