//! Word's list numbering (`word/numbering.xml`): the number or letter a
//! numbered paragraph shows ("3.", "b)", "2.1."), which Word draws from
//! counters and does not store in the text. "Step 3 of the restore" and the
//! quote an agent cites need it.
//!
//! A paragraph names a list (`w:numId`) and a level (`w:ilvl`); the list
//! names an abstract definition whose levels give a start, a format and a
//! pattern (`%1.%2.`). Lists of one definition share its counters, as
//! Word counts them, unless a list restarts a level (`w:startOverride`);
//! an item resets the counters of the levels below it.

use std::collections::HashMap;

use super::super::container::{attr, walk_xml, Xml};
use super::super::list_numbers::Format;
use super::super::IngestError;

/// Word's levels per list.
const LEVELS: usize = 9;

/// A level's format (`w:numFmt`): a format kb does not write is a bullet.
fn format(name: &str) -> Format {
    match name {
        "decimal" | "decimalZero" => Format::Decimal,
        "lowerLetter" => Format::LowerLetter,
        "upperLetter" => Format::UpperLetter,
        "lowerRoman" => Format::LowerRoman,
        "upperRoman" => Format::UpperRoman,
        "none" => Format::None,
        _ => Format::Bullet,
    }
}

#[derive(Debug, Clone, Default)]
struct Level {
    start: u32,
    format: Format,
    /// The pattern: `%N` is level N's counter.
    text: String,
}

#[derive(Debug, Default)]
struct List {
    definition: String,
    /// Levels this list restarts, at what.
    starts: HashMap<usize, u32>,
}

/// The numbering part, and the counters of the lists read so far.
#[derive(Debug, Default)]
pub(super) struct Numbering {
    definitions: HashMap<String, Vec<Level>>,
    lists: HashMap<String, List>,
    /// Each counting list's counters (`None`: not started at that level).
    counters: HashMap<String, [Option<u32>; LEVELS]>,
}

