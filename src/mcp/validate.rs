//! Checks tool arguments against the tool's JSON Schema and lists every
//! problem, not just the first: an LLM fixes its call in one go when it is
//! told each field that is wrong. Covers the subset of JSON Schema the
//! generated input schemas use (type, enum, minimum/maximum, minItems,
//! items, properties, required, additionalProperties, anyOf/oneOf).
//!
//! Clients differ in what they send: MCP Inspector's forms send every
//! number as a string (`"5"`), so [`coerce`] turns a numeric string into the
//! number where the schema wants one and no string would do; an optional
//! argument given as `null` counts as absent.

use serde::Serialize;
use serde_json::Value;

/// One validation problem: which field, what was wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Issue {
    /// The argument at fault, dotted for nested values (`tags.2`); empty
    /// for the arguments object itself.
    pub field: String,
    pub message: String,
}

impl Issue {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Issue {
        Issue {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Every way `value` breaks `schema`.
pub(super) fn validate(schema: &Value, value: &Value) -> Vec<Issue> {
    let mut issues = Vec::new();
    check(schema, value, "", &mut issues);
    issues
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A short description of a JSON value for messages: `"ten" (a string)`.
fn describe(v: &Value) -> String {
    let kind = match v {
        Value::Null => return "null".into(),
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let mut shown = v.to_string();
    if shown.chars().count() > 40 {
        shown = shown.chars().take(37).collect::<String>() + "...";
    }
    format!("{shown} ({kind})")
}

/// The types a schema allows, from `type` or its `anyOf`/`oneOf` branches.
fn types_of(schema: &Value) -> Vec<&str> {
    let mut types = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) => types.push(t.as_str()),
        Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str)),
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            types.extend(types_of(branch));
        }
    }
    types
}

/// `value` with each numeric string turned into the number where `schema`
/// wants an integer or a number and accepts no string; every other value
/// as it was, for [`validate`] to judge.
pub(super) fn coerce(schema: &Value, value: &mut Value) {
    match value {
        Value::String(text) => {
            let types = types_of(schema);
            if types.contains(&"string") {
                return;
            }
            let text = text.trim();
            let number = if types.contains(&"integer") {
                text.parse::<i64>()
                    .map(Value::from)
                    .or_else(|_| text.parse::<u64>().map(Value::from))
                    .ok()
            } else {
                None
            };
            let number = number.or_else(|| {
                types
                    .contains(&"number")
                    .then(|| text.parse::<f64>().ok())
                    .flatten()
                    .filter(|x| x.is_finite())
                    .and_then(|x| serde_json::Number::from_f64(x).map(Value::Number))
            });
            if let Some(n) = number {
                *value = n;
            }
        }
        // JSON Schema counts 2.0 as an integer; serde would not take it.
        Value::Number(n) if n.is_f64() && types_of(schema).contains(&"integer") => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if x.fract() == 0.0 && x.abs() < 9.0e15 {
                *value = Value::from(x as i64);
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    coerce(item_schema, item);
                }
            }
        }
        Value::Object(fields) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (key, v) in fields.iter_mut() {
                    if let Some(prop) = props.get(key) {
                        coerce(prop, v);
                    }
                }
            }
        }
        _ => {}
    }
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    }
}

fn type_name(t: &str) -> &str {
    match t {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "true or false",
        "array" => "an array",
        "object" => "an object",
        "null" => "null",
        other => other,
    }
}

