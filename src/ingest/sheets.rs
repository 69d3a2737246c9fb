//! Workbooks (`.xlsx`, `.ods`): each sheet's rows, read as a stream of
//! cells (a sheet's claimed size allocates nothing; repeated empty rows
//! and cells cost nothing), become text: the sheet's name as a heading,
//! then one line per row of ` | `-joined cells. Chunks are packed as CSV
//! rows are, under the sheet's first row, cited by their lines and
//! sectioned by sheet and row numbers.

use std::path::Path;

use super::container::{attr, first_text, walk_xml, Package, Xml};
use super::table::{join_cells, pack_rows, Row};
use super::xlsx_format::Styles;
use super::{file_title, ChunkContext, IngestError, ParsedDocument};
use crate::document::Heading;

/// The most cells a repeated empty ODS cell may stand for: empty cells
/// keep the columns after them in place, and a sheet's filler to its last
/// column (16,384 of them) is dropped anyway.
const MAX_REPEAT: usize = 1_000;
/// The most cells with text one repeated ODS cell or row may stand for
/// (a cell repeated across columns, or a row's cells with text times the
/// rows it is repeated down). LibreOffice writes equal neighbouring cells
/// and rows once, with a count, so a real sheet's runs of equal values (a
/// few equal cells, a block of equal rows) stay well under it; the format's
/// own limits (16,384 columns by 1,048,576 rows) are no guide, as text
/// repeated that far comes only from a damaged or hostile file, and each
/// copy would be indexed and embedded for nothing a search could find.
/// A repeat past it is read once, and a warning says so.
const MAX_REPEATED_TEXT: usize = 1_000;
/// The most cells read from a workbook.
const MAX_CELLS: usize = 5_000_000;

/// A sheet: its name and rows of cells.
struct Sheet {
    name: String,
    rows: Vec<Vec<String>>,
}

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let ods = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ods"));
    let (sheets, title) = if ods {
        read_ods(bytes, &mut doc.warnings)?
    } else {
        read_xlsx(bytes)?
    };
    doc.title = title.unwrap_or_else(|| file_title(path));
    let mut text = String::new();
    let mut line = 1;
    for sheet in sheets {
        let rows: Vec<Vec<String>> = sheet
            .rows
            .into_iter()
            .filter(|r| r.iter().any(|c| !c.trim().is_empty()))
            .collect();
        if rows.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
            line += 1;
        }
        doc.meta.headings.push(Heading {
            level: 1,
            text: sheet.name.clone(),
            line,
        });
        text.push_str(&sheet.name);
        text.push_str("\n\n");
        line += 2;
        let mut placed = Vec::with_capacity(rows.len());
        for cells in rows {
            text.push_str(&join_cells(&cells));
            text.push('\n');
            placed.push(Row {
                cells,
                line_start: line,
                line_end: line,
            });
            line += 1;
        }
        let header = placed.remove(0);
        let mut chunks = pack_rows(&header.cells, &placed, Some(&sheet.name), ctx);
        if chunks.is_empty() {
            chunks = pack_rows(&[], &[header], Some(&sheet.name), ctx);
        }
        doc.chunks.extend(chunks);
    }
    if doc.chunks.is_empty() {
        return Err(IngestError::no_text("its sheets hold no cells with text"));
    }
    doc.content = text.trim_end().to_string();
    Ok(doc)
}

fn too_many() -> IngestError {
    IngestError::failed(format!("more than {MAX_CELLS} cells"))
}

