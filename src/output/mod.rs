//! Rendering the typed outputs of the commands: JSON (the stable contract:
//! fields may be added, never removed or renamed) or text for people.
//! Each command's output type lives in its command file and implements
//! [`Render`]; this module holds what every renderer shares.

mod escape;
mod style;
mod text;

use serde::Serialize;

use crate::error::{KbError, Result};

pub(crate) use escape::{escape, Escape};
pub(crate) use style::Style;
pub(crate) use text::{display_path, highlight, one_line, plural};

/// How a command's output is shown to a person.
pub(crate) trait Render {
    /// The text printed for `--format human`.
    fn human(&self, style: &Style) -> String;

    /// Notes for stderr that are not part of the result (for example
    /// "several sections matched; showing the first").
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Pretty JSON with a trailing newline. A value that cannot be serialised
/// is a bug in kb, reported as such (exit 2), never printed as a result.
pub(crate) fn to_json<T: Serialize + ?Sized>(v: &T) -> Result<String> {
    let mut s = serde_json::to_string_pretty(v)
        .map_err(|e| KbError::Internal(format!("cannot serialise the output as JSON: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// The JSON object printed on stderr for an error; `suggestions` when kb
/// has some (headings close to a missing section).
pub(crate) fn error_json(e: &KbError) -> String {
    let mut v = serde_json::json!({
        "error": e.to_string(),
        "code": e.code(),
        "exit_code": e.exit_code(),
    });
    if !e.suggestions().is_empty() {
        v["suggestions"] = serde_json::json!(e.suggestions());
    }
    let mut s = v.to_string();
    s.push('\n');
    s
}

/// Rounds for the JSON contract (scores to 6 digits, bm25 and cosine to 4).
pub(crate) fn round(x: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ends_with_a_newline_and_errors_carry_their_code() {
        assert_eq!(
            to_json(&serde_json::json!({"a": 1})).unwrap(),
            "{\n  \"a\": 1\n}\n"
        );
        let e: serde_json::Value = serde_json::from_str(&error_json(&KbError::EmptyQuery)).unwrap();
        assert_eq!(e["code"], "E_EMPTY_QUERY");
        assert_eq!(e["exit_code"], 1);
        assert_eq!(round(0.1234567, 4), 0.1235);
    }

    #[test]
    fn unserialisable_values_are_internal_errors() {
        use std::collections::HashMap;
        // JSON object keys must be strings.
        let mut m: HashMap<(i32, i32), i32> = HashMap::new();
        m.insert((1, 2), 3);
        let err = to_json(&m).unwrap_err();
        assert_eq!(err.code(), "E_INTERNAL");
        assert_eq!(err.exit_code(), 2);
    }
}
