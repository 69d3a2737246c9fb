//! 1-based line ranges of chunks in their document's text, for formats
//! whose chunkers work on paragraphs rather than lines (Markdown, notes), so
//! results can be cited as `file:first-last`. Each chunk's non-blank lines
//! are found in the text in order, starting where the previous chunk
//! started (overlapping chunks reach back).

use super::ParsedDocument;

/// Records `line_start` and `line_end` on every chunk that has none.
pub(super) fn annotate(doc: &mut ParsedDocument) {
    let lines: Vec<&str> = doc.content.lines().collect();
    let mut from = 0;
    for chunk in &mut doc.chunks {
        if chunk.meta.line_start.is_some() {
            continue;
        }
        let wanted: Vec<&str> = chunk
            .text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let Some(first) = wanted.first() else {
            continue;
        };
        // A window cut inside a long line starts mid-line: `contains`.
        let Some(start) = (from..lines.len()).find(|&i| lines[i].contains(first)) else {
            continue;
        };
        let mut end = start;
        let mut at = start;
        for w in &wanted[1..] {
            match (at + 1..lines.len()).find(|&i| lines[i].contains(w)) {
                Some(i) => {
                    end = i;
                    at = i;
                }
                None => break,
            }
        }
        chunk.meta.line_start = Some(start as u64 + 1);
        chunk.meta.line_end = Some(end as u64 + 1);
        from = start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::Chunk;

    #[test]
    fn chunks_find_their_lines_in_order() {
        let content =
            "---\ntitle: T\n---\n# T\n\nintro line\n\n## A\n\nsame\nalpha\n\n## B\n\nsame\nbeta\n";
        let mut doc = ParsedDocument {
            content: content.into(),
            chunks: vec![
                Chunk::new("# T\n\nintro line".into(), 3, None),
                Chunk::new("## A\n\nsame\nalpha".into(), 3, None),
                Chunk::new("## B\n\nsame\nbeta".into(), 3, None),
            ],
            ..Default::default()
        };
        annotate(&mut doc);
        let range = |i: usize| {
            (
                doc.chunks[i].meta.line_start.unwrap(),
                doc.chunks[i].meta.line_end.unwrap(),
            )
        };
        assert_eq!(range(0), (4, 6));
        assert_eq!(range(1), (8, 11));
        assert_eq!(range(2), (13, 16), "the repeated line is found after B");
    }
}
