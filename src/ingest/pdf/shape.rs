//! The production code of `pdf/` stays readable and does not grow: no
//! function is longer than [`MAX_FUNCTION_LINES`], and its production
//! lines (each file's lines before its inline test module, test-only
//! files left out) stay within [`LINE_BUDGET`].

use super::imports::{module_of, pdf_files, production_lines, production_modules};

/// A function longer than this is read in parts: split it into named steps.
const MAX_FUNCTION_LINES: usize = 80;

/// The production lines of `pdf/` today. Lower it when code goes; raising
/// it to let code in is what this test is here to question.
const LINE_BUDGET: usize = 9461;

/// Each line of `lines` with its comments, strings and character literals
/// blanked, so that only the code's braces are counted.
pub(super) fn code_only(lines: &[&str]) -> Vec<String> {
    let lexed = literals(lines).into_iter();
    lexed.map(|(_, code)| code.replace('"', "")).collect()
}

/// The string literals of each of `lines`, a string running over lines
/// given to the line it opens on, with each line's code (comments, the
/// strings' text and character literals blanked; a string's opening
/// quote kept).
pub(super) fn literals(lines: &[&str]) -> Vec<(Vec<String>, String)> {
    let mut out: Vec<(Vec<String>, String)> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    let mut in_comment = false;
    for (n, line) in lines.iter().enumerate() {
        out.push((Vec::new(), String::new()));
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let (c, next) = (chars[i], chars.get(i + 1).copied());
            if in_comment {
                in_comment = !(c == '*' && next == Some('/'));
                i += if in_comment { 1 } else { 2 };
            } else if let Some((at, text)) = open.as_mut() {
                match c {
                    '\\' => {
                        text.extend(chars.get(i..i + 2).unwrap_or(&chars[i..]));
                        i += 2;
                    }
                    '"' => {
                        let at = *at;
                        let text = std::mem::take(text);
                        out[at].0.push(text);
                        open = None;
                        i += 1;
                    }
                    _ => {
                        text.push(c);
                        i += 1;
                    }
                }
            } else {
                match (c, next) {
                    ('/', Some('/')) => break,
                    ('/', Some('*')) => {
                        in_comment = true;
                        i += 2;
                    }
                    ('"', _) => {
                        open = Some((n, String::new()));
                        out[n].1.push('"');
                        i += 1;
                    }
                    // A character literal ('"', '\''), not a lifetime ('a).
                    ('\'', Some('\\')) => {
                        let rest = chars.get(i + 3..).unwrap_or_default();
                        i += rest
                            .iter()
                            .position(|&c| c == '\'')
                            .map_or(chars.len(), |p| p + 4);
                    }
                    ('\'', _) if chars.get(i + 2) == Some(&'\'') => i += 3,
                    _ => {
                        out[n].1.push(c);
                        i += 1;
                    }
                }
            }
        }
        if let Some((_, text)) = open.as_mut() {
            text.push('\n');
        }
    }
    out
}

/// The name of the function a line of code declares.
fn declared_fn(code: &str) -> Option<&str> {
    code.match_indices("fn ").find_map(|(at, _)| {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let rest = &code[at + 3..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (end > 0).then(|| &rest[..end])
    })
}

/// Each function of `lines` with a body, its name and its length in lines
/// from its `fn` line to its closing brace.
fn functions(lines: &[&str]) -> Vec<(String, usize)> {
    let code = code_only(lines);
    let mut out = Vec::new();
    for (start, line) in code.iter().enumerate() {
        let Some(name) = declared_fn(line) else {
            continue;
        };
        let mut depth = 0usize;
        let end = code[start..].iter().enumerate().find_map(|(k, line)| {
            for c in line.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => return Some(Some(start + k)),
                    '}' => depth = depth.saturating_sub(1),
                    // A declaration without a body.
                    ';' if depth == 0 => return Some(None),
                    _ => {}
                }
            }
            None
        });
        if let Some(Some(end)) = end {
            out.push((name.to_string(), end - start + 1));
        }
    }
    out
}

/// Each production file below `pdf/`, its path and its production lines.
pub(super) fn production_files() -> Vec<(String, Vec<String>)> {
    let files = pdf_files();
    let modules = production_modules(&files);
    files
        .iter()
        .filter(|(path, _)| path.starts_with("pdf/"))
        .filter(|(path, _)| module_of(path).is_some_and(|m| modules.contains(&m)))
        .map(|(path, text)| {
            let lines = production_lines(text).into_iter().map(String::from);
            (path.clone(), lines.collect())
        })
        .collect()
}

#[test]
fn pdf_functions_stay_short_and_its_production_lines_within_budget() {
    let files = production_files();
    assert!(files.len() > 20, "too few files found: {}", files.len());
    let mut long = Vec::new();
    for (path, lines) in &files {
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        for (name, n) in functions(&lines) {
            if n > MAX_FUNCTION_LINES {
                long.push(format!("{path}: {name} has {n} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions longer than {MAX_FUNCTION_LINES} lines in src/ingest/pdf/ \
         (split them into named steps):\n{}",
        long.join("\n")
    );
    let total: usize = files.iter().map(|(_, lines)| lines.len()).sum();
    assert!(
        total <= LINE_BUDGET,
        "src/ingest/pdf/ has {total} production lines, over its budget of {LINE_BUDGET}"
    );
}

#[test]
fn a_function_runs_from_fn_to_its_closing_brace_whatever_its_text_holds() {
    let text = "\
/// fn commented() {
pub(super) fn outer(x: &str) -> bool {
    let open = '{'; // }
    let s = \"}\\\" {\";
    fn inner<'a>(y: &'a str) -> &'a str {
        y
    }
    /* } */ x.contains('\\'') && !s.is_empty() && open == '{'
}
fn declared(x: u8);
const F: fn(u8) = f;
fn f(_: u8) {}
#[cfg(test)]
mod tests {
    fn in_tests() {}
}
";
    let lines = production_lines(text);
    assert_eq!(lines.len(), 12);
    assert_eq!(
        functions(&lines),
        vec![
            ("outer".to_string(), 8),
            ("inner".to_string(), 3),
            ("f".to_string(), 1)
        ]
    );
}