fn check(schema: &Value, value: &Value, path: &str, issues: &mut Vec<Issue>) {
    let Some(s) = schema.as_object() else {
        return; // `true` or an empty schema accepts anything
    };
    if let Some(branches) = s
        .get("anyOf")
        .or_else(|| s.get("oneOf"))
        .and_then(Value::as_array)
    {
        let results: Vec<Vec<Issue>> = branches
            .iter()
            .map(|b| {
                let mut i = Vec::new();
                check(b, value, path, &mut i);
                i
            })
            .collect();
        if !results.iter().any(Vec::is_empty) {
            // Report the branch that came closest (fewest problems).
            if let Some(best) = results.into_iter().min_by_key(Vec::len) {
                issues.extend(best);
            }
            return;
        }
    }
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
            let wanted: Vec<&str> = types
                .iter()
                .filter(|t| **t != "null")
                .map(|t| type_name(t))
                .collect();
            issues.push(Issue::new(
                path,
                format!("expected {}, got {}", wanted.join(" or "), describe(value)),
            ));
            return;
        }
    }
    if value.is_null() {
        return;
    }
    if let Some(allowed) = s.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            let names: Vec<String> = allowed
                .iter()
                .filter(|a| !a.is_null())
                .map(Value::to_string)
                .collect();
            issues.push(Issue::new(
                path,
                format!(
                    "expected one of {}, got {}",
                    names.join(", "),
                    describe(value)
                ),
            ));
            return;
        }
    }
    if let Some(x) = value.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64) {
            if x < min {
                issues.push(Issue::new(path, format!("must be at least {min}, got {x}")));
            }
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64) {
            if x > max {
                issues.push(Issue::new(path, format!("must be at most {max}, got {x}")));
            }
        }
    }
    if let Some(items) = value.as_array() {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64) {
            if (items.len() as u64) < min {
                issues.push(Issue::new(
                    path,
                    format!("needs at least {min} item(s), got {}", items.len()),
                ));
            }
        }
        if let Some(item_schema) = s.get("items") {
            for (i, item) in items.iter().enumerate() {
                check(item_schema, item, &join(path, &i.to_string()), issues);
            }
        }
    }
    if let Some(obj) = value.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for req in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if obj.get(req).is_none_or(Value::is_null) {
                issues.push(Issue::new(join(path, req), "is required"));
            }
        }
        for (key, v) in obj {
            // An optional argument given as null counts as absent (a
            // required one is reported above).
            if v.is_null() {
                continue;
            }
            match props.and_then(|p| p.get(key)) {
                Some(prop) => check(prop, v, &join(path, key), issues),
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    let known: Vec<&str> = props
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    issues.push(Issue::new(
                        join(path, key),
                        format!(
                            "unknown argument; the arguments are: {}",
                            if known.is_empty() {
                                "none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    ));
                }
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "top": {"type": ["integer", "null"], "minimum": 1},
                "tags": {"type": ["array", "null"], "items": {"type": "string"}},
                "mode": {"anyOf": [{"type": "string", "enum": ["hybrid", "keyword"]}, {"type": "null"}]},
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    #[test]
    fn every_problem_is_reported_with_its_field() {
        let issues = validate(
            &schema(),
            &json!({"top": "ten", "tags": ["a", 3], "mode": "fuzzy", "k": 5}),
        );
        let fields: Vec<&str> = issues.iter().map(|i| i.field.as_str()).collect();
        assert_eq!(
            fields,
            ["query", "top", "tags.1", "mode", "k"],
            "{issues:?}"
        );
        assert_eq!(issues[0].message, "is required");
        assert_eq!(
            issues[1].message,
            "expected an integer, got \"ten\" (a string)"
        );
        assert!(issues[3].message.contains("\"hybrid\", \"keyword\""));
        assert!(issues[4].message.contains("query, top, tags, mode"));
    }

    #[test]
    fn numeric_strings_become_numbers_where_no_string_would_do() {
        let schema = json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "top": {"type": "integer", "minimum": 1},
                "threshold": {"type": "number"},
                "document": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "ids": {"type": "array", "items": {"type": "integer"}},
            }
        });
        let mut args = json!({
            "query": "5", "top": "5", "threshold": " 0.25", "document": "7",
            "ids": ["1", "x"]
        });
        coerce(&schema, &mut args);
        assert_eq!(
            args,
            json!({"query": "5", "top": 5, "threshold": 0.25, "document": "7", "ids": [1, "x"]})
        );
        let issues = validate(&schema, &args);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].field, "ids.1");
        // A whole number written with a fraction is that integer.
        let mut args = json!({"top": 2.0, "document": 1.0, "threshold": 2.0, "ids": [3.0, 2.5]});
        coerce(&schema, &mut args);
        assert_eq!(
            args,
            json!({"top": 2, "document": 1, "threshold": 2.0, "ids": [3, 2.5]})
        );
        // Not a number, or not a whole one: left for the validator to name.
        let mut args = json!({"top": "ten", "ids": ["2.5"]});
        coerce(&schema, &mut args);
        assert_eq!(args, json!({"top": "ten", "ids": ["2.5"]}));
        let mut args = json!({"top": "0"});
        coerce(&schema, &mut args);
        assert_eq!(
            validate(&schema, &args),
            [Issue::new("top", "must be at least 1, got 0")]
        );
    }

    #[test]
    fn null_counts_as_absent_for_optional_arguments_only() {
        let schema = json!({
            "type": "object",
            "properties": {"query": {"type": "string"}, "top": {"type": "integer"}},
            "required": ["query"],
        });
        assert!(validate(&schema, &json!({"query": "x", "top": null})).is_empty());
        assert_eq!(
            validate(&schema, &json!({"query": null})),
            [Issue::new("query", "is required")]
        );
    }

    #[test]
    fn valid_and_null_optionals_pass() {
        assert!(validate(
            &schema(),
            &json!({"query": "x", "top": null, "mode": "keyword"})
        )
        .is_empty());
        assert!(validate(&schema(), &json!({"query": "x", "top": 3, "tags": []})).is_empty());
        let low = validate(&schema(), &json!({"query": "x", "top": 0}));
        assert_eq!(low, [Issue::new("top", "must be at least 1, got 0")]);
        let float = validate(&schema(), &json!({"query": "x", "top": 2.5}));
        assert_eq!(float.len(), 1);
        let not_object = validate(&schema(), &json!([1]));
        assert_eq!(not_object[0].field, "");
    }
}
