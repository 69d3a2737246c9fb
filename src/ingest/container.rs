//! The ZIP packages of XML that office documents and e-books are
//! (`.docx`, `.pptx`, `.odt`, `.odp`, `.epub`), read with bounds so a
//! hostile file fails alone: every part is read through a cap on the
//! bytes it decompresses to (a ZIP bomb stops there, whatever sizes its
//! directory claims), and the whole package through another; XML is read
//! as a stream of events, custom entities are never expanded (only the
//! five predefined ones and character references are), and nesting is
//! bounded.

use std::borrow::Cow;
use std::io::{Cursor, Read};

use quick_xml::events::Event;

use super::IngestError;

/// The most one part may decompress to.
const MAX_PART_BYTES: u64 = 128 << 20;
/// The most all the parts read from one package may decompress to.
const MAX_TOTAL_BYTES: u64 = 256 << 20;
/// A part larger than a mebibyte may be at most this many times its
/// compressed size (deflated XML is rarely over 20).
const MAX_RATIO: u64 = 200;
/// The most entries a package may list.
const MAX_ENTRIES: usize = 100_000;
/// The deepest element nesting read.
pub const MAX_DEPTH: usize = 5_000;
/// The first bytes of an OLE compound file (CFB): the Office 97-2003
/// formats (`.doc`, `.xls`, `.ppt`), and the envelope Office puts a
/// password-protected `.docx`, `.xlsx` or `.pptx` in.
const CFB_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

pub struct Package<'a> {
    zip: zip::ZipArchive<Cursor<&'a [u8]>>,
    kind: &'static str,
    read: u64,
}

impl<'a> Package<'a> {
    /// Opens the package; `kind` names the format in messages (`Word
    /// document`).
    pub fn open(bytes: &'a [u8], kind: &'static str) -> Result<Package<'a>, IngestError> {
        if bytes.starts_with(&CFB_MAGIC) {
            return Err(compound_file(bytes, kind));
        }
        let zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
            IngestError::failed(format!(
                "not a readable {kind} (a ZIP package): {e}; is the file truncated, or misnamed?"
            ))
        })?;
        if zip.len() > MAX_ENTRIES {
            return Err(IngestError::failed(format!(
                "{} entries in the {kind}'s package (at most {MAX_ENTRIES} are read)",
                zip.len()
            )));
        }
        Ok(Package { zip, kind, read: 0 })
    }

    /// Whether the package holds a part of this name.
    pub fn has(&self, name: &str) -> bool {
        self.zip.index_for_name(name).is_some()
    }

    /// The names of the parts, in the package's order.
    pub fn names(&self) -> Vec<String> {
        self.zip.file_names().map(str::to_string).collect()
    }

    /// A part's bytes, or `None` when the package has no such part.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, IngestError> {
        let Some(index) = self.zip.index_for_name(name) else {
            return Ok(None);
        };
        let kind = self.kind;
        let left = MAX_TOTAL_BYTES.saturating_sub(self.read);
        let mut part = self
            .zip
            .by_index(index)
            .map_err(|e| IngestError::failed(format!("cannot read {name} in the {kind}: {e}")))?;
        let compressed = part.compressed_size().max(1);
        let cap = MAX_PART_BYTES.min(left);
        // Read in steps, so a bomb is stopped as soon as it shows.
        let mut out = Vec::new();
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let got = part.read(&mut buf).map_err(|e| {
                IngestError::failed(format!(
                    "cannot read {name} in the {kind} (damaged or truncated?): {e}"
                ))
            })?;
            if got == 0 {
                break;
            }
            out.extend_from_slice(&buf[..got]);
            let n = out.len() as u64;
            if n > cap {
                return Err(IngestError::failed(format!(
                    "{name} in the {kind} decompresses to more than {} MB (a ZIP bomb?)",
                    cap >> 20
                )));
            }
            if n > 1 << 20 && n / compressed > MAX_RATIO {
                return Err(IngestError::failed(format!(
                    "{name} in the {kind} decompresses more than {MAX_RATIO}-fold (a ZIP bomb?)"
                )));
            }
        }
        let n = out.len() as u64;
        self.read += n;
        Ok(Some(out))
    }

    /// A part that must be there.
    pub fn require(&mut self, name: &str) -> Result<Vec<u8>, IngestError> {
        let kind = self.kind;
        self.read(name)?.ok_or_else(|| {
            IngestError::failed(format!("not {} {kind}: it has no {name}", article(kind)))
        })
    }

    /// Fails when the package is an OpenDocument file saved with a
    /// password: its manifest gives the parts' encryption, and their
    /// bytes are no XML.
    pub fn refuse_encrypted_odf(&mut self) -> Result<(), IngestError> {
        let Some(manifest) = self.read("META-INF/manifest.xml")? else {
            return Ok(());
        };
        let mut encrypted = false;
        walk_xml(&manifest, "META-INF/manifest.xml", |e| {
            if let Xml::Start {
                name: "encryption-data",
                ..
            } = e
            {
                encrypted = true;
            }
            Ok(())
        })?;
        if encrypted {
            return Err(encrypted_error(self.kind));
        }
        Ok(())
    }
}

