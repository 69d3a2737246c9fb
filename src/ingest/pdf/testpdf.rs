//! Small PDFs written with lopdf, for the unit and integration tests: no
//! binary fixtures in the repository. kb itself never writes PDFs.

use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, Stream};

/// One element of a page, laid out top to bottom.
#[derive(Debug, Clone)]
pub enum Block {
    /// A line in bold at this font size, with space around it.
    Heading(String, f32),
    /// Body text at 11 pt, wrapped at about 80 characters.
    Para(String),
    /// One paragraph given line by line (to place hyphens at line ends).
    Lines(Vec<String>),
    /// A table as a filing draws it: every cell a text object of its own,
    /// drawn column by column; the first column left-aligned, the others
    /// (numbers) right-aligned at 100-point steps, a `$` set apart.
    Table(Vec<Vec<String>>),
    /// Two columns of prose side by side (each wrapped at 40 characters),
    /// drawn row by row across both columns.
    Columns(String, String),
    /// Nothing drawn: a place on the page a bookmark can point at.
    Anchor(String),
    /// A line at the body's size, in this colour (red, green and blue from
    /// 0 to 1), in bold or not, set as a paragraph's line: no space after it.
    Tinted(String, [f32; 3], bool),
    /// A listing in Courier 10 pt, one line each, leading spaces kept.
    Code(Vec<String>),
    /// A heading in bold at this size with this much space added after
    /// every character (`Tc`, in points), as designers letter-space
    /// titles.
    Spaced(String, f32, f32),
    /// A line drawn far outside the page, as slide decks keep the items
    /// they reveal later: in the file, never shown.
    OffPage(String),
    /// A grey box this many points tall, the text's width: a figure, or
    /// the image of a scanned page, with no text.
    Figure(f32),
    /// A list as Word writes it: each item's mark is `code` in a symbol
    /// font (`SymbolMT`, or `Wingdings-Regular` when `wingdings`) whose map
    /// to Unicode gives the private code `U+F000 + code`, then its text.
    Marked(u8, bool, Vec<String>),
}

/// A list whose marks are Word's: `marked(0xB7, false, &["one", "two"])`
/// sets each item after Symbol's bullet.
pub fn marked(code: u8, wingdings: bool, items: &[&str]) -> Block {
    Block::Marked(
        code,
        wingdings,
        items.iter().map(|s| s.to_string()).collect(),
    )
}

/// A letter-spaced bold heading: `spaced("ANNUAL REPORT", 14.0, 4.0)`.
pub fn spaced(text: &str, size: f32, spacing: f32) -> Block {
    Block::Spaced(text.to_string(), size, spacing)
}

/// A listing in Courier: `code(&["def f(x):", "    return x"])`.
pub fn code(lines: &[&str]) -> Block {
    Block::Code(lines.iter().map(|s| s.to_string()).collect())
}

/// A place for a bookmark: nothing drawn, the next block starts here.
pub fn anchor(name: &str) -> Block {
    Block::Anchor(name.to_string())
}

/// A grey box `height` points tall, drawn without text.
pub fn figure(height: f32) -> Block {
    Block::Figure(height)
}

pub fn table(rows: &[&[&str]]) -> Block {
    Block::Table(
        rows.iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect(),
    )
}

pub fn columns(left: &str, right: &str) -> Block {
    Block::Columns(left.to_string(), right.to_string())
}

/// A line at the body's size in a colour, bold or not:
/// `tinted("Capital actions", [0.0, 0.3, 0.5], true)`.
pub fn tinted(text: &str, rgb: [f32; 3], bold: bool) -> Block {
    Block::Tinted(text.to_string(), rgb, bold)
}

pub fn heading(text: &str, size: f32) -> Block {
    Block::Heading(text.to_string(), size)
}

pub fn para(text: &str) -> Block {
    Block::Para(text.to_string())
}

pub fn lines(lines: &[&str]) -> Block {
    Block::Lines(lines.iter().map(|s| s.to_string()).collect())
}

