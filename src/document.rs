//! The words kb uses for what it indexes, below everything that reads or
//! stores it: the kinds of document, a heading, what a chunk knows about
//! its place in its document (stored as `chunks.metadata`), what a document
//! knows about itself (stored as `documents.metadata`), and the citation
//! every output that shows a chunk flattens into its JSON. `ingest` makes
//! them, `db` stores them, `commands` show them.
//!
//! The stored forms are JSON objects whose keys are the field names below;
//! knowledge bases written before these types existed use the same keys.

use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The kind of a document: code, data (JSON, YAML, TOML), doc (Word,
/// OpenDocument text), epub, html, image (read by OCR), markdown, note,
/// pdf, slides (PowerPoint, OpenDocument presentations) or spreadsheet
/// (CSV, TSV, Excel, OpenDocument).
// Adding a format adds a variant here; the compiler then points at every
// place that must know it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum DocType {
    Code,
    Data,
    Doc,
    Epub,
    Html,
    Image,
    Markdown,
    Note,
    Pdf,
    Slides,
    Spreadsheet,
}

impl DocType {
    /// Every type, in their names' order (as `kb status` lists them).
    pub const ALL: [DocType; 11] = [
        DocType::Code,
        DocType::Data,
        DocType::Doc,
        DocType::Epub,
        DocType::Html,
        DocType::Image,
        DocType::Markdown,
        DocType::Note,
        DocType::Pdf,
        DocType::Slides,
        DocType::Spreadsheet,
    ];

    /// The types and the files of each, as `kb --help`, `kb add --help`
    /// and `kb outline --help` list them (a test checks it against
    /// [`DocType::ALL`] and the extensions).
    pub const HELP: &'static str = "\
Document types (the `type` of results, --type):
  markdown     .md .markdown (heading sections)
  note         .txt .text
  pdf          .pdf (scanned pages by OCR)
  doc          .docx .odt (headings from paragraph styles)
  slides       .pptx .odp (a slide is a page, its notes with it)
  html         .html .htm .xhtml (the main content)
  epub         .epub (chapters in reading order)
  spreadsheet  .csv .tsv .xlsx .ods (rows under their header)
  data         .json .yaml .yml .toml (key paths, cited by their lines)
  image        .png .jpg .jpeg .tif .tiff .webp (text by OCR)
  code         .py .sh .bash .go .js .mjs .cjs .jsx .ts .mts .cts .tsx .rs, shebang scripts";

    /// The name in the JSON contract, the database and `--type`.
    pub fn as_str(self) -> &'static str {
        match self {
            DocType::Pdf => "pdf",
            DocType::Markdown => "markdown",
            DocType::Code => "code",
            DocType::Note => "note",
            DocType::Data => "data",
            DocType::Html => "html",
            DocType::Doc => "doc",
            DocType::Epub => "epub",
            DocType::Image => "image",
            DocType::Slides => "slides",
            DocType::Spreadsheet => "spreadsheet",
        }
    }

    /// The file extensions (lower case) of this type.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            DocType::Code => &[
                "py", "sh", "bash", "go", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx",
                "rs",
            ],
            DocType::Markdown => &["md", "markdown"],
            DocType::Note => &["txt", "text"],
            DocType::Pdf => &["pdf"],
            DocType::Data => &["json", "yaml", "yml", "toml"],
            DocType::Html => &["html", "htm", "xhtml"],
            DocType::Doc => &["docx", "odt"],
            DocType::Epub => &["epub"],
            DocType::Image => &["png", "jpg", "jpeg", "tif", "tiff", "webp"],
            DocType::Slides => &["pptx", "odp"],
            DocType::Spreadsheet => &["csv", "tsv", "xlsx", "ods"],
        }
    }

    /// Every extension kb reads, as a user would type them: ".md .markdown ...".
    pub fn supported_formats() -> String {
        DocType::ALL
            .iter()
            .flat_map(|t| t.extensions())
            .map(|e| format!(".{e}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether the document's text is cut into pages (form feeds between
    /// them) and its chunks are cited by page (a slide is a page, and an
    /// image one or, a multi-page TIFF, several).
    pub fn has_pages(self) -> bool {
        matches!(self, DocType::Pdf | DocType::Slides | DocType::Image)
    }

    /// Whether its headings are code symbols, found by any of their names.
    pub fn has_symbols(self) -> bool {
        matches!(self, DocType::Code)
    }
}

impl std::fmt::Display for DocType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DocType {
    type Err = String;

    fn from_str(s: &str) -> Result<DocType, String> {
        DocType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown document type '{s}' (this kb knows {})",
                    DocType::ALL.map(DocType::as_str).join(", ")
                )
            })
    }
}

