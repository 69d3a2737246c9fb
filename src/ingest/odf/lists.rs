//! OpenDocument's list numbering: the number or letter LibreOffice shows
//! before a numbered list item ("3.", "b)", "2.1."), which it draws from
//! the list's style and counters and does not store in the text. "Step 3
//! of the restore" and the quote an agent cites need it.
//!
//! A `text:list` names its list style (a nested list inherits its
//! parent's); its nesting gives the level, whose style gives a format, a
//! prefix and suffix, a start, and how many levels' numbers the label
//! shows. Each outermost list counts afresh unless it continues another
//! (`text:continue-list` names it; `text:continue-numbering` continues
//! the last list of its style); an item may restart its level
//! (`text:start-value`), and an item resets the counters below it.

use std::collections::HashMap;

use super::super::container::{attr, Xml};
use super::super::list_numbers::Format;

/// LibreOffice's levels per list style.
const LEVELS: usize = 10;

/// What a bulleted item, or one kb cannot number, starts with.
const BULLET: &str = "-";

/// How a list style numbers one of its levels.
#[derive(Debug, Clone)]
struct Level {
    format: Format,
    prefix: String,
    suffix: String,
    start: u32,
    /// How many levels' numbers the label shows, this one the last.
    shown: usize,
}

impl Default for Level {
    /// A level the style does not number: a bullet.
    fn default() -> Level {
        Level {
            format: Format::Bullet,
            prefix: String::new(),
            suffix: String::new(),
            start: 1,
            shown: 1,
        }
    }
}

/// The list styles (`text:list-style`), by name: the common ones of
/// `styles.xml` and the automatic ones of `content.xml`.
#[derive(Debug, Default)]
pub(super) struct ListStyles {
    styles: HashMap<String, Vec<Level>>,
    /// The list style being read.
    current: Option<String>,
}

impl ListStyles {
    /// Reads a list style's element (its start, a numbered level, its end);
    /// a bullet's or an image's level stays a bullet.
    pub(super) fn event(&mut self, e: &Xml) {
        match e {
            Xml::Start {
                name: "list-style",
                attrs,
            } => {
                // A list style inside a presentation style has no name:
                // no list names it.
                self.current = attr(attrs, "name").map(str::to_string);
                if let Some(name) = &self.current {
                    self.styles
                        .insert(name.clone(), vec![Level::default(); LEVELS]);
                }
            }
            Xml::End { name: "list-style" } => self.current = None,
            Xml::Start {
                name: "list-level-style-number",
                attrs,
            } => self.numbered_level(attrs),
            _ => {}
        }
    }

    fn numbered_level(&mut self, attrs: &[(String, String)]) {
        let Some(levels) = self.current.as_ref().and_then(|n| self.styles.get_mut(n)) else {
            return;
        };
        let Some(level) = attr(attrs, "level")
            .and_then(|l| l.parse::<usize>().ok())
            .filter(|l| (1..=LEVELS).contains(l))
        else {
            return;
        };
        let text = |key: &str| attr(attrs, key).unwrap_or("").to_string();
        levels[level - 1] = Level {
            format: format(
                attr(attrs, "num-format").unwrap_or(""),
                attr(attrs, "num-letter-sync") == Some("true"),
            ),
            prefix: text("num-prefix"),
            suffix: text("num-suffix"),
            start: attr(attrs, "start-value")
                .and_then(|v| v.parse().ok())
                .unwrap_or(1),
            shown: attr(attrs, "display-levels")
                .and_then(|v| v.parse().ok())
                .unwrap_or(1)
                .clamp(1, level),
        };
    }
}

/// A level's `style:num-format`; letters in step (`num-letter-sync`) go
/// on as aa, bb, as Word's do. A format kb does not write is a bullet.
fn format(name: &str, letters_in_step: bool) -> Format {
    match (name, letters_in_step) {
        ("1", _) => Format::Decimal,
        ("a", false) => Format::LowerLetterColumns,
        ("A", false) => Format::UpperLetterColumns,
        ("a", true) => Format::LowerLetter,
        ("A", true) => Format::UpperLetter,
        ("i", _) => Format::LowerRoman,
        ("I", _) => Format::UpperRoman,
        ("", _) => Format::None,
        _ => Format::Bullet,
    }
}