/// A PDF under construction: pages of blocks, an optional Info title and
/// an optional footer on every page ("Page N").
#[derive(Debug, Clone, Default)]
pub struct TestPdf {
    pub title: Option<String>,
    pub pages: Vec<Vec<Block>>,
    pub footer: bool,
    /// Bookmarks, depth first: a title, its level (1 = top) and the
    /// heading or anchor it points at.
    pub bookmarks: Vec<(String, u8, String)>,
    /// The running header drawn at the top of each page, if any.
    pub headers: Vec<Option<String>>,
    header: Option<String>,
}

const BODY: f32 = 11.0;
const LEADING: f32 = 14.0;
const LEFT: f32 = 72.0;
const TOP: f32 = 720.0;
const WRAP: usize = 80;

impl TestPdf {
    pub fn new() -> TestPdf {
        TestPdf::default()
    }

    pub fn title(mut self, t: &str) -> TestPdf {
        self.title = Some(t.to_string());
        self
    }

    pub fn footer(mut self) -> TestPdf {
        self.footer = true;
        self
    }

    /// A bookmark titled `title` at `level` pointing at the top of the
    /// heading whose text is `target`, or at the anchor of that name.
    pub fn bookmark(mut self, title: &str, level: u8, target: &str) -> TestPdf {
        self.bookmarks
            .push((title.to_string(), level, target.to_string()));
        self
    }

    /// A running header (9 pt, above the text) on the pages added after
    /// this call.
    pub fn running_header(mut self, text: &str) -> TestPdf {
        self.header = Some(text.to_string());
        self
    }

    /// No running header on the pages added after this call.
    pub fn no_running_header(mut self) -> TestPdf {
        self.header = None;
        self
    }

    pub fn page(mut self, blocks: Vec<Block>) -> TestPdf {
        self.pages.push(blocks);
        self.headers.push(self.header.clone());
        self
    }