/// A heading of a document, in order (for outlines and section lookup).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    /// 1-based line of the heading in the indexed text.
    pub line: usize,
}

/// What a code chunk's symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Function,
    Method,
    Class,
    Type,
    Module,
}

impl SymbolKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Type => "type",
            SymbolKind::Module => "module",
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// What a chunk knows about its place in its document; stored as
/// `chunks.metadata`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkMeta {
    /// The heading chain the chunk sits under, e.g. `Config > Advanced`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// 1-based page (PDF).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// The last page of a chunk that runs onto the next page(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_end: Option<u32>,
    /// Some of the text was recognised by OCR.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ocr: bool,
    /// 1-based inclusive lines of the chunk in its document's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_start: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_end: Option<u64>,
    /// The code symbol the chunk holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<SymbolKind>,
    /// Which part of a definition split over several chunks (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<u32>,
    /// The programming language of a code chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// A method's class (dotted for nested Python classes), or the type of
    /// a Rust impl or trait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    /// A Go method's receiver type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
    /// The first heading inside a chunk that runs on into the next section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_into: Option<String>,
}

impl ChunkMeta {
    /// A chunk under `section` (none for a chunk before any heading).
    pub fn in_section(section: Option<String>) -> ChunkMeta {
        ChunkMeta {
            section,
            ..Default::default()
        }
    }

    /// The stored JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }

    /// From the stored JSON; a value kb cannot read (written by hand, or
    /// damaged) reads as nothing known rather than failing the command.
    pub fn from_json(s: &str) -> ChunkMeta {
        serde_json::from_str(s).unwrap_or_default()
    }

    /// The place to cite.
    pub fn citation(&self) -> Citation {
        Citation {
            section: self.section.clone(),
            page: self.page,
            page_end: self.page_end.filter(|e| Some(*e) != self.page),
            line_start: self.line_start,
            line_end: self.line_end,
            symbol_name: self.symbol_name.clone(),
            symbol_kind: self.symbol_kind,
            ocr: self.ocr,
            runs_into: self.runs_into.clone(),
        }
    }
}

/// Where a chunk is in its document, as every output that shows a chunk
/// gives it (flattened into the chunk's or its source's JSON object).
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Citation {
    /// The heading chain the chunk sits under (null when it is under none).
    pub section: Option<String>,
    /// The 1-based page the chunk starts on: of a PDF or an image, or the
    /// slide of a presentation (null for other documents). A PDF's pages
    /// are counted from its first sheet, as open's pages are,
    /// not by the number printed on a page (a preface's "iv").
    pub page: Option<u32>,
    /// The last page of a chunk that runs onto the next page or slide
    /// (absent otherwise): cite `page`–`page_end`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_end: Option<u32>,
    /// The chunk's first 1-based line in the file (absent where kb does not
    /// know its lines: PDFs cite pages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_start: Option<u64>,
    /// The chunk's last line (inclusive): cite `line_start`–`line_end`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_end: Option<u64>,
    /// Code chunks only (absent otherwise): the symbol the chunk holds
    /// (`parse_config`, `Foo.bar`, `Server.Start`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_name: Option<String>,
    /// Code chunks only: function, method, class, type or module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<SymbolKind>,
    /// Chunks read off a scanned page or an image by OCR (absent
    /// otherwise): the text may hold recognition errors.
    #[serde(skip_serializing_if = "is_false")]
    #[schemars(with = "Option<bool>")]
    pub ocr: bool,
    /// A chunk that starts in `section` and runs on into the next section
    /// (absent otherwise): the first heading inside it, as outline lists it;
    /// cite both.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs_into: Option<String>,
}

