//! Documents with headings (Markdown, and the text extracted from web
//! pages, office documents and e-books): the text is cut at every heading,
//! each section labelled with its heading chain (`Config > Advanced`);
//! small sections merge with a neighbour that shares the chain, and each
//! is split into verbatim pieces of whole lines (`chunking.markdown`, and
//! `chunking.document` for extracted text).

use std::ops::Range;

use super::verbatim::split_lines;
use super::{Chunk, ChunkContext};
use crate::document::Heading;

pub struct Section {
    pub heading: Option<Heading>,
    pub label: Option<String>,
    /// Its bytes in the text.
    pub range: Range<usize>,
}

/// Cuts `text` from `body_start` (on 1-based line `first_line`) at the
/// headings that start at the given bytes, in order, with their levels
/// and texts; the text before the first heading is a section of its own.
pub fn chain(
    text: &str,
    body_start: usize,
    first_line: usize,
    starts: Vec<(usize, u8, String)>,
) -> Vec<Section> {
    let mut out = Vec::new();
    let preamble_end = starts.first().map(|s| s.0).unwrap_or(text.len());
    if !text[body_start..preamble_end].trim().is_empty() {
        out.push(Section {
            heading: None,
            label: None,
            range: body_start..preamble_end,
        });
    }
    let mut chain: Vec<(u8, String)> = Vec::new();
    let mut line = first_line;
    let mut counted = body_start;
    for (i, (start, level, heading)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map(|s| s.0).unwrap_or(text.len());
        while chain.last().is_some_and(|(l, _)| *l >= *level) {
            chain.pop();
        }
        chain.push((*level, heading.clone()));
        let label = chain
            .iter()
            .map(|(_, t)| t.as_str())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" > ");
        line += text[counted..*start].matches('\n').count();
        counted = *start;
        out.push(Section {
            heading: Some(Heading {
                level: *level,
                text: heading.clone(),
                line,
            }),
            label: if label.is_empty() { None } else { Some(label) },
            range: *start..end,
        });
    }
    out
}

/// The chunks of the sections: merged when under `min` tokens, split when
/// over `max`, each with its lines.
pub fn chunk(
    text: &str,
    sections: Vec<Section>,
    (min, max): (usize, usize),
    ctx: &ChunkContext,
) -> Vec<Chunk> {
    let max = ctx.cap(max);
    let overlap = ctx.overlap(max);
    let mut out = Vec::new();
    for m in merge_small(text, sections, min, max, ctx) {
        for p in split_lines(text, m.range, max, overlap, ctx.tokens) {
            let mut chunk = Chunk::new(p.text, p.tokens, m.label.clone());
            chunk.meta.line_start = Some(p.line_start as u64);
            chunk.meta.line_end = Some(p.line_end as u64);
            out.push(chunk);
        }
    }
    out
}

struct Merged {
    label: Option<String>,
    range: Range<usize>,
    tokens: usize,
}

/// The heading chain two labels share (`SSH keys > Rotating keys` and
/// `SSH keys > Using ssh-agent` share `SSH keys`).
fn common_chain(a: Option<&str>, b: Option<&str>) -> Option<String> {
    let (a, b) = (a?, b?);
    let shared: Vec<&str> = a
        .split(" > ")
        .zip(b.split(" > "))
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect();
    (!shared.is_empty()).then(|| shared.join(" > "))
}

/// Merges sections smaller than `min` tokens with a neighbour, as long as the
/// result fits in `max` and the two share a heading chain (or one is the
/// text before the first heading). A merged chunk is labelled with the
/// chain its sections share, so a citation (and `kb show --section`) names a
/// section that holds all of its text.
fn merge_small(
    text: &str,
    sections: Vec<Section>,
    min: usize,
    max: usize,
    ctx: &ChunkContext,
) -> Vec<Merged> {
    let mut out: Vec<Merged> = Vec::new();
    for s in sections {
        let own = text[s.range.clone()].trim();
        if own.is_empty() {
            continue;
        }
        let n = ctx.tokens.count(own);
        if let Some(last) = out.last_mut() {
            let shared = match (&last.label, &s.label) {
                (Some(a), Some(b)) => common_chain(Some(a), Some(b)).map(Some),
                // The text before the first heading belongs to no section.
                _ => Some(None),
            };
            if let Some(label) = shared {
                if (last.tokens < min || n < min) && last.tokens + n <= max {
                    // Sections follow one another: the merged text is the
                    // file's, whatever lies between them.
                    last.range.end = s.range.end;
                    last.tokens += n;
                    last.label = label;
                    continue;
                }
            }
        }
        out.push(Merged {
            label: s.label,
            range: s.range,
            tokens: n,
        });
    }
    out
}