    /// The PDF's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut doc = self.document();
        let mut out = Vec::new();
        doc.save_to(&mut out).expect("writing a PDF to memory");
        out
    }

    /// The PDF encrypted (RC4, 128 bit) with this user password; "" makes
    /// a file any reader opens without asking.
    pub fn encrypted(&self, user_password: &str) -> Vec<u8> {
        use lopdf::encryption::{EncryptionState, EncryptionVersion, Permissions};
        let mut doc = self.document();
        doc.trailer.set(
            "ID",
            vec![
                Object::string_literal(b"kb-test-id-00001".to_vec()),
                Object::string_literal(b"kb-test-id-00001".to_vec()),
            ],
        );
        let version = EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner",
            user_password,
            key_length: 128,
            permissions: Permissions::all(),
        };
        let state = EncryptionState::try_from(version).expect("encryption state");
        doc.encrypt(&state).expect("encrypting");
        let mut out = Vec::new();
        doc.save_to(&mut out).expect("writing a PDF to memory");
        out
    }

    fn document(&self) -> Document {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let body = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        });
        let bold = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica-Bold",
        });
        let mono = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier",
        });
        let symbol = symbol_font(&mut doc, "SymbolMT");
        let wingdings = symbol_font(&mut doc, "Wingdings-Regular");
        let resources = doc.add_object(dictionary! {
            "Font" => dictionary! {
                "F1" => body, "F2" => bold, "F3" => mono, "F4" => symbol, "F5" => wingdings,
            },
        });
        let mut kids = Vec::new();
        // Where each heading and anchor is: its page and the height of
        // its top above the page's bottom.
        let mut places: Vec<(String, usize, f32)> = Vec::new();
        for (i, blocks) in self.pages.iter().enumerate() {
            let mut ops = Vec::new();
            let mut y = TOP;
            // A text object showing `text` (a string's bytes) at x, y.
            let show = |ops: &mut Vec<Operation>, font: &str, size: f32, x: f32, y: f32, text| {
                ops.push(Operation::new("BT", vec![]));
                ops.push(Operation::new("Tf", vec![font.into(), size.into()]));
                ops.push(Operation::new("Td", vec![x.into(), y.into()]));
                ops.push(Operation::new("Tj", vec![text]));
                ops.push(Operation::new("ET", vec![]));
            };
            let text_at =
                |ops: &mut Vec<Operation>, font: &str, size: f32, x: f32, y: f32, s: &str| {
                    show(ops, font, size, x, y, standard_encoded(s))
                };
            let text_line = |ops: &mut Vec<Operation>, font: &str, size: f32, y: f32, s: &str| {
                text_at(ops, font, size, LEFT, y, s)
            };
            for (j, b) in blocks.iter().enumerate() {
                match b {
                    Block::Heading(t, size) => {
                        if j > 0 {
                            y -= 12.0;
                        }
                        text_line(&mut ops, "F2", *size, y, t);
                        places.push((t.clone(), i, y + size));
                        y -= size * 1.2 + 10.0;
                    }
                    Block::Para(t) => {
                        for l in wrap(t) {
                            text_line(&mut ops, "F1", BODY, y, &l);
                            y -= LEADING;
                        }
                        y -= 10.0;
                    }
                    Block::Anchor(name) => places.push((name.clone(), i, y + BODY)),
                    Block::Tinted(t, rgb, bold) => {
                        let colour = |c: [f32; 3]| c.iter().map(|&v| v.into()).collect();
                        ops.push(Operation::new("rg", colour(*rgb)));
                        text_line(&mut ops, if *bold { "F2" } else { "F1" }, BODY, y, t);
                        ops.push(Operation::new("rg", colour([0.0; 3])));
                        places.push((t.clone(), i, y + BODY));
                        y -= LEADING;
                    }
                    Block::Figure(height) => {
                        y -= height;
                        ops.push(Operation::new("g", vec![0.25.into()]));
                        let rect = vec![LEFT.into(), y.into(), 450.0.into(), (*height).into()];
                        ops.push(Operation::new("re", rect));
                        ops.push(Operation::new("f", vec![]));
                        ops.push(Operation::new("g", vec![0.0.into()]));
                        y -= 10.0;
                    }
                    Block::OffPage(t) => text_at(&mut ops, "F1", BODY, 2000.0, 2000.0, t),
                    Block::Spaced(t, size, spacing) => {
                        if j > 0 {
                            y -= 12.0;
                        }
                        ops.push(Operation::new("BT", vec![]));
                        ops.push(Operation::new("Tf", vec!["F2".into(), (*size).into()]));
                        ops.push(Operation::new("Tc", vec![(*spacing).into()]));
                        ops.push(Operation::new("Td", vec![LEFT.into(), y.into()]));
                        ops.push(Operation::new("Tj", vec![standard_encoded(t)]));
                        ops.push(Operation::new("Tc", vec![0.0.into()]));
                        ops.push(Operation::new("ET", vec![]));
                        places.push((t.clone(), i, y + size));
                        y -= size * 1.2 + 10.0;
                    }
                    Block::Code(ls) => {
                        for l in ls {
                            if !l.is_empty() {
                                text_line(&mut ops, "F3", 10.0, y, l);
                            }
                            y -= 12.0;
                        }
                        y -= 10.0;
                    }
                    Block::Marked(code, wingdings, items) => {
                        for item in items {
                            let mark = Object::String(vec![*code], lopdf::StringFormat::Literal);
                            let font = if *wingdings { "F5" } else { "F4" };
                            show(&mut ops, font, BODY, LEFT, y, mark);
                            text_at(&mut ops, "F1", BODY, LEFT + 18.0, y, item);
                            y -= LEADING;
                        }
                    }
                    Block::Lines(ls) => {
                        for l in ls {
                            text_line(&mut ops, "F1", BODY, y, l);
                            y -= LEADING;
                        }
                        y -= 10.0;
                    }
                    Block::Table(rows) => {
                        let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
                        // Column by column, as generated filings often draw.
                        for c in 0..columns {
                            for (r, row) in rows.iter().enumerate() {
                                let Some(cell) = row.get(c) else { continue };
                                let ry = y - r as f32 * LEADING;
                                if c == 0 {
                                    text_line(&mut ops, "F1", BODY, ry, cell);
                                    continue;
                                }
                                // Helvetica digits are 0.556 em wide.
                                let right = 260.0 + 100.0 * c as f32;
                                let (sign, amount) = match cell.strip_prefix('$') {
                                    Some(a) => (true, a),
                                    None => (false, cell.as_str()),
                                };
                                let width = amount.len() as f32 * 0.556 * BODY;
                                text_at(&mut ops, "F1", BODY, right - width, ry, amount);
                                if sign {
                                    text_at(&mut ops, "F1", BODY, right - 70.0, ry, "$");
                                }
                            }
                        }
                        y -= rows.len() as f32 * LEADING + 10.0;
                    }
                    Block::Columns(left, right) => {
                        let (l, r) = (wrap_at(left, 40), wrap_at(right, 40));
                        for i in 0..l.len().max(r.len()) {
                            if let Some(t) = l.get(i) {
                                text_at(&mut ops, "F1", BODY, LEFT, y, t);
                            }
                            if let Some(t) = r.get(i) {
                                text_at(&mut ops, "F1", BODY, 320.0, y, t);
                            }
                            y -= LEADING;
                        }
                        y -= 10.0;
                    }
                }
            }
            if self.footer {
                text_line(&mut ops, "F1", 9.0, 40.0, &format!("Page {}", i + 1));
            }
            if let Some(Some(h)) = self.headers.get(i) {
                text_line(&mut ops, "F1", 9.0, TOP + 30.0, h);
            }
            let content = Content { operations: ops };
            let content_id = doc.add_object(Stream::new(
                dictionary! {},
                content.encode().expect("encoding a content stream"),
            ));
            let page = doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "Contents" => content_id,
            });
            kids.push(Object::from(page));
        }
        let count = kids.len() as i64;
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages",
                "Kids" => kids.clone(),
                "Count" => count,
                "Resources" => resources,
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            }),
        );
        let mut catalog = dictionary! { "Type" => "Catalog", "Pages" => pages_id };
        if !self.bookmarks.is_empty() {
            let outlines = self.outlines(&mut doc, &kids, &places);
            catalog.set("Outlines", outlines);
            catalog.set("PageMode", "UseOutlines");
        }
        let catalog = doc.add_object(catalog);
        doc.trailer.set("Root", catalog);
        if let Some(t) = &self.title {
            let info =
                doc.add_object(dictionary! { "Title" => Object::string_literal(t.as_str()) });
            doc.trailer.set("Info", info);
        }
        doc
    }
}