/// What a SKILL.md declares in its frontmatter; its presence marks the
/// document as a skill.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkillInfo {
    /// Skills only: the skill's name from its SKILL.md frontmatter.
    pub name: Option<String>,
    /// Skills only: what the skill does and when to use it.
    pub description: Option<String>,
    /// Skills only: its version (null when it declares none).
    pub version: Option<String>,
    /// Skills only: the capabilities it declares.
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// What a document knows about itself; stored as `documents.metadata`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocumentMeta {
    /// Its headings in order (Markdown, PDF, code symbols).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headings: Vec<Heading>,
    /// PDF and slides: its pages, and (PDF) which had no text or were read
    /// by OCR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_without_text: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_without_text_list: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_ocr: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_ocr_list: Vec<u32>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub encrypted: bool,
    /// Markdown frontmatter, as written (the user's own keys).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<Map<String, Value>>,
    /// An e-book's author.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// A SKILL.md's declared name, description, version, capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<SkillInfo>,
    /// The tags the file itself gives (front matter), normalised: when the
    /// file is indexed again, those it no longer gives are taken off.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub file_tags: Vec<String>,
}

impl DocumentMeta {
    /// The stored JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }

    /// From the stored JSON (nothing known when it cannot be read).
    pub fn from_json(s: &str) -> DocumentMeta {
        serde_json::from_str(s).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_types_round_trip_and_unknown_ones_are_named() {
        for t in DocType::ALL {
            assert_eq!(t.as_str().parse::<DocType>().unwrap(), t);
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
        }
        let e = "docx".parse::<DocType>().unwrap_err();
        assert!(e.contains("'docx'") && e.contains("markdown"), "{e}");
    }

    /// The stored forms keep the keys knowledge bases already hold.
    #[test]
    fn stored_metadata_keeps_its_keys() {
        let stored = r#"{"language":"python","symbol_name":"Foo.bar","symbol_kind":"method","line_start":3,"line_end":9,"class_name":"Foo","part":2,"section":"class Foo > def bar"}"#;
        let m = ChunkMeta::from_json(stored);
        assert_eq!(m.symbol_kind, Some(SymbolKind::Method));
        assert_eq!(m.part, Some(2));
        let back: Value = serde_json::from_str(&m.to_json()).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(stored).unwrap());
        let pdf = ChunkMeta::from_json(r#"{"section":"Risk","page":4,"page_end":5,"ocr":true}"#);
        let c = pdf.citation();
        assert_eq!((c.page, c.page_end, c.ocr), (Some(4), Some(5), true));
        assert_eq!(ChunkMeta::from_json("not json"), ChunkMeta::default());
        assert_eq!(ChunkMeta::default().to_json(), "{}");

        let doc = r#"{"pages":3,"pages_without_text":1,"pages_without_text_list":[2],"pages_ocr":0,"headings":[{"level":1,"text":"A","line":1}],"frontmatter":{"title":"T"}}"#;
        let d = DocumentMeta::from_json(doc);
        assert_eq!(d.pages, Some(3));
        assert_eq!(d.headings[0].text, "A");
        let back: Value = serde_json::from_str(&d.to_json()).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(doc).unwrap());
    }

    #[test]
    fn the_help_lists_every_type_and_extension() {
        for t in DocType::ALL {
            let line = DocType::HELP
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{} ", t.as_str())))
                .unwrap_or_else(|| panic!("{} is not listed", t.as_str()));
            for ext in t.extensions() {
                assert!(
                    line.split([' ', ',', '(']).any(|w| w == format!(".{ext}")),
                    ".{ext} is not on {line:?}"
                );
            }
        }
        assert_eq!(DocType::HELP.lines().count(), DocType::ALL.len() + 1);
    }

    #[test]
    fn citations_leave_out_what_does_not_apply() {
        let c = ChunkMeta::in_section(Some("Intro".into())).citation();
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v, serde_json::json!({"section": "Intro", "page": null}));
    }
}