/// The lists being read: their nesting, the counters of each outermost
/// list, and the item whose number is due at its first paragraph.
#[derive(Debug, Default)]
pub(super) struct Lists {
    /// Each open list's style, its own or its parent's.
    open: Vec<Option<String>>,
    /// Each counting list's counters (`None`: not started at that level).
    counters: Vec<[Option<u32>; LEVELS]>,
    /// The counting list of the outermost list open.
    current: Option<usize>,
    /// The counting lists by the `xml:id` of a list that started them or
    /// went on with them, and the last of each style.
    by_id: HashMap<String, usize>,
    last_of_style: HashMap<String, usize>,
    /// An item opened and not yet numbered, and the value it restarts its
    /// level at.
    due: Option<Option<u32>>,
}

impl Lists {
    /// How deep in lists the reader is (0: in none).
    pub(super) fn depth(&self) -> usize {
        self.open.len()
    }

    /// A `text:list` starts. An item holding only this list, not a
    /// paragraph of its own, shows no number and counts none.
    pub(super) fn start_list(&mut self, attrs: &[(String, String)]) {
        self.due = None;
        let style = attr(attrs, "style-name")
            .map(str::to_string)
            .or_else(|| self.open.last().cloned().flatten());
        if self.open.is_empty() {
            self.current = Some(self.counting_list(attrs, style.as_deref()));
        }
        self.open.push(style);
    }

    pub(super) fn end_list(&mut self) {
        self.open.pop();
        self.due = None;
    }

    /// The counters an outermost list counts with: those of the list it
    /// continues, else its own.
    fn counting_list(&mut self, attrs: &[(String, String)], style: Option<&str>) -> usize {
        let continues_last = attr(attrs, "continue-numbering") == Some("true");
        let continued = attr(attrs, "continue-list")
            .and_then(|id| self.by_id.get(id).copied())
            .or_else(|| {
                style
                    .filter(|_| continues_last)
                    .and_then(|s| self.last_of_style.get(s).copied())
            });
        let n = continued.unwrap_or_else(|| {
            self.counters.push([None; LEVELS]);
            self.counters.len() - 1
        });
        if let Some(id) = attr(attrs, "id") {
            self.by_id.insert(id.to_string(), n);
        }
        if let Some(s) = style {
            self.last_of_style.insert(s.to_string(), n);
        }
        n
    }

    /// A `text:list-item` starts (a `text:list-header` shows no number).
    pub(super) fn start_item(&mut self, attrs: &[(String, String)]) {
        let restart = attr(attrs, "start-value").and_then(|v| v.parse().ok());
        self.due = Some(restart);
    }