impl TestPdf {
    /// The outline tree: each bookmark a child of the last one above it
    /// with a lower level, linked to its siblings, pointing with `/XYZ`
    /// at its target's page and height.
    fn outlines(
        &self,
        doc: &mut Document,
        kids: &[Object],
        places: &[(String, usize, f32)],
    ) -> lopdf::ObjectId {
        let root = doc.new_object_id();
        let ids: Vec<lopdf::ObjectId> =
            self.bookmarks.iter().map(|_| doc.new_object_id()).collect();
        // The parent of each bookmark: the index of one, or the root.
        let mut parents: Vec<Option<usize>> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        for (i, (_, level, _)) in self.bookmarks.iter().enumerate() {
            while stack.last().is_some_and(|&p| self.bookmarks[p].1 >= *level) {
                stack.pop();
            }
            parents.push(stack.last().copied());
            stack.push(i);
        }
        let children = |p: Option<usize>| -> Vec<usize> {
            (0..ids.len()).filter(|&i| parents[i] == p).collect()
        };
        for (i, (title, _, target)) in self.bookmarks.iter().enumerate() {
            let (_, page, top) = places
                .iter()
                .find(|(name, _, _)| name == target)
                .unwrap_or_else(|| panic!("no heading or anchor {target:?}"));
            let mut item = dictionary! {
                "Title" => Object::string_literal(title.as_str()),
                "Parent" => parents[i].map_or(root, |p| ids[p]),
                "Dest" => vec![kids[*page].clone(), "XYZ".into(), 0.into(), (*top).into(), Object::Null],
            };
            let siblings = children(parents[i]);
            let at = siblings.iter().position(|&s| s == i).unwrap_or(0);
            if at > 0 {
                item.set("Prev", ids[siblings[at - 1]]);
            }
            if let Some(&n) = siblings.get(at + 1) {
                item.set("Next", ids[n]);
            }
            let mine = children(Some(i));
            if let (Some(&f), Some(&l)) = (mine.first(), mine.last()) {
                item.set("First", ids[f]);
                item.set("Last", ids[l]);
                item.set("Count", mine.len() as i64);
            }
            doc.objects.insert(ids[i], Object::Dictionary(item));
        }
        let top = children(None);
        let mut outlines = dictionary! { "Type" => "Outlines", "Count" => top.len() as i64 };
        if let (Some(&f), Some(&l)) = (top.first(), top.last()) {
            outlines.set("First", ids[f]);
            outlines.set("Last", ids[l]);
        }
        doc.objects.insert(root, Object::Dictionary(outlines));
        root
    }
}