/// An Excel workbook: sheet names and order from `xl/workbook.xml` and its
/// relationships, shared strings, then each sheet's cells.
fn read_xlsx(bytes: &[u8]) -> Result<(Vec<Sheet>, Option<String>), IngestError> {
    let mut pkg = Package::open(bytes, "Excel workbook")?;
    let workbook = pkg.require("xl/workbook.xml")?;
    let mut listed: Vec<(String, Vec<String>)> = Vec::new();
    let mut styles = match pkg.read("xl/styles.xml")? {
        Some(xml) => Styles::read(&xml)?,
        None => Styles::default(),
    };
    walk_xml(&workbook, "xl/workbook.xml", |e| {
        if let Xml::Start {
            name: "workbookPr",
            attrs,
        } = e
        {
            styles.date1904 = matches!(attr(attrs, "date1904"), Some("1" | "true"));
        }
        if let Xml::Start {
            name: "sheet",
            attrs,
        } = e
        {
            let name = attr(attrs, "name").unwrap_or("Sheet").to_string();
            // `r:id` (its local name is `id`, as is `sheetId`'s... not).
            let ids = attrs
                .iter()
                .filter(|(k, _)| k == "id")
                .map(|(_, v)| v.clone())
                .collect();
            listed.push((name, ids));
        }
        Ok(())
    })?;
    let mut targets: Vec<(String, String)> = Vec::new();
    if let Some(rels) = pkg.read("xl/_rels/workbook.xml.rels")? {
        walk_xml(&rels, "xl/_rels/workbook.xml.rels", |e| {
            if let Xml::Start {
                name: "Relationship",
                attrs,
            } = e
            {
                if let (Some(id), Some(t)) = (attr(attrs, "Id"), attr(attrs, "Target")) {
                    let t = t.trim_start_matches('/');
                    let t = if t.starts_with("xl/") {
                        t.to_string()
                    } else {
                        format!("xl/{t}")
                    };
                    targets.push((id.to_string(), t));
                }
            }
            Ok(())
        })?;
    }
    let strings = match pkg.read("xl/sharedStrings.xml")? {
        Some(xml) => shared_strings(&xml)?,
        None => Vec::new(),
    };
    let mut cells = 0usize;
    let mut sheets = Vec::new();
    for (i, (name, ids)) in listed.into_iter().enumerate() {
        let part = targets
            .iter()
            .find(|(id, _)| ids.contains(id))
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| format!("xl/worksheets/sheet{}.xml", i + 1));
        let Some(xml) = pkg.read(&part)? else {
            continue;
        };
        let rows = xlsx_rows(&xml, &part, &strings, &styles, &mut cells)?;
        sheets.push(Sheet { name, rows });
    }
    let title = match pkg.read("docProps/core.xml")? {
        Some(core) => first_text(&core, "docProps/core.xml", "title")?,
        None => None,
    };
    Ok((sheets, title))
}

fn shared_strings(xml: &[u8]) -> Result<Vec<String>, IngestError> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    let mut in_t = false;
    // Phonetic runs (`rPh`) are readings, not the text.
    let mut in_phonetic = false;
    walk_xml(xml, "xl/sharedStrings.xml", |e| {
        match e {
            Xml::Start { name: "si", .. } => cur = Some(String::new()),
            Xml::End { name: "si" } => out.push(cur.take().unwrap_or_default()),
            Xml::Start { name: "rPh", .. } => in_phonetic = true,
            Xml::End { name: "rPh" } => in_phonetic = false,
            Xml::Start { name: "t", .. } => in_t = true,
            Xml::End { name: "t" } => in_t = false,
            Xml::Text(t) if in_t && !in_phonetic => {
                if let Some(c) = &mut cur {
                    c.push_str(t);
                }
            }
            _ => {}
        }
        if out.len() > MAX_CELLS {
            return Err(too_many());
        }
        Ok(())
    })?;
    Ok(out)
}

/// Column index of a cell reference (`C7` → 2).
fn column(reference: &str) -> usize {
    reference
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .fold(0usize, |n, c| {
            n.saturating_mul(26)
                .saturating_add((c.to_ascii_uppercase() as u8 - b'A') as usize + 1)
        })
        .saturating_sub(1)
}

