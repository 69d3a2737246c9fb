//! Small text helpers the human renderers share.

use super::Style;

/// A snippet for people: `[MATCH]` markers become emphasis (or vanish), and
/// runs of white space fold into one space.
pub fn highlight(snippet: &str, style: &Style) -> String {
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
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlight_marks_or_strips() {
        let s = "use  [MATCH]git[/MATCH]\nto [MATCH]clone[/MATCH]";
        assert_eq!(highlight(s, &Style::PLAIN), "use git to clone");
        assert_eq!(
            highlight(s, &Style { color: true }),
            "use \x1b[1;33mgit\x1b[0m to \x1b[1;33mclone\x1b[0m"
        );
        assert_eq!(plural(1u64, "chunk", "chunks"), "1 chunk");
        assert_eq!(plural(3u64, "chunk", "chunks"), "3 chunks");
    }
}
