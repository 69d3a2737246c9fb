//! Word's styles (`word/styles.xml`): which paragraph styles are
//! headings, which hide their text, and which number their paragraphs as
//! list items, each also through the styles it is based on.

use std::collections::HashMap;

use super::super::container::{attr, through_bases, walk_xml, Xml};
use super::super::IngestError;

/// What `word/styles.xml` says of the styles paragraphs and runs name.
#[derive(Default)]
pub(super) struct Styles {
    /// Style id → heading level (1-based), for the styles that are
    /// headings: by name, by outline level, or by the style they are
    /// based on.
    pub(super) headings: HashMap<String, u8>,
    /// Style id → whether its text is hidden (`w:vanish` in its run
    /// properties, or in those of the style it is based on), for the
    /// styles that say either way.
    hidden: HashMap<String, bool>,
    /// Style id → the list and level its paragraphs are items of (a
    /// "List Number" style), its own or its base's.
    pub(super) lists: HashMap<String, ListItem>,
}

/// A numbered or bulleted paragraph's list (`w:numId`) and level
/// (`w:ilvl`), as far as its properties or its style say.
#[derive(Debug, Clone, Default)]
pub(super) struct ListItem {
    pub(super) list: Option<String>,
    pub(super) level: Option<usize>,
}

impl ListItem {
    /// Sets what a `numId` or `ilvl` element says.
    pub(super) fn set(&mut self, name: &str, val: &str) {
        match name {
            "numId" => self.list = Some(val.to_string()),
            _ => self.level = val.parse().ok(),
        }
    }
}

impl Styles {
    pub(super) fn hidden(&self, id: &str) -> Option<bool> {
        self.hidden.get(id).copied()
    }
}

/// Reads the styles: headings, and hidden text.
pub(super) fn read_styles(xml: &[u8]) -> Result<Styles, IngestError> {
    let mut out = HashMap::new();
    let mut hidden: HashMap<String, bool> = HashMap::new();
    let mut lists: HashMap<String, ListItem> = HashMap::new();
    let mut based_on: HashMap<String, String> = HashMap::new();
    let mut body_text: Vec<String> = Vec::new();
    let mut id: Option<String> = None;
    // Depth inside the style being read, and whether in its own run
    // properties (not its paragraph mark's, nor a table part's).
    let mut depth = 0usize;
    let mut in_rpr = false;
    walk_xml(xml, "word/styles.xml", |e| {
        match e {
            Xml::Start { .. } if id.is_some() => depth += 1,
            Xml::End { name } if id.is_some() && name != "style" => {
                depth = depth.saturating_sub(1);
                if name == "rPr" && depth == 0 {
                    in_rpr = false;
                }
            }
            _ => {}
        }
        match e {
            Xml::Start {
                name: "style",
                attrs,
            } => {
                id = attr(attrs, "styleId").map(str::to_string);
                depth = 0;
                in_rpr = false;
            }
            Xml::Start { name: "rPr", .. } if depth == 1 => in_rpr = true,
            Xml::Start {
                name: "vanish",
                attrs,
            } if in_rpr => {
                if let Some(id) = &id {
                    hidden.insert(
                        id.clone(),
                        !matches!(attr(attrs, "val"), Some("0" | "false" | "off")),
                    );
                }
            }
            Xml::Start {
                name: "name",
                attrs,
            } => {
                if let (Some(id), Some(n)) = (&id, attr(attrs, "val")) {
                    let lower = n.to_ascii_lowercase();
                    if let Some(level) = lower
                        .strip_prefix("heading ")
                        .and_then(|l| l.trim().parse::<u8>().ok())
                    {
                        out.entry(id.clone()).or_insert(level);
                    } else if lower == "title" {
                        out.entry(id.clone()).or_insert(1);
                    }
                }
            }
            Xml::Start {
                name: "outlineLvl",
                attrs,
            } => {
                if let (Some(id), Some(l)) =
                    (&id, attr(attrs, "val").and_then(|v| v.parse::<u8>().ok()))
                {
                    if l < 9 {
                        out.insert(id.clone(), l + 1);
                    } else {
                        // Set to body text: not a heading whatever its base.
                        body_text.push(id.clone());
                    }
                }
            }
            Xml::Start {
                name: name @ ("numId" | "ilvl"),
                attrs,
            } => {
                if let (Some(id), Some(val)) = (&id, attr(attrs, "val")) {
                    lists.entry(id.clone()).or_default().set(name, val);
                }
            }
            Xml::Start {
                name: "basedOn",
                attrs,
            } => {
                if let (Some(id), Some(base)) = (&id, attr(attrs, "val")) {
                    based_on.insert(id.clone(), base.to_string());
                }
            }
            Xml::End { name: "style" } => id = None,
            _ => {}
        }
        Ok(())
    })?;
    let headings = based_on
        .keys()
        .filter(|s| !body_text.contains(s))
        .filter_map(|s| Some((s.clone(), inherited(&out, &based_on, s)?)))
        .collect::<Vec<_>>();
    let inherited_hidden = based_on
        .keys()
        .filter_map(|s| Some((s.clone(), inherited(&hidden, &based_on, s)?)))
        .collect::<Vec<_>>();
    // A style may set the level and take the list from its base.
    let inherited_lists = based_on
        .keys()
        .map(|s| {
            let list = through_bases(s, |s| lists.get(*s)?.list.clone(), |s| based_on.get(*s));
            let level = through_bases(s, |s| lists.get(*s)?.level, |s| based_on.get(*s));
            (s.clone(), ListItem { list, level })
        })
        .filter(|(_, item)| item.list.is_some())
        .collect::<Vec<_>>();
    out.extend(headings);
    hidden.extend(inherited_hidden);
    lists.extend(inherited_lists);
    Ok(Styles {
        headings: out,
        hidden,
        lists,
    })
}

/// What a style says, or what it takes from the styles it is based on.
fn inherited<T: Copy>(
    own: &HashMap<String, T>,
    based_on: &HashMap<String, String>,
    style: &String,
) -> Option<T> {
    through_bases(style, |s| own.get(*s).copied(), |s| based_on.get(*s))
}