fn xlsx_rows(
    xml: &[u8],
    part: &str,
    strings: &[String],
    styles: &Styles,
    cells: &mut usize,
) -> Result<Vec<Vec<String>>, IngestError> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut col = 0usize;
    let mut kind = String::new();
    let mut style: Option<String> = None;
    let mut value = String::new();
    let mut in_value = false;
    walk_xml(xml, part, |e| {
        match e {
            Xml::Start { name: "row", .. } => {
                row.clear();
                col = 0;
            }
            Xml::End { name: "row" } => rows.push(std::mem::take(&mut row)),
            Xml::Start { name: "c", attrs } => {
                if let Some(r) = attr(attrs, "r") {
                    col = column(r);
                }
                kind = attr(attrs, "t").unwrap_or("n").to_string();
                style = attr(attrs, "s").map(str::to_string);
                value.clear();
            }
            Xml::Start {
                name: "v" | "t", ..
            } => in_value = true,
            Xml::End { name: "v" | "t" } => in_value = false,
            Xml::Text(t) if in_value => value.push_str(t),
            Xml::End { name: "c" } => {
                let text = match kind.as_str() {
                    "s" => value
                        .trim()
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| strings.get(i).cloned())
                        .unwrap_or_default(),
                    "b" => if value.trim() == "1" { "TRUE" } else { "FALSE" }.to_string(),
                    "n" => styles.text(style.as_deref(), &value),
                    _ => value.clone(),
                };
                if !text.trim().is_empty() {
                    // Empty columns before it are kept as empty cells, a
                    // few at most: a far-away cell is joined at the end.
                    let gap = col.saturating_sub(row.len()).min(20);
                    row.extend(std::iter::repeat_n(String::new(), gap));
                    row.push(text);
                    *cells += 1;
                    if *cells > MAX_CELLS {
                        return Err(too_many());
                    }
                }
                col += 1;
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(rows)
}

/// An OpenDocument spreadsheet: `table:table` elements of rows of cells,
/// repeated rows and cells counted but capped ([`MAX_REPEAT`],
/// [`MAX_REPEATED_TEXT`]); a repeat of text read once is warned of.
fn read_ods(
    bytes: &[u8],
    warnings: &mut Vec<String>,
) -> Result<(Vec<Sheet>, Option<String>), IngestError> {
    let mut pkg = Package::open(bytes, "OpenDocument spreadsheet")?;
    pkg.refuse_encrypted_odf()?;
    let content = pkg.require("content.xml")?;
    let mut sheets: Vec<Sheet> = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut row_repeat = 1usize;
    let mut cell: Option<(String, usize)> = None;
    let mut cells = 0usize;
    let mut in_annotation = 0usize;
    // Repeats of text read once: how many, and the largest count.
    let mut cut = (0usize, 0usize);
    let mut cut_one = |n: usize| {
        cut.0 += 1;
        cut.1 = cut.1.max(n);
    };
    walk_xml(&content, "content.xml", |e| {
        if in_annotation > 0 {
            match e {
                Xml::Start { .. } => in_annotation += 1,
                Xml::End { .. } => in_annotation -= 1,
                _ => {}
            }
            return Ok(());
        }
        match e {
            Xml::Start {
                name: "annotation", ..
            } => in_annotation = 1,
            Xml::Start {
                name: "table",
                attrs,
            } => sheets.push(Sheet {
                name: attr(attrs, "name").unwrap_or("Sheet").to_string(),
                rows: Vec::new(),
            }),
            Xml::Start {
                name: "table-row",
                attrs,
            } => {
                row.clear();
                row_repeat = repeat(attrs, "number-rows-repeated");
            }
            Xml::End { name: "table-row" } => {
                if let Some(sheet) = sheets.last_mut() {
                    // A repeated row with text is kept once per repeat,
                    // or once when that is too much text; an empty one
                    // costs nothing.
                    let filled = row.iter().filter(|c| !c.trim().is_empty()).count();
                    if filled > 0 {
                        let copies = if filled.saturating_mul(row_repeat) > MAX_REPEATED_TEXT {
                            cut_one(row_repeat);
                            1
                        } else {
                            row_repeat
                        };
                        for _ in 0..copies {
                            sheet.rows.push(row.clone());
                        }
                        cells += row.len() * copies;
                    }
                }
                if cells > MAX_CELLS {
                    return Err(too_many());
                }
            }
            Xml::Start {
                name: "table-cell" | "covered-table-cell",
                attrs,
            } => cell = Some((String::new(), repeat(attrs, "number-columns-repeated"))),
            Xml::End { name: "p" } => {
                if let Some((text, _)) = &mut cell {
                    text.push(' ');
                }
            }
            Xml::Start {
                name: "s" | "tab" | "line-break",
                ..
            } => {
                if let Some((text, _)) = &mut cell {
                    text.push(' ');
                }
            }
            Xml::Text(t) => {
                if let Some((text, _)) = &mut cell {
                    text.push_str(t);
                }
            }
            Xml::End {
                name: "table-cell" | "covered-table-cell",
            } => {
                if let Some((text, n)) = cell.take() {
                    let text = text.trim().to_string();
                    // Trailing empty cells (a row's filler to the last
                    // column) are not kept.
                    let n = if text.is_empty() {
                        n.min(MAX_REPEAT)
                    } else if n > MAX_REPEATED_TEXT {
                        cut_one(n);
                        1
                    } else {
                        n
                    };
                    for _ in 0..n {
                        row.push(text.clone());
                    }
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    if cut.0 > 0 {
        warnings.push(format!(
            "{} cell(s) or row(s) with text repeated past {MAX_REPEATED_TEXT} cells (up to \
             {} times) were read once: such repetition is filler or a damaged file",
            cut.0, cut.1
        ));
    }
    for s in &mut sheets {
        for r in &mut s.rows {
            while r.last().is_some_and(|c| c.is_empty()) {
                r.pop();
            }
        }
    }
    let title = match pkg.read("meta.xml")? {
        Some(meta) => first_text(&meta, "meta.xml", "title")?,
        None => None,
    };
    Ok((sheets, title))
}

/// A repeat count as written (at least 1; a count past `usize` is the
/// largest), capped where it is used.
fn repeat(attrs: &[(String, String)], key: &str) -> usize {
    attr(attrs, key)
        .map(str::trim)
        .and_then(|v| {
            v.parse::<usize>().ok().or_else(|| {
                (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())).then_some(usize::MAX)
            })
        })
        .unwrap_or(1)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;
    use crate::ingest::testdocs::*;

    #[test]
    fn xlsx_sheets_rows_and_shared_strings() {
        let bytes = xlsx(&[
            (
                "Staff",
                &[&["Name", "Team"], &["Ann", "Ops"], &["Bo", "Dev"]],
            ),
            ("Budget", &[&["Item", "Cost"], &["Servers", "1200"]]),
        ]);
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("b.xlsx"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(
            doc.content,
            "Staff\n\nName | Team\nAnn | Ops\nBo | Dev\n\nBudget\n\nItem | Cost\nServers | 1200"
        );
        let budget = &doc.chunks[1];
        assert_eq!(budget.text, "Item | Cost\nServers | 1200");
        assert_eq!(budget.meta.section.as_deref(), Some("Budget > row 1"));
        assert_eq!(
            (budget.meta.line_start, budget.meta.line_end),
            (Some(10), Some(10))
        );
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.text.as_str(), h.line))
            .collect();
        assert_eq!(hs, [("Staff", 1), ("Budget", 7)]);
        assert_eq!(column("C7"), 2);
        assert_eq!(column("AA1"), 26);
    }

    #[test]
    fn ods_repeats_are_capped() {
        let body = "<office:spreadsheet><table:table table:name=\"Inventory\">\
            <table:table-row><table:table-cell><text:p>Part</text:p></table:table-cell><table:table-cell><text:p>Qty</text:p></table:table-cell></table:table-row>\
            <table:table-row><table:table-cell><text:p>bolt</text:p></table:table-cell><table:table-cell><text:p>40</text:p></table:table-cell><table:table-cell table:number-columns-repeated=\"16384\"/></table:table-row>\
            <table:table-row table:number-rows-repeated=\"1048576\"><table:table-cell table:number-columns-repeated=\"16384\"/></table:table-row>\
            </table:table></office:spreadsheet>";
        let bytes = odf(
            "application/vnd.oasis.opendocument.spreadsheet",
            Some("Stock"),
            body,
        );
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("s.ods"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.title, "Stock");
        assert_eq!(doc.content, "Inventory\n\nPart | Qty\nbolt | 40");
    }

    /// A cell of text repeated across a sheet's columns and down a
    /// million rows (1 KB that would read as 4 MB of `R | R | R`) is read
    /// once, with a warning; short repeats of text are read in full.
    #[test]
    fn ods_repeated_text_is_read_once_past_the_cap() {
        let body = "<office:spreadsheet><table:table table:name=\"Scores\">\
            <table:table-row><table:table-cell><text:p>Name</text:p></table:table-cell><table:table-cell><text:p>Score</text:p></table:table-cell></table:table-row>\
            <table:table-row table:number-rows-repeated=\"2\"><table:table-cell><text:p>Ann</text:p></table:table-cell><table:table-cell table:number-columns-repeated=\"3\"><text:p>0</text:p></table:table-cell></table:table-row>\
            <table:table-row table:number-rows-repeated=\"1000000\"><table:table-cell table:number-columns-repeated=\"16384\"><text:p>R</text:p></table:table-cell></table:table-row>\
            <table:table-row table:number-rows-repeated=\"99999999999999999999999\"><table:table-cell><text:p>Bo</text:p></table:table-cell><table:table-cell><text:p>7</text:p></table:table-cell></table:table-row>\
            </table:table></office:spreadsheet>";
        let bytes = odf("application/vnd.oasis.opendocument.spreadsheet", None, body);
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("bomb.ods"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert!(doc.content.len() < 100, "{} bytes", doc.content.len());
        assert_eq!(
            doc.content,
            "Scores\n\nName | Score\nAnn | 0 | 0 | 0\nAnn | 0 | 0 | 0\nR\nBo | 7"
        );
        assert_eq!(doc.chunks.len(), 1);
        assert!(
            doc.warnings.len() == 1
                && doc.warnings[0].contains("3 cell(s) or row(s)")
                && doc.warnings[0].contains(&usize::MAX.to_string()),
            "{:?}",
            doc.warnings
        );
    }
}
