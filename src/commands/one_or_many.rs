//! Arguments an agent may give as one value or as a list: over MCP,
//! `"document": "report.pdf"` means the same as `"document":
//! ["report.pdf"]` (models write both).

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};

/// One value or a list of them, as a list.
pub(crate) fn deserialize<'de, D, T>(d: D) -> std::result::Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany<T> {
        Many(Vec<T>),
        One(T),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::Many(v) => v,
        OneOrMany::One(t) => vec![t],
    })
}

/// Its JSON Schema: the value's, or an array of them.
pub(crate) fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    let item = generator.subschema_for::<T>();
    json_schema!({
        "anyOf": [item, { "type": "array", "items": item }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Args {
        #[serde(default, deserialize_with = "deserialize")]
        tags: Vec<String>,
    }

    #[test]
    fn one_value_or_a_list() {
        let one: Args = serde_json::from_str(r#"{"tags": "work"}"#).unwrap();
        assert_eq!(one.tags, ["work"]);
        let many: Args = serde_json::from_str(r#"{"tags": ["a", "b"]}"#).unwrap();
        assert_eq!(many.tags, ["a", "b"]);
        let none: Args = serde_json::from_str("{}").unwrap();
        assert!(none.tags.is_empty());
        assert!(serde_json::from_str::<Args>(r#"{"tags": 3}"#).is_err());
    }
}