/// A symbol font as Word's PDFs name and map it: not embedded, its codes
/// mapped to Unicode's private use area (`<B7>` to `U+F0B7`).
fn symbol_font(doc: &mut Document, name: &str) -> lopdf::ObjectId {
    let cmap = "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CIDSystemInfo \
        << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def /CMapName /Adobe-Identity-UCS \
        def /CMapType 2 def 1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfrange \
        <20> <FF> <F020> endbfrange endcmap CMapName currentdict /CMap defineresource pop end end";
    let to_unicode = doc.add_object(Stream::new(dictionary! {}, cmap.as_bytes().to_vec()));
    doc.add_object(
        dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => name,
        "Encoding" => "WinAnsiEncoding", "ToUnicode" => to_unicode },
    )
}

fn wrap(text: &str) -> Vec<String> {
    wrap_at(text, WRAP)
}

fn wrap_at(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for w in text.split_whitespace() {
        if !cur.is_empty() && cur.len() + 1 + w.len() > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A one-page PDF whose content stream is `inflated` zero bytes behind
/// FlateDecode: about 1 KB per MB inflated (2 GB from about 2 MB).
pub fn decompression_bomb(inflated: u64) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    const PIECE: usize = 1 << 20;
    // A full flush ends every piece byte-aligned with no reference outside
    // it, so the same compressed piece can be repeated.
    let mut c = Compress::new(Compression::best(), false);
    let mut piece = Vec::with_capacity(PIECE / 256);
    c.compress_vec(&vec![0u8; PIECE], &mut piece, FlushCompress::Full)
        .expect("deflate");
    let n = inflated.div_ceil(PIECE as u64);
    let mut data = vec![0x78, 0xDA];
    for _ in 0..n {
        data.extend_from_slice(&piece);
    }
    // The final, empty stored block, then the Adler-32 of n MB of zeros.
    data.extend_from_slice(&[0x01, 0x00, 0x00, 0xFF, 0xFF]);
    let total = n * PIECE as u64;
    let adler = (((total % 65521) as u32) << 16) | 1;
    data.extend_from_slice(&adler.to_be_bytes());

    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let content_id = doc.add_object(Stream::new(dictionary! { "Filter" => "FlateDecode" }, data));
    let page = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => content_id,
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => vec![Object::from(page)],
            "Count" => 1,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("writing a PDF to memory");
    out
}

/// A one-page PDF drawing Form XObjects: with `self_reference` the form
/// draws itself (endless recursion); otherwise `depth` levels of forms
/// each drawing the next twice (2^depth draws: endless work, no memory).
pub fn form_bomb(depth: usize, self_reference: bool) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let leaf = Content {
        operations: vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 10.into()]),
            Operation::new("Td", vec![72.into(), 700.into()]),
            Operation::new("Tj", vec![Object::string_literal("deep")]),
            Operation::new("ET", vec![]),
        ],
    };
    let form = |doc: &mut Document, content: Vec<u8>, next: Option<lopdf::ObjectId>| {
        let mut resources = dictionary! { "Font" => dictionary! { "F1" => font } };
        if let Some(n) = next {
            resources.set("XObject", dictionary! { "X" => n });
        }
        doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Form",
                "BBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
                "Resources" => resources,
            },
            content,
        ))
    };
    let draw_twice = b"/X Do /X Do".to_vec();
    let top = if self_reference {
        let id = doc.new_object_id();
        let resources = dictionary! { "XObject" => dictionary! { "X" => id } };
        doc.objects.insert(
            id,
            Object::Stream(Stream::new(
                dictionary! {
                    "Type" => "XObject", "Subtype" => "Form",
                    "BBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
                    "Resources" => resources,
                },
                b"/X Do".to_vec(),
            )),
        );
        id
    } else {
        let mut next = form(&mut doc, leaf.encode().expect("content"), None);
        for _ in 0..depth {
            next = form(&mut doc, draw_twice.clone(), Some(next));
        }
        next
    };
    let content_id = doc.add_object(Stream::new(dictionary! {}, b"/X Do".to_vec()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => content_id,
        "Resources" => dictionary! { "XObject" => dictionary! { "X" => top } },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => vec![Object::from(page)],
            "Count" => 1,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("writing a PDF to memory");
    out
}

/// A PDF of images only (no text layer), one page per image, each page
/// 612 x 792 points: what a scanner makes. The images are grey, one byte
/// per pixel.
pub fn image_only(pages: &[(usize, usize, Vec<u8>)]) -> Vec<u8> {
    use flate2::{write::ZlibEncoder, Compression};
    use std::io::Write as _;
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut kids = Vec::new();
    for (w, h, pixels) in pages {
        let mut z = ZlibEncoder::new(Vec::new(), Compression::fast());
        z.write_all(pixels).expect("compressing");
        let image = doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Image",
                "Width" => *w as i64, "Height" => *h as i64,
                "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
                "Filter" => "FlateDecode",
            },
            z.finish().expect("compressing"),
        ));
        let content = Content {
            operations: vec![
                Operation::new("q", vec![]),
                Operation::new(
                    "cm",
                    vec![
                        612.into(),
                        0.into(),
                        0.into(),
                        792.into(),
                        0.into(),
                        0.into(),
                    ],
                ),
                Operation::new("Do", vec!["Im1".into()]),
                Operation::new("Q", vec![]),
            ],
        };
        let content_id = doc.add_object(Stream::new(
            dictionary! {},
            content.encode().expect("encoding a content stream"),
        ));
        let page = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
            "Resources" => dictionary! { "XObject" => dictionary! { "Im1" => image } },
        });
        kids.push(Object::from(page));
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids.clone(),
            "Count" => count,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("writing a PDF to memory");
    out
}

