//! The MCP tools: one per command the registry offers over MCP, with the
//! command's argument schema and the annotations its registry row implies.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::validate::{validate, Issue};
use crate::commands::{self, CommandSpec, Mcp};

/// A tool's definition with its input schema, kept for validation.
#[derive(Debug, Clone)]
pub(super) struct ToolDef {
    pub spec: &'static CommandSpec,
    pub schema: Arc<Map<String, Value>>,
}

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
        let schema = match commands::args_schema(spec.name) {
            Some(Value::Object(o)) => o,
            _ => Map::new(),
        };
        ToolDef {
            spec,
            schema: Arc::new(schema),
        }
    }

    pub(super) fn name(&self) -> &'static str {
        self.spec.name
    }

    pub(super) fn to_tool(&self) -> rmcp::model::Tool {
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
        Tool::new(self.spec.name, self.spec.summary, self.schema.clone()).annotate(annotations)
    }

    /// Every way `args` breaks the input schema.
    pub(super) fn check(&self, args: &Value) -> Vec<Issue> {
        validate(&Value::Object((*self.schema).clone()), args)
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
        let issues = tool("search").check(&json!({"top": "ten", "type": "movie"}));
        let fields: Vec<&str> = issues.iter().map(|i| i.field.as_str()).collect();
        assert_eq!(fields, ["query", "top", "type"], "{issues:?}");
        assert!(tool("search")
            .check(&json!({"query": "git", "top": 3, "type": "markdown", "mode": "keyword"}))
            .is_empty());
        let outline = tool("outline");
        assert!(outline.check(&json!({"document": 12})).is_empty());
        assert!(outline.check(&json!({"document": "/a/b.md"})).is_empty());
        assert_eq!(
            outline.check(&json!({"document": [1], "level": 9})).len(),
            2
        );
        let list = tool("list");
        assert!(list
            .check(&json!({"capability": ["pdf", "forms"], "skills": true}))
            .is_empty());
    }
}