impl Numbering {
    /// Reads `word/numbering.xml`.
    pub(super) fn read(xml: &[u8]) -> Result<Numbering, IngestError> {
        let mut out = Numbering::default();
        let mut definition: Option<String> = None;
        let mut list: Option<String> = None;
        let mut level: Option<usize> = None;
        walk_xml(xml, "word/numbering.xml", |e| {
            match e {
                Xml::Start {
                    name: "abstractNum",
                    attrs,
                } => {
                    definition = attr(attrs, "abstractNumId").map(str::to_string);
                    if let Some(d) = &definition {
                        out.definitions
                            .insert(d.clone(), vec![Level::default(); LEVELS]);
                    }
                }
                Xml::End {
                    name: "abstractNum",
                } => definition = None,
                Xml::Start { name: "num", attrs } => {
                    list = attr(attrs, "numId").map(str::to_string);
                }
                Xml::End { name: "num" } => list = None,
                Xml::Start {
                    name: "abstractNumId",
                    attrs,
                } => {
                    if let (Some(l), Some(d)) = (&list, attr(attrs, "val")) {
                        out.lists.entry(l.clone()).or_default().definition = d.to_string();
                    }
                }
                Xml::Start {
                    name: "lvl" | "lvlOverride",
                    attrs,
                } => {
                    level = attr(attrs, "ilvl")
                        .and_then(|v| v.parse().ok())
                        .filter(|l| *l < LEVELS);
                }
                Xml::Start { name, attrs } => {
                    out.level_setting(name, attrs, &definition, &list, level)
                }
                _ => {}
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// A level's start, format or pattern, in a definition, or a list's
    /// restart of a level.
    fn level_setting(
        &mut self,
        name: &str,
        attrs: &[(String, String)],
        definition: &Option<String>,
        list: &Option<String>,
        level: Option<usize>,
    ) {
        let (Some(i), Some(val)) = (level, attr(attrs, "val")) else {
            return;
        };
        if let (Some(l), "startOverride") = (list, name) {
            if let Ok(n) = val.parse() {
                self.lists.entry(l.clone()).or_default().starts.insert(i, n);
            }
            return;
        }
        let Some(levels) = definition
            .as_ref()
            .and_then(|d| self.definitions.get_mut(d))
        else {
            return;
        };
        match name {
            "start" => levels[i].start = val.parse().unwrap_or(1),
            "numFmt" => levels[i].format = format(val),
            "lvlText" => levels[i].text = val.to_string(),
            _ => {}
        }
    }

    /// What an item of list `list` at `level` shows, counting it: `"3."`,
    /// `"b)"`; `None` for a bullet, a list without numbers or one this
    /// part does not define.
    pub(super) fn label(&mut self, list: &str, level: usize) -> Option<String> {
        let l = self.lists.get(list)?;
        let levels = self.definitions.get(&l.definition)?;
        let this = levels.get(level)?;
        if !this.format.counts() {
            return None;
        }
        // A list that restarts a level counts on its own.
        let key: &str = if l.starts.is_empty() {
            &l.definition
        } else {
            list
        };
        let start = |i: usize| l.starts.get(&i).copied().unwrap_or(levels[i].start);
        let counters = self
            .counters
            .entry(key.to_string())
            .or_insert([None; LEVELS]);
        counters[level] = Some(counters[level].map_or(start(level), |n| n.saturating_add(1)));
        counters[level + 1..].iter_mut().for_each(|c| *c = None);
        let mut label = this.text.clone();
        for (i, lvl) in levels.iter().enumerate().take(level + 1) {
            let n = counters[i].unwrap_or(start(i));
            label = label.replace(&format!("%{}", i + 1), &lvl.format.write(n));
        }
        Some(label).filter(|t| !t.trim().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PART: &str = r#"<w:numbering xmlns:w="w">
      <w:abstractNum w:abstractNumId="0">
        <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
        <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%2)"/></w:lvl>
        <w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%3"/></w:lvl>
      </w:abstractNum>
      <w:abstractNum w:abstractNumId="1">
        <w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val=""/></w:lvl>
      </w:abstractNum>
      <w:abstractNum w:abstractNumId="2">
        <w:lvl w:ilvl="0"><w:start w:val="4"/><w:numFmt w:val="upperRoman"/><w:lvlText w:val="Part %1:"/></w:lvl>
      </w:abstractNum>
      <w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
      <w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
      <w:num w:numId="3"><w:abstractNumId w:val="0"/></w:num>
      <w:num w:numId="4"><w:abstractNumId w:val="0"/>
        <w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>
      <w:num w:numId="5"><w:abstractNumId w:val="2"/></w:num>
    </w:numbering>"#;

    #[test]
    fn items_count_by_level_and_lists_of_one_definition_go_on() {
        let mut n = Numbering::read(PART.as_bytes()).unwrap();
        let labels: Vec<Option<String>> = [
            ("1", 0),
            ("1", 1),
            ("1", 1),
            ("1", 0),
            ("1", 1),
            ("1", 2),
            ("2", 0),
            ("3", 0),
            ("4", 0),
            ("4", 0),
            ("5", 0),
            ("9", 0),
        ]
        .iter()
        .map(|(l, i)| n.label(l, *i))
        .collect();
        let want = [
            "1.", "a)", "b)", "2.", "a)", "2.1", "", "3.", "1.", "2.", "Part IV:", "",
        ];
        let want: Vec<Option<String>> = want
            .iter()
            .map(|s| Some(s.to_string()).filter(|s| !s.is_empty()))
            .collect();
        assert_eq!(labels, want);
    }

    /// Through the Word reader: items numbered by their own list or by
    /// their style's, a bullet, and a paragraph whose numbering is removed.
    #[test]
    fn a_documents_numbered_items_show_their_numbers() {
        use crate::config::ChunkingConfig;
        use crate::ingest::testdocs::test_zip;
        let w = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;
        let item = |num: &str, text: &str| {
            format!(
                "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"{num}\"/>\
                 </w:numPr></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"
            )
        };
        let styled = |text: &str| {
            format!(
                "<w:p><w:pPr><w:pStyle w:val=\"ListNumber2\"/></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"
            )
        };
        let body = [
            item("1", "Stop the service."),
            styled("Keep the old copy."),
            item("1", "Copy the backup."),
            item("2", "The log is quiet."),
            item("0", "Not an item."),
        ]
        .concat();
        let document = format!("<w:document {w}><w:body>{body}</w:body></w:document>");
        let styles = format!(
            "<w:styles {w}><w:style w:styleId=\"ListNumber\"><w:pPr><w:numPr>\
             <w:numId w:val=\"1\"/></w:numPr></w:pPr></w:style><w:style w:styleId=\"ListNumber2\">\
             <w:basedOn w:val=\"ListNumber\"/><w:pPr><w:numPr><w:ilvl w:val=\"1\"/></w:numPr>\
             </w:pPr></w:style></w:styles>"
        );
        let bytes = test_zip(&[
            ("word/document.xml", &document),
            ("word/styles.xml", &styles),
            ("word/numbering.xml", PART),
        ]);
        let doc = super::super::parse(
            std::path::Path::new("steps.docx"),
            &bytes,
            &crate::ingest::test_support::ctx(&ChunkingConfig::default()),
        )
        .unwrap();
        assert_eq!(
            doc.content,
            "1. Stop the service.\na) Keep the old copy.\n2. Copy the backup.\n- The log is quiet.\n\
             Not an item."
        );
    }
}
