//! Every word a rule of `pdf.rs` and `pdf/` compares text with lives in `lexicon.rs`,
//! one named table per concept: the production code of the other files
//! holds no string literal with two letters in a row (any script) or a
//! character outside ASCII. Allowed are the strings that are written out,
//! not compared:
//! - messages: a literal holding `{`, or on a line (or after a line
//!   opening the call) that formats, fails or builds an error ([`MESSAGES`]);
//! - text produced, not compared: a literal pushed onto a string or made
//!   an owned `String` (`push_str`, `.into()`, `.to_string()`: a ligature's
//!   letters, a reason shown to the user);
//! - a heading rule's `name:` and `example:`, the rows of its weights table;
//! - attributes (`#[...]`), and the names the compiler or the file system
//!   reads: `env!`, `include_str!` and the folder names in [`FILE_NAMES`].
//!
//! Files left out ([`LEFT_OUT`]): `lexicon.rs` itself; `extract.rs` and
//! `engine.rs`, which run child processes and load libraries by name;
//! `tuning.rs`, numbers only; and the test-only guards, whose strings are
//! the code they look for.

use super::imports::{pdf_files, production_lines};
use super::shape::{literals, production_files};

/// Files whose strings are not words a rule compares with.
const LEFT_OUT: &[&str] = &[
    "pdf/lexicon.rs",
    "pdf/extract.rs",
    "pdf/engine.rs",
    "pdf/tuning.rs",
    "pdf/shape.rs",
    "pdf/thresholds.rs",
    "pdf/imports.rs",
    "pdf/literals.rs",
];

/// The calls whose strings are messages or formatting, not words compared.
#[rustfmt::skip]
const MESSAGES: &[&str] = &[
    "format!(", "write!(", "writeln!(", "panic!(", "unreachable!(", "expect(", "anyhow!(",
    "bail!(", "Err(", "debug_struct(", ".field(",
];

/// The calls and fields whose strings are written out, or read by the
/// compiler, not compared.
#[rustfmt::skip]
const WRITTEN: &[&str] = &[
    "push_str(", ".into()", ".to_string()", "name: ", "example: ", "env!(", "include_str!(",
];

/// Folder names, read by the file system.
const FILE_NAMES: &[&str] = &["extract-cache"];

/// Whether a literal holds a word or a symbol a rule could compare with.
fn wordlike(s: &str) -> bool {
    let chars: Vec<char> = s.chars().collect();
    !s.is_ascii()
        || chars
            .windows(2)
            .any(|w| w[0].is_alphabetic() && w[1].is_alphabetic())
}

/// The literals of `lines` that belong in `lexicon.rs`, with their line
/// numbers (from 1).
fn words_outside_lexicon(lines: &[&str]) -> Vec<(usize, String)> {
    let found = literals(lines);
    let mut out = Vec::new();
    for (n, (strings, code)) in found.iter().enumerate() {
        let before = n.checked_sub(1).map(|k| found[k].1.trim_end());
        let call_above =
            before.is_some_and(|b| b.ends_with('(') && MESSAGES.iter().any(|m| b.contains(m)));
        let exempt = code.trim_start().starts_with("#[")
            || call_above
            || MESSAGES.iter().chain(WRITTEN).any(|m| code.contains(m));
        for s in strings {
            if wordlike(s) && !exempt && !s.contains('{') && !FILE_NAMES.contains(&s.as_str()) {
                out.push((n + 1, s.clone()));
            }
        }
    }
    out
}

#[test]
fn pdf_words_live_in_lexicon() {
    let mut files = production_files();
    assert!(files.len() > 20, "too few files found: {}", files.len());
    // `pdf.rs` itself, which the line budget leaves out.
    let root = pdf_files().into_iter().find(|(path, _)| path == "pdf.rs");
    let (path, text) = root.expect("pdf.rs is read");
    files.push((
        path,
        production_lines(&text)
            .into_iter()
            .map(String::from)
            .collect(),
    ));
    let mut found = Vec::new();
    for (path, lines) in files {
        if LEFT_OUT.contains(&path.as_str()) {
            continue;
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        for (n, s) in words_outside_lexicon(&lines) {
            found.push(format!("src/ingest/{path}:{n}: {s:?}"));
        }
    }
    assert!(
        found.is_empty(),
        "words in src/ingest/pdf/ outside lexicon.rs (make each a named table there):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_compared_word_is_told_from_messages_and_output() {
    let text = r#"if t == "page" || t.contains('"') || t == "x" || t == "€" {
    return Err(format!("no {t}"));
}
let m = "not found".to_string(); // "in a comment"
let e = x.expect("a message");
let f = format!(
    "a long message"
);
#[serde(rename = "kebab-case")]
let s = "two
lines";
let g = "see"; let h = "$";"#;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        words_outside_lexicon(&lines),
        vec![
            (1, "page".to_string()),
            (1, "€".to_string()),
            (10, "two\nlines".to_string()),
            (12, "see".to_string())
        ]
    );
}
