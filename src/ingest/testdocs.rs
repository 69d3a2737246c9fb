//! Small office documents, e-books, workbooks and images written in
//! memory, for the unit and integration tests: no binary fixtures in the
//! repository. kb itself never writes these formats.

use std::io::{Cursor, Write};

/// A ZIP package written in memory, for the format modules' tests. The
/// parts are stored, not compressed: a test's repetitive XML would
/// otherwise pass for a ZIP bomb.
pub fn test_zip(parts: &[(&str, &str)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, body) in parts {
        w.start_file(*name, opts).unwrap();
        w.write_all(body.as_bytes()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A minimal Word document: `(style, text)` paragraphs ("" for none;
/// "table" for a two-row table of `text` split at `|`).
pub fn docx(title: Option<&str>, paras: &[(&str, &str)]) -> Vec<u8> {
    let mut body = String::new();
    for (style, text) in paras {
        if *style == "table" {
            body.push_str("<w:tbl>");
            for row in text.split('\n') {
                body.push_str("<w:tr>");
                for cell in row.split('|') {
                    body.push_str(&format!(
                        "<w:tc><w:p><w:r><w:t>{cell}</w:t></w:r></w:p></w:tc>"
                    ));
                }
                body.push_str("</w:tr>");
            }
            body.push_str("</w:tbl>");
            continue;
        }
        let ppr = match *style {
            "" => String::new(),
            "list" => {
                "<w:pPr><w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"1\"/></w:numPr></w:pPr>"
                    .into()
            }
            s => format!("<w:pPr><w:pStyle w:val=\"{s}\"/></w:pPr>"),
        };
        body.push_str(&format!(
            "<w:p>{ppr}<w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>"
        ));
    }
    let document = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\
         <w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>{body}</w:body></w:document>"
    );
    let styles = "<?xml version=\"1.0\"?><w:styles xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">\
        <w:style w:type=\"paragraph\" w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style>\
        <w:style w:type=\"paragraph\" w:styleId=\"berschrift2\"><w:name w:val=\"Überschrift 2\"/><w:pPr><w:outlineLvl w:val=\"1\"/></w:pPr></w:style>\
        </w:styles>";
    let core = title.map(|t| {
        format!("<?xml version=\"1.0\"?><cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>{t}</dc:title></cp:coreProperties>")
    });
    let mut parts = vec![
        (
            "[Content_Types].xml",
            "<?xml version=\"1.0\"?><Types/>".to_string(),
        ),
        ("word/document.xml", document),
        ("word/styles.xml", styles.to_string()),
    ];
    if let Some(c) = core {
        parts.push(("docProps/core.xml", c));
    }
    let refs: Vec<(&str, &str)> = parts.iter().map(|(n, b)| (*n, b.as_str())).collect();
    test_zip(&refs)
}

const NS: &str = "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
    xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" \
    xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
    xmlns:draw=\"urn:oasis:names:tc:opendocument:xmlns:drawing:1.0\" \
    xmlns:presentation=\"urn:oasis:names:tc:opendocument:xmlns:presentation:1.0\"";

/// A minimal OpenDocument package: `body` goes in `office:body`.
pub fn odf(mimetype: &str, title: Option<&str>, body: &str) -> Vec<u8> {
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content {NS}><office:body>{body}</office:body></office:document-content>"
    );
    let meta = title.map(|t| {
        format!("<?xml version=\"1.0\"?><office:document-meta {NS} xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><office:meta><dc:title>{t}</dc:title></office:meta></office:document-meta>")
    });
    let mut parts = vec![("mimetype", mimetype.to_string()), ("content.xml", content)];
    if let Some(m) = meta {
        parts.push(("meta.xml", m));
    }
    let refs: Vec<(&str, &str)> = parts.iter().map(|(n, b)| (*n, b.as_str())).collect();
    test_zip(&refs)
}

const P: &str = "xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\" \
    xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
    xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"";

fn shape(ph: Option<&str>, text: &str) -> String {
    let ph = ph.map_or(String::new(), |t| {
        format!("<p:nvPr><p:ph type=\"{t}\"/></p:nvPr>")
    });
    format!(
        "<p:sp><p:nvSpPr>{ph}</p:nvSpPr><p:txBody><a:p><a:r><a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp>"
    )
}

/// A minimal presentation: slides of (title, text, notes), stored in
/// the package in reverse so their order must come from the
/// presentation part.
pub fn pptx(title: Option<&str>, slides: &[(&str, &str, &str)]) -> Vec<u8> {
    let shapes: Vec<(String, String)> = slides
        .iter()
        .map(|(t, text, notes)| {
            (
                shape(Some("title"), t) + &shape(None, text),
                shape(Some("sldImg"), "") + &shape(Some("body"), notes),
            )
        })
        .collect();
    pptx_shapes(title, &shapes)
}

/// A presentation of slides of (the slide's shapes, its notes' shapes),
/// each as written in a `p:spTree`; stored as [`pptx`]'s are.
pub fn pptx_shapes(title: Option<&str>, slides: &[(String, String)]) -> Vec<u8> {
    let mut parts: Vec<(String, String)> = Vec::new();
    let mut ids = String::new();
    let mut rels = String::new();
    for (i, (shapes, notes)) in slides.iter().enumerate().rev() {
        let n = i + 1;
        // Slide files numbered against their order.
        let file = slides.len() - i;
        ids.insert_str(0, &format!("<p:sldId id=\"{}\" r:id=\"rId{n}\"/>", 255 + n));
        rels.push_str(&format!(
            "<Relationship Id=\"rId{n}\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide\" Target=\"slides/slide{file}.xml\"/>"
        ));
        parts.push((
            format!("ppt/slides/slide{file}.xml"),
            format!(
                "<?xml version=\"1.0\"?><p:sld {P}><p:cSld><p:spTree>{shapes}</p:spTree></p:cSld></p:sld>"
            ),
        ));
        parts.push((
            format!("ppt/slides/_rels/slide{file}.xml.rels"),
            format!("<?xml version=\"1.0\"?><Relationships><Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide\" Target=\"../notesSlides/notesSlide{file}.xml\"/></Relationships>"),
        ));
        parts.push((
            format!("ppt/notesSlides/notesSlide{file}.xml"),
            format!(
                "<?xml version=\"1.0\"?><p:notes {P}><p:cSld><p:spTree>{notes}</p:spTree></p:cSld></p:notes>"
            ),
        ));
    }
    parts.push((
        "ppt/presentation.xml".into(),
        format!("<?xml version=\"1.0\"?><p:presentation {P}><p:sldIdLst>{ids}</p:sldIdLst></p:presentation>"),
    ));
    parts.push((
        "ppt/_rels/presentation.xml.rels".into(),
        format!("<?xml version=\"1.0\"?><Relationships>{rels}</Relationships>"),
    ));
    if let Some(t) = title {
        parts.push((
            "docProps/core.xml".into(),
            format!("<?xml version=\"1.0\"?><cp:coreProperties xmlns:cp=\"x\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>{t}</dc:title></cp:coreProperties>"),
        ));
    }
    let refs: Vec<(&str, &str)> = parts
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_str()))
        .collect();
    test_zip(&refs)
}

