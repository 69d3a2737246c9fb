//! PowerPoint's automatic numbering (`a:buAutoNum`): the number or letter
//! a numbered paragraph shows ("3.", "b)", "(iv)"), which PowerPoint
//! draws from the paragraphs before it and does not store in the text.
//! "Step 3" on a slide and the quote an agent cites need it.
//!
//! A paragraph is numbered by its own properties (`a:pPr`), else by its
//! text body's list style for its level (`a:lstStyle`); the layout's and
//! master's list styles are not read. Each level counts on while its
//! paragraphs are numbered in one scheme from one start (PowerPoint
//! repeats `startAt` on each); a paragraph of a level not numbered so
//! restarts that level, any paragraph restarts the levels below it, and
//! each text body starts afresh. An empty paragraph shows nothing and
//! changes nothing.

use super::super::container::{attr, Xml};
use super::super::list_numbers::Format;

/// PowerPoint's paragraph levels (`lvl` 0 … 8).
const LEVELS: usize = 9;

/// How a numbered paragraph writes its number: `(`, the counter, `)`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Scheme {
    format: Format,
    before: &'static str,
    after: &'static str,
    start: u32,
}

impl Scheme {
    /// The scheme of an `a:buAutoNum`; `None` for one kb does not write
    /// (circled, East Asian, Thai, Hindi numbers).
    fn of(attrs: &[(String, String)]) -> Option<Scheme> {
        let kind = attr(attrs, "type")?;
        let (format, rest) = [
            ("arabic", Format::Decimal),
            ("alphaLc", Format::LowerLetter),
            ("alphaUc", Format::UpperLetter),
            ("romanLc", Format::LowerRoman),
            ("romanUc", Format::UpperRoman),
        ]
        .into_iter()
        .find_map(|(name, f)| kind.strip_prefix(name).map(|rest| (f, rest)))?;
        let (before, after) = match rest {
            "Period" => ("", "."),
            "ParenR" => ("", ")"),
            "ParenBoth" => ("(", ")"),
            "Plain" => ("", ""),
            _ => return None,
        };
        let start = attr(attrs, "startAt")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        Some(Scheme {
            format,
            before,
            after,
            start,
        })
    }

    fn write(&self, n: u32) -> String {
        format!("{}{}{}", self.before, self.format.write(n), self.after)
    }
}

/// A paragraph's bullet, as its properties or its list style say.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Bullet {
    /// `a:buAutoNum` in a scheme kb writes.
    Numbered(Scheme),
    /// `a:buNone`, a character or picture bullet, or a scheme kb does
    /// not write.
    Unnumbered,
}

/// Where a bullet element sets the bullet.
#[derive(Debug, Clone, Copy)]
enum Target {
    /// The paragraph's own properties.
    Paragraph,
    /// A level of the text body's list style.
    Style(usize),
}

/// A text body's numbering: the bullets its list style gives each level,
/// each level's scheme and counter so far, and the paragraph being read.
#[derive(Debug, Default)]
pub(super) struct Numbers {
    styled: [Option<Bullet>; LEVELS],
    counters: [Option<(Scheme, u32)>; LEVELS],
    target: Option<Target>,
    /// The paragraph's level (`lvl`) and its own bullet.
    level: usize,
    own: Option<Bullet>,
}

impl Numbers {
    /// Reads what numbers paragraphs: a text body's start, its list
    /// style's levels, a paragraph's properties and bullet.
    pub(super) fn event(&mut self, e: &Xml) {
        match e {
            Xml::Start { name: "txBody", .. } => *self = Numbers::default(),
            Xml::Start { name: "p", .. } => {
                self.level = 0;
                self.own = None;
            }
            Xml::Start { name: "pPr", attrs } => {
                self.level = attr(attrs, "lvl")
                    .and_then(|l| l.parse::<usize>().ok())
                    .unwrap_or(0)
                    .min(LEVELS - 1);
                self.target = Some(Target::Paragraph);
            }
            Xml::Start { name, .. } if style_level(name).is_some() => {
                self.target = style_level(name).map(Target::Style);
            }
            Xml::End { name } if *name == "pPr" || style_level(name).is_some() => {
                self.target = None;
            }
            Xml::Start {
                name: name @ ("buAutoNum" | "buNone" | "buChar" | "buBlip"),
                attrs,
            } => {
                let bullet = match *name {
                    "buAutoNum" => Scheme::of(attrs).map_or(Bullet::Unnumbered, Bullet::Numbered),
                    _ => Bullet::Unnumbered,
                };
                match self.target {
                    Some(Target::Paragraph) => self.own = Some(bullet),
                    Some(Target::Style(level)) => self.styled[level] = Some(bullet),
                    None => {}
                }
            }
            _ => {}
        }
    }

