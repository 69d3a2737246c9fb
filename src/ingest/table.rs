//! Tables: CSV and TSV files, and the row packing spreadsheets share.
//! Each chunk holds whole rows, their cells joined by ` | `, under the
//! header row repeated, so a row is found by its values and cited by its
//! line (its section names its data rows: `rows 12-40`). The indexed text
//! is the table as rows of ` | `-joined cells, one row a line, as for a
//! workbook: what a chunk quotes is what `kb open` shows, a cell's commas
//! and line breaks included.

use std::path::Path;

use super::verbatim::split_lines;
use super::{decode_text, file_title, Chunk, ChunkContext, IngestError, ParsedDocument};

/// One row of a table: its cells and where it is.
pub struct Row {
    pub cells: Vec<String>,
    /// 1-based lines of the row in the indexed text.
    pub line_start: usize,
    pub line_end: usize,
}

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let text = decode_text(bytes, &mut doc.warnings)?;
    doc.title = file_title(path);
    let tsv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv") || e.eq_ignore_ascii_case("tab"));
    let delimiter = if tsv { b'\t' } else { sniff_delimiter(&text) };
    let mut rows = read_rows(&text, delimiter)
        .map_err(|e| IngestError::failed(format!("invalid CSV: {e}")))?;
    if rows.is_empty() {
        return Err(IngestError::Empty);
    }
    // One row a line of the indexed text.
    let mut content = String::new();
    for (i, row) in rows.iter_mut().enumerate() {
        content.push_str(&join_cells(&row.cells));
        content.push('\n');
        row.line_start = i + 1;
        row.line_end = i + 1;
    }
    let header = rows.remove(0);
    doc.chunks = pack_rows(&header.cells, &rows, None, ctx);
    if doc.chunks.is_empty() {
        // A header alone is still worth finding.
        let text = join_cells(&header.cells);
        let mut c = Chunk::new(text.clone(), ctx.tokens.count(&text), None);
        c.meta.line_start = Some(header.line_start as u64);
        c.meta.line_end = Some(header.line_end as u64);
        doc.chunks.push(c);
    }
    doc.content = content.trim_end().to_string();
    Ok(doc)
}

/// `,` unless the first line has more `;` or tabs (as spreadsheets in
/// many locales save).
fn sniff_delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    let count = |c: char| first.matches(c).count();
    [(b',', count(',')), (b';', count(';')), (b'\t', count('\t'))]
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .filter(|(_, n)| *n > 0)
        .map_or(b',', |(d, _)| d)
}

fn read_rows(text: &str, delimiter: u8) -> Result<Vec<Row>, csv::Error> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let mut rows: Vec<Row> = Vec::new();
    let mut record = csv::StringRecord::new();
    // Where each record starts; a row ends before the next one starts.
    let mut starts: Vec<usize> = Vec::new();
    while reader.read_record(&mut record)? {
        let start = record.position().map_or(1, |p| p.line() as usize);
        starts.push(start);
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        rows.push(Row {
            cells: record.iter().map(str::to_string).collect(),
            line_start: start,
            line_end: start,
        });
    }
    let last_line = text.trim_end().lines().count().max(1);
    for row in &mut rows {
        let next = starts.iter().find(|&&s| s > row.line_start).copied();
        row.line_end = next.map_or(last_line, |n| n - 1).max(row.line_start);
    }
    Ok(rows)
}