/// For unit tests that read PDF bytes: whether pdfium is where kb looks
/// for it. Without it they are skipped with a note, so a plain `cargo test`
/// needs nothing; ./test.sh sets KB_TEST_REQUIRE_PDFIUM, and then a
/// missing engine fails them.
pub fn available_for_tests() -> bool {
    match super::engine::locate(&crate::config::Config::default()) {
        Ok(_) => true,
        Err(e) if std::env::var_os("KB_TEST_REQUIRE_PDFIUM").is_some() => panic!("{e}"),
        Err(e) => {
            eprintln!("skipped: {}", e.lines().next().unwrap_or_default());
            false
        }
    }
}

/// Every page of a PDF rendered in grey at `dpi` with pdfium (loaded from
/// `pdfium`): (width, height, pixels) for [`image_only`].
pub fn render_pages(
    pdfium: &std::path::Path,
    bytes: &[u8],
    dpi: f32,
) -> Vec<(usize, usize, Vec<u8>)> {
    let pdfium = super::engine::lock(pdfium).expect("loading pdfium");
    let doc = pdfium
        .load_pdf_from_byte_slice(bytes, None)
        .expect("loading a test PDF");
    let mut out = Vec::new();
    for page in doc.pages().iter() {
        let img = super::read::render_at(&page, dpi).expect("rendering a test PDF");
        let mut packed = Vec::with_capacity(img.width * img.height);
        for row in img.pixels.chunks(img.stride).take(img.height) {
            packed.extend_from_slice(&row[..img.width]);
        }
        out.push((img.width, img.height, packed));
    }
    out
}

/// `s` with its dashes at their codes in the standard fonts' encoding
/// (as UTF-8 they would read as other letters); the rest as it is.
fn standard_encoded(s: &str) -> Object {
    let mut bytes = Vec::new();
    for c in s.chars() {
        match c {
            '—' => bytes.push(0xD0),
            '–' => bytes.push(0xB1),
            c => bytes.extend(c.to_string().bytes()),
        }
    }
    Object::string_literal(bytes)
}