/// A minimal EPUB: chapters of (heading, paragraph), listed in the
/// spine in the given order but stored in the package reversed.
pub fn epub(title: &str, author: &str, chapters: &[(&str, &str)]) -> Vec<u8> {
    let pages: Vec<String> = chapters
        .iter()
        .map(|(h, p)| format!("<?xml version=\"1.0\" encoding=\"utf-8\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>x</title></head><body><h1>{h}</h1><p>{p}</p></body></html>"))
        .collect();
    epub_pages(title, author, &pages)
}

/// An EPUB whose chapters are these XHTML pages, as written.
pub fn epub_pages(title: &str, author: &str, pages: &[String]) -> Vec<u8> {
    let mut parts: Vec<(String, String)> = vec![
        ("mimetype".into(), "application/epub+zip".into()),
        (
            "META-INF/container.xml".into(),
            "<?xml version=\"1.0\"?><container xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\" version=\"1.0\"><rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles></container>".into(),
        ),
    ];
    let mut manifest = String::new();
    let mut spine = String::new();
    for i in 0..pages.len() {
        manifest.push_str(&format!("<item id=\"c{i}\" href=\"text/chapter%20{i}.xhtml\" media-type=\"application/xhtml+xml\"/>"));
        spine.push_str(&format!("<itemref idref=\"c{i}\"/>"));
    }
    for (i, page) in pages.iter().enumerate().rev() {
        parts.push((format!("OEBPS/text/chapter {i}.xhtml"), page.clone()));
    }
    parts.push((
        "OEBPS/content.opf".into(),
        format!("<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\"><metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>{title}</dc:title><dc:creator>{author}</dc:creator></metadata><manifest>{manifest}</manifest><spine>{spine}</spine></package>"),
    ));
    let refs: Vec<(&str, &str)> = parts
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_str()))
        .collect();
    test_zip(&refs)
}

