//! The context a chunk is embedded with.
//!
//! A chunk on page 40 of `3M_2018_10K.pdf` contains neither "3M" nor
//! "2018", and the second chunk of a long note has lost the note's title.
//! So what the model embeds for a chunk is a short header — the document's
//! title (or its file name as words), the section chain, and for code the
//! enclosing definition's lines — followed by the chunk's own text. The
//! header is stored beside the chunk (`chunks.context`) so `kb reindex`
//! embeds exactly what `kb add` did; the chunk's `text`, which agents quote,
//! stays the file's own text.

/// Most tokens the document line of a header (title — section) may take.
pub const HEADER_TOKENS: usize = 32;

/// Tokens every chunk leaves free under the model's limit for its header;
/// a chunk shorter than the limit leaves more, up to [`HEADER_TOKENS`].
/// Chosen on NFCorpus dev (docs/benchmarks.md, Retrieval quality): with no reserve the
/// longest chunks, which need the title most, got no room for it (hybrid
/// 0.3314 vs 0.3363 with 32 reserved, though reserving splits 8,322 chunks
/// into 9,190).
pub const HEADER_RESERVE: usize = HEADER_TOKENS;

/// A file name as words, for documents without a real title:
/// `3M_2018_10K.pdf` → `3M 2018 10K`.
pub fn file_name_words(file_name: &str) -> String {
    let stem = match file_name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.len() <= 5 => stem,
        _ => file_name,
    };
    stem.split(|c: char| c == '_' || c == '-' || c == '.' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The document line of a chunk's header: `title — section`. The title is
/// left out when the chunk's text already starts with it (the first chunk
/// of most documents).
pub fn document_line(title: &str, section: Option<&str>, text: &str) -> String {
    let title = title.trim();
    let starts_with_title = !title.is_empty()
        && text
            .trim_start()
            .trim_start_matches(|c: char| c == '#' || c.is_whitespace())
            .starts_with(title);
    let mut parts = Vec::new();
    if !title.is_empty() && !starts_with_title {
        parts.push(title);
    }
    if let Some(s) = section
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != title)
    {
        parts.push(s);
    }
    parts.join(" — ")
}

/// A header: the document line, then the code context lines (either may be
/// empty).
pub fn compose(document_line: &str, code_context: Option<&str>) -> String {
    let code = code_context
        .map(str::trim_end)
        .filter(|c| !c.trim().is_empty());
    match (document_line.is_empty(), code) {
        (_, None) => document_line.to_string(),
        (true, Some(c)) => c.to_string(),
        (false, Some(c)) => format!("{document_line}\n{c}"),
    }
}

/// What the model embeds for a chunk: its header, a blank line, its text.
pub fn embedding_input<'a>(header: &str, text: &'a str) -> std::borrow::Cow<'a, str> {
    if header.is_empty() {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(format!("{header}\n\n{text}"))
    }
}

/// Cuts `header` to at most `max` tokens by `count`, dropping whole words
/// from the end.
pub fn fit_header(header: String, max: usize, count: impl Fn(&str) -> usize) -> String {
    if count(&header) <= max {
        return header;
    }
    let bounds: Vec<usize> = header
        .char_indices()
        .filter(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .collect();
    // The longest prefix ending at a word boundary that fits.
    let (mut lo, mut hi) = (0usize, bounds.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if count(&header[..bounds[mid - 1]]) <= max {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    if lo == 0 {
        String::new()
    } else {
        header[..bounds[lo - 1]].trim_end().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_become_words() {
        assert_eq!(file_name_words("3M_2018_10K.pdf"), "3M 2018 10K");
        assert_eq!(file_name_words("ssh-keys.md"), "ssh keys");
        assert_eq!(file_name_words("README"), "README");
        assert_eq!(file_name_words(".bashrc"), "bashrc");
    }

    #[test]
    fn header_has_title_section_and_code_context() {
        assert_eq!(
            document_line("SSH keys", Some("Rotating keys"), "Rotate them yearly."),
            "SSH keys — Rotating keys"
        );
        assert_eq!(document_line("SSH keys", None, "# SSH keys\n\nintro"), "");
        let line = document_line(
            "textwrap",
            Some("class TextWrapper > def wrap"),
            "def wrap(self):",
        );
        assert_eq!(
            compose(&line, Some("class TextWrapper:")),
            "textwrap — class TextWrapper > def wrap\nclass TextWrapper:"
        );
        assert_eq!(compose("", Some("class A:")), "class A:");
        assert_eq!(compose("t", None), "t");
        assert_eq!(embedding_input("", "t"), "t");
        assert_eq!(embedding_input("h", "t"), "h\n\nt");
    }

    #[test]
    fn long_headers_are_cut_at_words() {
        let words = |s: &str| s.split_whitespace().count();
        assert_eq!(fit_header("a b c d e".into(), 3, words), "a b c");
        assert_eq!(fit_header("a b".into(), 3, words), "a b");
        assert_eq!(fit_header("abcdef".into(), 0, words), "");
    }
}