/// Cells joined by ` | `, each on one line.
pub fn join_cells(cells: &[String]) -> String {
    cells
        .iter()
        .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Packs rows under the header (repeated in each chunk) up to the limit;
/// `section` (a sheet's name) comes before the rows' numbers. A row too
/// long for a chunk is split on its own.
pub fn pack_rows(
    header: &[String],
    rows: &[Row],
    section: Option<&str>,
    ctx: &ChunkContext,
) -> Vec<Chunk> {
    let max = ctx.cap(ctx.config.table.max_tokens);
    let head = join_cells(header);
    let head_tokens = ctx.tokens.count(&head);
    // A header that would leave less than half the chunk is left out.
    let head = (head_tokens <= max / 2).then_some(head);
    let budget = max - head.as_ref().map_or(0, |_| head_tokens);
    let label = |first: usize, last: usize| {
        let rows = if first == last {
            format!("row {first}")
        } else {
            format!("rows {first}-{last}")
        };
        Some(match section {
            Some(s) => format!("{s} > {rows}"),
            None => rows,
        })
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut text = head.clone().unwrap_or_default();
        let mut n = 0;
        let start = i;
        while i < rows.len() {
            let row = join_cells(&rows[i].cells);
            let rn = ctx.tokens.count(&row);
            if i > start && n + rn > budget {
                break;
            }
            if rn > budget {
                // Alone and too long: its own pieces, each citing the row.
                for p in split_lines(&row, 0..row.len(), budget, 0, ctx.tokens) {
                    let mut t = head.clone().map(|h| h + "\n").unwrap_or_default();
                    t.push_str(&p.text);
                    let mut c = Chunk::new(t.clone(), ctx.tokens.count(&t), label(i + 1, i + 1));
                    c.meta.line_start = Some(rows[i].line_start as u64);
                    c.meta.line_end = Some(rows[i].line_end as u64);
                    out.push(c);
                }
                i += 1;
                break;
            }
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&row);
            n += rn;
            i += 1;
        }
        if n == 0 {
            continue;
        }
        let mut c = Chunk::new(text.clone(), ctx.tokens.count(&text), label(start + 1, i));
        c.meta.line_start = Some(rows[start].line_start as u64);
        c.meta.line_end = Some(rows[i - 1].line_end as u64);
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;

    #[test]
    fn rows_pack_under_their_header_with_their_lines() {
        let mut c = ChunkingConfig::default();
        c.table.max_tokens = 20;
        let ctx = crate::ingest::test_support::ctx(&c);
        let mut src = String::from("city,country,population\n");
        for i in 0..10 {
            src.push_str(&format!("City{i},Land{i},{i}000\n"));
        }
        src.push_str("\"Multi\nline\",Quoted,\"1,5\"\n");
        let doc = parse(Path::new("cities.csv"), src.as_bytes(), &ctx).unwrap();
        assert!(doc.chunks.len() >= 3, "{:#?}", doc.chunks);
        for ch in &doc.chunks {
            assert!(
                ch.text.starts_with("city | country | population\n"),
                "{}",
                ch.text
            );
            assert!(ch.token_count <= 20);
        }
        let first = &doc.chunks[0];
        assert_eq!(first.meta.line_start, Some(2));
        assert!(first.text.contains("City0 | Land0 | 0000"));
        assert_eq!(first.meta.section.as_deref(), Some("rows 1-3"));
        let last = doc.chunks.last().unwrap();
        assert!(
            last.text.ends_with("Multi line | Quoted | 1,5"),
            "{}",
            last.text
        );
        // The multi-line cell is one row, one line of the indexed text.
        assert_eq!(
            (last.meta.line_start, last.meta.line_end),
            (Some(11), Some(12))
        );
        // Every chunk's rows are the lines kb open shows.
        let lines: Vec<&str> = doc.content.lines().collect();
        assert_eq!(lines[0], "city | country | population");
        assert_eq!(lines[11], "Multi line | Quoted | 1,5");
        for ch in &doc.chunks {
            let (a, b) = (
                ch.meta.line_start.unwrap() as usize,
                ch.meta.line_end.unwrap() as usize,
            );
            let shown = lines[a - 1..b].join("\n");
            assert!(ch.text.ends_with(&shown), "{} vs {shown}", ch.text);
        }
    }

    #[test]
    fn tsv_and_semicolons() {
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(Path::new("t.tsv"), b"a\tb\n1\t2", &ctx).unwrap();
        assert_eq!(doc.chunks[0].text, "a | b\n1 | 2");
        assert_eq!(doc.chunks[0].meta.line_end, Some(2));
        let doc = parse(Path::new("t.csv"), b"a;b\n1,5;2\n", &ctx).unwrap();
        assert_eq!(doc.chunks[0].text, "a | b\n1,5 | 2");
        assert!(parse(Path::new("e.csv"), b"\n\n", &ctx).is_err());
    }
}