/// A minimal Excel workbook: sheets of rows of inline strings.
pub fn xlsx(sheets: &[(&str, &[&[&str]])]) -> Vec<u8> {
    let mut parts: Vec<(String, String)> = Vec::new();
    let mut list = String::new();
    let mut rels = String::new();
    for (i, (name, rows)) in sheets.iter().enumerate() {
        let n = i + 1;
        list.push_str(&format!(
            "<sheet name=\"{name}\" sheetId=\"{n}\" r:id=\"rId{n}\"/>"
        ));
        rels.push_str(&format!("<Relationship Id=\"rId{n}\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet{n}.xml\"/>"));
        let mut data = String::new();
        for (r, row) in rows.iter().enumerate() {
            data.push_str(&format!("<row r=\"{}\">", r + 1));
            for (c, v) in row.iter().enumerate() {
                let col = (b'A' + c as u8) as char;
                if let Ok(num) = v.parse::<f64>() {
                    data.push_str(&format!("<c r=\"{col}{}\"><v>{num}</v></c>", r + 1));
                } else {
                    data.push_str(&format!(
                        "<c r=\"{col}{}\" t=\"inlineStr\"><is><t>{v}</t></is></c>",
                        r + 1
                    ));
                }
            }
            data.push_str("</row>");
        }
        parts.push((
            format!("xl/worksheets/sheet{n}.xml"),
            format!("<?xml version=\"1.0\"?><worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>{data}</sheetData></worksheet>"),
        ));
    }
    parts.push((
        "xl/workbook.xml".into(),
        format!("<?xml version=\"1.0\"?><workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets>{list}</sheets></workbook>"),
    ));
    parts.push((
        "xl/_rels/workbook.xml.rels".into(),
        format!("<?xml version=\"1.0\"?><Relationships>{rels}</Relationships>"),
    ));
    let refs: Vec<(&str, &str)> = parts
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_str()))
        .collect();
    test_zip(&refs)
}

/// A minimal OpenDocument presentation: slides of (title, text, notes).
pub fn odp(title: Option<&str>, slides: &[(&str, &str, &str)]) -> Vec<u8> {
    let mut body = String::from("<office:presentation>");
    for (t, text, notes) in slides {
        body.push_str(&format!(
            "<draw:page><draw:frame presentation:class=\"title\"><draw:text-box><text:p>{t}</text:p></draw:text-box></draw:frame>\
             <draw:frame presentation:class=\"outline\"><draw:text-box><text:p>{text}</text:p></draw:text-box></draw:frame>\
             <presentation:notes><draw:frame><draw:text-box><text:p>{notes}</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>"
        ));
    }
    body.push_str("</office:presentation>");
    odf(
        "application/vnd.oasis.opendocument.presentation",
        title,
        &body,
    )
}

/// A grey image (one byte per pixel) as a PNG file.
pub fn png(width: usize, height: usize, pixels: &[u8]) -> Vec<u8> {
    use flate2::{write::ZlibEncoder, Compression};
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    let mut z = ZlibEncoder::new(Vec::new(), Compression::fast());
    for row in pixels.chunks(width).take(height) {
        z.write_all(&[0]).unwrap();
        z.write_all(row).unwrap();
    }
    chunk(&mut out, b"IDAT", &z.finish().unwrap());
    chunk(&mut out, b"IEND", &[]);
    out
}

/// Grey pages (width, height, one byte per pixel) as one multi-page TIFF
/// at 300 dpi, uncompressed.
pub fn tiff(pages: &[(usize, usize, Vec<u8>)]) -> Vec<u8> {
    let mut out = b"II*\x00\x00\x00\x00\x00".to_vec();
    let mut link = 4usize;
    for (w, h, pixels) in pages {
        let strip = out.len();
        out.extend_from_slice(&pixels[..w * h]);
        if out.len() % 2 == 1 {
            out.push(0);
        }
        let res = out.len();
        out.extend_from_slice(&300u32.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        let ifd = out.len();
        out[link..link + 4].copy_from_slice(&(ifd as u32).to_le_bytes());
        // (tag, type: 3 short / 4 long / 5 rational, value or offset)
        let entries: [(u16, u16, u32); 12] = [
            (256, 4, *w as u32),
            (257, 4, *h as u32),
            (258, 3, 8),
            (259, 3, 1),
            (262, 3, 1),
            (273, 4, strip as u32),
            (277, 3, 1),
            (278, 4, *h as u32),
            (279, 4, (w * h) as u32),
            (282, 5, res as u32),
            (283, 5, res as u32),
            (296, 3, 2),
        ];
        out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
        for (tag, kind, value) in entries {
            out.extend_from_slice(&tag.to_le_bytes());
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(&1u32.to_le_bytes());
            if kind == 3 {
                out.extend_from_slice(&(value as u16).to_le_bytes());
                out.extend_from_slice(&[0, 0]);
            } else {
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        link = out.len();
        out.extend_from_slice(&[0, 0, 0, 0]);
    }
    out
}