    /// What the paragraph ending here shows before its text, counting it:
    /// `"3."`, `"(b)"`; `None` when it is not numbered. An empty
    /// paragraph shows nothing and changes nothing.
    pub(super) fn end_paragraph(&mut self, empty: bool) -> Option<String> {
        let own = self.own.take();
        if empty {
            return None;
        }
        let level = self.level;
        self.counters[level + 1..]
            .iter_mut()
            .for_each(|c| *c = None);
        let Some(Bullet::Numbered(scheme)) = own.or_else(|| self.styled[level].clone()) else {
            self.counters[level] = None;
            return None;
        };
        let n = match &self.counters[level] {
            Some((last, n)) if *last == scheme => n.saturating_add(1),
            _ => scheme.start,
        };
        let label = scheme.write(n);
        self.counters[level] = Some((scheme, n));
        Some(label)
    }
}

/// The level a list style's element sets (`a:lvl2pPr`: level 1).
fn style_level(name: &str) -> Option<usize> {
    name.strip_prefix("lvl")?
        .strip_suffix("pPr")?
        .parse::<usize>()
        .ok()
        .filter(|l| (1..=LEVELS).contains(l))
        .map(|l| l - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;
    use crate::ingest::testdocs::pptx_shapes;

    #[test]
    fn schemes_as_powerpoint_writes_them() {
        let first = |kind: &str, start: Option<&str>| {
            let mut attrs = vec![("type".to_string(), kind.to_string())];
            if let Some(s) = start {
                attrs.push(("startAt".to_string(), s.to_string()));
            }
            Scheme::of(&attrs).map(|s| s.write(s.start))
        };
        let labels = [
            first("arabicPeriod", None),
            first("arabicParenR", Some("12")),
            first("arabicParenBoth", None),
            first("arabicPlain", None),
            first("alphaLcPeriod", Some("2")),
            first("alphaUcParenR", None),
            first("alphaLcParenBoth", Some("27")),
            first("romanLcPeriod", Some("4")),
            first("romanUcParenBoth", Some("9")),
            first("arabicPeriod", Some("nine")),
            first("circleNumDbPlain", None),
            first("arabic1Minus", None),
        ];
        let want = [
            "1.", "12)", "(1)", "1", "b.", "A)", "(aa)", "iv.", "(IX)", "1.", "", "",
        ];
        let want = want.map(|w| Some(w.to_string()).filter(|w| !w.is_empty()));
        assert_eq!(labels, want);
    }

    /// Through the reader: two schemes, a start, a paragraph without a
    /// number between, a level below, the text body's list style; an
    /// empty paragraph shows and changes nothing.
    #[test]
    fn a_slides_numbered_paragraphs_show_their_numbers() {
        let p = |ppr: &str, text: &str| format!("<a:p>{ppr}<a:r><a:t>{text}</a:t></a:r></a:p>");
        let num = |lvl: u8, kind: &str, more: &str| {
            format!("<a:pPr lvl=\"{lvl}\"><a:buFont typeface=\"+mj-lt\"/><a:buAutoNum type=\"{kind}\"{more}/></a:pPr>")
        };
        let body = [
            p(&num(0, "arabicPeriod", ""), "Stop the service."),
            p(&num(1, "alphaLcParenR", ""), "Wait for the log."),
            p(&num(1, "alphaLcParenR", ""), "Check the port."),
            "<a:p><a:pPr><a:buAutoNum type=\"arabicPeriod\"/></a:pPr></a:p>".to_string(),
            p(&num(0, "arabicPeriod", ""), "Copy the backup."),
            p("<a:pPr><a:buNone/></a:pPr>", "Then, on the new host:"),
            p(&num(0, "romanUcPeriod", " startAt=\"4\""), "Start it."),
            p(&num(0, "romanUcPeriod", " startAt=\"4\""), "Test it."),
            p("", "A plain line."),
            p("<a:pPr lvl=\"1\"/>", "From the list style."),
            p(
                "<a:pPr lvl=\"1\"><a:buChar char=\"•\"/></a:pPr>",
                "A bullet of its own.",
            ),
        ]
        .concat();
        let list_style =
            "<a:lstStyle><a:lvl2pPr><a:buAutoNum type=\"alphaUcPeriod\"/></a:lvl2pPr></a:lstStyle>";
        let shapes = format!(
            "<p:sp><p:nvSpPr><p:nvPr><p:ph type=\"title\"/></p:nvPr></p:nvSpPr><p:txBody>{}</p:txBody></p:sp>\
             <p:sp><p:nvSpPr/><p:txBody>{list_style}{body}</p:txBody></p:sp>",
            p("", "Restore")
        );
        let bytes = pptx_shapes(None, &[(shapes, String::new())]);
        let c = ChunkingConfig::default();
        let doc = super::super::parse(
            std::path::Path::new("restore.pptx"),
            &bytes,
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(
            doc.content,
            "Restore\n\n1. Stop the service.\na) Wait for the log.\nb) Check the port.\n\
             2. Copy the backup.\nThen, on the new host:\nIV. Start it.\nV. Test it.\nA plain line.\n\
             A. From the list style.\nA bullet of its own."
        );
    }
}
