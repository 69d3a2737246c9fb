//! Small text helpers the human renderers share.

use super::Style;

/// A snippet for people: `[MATCH]` markers become emphasis, and runs of
/// white space fold into one space.
pub(crate) fn highlight(snippet: &str, style: &Style) -> String {
    let mut out = String::new();
    let mut rest = snippet;
    while let Some(start) = rest.find("[MATCH]") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "[MATCH]".len()..];
        match after.find("[/MATCH]") {
            Some(end) => {
                out.push_str(&style.emphasis(&after[..end]));
                rest = &after[end + "[/MATCH]".len()..];
            }
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `1 document`, `2 documents`.
pub(crate) fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A name (a title, a tag) on one line: a newline, tab or carriage return
/// in it (a file named so) is written `\n`, `\t`, `\r`, so it cannot
/// start a line of its own in the output.
pub(crate) fn one_line(text: &str) -> String {
    super::escape(text, super::Escape::Line)
}

/// A path as people want to see it: relative to the working directory when
/// it lies under it, else whole; on one line ([`one_line`]).
pub(crate) fn display_path(path: &str) -> String {
    let p = std::path::Path::new(path);
    match std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(|r| r.display().to_string()))
    {
        Some(rel) if !rel.is_empty() => one_line(&rel),
        _ => one_line(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlight_marks_or_strips() {
        let s = "use  [MATCH]git[/MATCH]\nto [MATCH]clone[/MATCH]";
        assert_eq!(
            Style::PLAIN.finish(&highlight(s, &Style::PLAIN)),
            "use git to clone"
        );
        let color = Style {
            color: true,
            width: None,
        };
        assert_eq!(
            color.finish(&highlight(s, &color)),
            "use \x1b[1;33mgit\x1b[0m to \x1b[1;33mclone\x1b[0m"
        );
        assert_eq!(plural(1u64, "chunk", "chunks"), "1 chunk");
        assert_eq!(plural(3u64, "chunk", "chunks"), "3 chunks");
    }

    #[test]
    fn paths_under_the_working_directory_are_relative() {
        let cwd = std::env::current_dir().unwrap();
        let inside = cwd.join("notes/a.md");
        assert_eq!(display_path(inside.to_str().unwrap()), "notes/a.md");
        assert_eq!(display_path("/elsewhere/a.md"), "/elsewhere/a.md");
        assert_eq!(
            display_path("/elsewhere/new\nline.md"),
            "/elsewhere/new\\nline.md"
        );
        assert_eq!(one_line("a\tb é"), "a\\tb é");
    }
}