    /// What the item whose first paragraph starts here shows before its
    /// text, counting it: `"3."`, `"2.1."`, `"-"` for a bullet or a list
    /// kb cannot number; `None` when no item is due (a later paragraph of
    /// the item, a list header's, one outside lists).
    pub(super) fn number(&mut self, styles: &ListStyles) -> Option<String> {
        let restart = self.due.take()?;
        let level = self.open.len().clamp(1, LEVELS) - 1;
        let counters = self.current.and_then(|c| self.counters.get_mut(c))?;
        let levels = self
            .open
            .last()?
            .as_ref()
            .and_then(|s| styles.styles.get(s));
        let start = |i: usize| levels.map_or(1, |l| l[i].start);
        counters[level] = Some(match (restart, counters[level]) {
            (Some(n), _) => n,
            (None, Some(n)) => n.saturating_add(1),
            (None, None) => start(level),
        });
        counters[level + 1..].iter_mut().for_each(|c| *c = None);
        let Some(levels) = levels.filter(|l| l[level].format.counts()) else {
            return Some(BULLET.to_string());
        };
        let this = &levels[level];
        let numbers: Vec<String> = (level + 1 - this.shown..=level)
            .map(|i| {
                levels[i]
                    .format
                    .write(counters[i].unwrap_or(levels[i].start))
            })
            .filter(|n| !n.is_empty())
            .collect();
        let label = format!("{}{}{}", this.prefix, numbers.join("."), this.suffix);
        Some(label)
            .filter(|l| !l.trim().is_empty())
            .or_else(|| Some(BULLET.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ChunkingConfig;
    use crate::ingest::testdocs::test_zip;
    use std::path::Path;

    const NS: &str = "xmlns:office=\"o\" xmlns:text=\"t\" xmlns:style=\"s\"";

    /// A text document of this body, with these automatic list styles in
    /// `content.xml` and these common ones in `styles.xml`, as read.
    fn read(automatic: &str, common: &str, body: &str) -> String {
        let content = format!(
            "<?xml version=\"1.0\"?><office:document-content {NS}>\
             <office:automatic-styles>{automatic}</office:automatic-styles>\
             <office:body><office:text>{body}</office:text></office:body></office:document-content>"
        );
        let styles = format!(
            "<?xml version=\"1.0\"?><office:document-styles {NS}>\
             <office:styles>{common}</office:styles></office:document-styles>"
        );
        let bytes = test_zip(&[("content.xml", &content), ("styles.xml", &styles)]);
        let c = ChunkingConfig::default();
        let doc = super::super::parse(
            Path::new("steps.odt"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        doc.content
    }

    fn level(n: u32, format: &str, suffix: &str, more: &str) -> String {
        format!(
            "<text:list-level-style-number text:level=\"{n}\" style:num-format=\"{format}\" \
             style:num-suffix=\"{suffix}\" {more}/>"
        )
    }

    fn item(text: &str) -> String {
        format!("<text:list-item><text:p>{text}</text:p></text:list-item>")
    }

    #[test]
    fn numbered_items_show_their_numbers_by_level_restarting_and_going_on() {
        let automatic = format!(
            "<text:list-style style:name=\"L1\">{}{}{}</text:list-style>\
             <text:list-style style:name=\"L2\"><text:list-level-style-bullet text:level=\"1\" text:bullet-char=\"•\"/></text:list-style>",
            level(1, "1", ".", ""),
            level(2, "1", ".", "text:display-levels=\"2\""),
            level(3, "a", ")", ""),
        );
        let common = format!(
            "<text:list-style style:name=\"Numbering_20_123\">{}</text:list-style>",
            level(1, "I", ")", "style:num-prefix=\"(\" text:start-value=\"4\""),
        );
        let body = [
            "<text:list text:style-name=\"L1\" xml:id=\"list1\">".to_string(),
            "<text:list-header><text:p>Before you start:</text:p></text:list-header>".into(),
            "<text:list-item><text:p>Stop the service.</text:p><text:list>".into(),
            item("Wait for the log."),
            "<text:list-item><text:p>Check the port.</text:p><text:list>".into(),
            item("netstat"),
            item("ss"),
            "</text:list></text:list-item></text:list></text:list-item>".into(),
            "<text:list-item><text:p>Copy the backup.</text:p>".into(),
            "<text:p>It takes an hour.</text:p><text:list>".into(),
            item("Verify it."),
            "</text:list></text:list-item></text:list>".into(),
            "<text:p>Then:</text:p>".into(),
            "<text:list text:style-name=\"L2\">".into(),
            item("a bullet"),
            "</text:list><text:list text:style-name=\"L1\" text:continue-numbering=\"true\">".into(),
            item("Start the service."),
            "</text:list><text:list text:style-name=\"L1\">".into(),
            item("A fresh list."),
            "<text:list-item text:start-value=\"7\"><text:p>Restarted at seven.</text:p></text:list-item>".into(),
            item("Eight."),
            "</text:list><text:list text:style-name=\"L1\" text:continue-list=\"list1\">".into(),
            item("Continued by its id."),
            "</text:list><text:list text:style-name=\"Numbering_20_123\">".into(),
            item("A named style."),
            "</text:list><text:list text:style-name=\"Missing\">".into(),
            item("No such style."),
            "</text:list>".into(),
        ]
        .concat();
        assert_eq!(
            read(&automatic, &common, &body),
            "Before you start:\n1. Stop the service.\n1.1. Wait for the log.\n\
             1.2. Check the port.\na) netstat\nb) ss\n2. Copy the backup.\nIt takes an hour.\n\
             2.1. Verify it.\n\nThen:\n\n- a bullet\n\n3. Start the service.\n\n\
             1. A fresh list.\n7. Restarted at seven.\n8. Eight.\n\n4. Continued by its id.\n\n\
             (IV) A named style.\n\n- No such style."
        );
    }

    /// An item holding only a nested list shows and counts nothing; a
    /// malformed style or restart is read as far as it makes sense.
    #[test]
    fn holders_and_malformed_styles() {
        let automatic = format!(
            "<text:list-style style:name=\"L1\">{}{}{}{}</text:list-style>",
            level(1, "A", ".", "text:start-value=\"x\""),
            level(2, "i", "", "text:display-levels=\"99\""),
            level(0, "1", ".", ""),
            level(11, "1", ".", ""),
        );
        let body = [
            "<text:list text:style-name=\"L1\"><text:list-item><text:list>".to_string(),
            item("under a holder"),
            "</text:list></text:list-item>".into(),
            item("first"),
            "<text:list-item text:start-value=\"-2\"><text:p>second</text:p></text:list-item>"
                .into(),
            item("third"),
            "<text:list-item><text:list>".into(),
            item("nested"),
            "</text:list></text:list-item></text:list>".into(),
        ]
        .concat();
        assert_eq!(
            read(&automatic, "", &body),
            "A.i under a holder\nA. first\nB. second\nC. third\nC.i nested"
        );
    }
}