/// "a" or "an", for a kind of file named in a message.
fn article(kind: &str) -> &'static str {
    match kind.chars().next() {
        Some(c) if "AEIOUaeiou".contains(c) => "an",
        _ => "a",
    }
}

fn encrypted_error(kind: &str) -> IngestError {
    IngestError::failed(format!(
        "encrypted {kind}: not supported (it needs a password to open; a copy saved without \
         the password can be indexed)"
    ))
}

/// Why a compound file given as a ZIP package cannot be read: Office's
/// envelope of a password-protected document (its `EncryptedPackage`
/// stream, named in UTF-16 in the file's directory), or an Office 97-2003
/// file under a newer name.
fn compound_file(bytes: &[u8], kind: &str) -> IngestError {
    let stream: Vec<u8> = "EncryptedPackage"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    if bytes.windows(stream.len()).any(|w| w == stream) {
        return encrypted_error(kind);
    }
    IngestError::failed(format!(
        "not {} {kind}: an Office 97-2003 file (.doc, .xls or .ppt), which kb does not read; \
         a copy saved in the newer format can be indexed",
        article(kind)
    ))
}

/// What [`walk_xml`] reports: elements by their local name (no prefix),
/// attributes by theirs, and text with references resolved.
pub enum Xml<'e> {
    Start {
        name: &'e str,
        attrs: &'e [(String, String)],
    },
    End {
        name: &'e str,
    },
    Text(&'e str),
}

/// What a walk over an XML part left out.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Walked {
    /// The custom entities referred to (`lol9`), each once, at most
    /// [`MAX_NAMED`]: never expanded, so their text is not read.
    pub unexpanded: Vec<String>,
}

/// The most entity names a walk keeps to name in a message.
pub const MAX_NAMED: usize = 5;

