//! Every threshold of `pdf/` is a field of `Tuning` (`tuning.rs`): the
//! production code of the other files holds no number that a rule compares
//! with. Allowed are 0, 1 and 2 (none, one, a pair, a half: `0.0`, `1.0`,
//! `2.0` alike), array lengths (`[f32; 4]`), shift amounts (`>> 8`), hex
//! codes, digits inside strings and characters, and the value of a unit or
//! resource limit declared as a named `const` in [`UNIT_CONSTS`].
//! `extract.rs` is left out: it runs child processes, and its numbers are
//! bytes, milliseconds and exit codes, not structure.

use super::shape::{code_only, production_files};

/// The named constants that hold units or resource limits, not thresholds.
const UNIT_CONSTS: &[&str] = &[
    "TURNS",
    "PIXEL_BYTES",
    "LUMA",
    "MAX_RENDER_SIDE",
    "MAX_BOOKMARKS",
    "MAX_BOOKMARK_DEPTH",
    "PAGE_FORMAT",
];

/// Files whose numbers are not structure thresholds.
const LEFT_OUT: &[&str] = &["pdf/tuning.rs", "pdf/extract.rs"];

/// The numeric literals of a line of code (comments, strings and
/// characters already blanked) that the rule above does not allow.
fn threshold_literals(code: &str) -> Vec<String> {
    let trimmed = code.trim_start();
    let declared = trimmed.strip_prefix("pub(super) ").unwrap_or(trimmed);
    if let Some(rest) = declared.strip_prefix("const ") {
        if UNIT_CONSTS
            .iter()
            .any(|c| rest.starts_with(&format!("{c}:")))
        {
            return Vec::new();
        }
    }
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let before = i.checked_sub(1).map(|k| chars[k]);
        let starts = chars[i].is_ascii_digit()
            && !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        if !starts {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < chars.len()
            && (chars[end].is_alphanumeric()
                || chars[end] == '_'
                || (chars[end] == '.' && chars.get(end + 1).is_some_and(char::is_ascii_digit)))
        {
            end += 1;
        }
        let literal: String = chars[i..end].iter().collect();
        let next = chars[end..].iter().find(|c| !c.is_whitespace());
        let lead: String = chars[..i].iter().collect();
        let lead = lead.trim_end();
        let shift = lead.ends_with("<<") || lead.ends_with(">>");
        let array_length = lead.ends_with(';') && next == Some(&']');
        let digits: String = literal
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '_')
            .collect();
        let value = digits.replace('_', "").parse::<f64>().ok();
        let small = value.is_some_and(|v| [0.0, 1.0, 2.0].contains(&v));
        if !(literal.starts_with("0x") || shift || array_length || small) {
            out.push(literal);
        }
        i = end;
    }
    out
}

#[test]
fn pdf_thresholds_live_in_tuning() {
    let mut found = Vec::new();
    for (path, lines) in production_files() {
        if LEFT_OUT.contains(&path.as_str()) {
            continue;
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        for (n, code) in code_only(&lines).iter().enumerate() {
            for literal in threshold_literals(code) {
                found.push(format!("src/ingest/{path}:{}: {literal}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "numbers in src/ingest/pdf/ outside tuning.rs (make each a field of `Tuning`):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_threshold_literal_is_told_from_units_indices_and_halves() {
    let code =
        "if x < 0.5 * y[2] && z >> 8 > 1 && n >= 12usize { [0u8; 4]; 0x10; TUNING.gap.0 / 2.0 }";
    assert_eq!(threshold_literals(code), vec!["0.5", "12usize"]);
    assert!(threshold_literals("const TURNS: u8 = 4;").is_empty());
    assert_eq!(
        threshold_literals("const SPAN_GAP: f32 = 0.8;"),
        vec!["0.8"]
    );
}