/// Reads `bytes` as XML, calling `f` with each element start and end and
/// each piece of text. A custom entity (`&lol9;`) is left out, never
/// expanded, and named in what the walk returns; `part` names the XML in
/// errors.
pub fn walk_xml(
    bytes: &[u8],
    part: &str,
    mut f: impl FnMut(Xml) -> Result<(), IngestError>,
) -> Result<Walked, IngestError> {
    // A part holding NUL bytes is no XML (no XML may hold one): refused
    // as a text file holding them is, rather than read as text.
    if super::detect::looks_binary(bytes) {
        return Err(IngestError::Unsupported(format!(
            "binary content (NUL bytes) in {part}, not XML"
        )));
    }
    let mut reader = quick_xml::Reader::from_reader(bytes);
    reader.config_mut().check_end_names = false;
    let bad =
        |e: &dyn std::fmt::Display| IngestError::failed(format!("malformed XML in {part}: {e}"));
    let mut names: Vec<String> = Vec::new();
    let mut attrs: Vec<(String, String)> = Vec::new();
    let mut walked = Walked::default();
    loop {
        let event = reader.read_event().map_err(|e| bad(&e))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                attrs.clear();
                for a in e.attributes().flatten() {
                    let key = String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned();
                    let value = a
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned().into());
                    attrs.push((key, value.into_owned()));
                }
                f(Xml::Start {
                    name: &name,
                    attrs: &attrs,
                })?;
                if matches!(event, Event::Empty(_)) {
                    f(Xml::End { name: &name })?;
                } else {
                    names.push(name);
                    if names.len() > MAX_DEPTH {
                        return Err(IngestError::failed(format!(
                            "{part} nests elements more than {MAX_DEPTH} deep"
                        )));
                    }
                }
            }
            Event::End(_) => {
                if let Some(name) = names.pop() {
                    f(Xml::End { name: &name })?;
                }
            }
            Event::Text(t) => {
                let s = t.decode().map_err(|e| bad(&e))?;
                f(Xml::Text(&s))?;
            }
            Event::CData(t) => {
                let s = t.decode().map_err(|e| bad(&e))?;
                f(Xml::Text(&s))?;
            }
            Event::GeneralRef(r) => {
                let resolved: Option<Cow<str>> = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(Cow::Owned(c.to_string())),
                    Ok(None) => {
                        let name = r.decode().map_err(|e| bad(&e))?;
                        let known = quick_xml::escape::resolve_predefined_entity(&name);
                        if known.is_none()
                            && walked.unexpanded.len() < MAX_NAMED
                            && !walked.unexpanded.iter().any(|n| *n == name)
                        {
                            walked.unexpanded.push(name.into_owned());
                        }
                        known.map(Cow::Borrowed)
                    }
                    Err(_) => None,
                };
                if let Some(s) = resolved {
                    f(Xml::Text(&s))?;
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(walked)
}

/// The longest chain of styles one is based on that is followed (Word's
/// and LibreOffice's own styles go a few deep; a longer chain, or a cycle,
/// is a damaged file).
const MAX_STYLE_CHAIN: usize = 32;

/// What a style says of a property (`own`), or failing that the style it
/// is based on (`base`), and so on up its chain; none when no style of the
/// chain says, or the chain is too long.
pub fn through_bases<K, T>(
    style: K,
    own: impl Fn(&K) -> Option<T>,
    base: impl Fn(&K) -> Option<K>,
) -> Option<T> {
    let mut key = style;
    for _ in 0..MAX_STYLE_CHAIN {
        if let Some(v) = own(&key) {
            return Some(v);
        }
        key = base(&key)?;
    }
    None
}

/// The value of the attribute of this local name.
pub fn attr<'e>(attrs: &'e [(String, String)], key: &str) -> Option<&'e str> {
    attrs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The text of the first element of this local name (a title in
/// `docProps/core.xml`, `meta.xml` or an e-book's OPF).
pub fn first_text(bytes: &[u8], part: &str, element: &str) -> Result<Option<String>, IngestError> {
    let mut depth_in = 0usize;
    let mut text = String::new();
    let mut done = false;
    walk_xml(bytes, part, |e| {
        if done {
            return Ok(());
        }
        match e {
            Xml::Start { name, .. } if name == element => depth_in += 1,
            Xml::End { name } if name == element && depth_in > 0 => {
                depth_in -= 1;
                done = !text.trim().is_empty();
            }
            Xml::Text(t) if depth_in > 0 => text.push_str(t),
            _ => {}
        }
        Ok(())
    })?;
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Ok((!t.is_empty()).then_some(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_never_expanded_and_nesting_is_bounded() {
        let lol = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<a>x &lol2; &amp; &#x41; y</a>"#;
        let mut text = String::new();
        let _ = walk_xml(lol.as_bytes(), "t.xml", |e| {
            if let Xml::Text(t) = e {
                text.push_str(t);
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(
            text.split_whitespace().collect::<Vec<_>>(),
            ["x", "&", "A", "y"]
        );
        let walked = walk_xml(lol.as_bytes(), "t.xml", |_| Ok(())).unwrap();
        assert_eq!(walked.unexpanded, ["lol2"]);
        let deep = format!(
            "{}{}",
            "<a>".repeat(MAX_DEPTH + 1),
            "</a>".repeat(MAX_DEPTH + 1)
        );
        let e = walk_xml(deep.as_bytes(), "d.xml", |_| Ok(())).unwrap_err();
        assert!(e.to_string().contains("deep"), "{e}");
        let e = walk_xml(
            b"<a>PK\x03\x04\x00\x00</a>",
            "word/document.xml",
            |_| Ok(()),
        )
        .unwrap_err();
        assert!(
            matches!(&e, IngestError::Unsupported(m) if m.contains("binary") && m.contains("word/document.xml")),
            "{e}"
        );
    }

    #[test]
    fn bombs_and_truncated_packages_fail_with_a_reason() {
        use std::io::Write;
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        w.start_file("big.xml", opts).unwrap();
        let zeros = vec![b' '; 1 << 20];
        for _ in 0..16 {
            w.write_all(&zeros).unwrap();
        }
        let bytes = w.finish().unwrap().into_inner();
        assert!(bytes.len() < 1 << 20, "{}", bytes.len());
        let mut p = Package::open(&bytes, "test document").unwrap();
        let e = p.read("big.xml").unwrap_err().to_string();
        assert!(e.contains("ZIP bomb"), "{e}");

        let ok = crate::ingest::testdocs::test_zip(&[("a.xml", "<a>hello</a>")]);
        let e = Package::open(&ok[..ok.len() / 2], "Word document")
            .err()
            .unwrap();
        assert!(e.to_string().contains("truncated"), "{e}");
        let e = Package::open(b"just text", "Word document").err().unwrap();
        assert!(
            e.to_string().contains("not a readable Word document"),
            "{e}"
        );
    }

    /// A password-protected Office document is a compound file holding an
    /// `EncryptedPackage` stream, not a ZIP: said so, not "truncated".
    #[test]
    fn encrypted_and_legacy_office_files_are_named_as_such() {
        let cfb = |stream: &str| {
            let mut bytes = CFB_MAGIC.to_vec();
            bytes.resize(1024, 0);
            bytes.extend(stream.encode_utf16().flat_map(u16::to_le_bytes));
            bytes.resize(2048, 0);
            bytes
        };
        let locked = cfb("EncryptedPackage");
        let e = Package::open(&locked, "Word document").err().unwrap();
        assert!(
            matches!(&e, IngestError::Failed(m) if m.starts_with("encrypted Word document: not supported") && m.contains("password")),
            "{e}"
        );
        let old = cfb("WordDocument");
        let e = Package::open(&old, "Excel workbook").err().unwrap();
        assert!(
            e.to_string()
                .starts_with("not an Excel workbook: an Office 97-2003 file"),
            "{e}"
        );
        // The article before a kind follows its first letter.
        let ok = crate::ingest::testdocs::test_zip(&[("a.xml", "<a/>")]);
        let mut p = Package::open(&ok, "Excel workbook").unwrap();
        let e = p.require("xl/workbook.xml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "not an Excel workbook: it has no xl/workbook.xml"
        );
        let mut p = Package::open(&ok, "Word document").unwrap();
        let e = p.require("word/document.xml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a Word document: it has no word/document.xml"
        );
        // An OpenDocument file saved with a password says so in its manifest.
        let manifest = "<manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\">\
            <manifest:file-entry manifest:full-path=\"content.xml\"><manifest:encryption-data manifest:checksum-type=\"SHA1/1K\"/>\
            </manifest:file-entry></manifest:manifest>";
        let odt = crate::ingest::testdocs::test_zip(&[
            ("META-INF/manifest.xml", manifest),
            ("content.xml", "x"),
        ]);
        let mut p = Package::open(&odt, "OpenDocument file").unwrap();
        let e = p.refuse_encrypted_odf().unwrap_err();
        assert!(
            e.to_string().starts_with("encrypted OpenDocument file"),
            "{e}"
        );
        let mut p = Package::open(&ok, "OpenDocument file").unwrap();
        assert!(p.refuse_encrypted_odf().is_ok());
    }
}
