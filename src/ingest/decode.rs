//! A text file's bytes to its text: UTF-8, UTF-16 or UTF-32 by their
//! byte-order marks, else the legacy encoding the bytes most likely are.

use super::{detect, IngestError};

/// Decodes a text file: UTF-16 with its byte-order mark (what Windows
/// editors save as "Unicode") is decoded; other binary content is refused;
/// invalid UTF-8 is replaced and reported as a warning rather than losing
/// the file.
pub fn decode_text(bytes: &[u8], warnings: &mut Vec<String>) -> Result<String, IngestError> {
    if let Some(text) = decode_utf32(bytes, warnings).or_else(|| decode_utf16(bytes, warnings)) {
        if text.contains('\0') {
            return Err(IngestError::Unsupported(
                "binary content (NUL characters) after a byte-order mark".into(),
            ));
        }
        let text = text.replace("\r\n", "\n");
        if text.trim().is_empty() {
            return Err(IngestError::Empty);
        }
        return Ok(text);
    }
    if detect::looks_binary(bytes) {
        return Err(IngestError::Unsupported(
            "binary content (NUL bytes) in a text file".into(),
        ));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => decode_legacy(bytes, warnings),
    };
    let text = text
        .strip_prefix('\u{feff}')
        .unwrap_or(&text)
        .replace("\r\n", "\n");
    if text.trim().is_empty() {
        return Err(IngestError::Empty);
    }
    Ok(text)
}

/// Whether more characters outside ASCII are valid UTF-8 than not: a
/// legacy encoding's letters are one byte each, which UTF-8 rarely accepts.
fn mostly_utf8(bytes: &[u8]) -> bool {
    let (mut valid, mut invalid) = (0usize, 0usize);
    for chunk in bytes.utf8_chunks() {
        valid += chunk.valid().chars().filter(|c| !c.is_ascii()).count();
        invalid += usize::from(!chunk.invalid().is_empty());
    }
    valid > invalid
}

/// The fewest bytes outside ASCII from which a legacy encoding is guessed.
const LEGACY_EVIDENCE: usize = 8;

/// The text of bytes that are not UTF-8 and say nothing of their charset
/// (an old CSV saved by Excel in Windows-1252, a Shift_JIS note): decoded
/// in the legacy encoding they most likely are, guessed as Firefox guesses
/// (chardetng), with a warning naming it. UTF-8 with a few bad bytes stays
/// UTF-8, the bad bytes replaced with U+FFFD.
pub fn decode_legacy(bytes: &[u8], warnings: &mut Vec<String>) -> String {
    use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
    let encoding = if bytes.starts_with(b"\xEF\xBB\xBF") || mostly_utf8(bytes) {
        // Its byte-order mark says UTF-8, or its letters are UTF-8 but for
        // a few bad bytes (a file cut mid-character, one stray byte).
        encoding_rs::UTF_8
    } else if bytes.iter().filter(|b| !b.is_ascii()).count() < LEGACY_EVIDENCE {
        // Too few to tell legacy encodings apart (`na\xefve` reads as
        // Baltic): the commonest, as browsers assume for Western pages.
        encoding_rs::WINDOWS_1252
    } else {
        let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
        detector.feed(bytes, true);
        detector.guess(None, Utf8Detection::Allow)
    };
    let (text, bad) = encoding.decode_without_bom_handling(bytes);
    warnings.push(if encoding == encoding_rs::UTF_8 {
        let at = std::str::from_utf8(bytes)
            .err()
            .map_or(0, |e| e.valid_up_to());
        format!("invalid UTF-8 at byte {at}; undecodable bytes were replaced with U+FFFD")
    } else {
        format!(
            "not UTF-8: read as {} (the likeliest encoding){}",
            encoding.name(),
            if bad {
                ", bytes invalid in it replaced with U+FFFD"
            } else {
                ""
            }
        )
    });
    text.into_owned()
}

/// The text of a file that starts with a UTF-32 byte-order mark (little or
/// big endian), without the mark; `None` for any other file. Its mark
/// begins with UTF-16's, so it is looked for first. A value that is no
/// character, or a short last unit, becomes U+FFFD, with a warning.
fn decode_utf32(bytes: &[u8], warnings: &mut Vec<String>) -> Option<String> {
    let (body, little) = match bytes {
        [0xFF, 0xFE, 0, 0, rest @ ..] => (rest, true),
        [0, 0, 0xFE, 0xFF, rest @ ..] => (rest, false),
        _ => return None,
    };
    let mut bad = usize::from(body.len() % 4 != 0);
    let mut text: String = body
        .chunks_exact(4)
        .map(|p| {
            let unit = [p[0], p[1], p[2], p[3]];
            let value = if little {
                u32::from_le_bytes(unit)
            } else {
                u32::from_be_bytes(unit)
            };
            char::from_u32(value).unwrap_or_else(|| {
                bad += 1;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    if body.len() % 4 != 0 {
        text.push(char::REPLACEMENT_CHARACTER);
    }
    if bad > 0 {
        warnings.push(format!(
            "invalid UTF-32 ({bad} undecodable units); they were replaced with U+FFFD"
        ));
    }
    Some(text)
}

/// The text of a file that starts with a UTF-16 byte-order mark (little or
/// big endian), without the mark; `None` for any other file. A lone
/// surrogate or an odd last byte becomes U+FFFD, with a warning.
fn decode_utf16(bytes: &[u8], warnings: &mut Vec<String>) -> Option<String> {
    let (body, little) = match bytes {
        [0xFF, 0xFE, rest @ ..] => (rest, true),
        [0xFE, 0xFF, rest @ ..] => (rest, false),
        _ => return None,
    };
    let units = body.chunks_exact(2).map(|p| {
        if little {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    let mut bad = body.len() % 2;
    let mut text: String = char::decode_utf16(units)
        .map(|c| {
            c.unwrap_or_else(|_| {
                bad += 1;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    if body.len() % 2 == 1 {
        text.push(char::REPLACEMENT_CHARACTER);
    }
    if bad > 0 {
        warnings.push(format!(
            "invalid UTF-16 ({bad} undecodable units); they were replaced with U+FFFD"
        ));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_tells_empty_from_binary() {
        let mut warnings = Vec::new();
        assert_eq!(
            decode_text(b" \n\t\n", &mut warnings),
            Err(IngestError::Empty)
        );
        assert!(matches!(
            decode_text(b"\x89PNG\r\n\x1a\n\x00\x00", &mut warnings),
            Err(IngestError::Unsupported(m)) if m.contains("binary")
        ));
        assert_eq!(
            decode_text(b"\xef\xbb\xbfcaf\xe9\r\n", &mut warnings).unwrap(),
            "caf\u{fffd}\n"
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        // Without a mark, bytes that are not UTF-8 are read in the legacy
        // encoding they most likely are.
        for (bytes, text, encoding) in [
            (
                &b"Caf\xe9 cr\xe8me br\xfbl\xe9e, ni\xf1o and jalape\xf1o \x96 the recipe notes\n"
                    [..],
                "Café crème brûlée, niño and jalapeño – the recipe notes\n",
                "windows-1252",
            ),
            (
                &b"\x93\xfa\x96{\x8c\xea\x82\xcc\x83e\x83L\x83X\x83g\x82\xc5\x82\xb7\x81B\n"[..],
                "日本語のテキストです。\n",
                "Shift_JIS",
            ),
        ] {
            let mut warnings = Vec::new();
            assert_eq!(decode_text(bytes, &mut warnings).unwrap(), text);
            assert!(warnings[0].contains(encoding), "{warnings:?}");
        }
        // UTF-8 with a stray byte or cut mid-character stays UTF-8.
        for bytes in [
            &b"R\xc3\xa9union du comit\xc3\xa9 \xe9 fin"[..],
            &"日本語のテキストです".as_bytes()[..29],
        ] {
            let mut warnings = Vec::new();
            let text = decode_text(bytes, &mut warnings).unwrap();
            assert!(text.contains('\u{fffd}'), "{text}");
            assert!(
                text.starts_with("Réunion") || text.starts_with("日本語"),
                "{text}"
            );
            assert!(warnings[0].contains("invalid UTF-8"), "{warnings:?}");
        }
        // UTF-16 with its byte-order mark, both byte orders.
        let text = "Café notes\r\n日本語 ok\r\n";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [le, be] {
            assert_eq!(
                decode_text(&bytes, &mut warnings).unwrap(),
                "Café notes\n日本語 ok\n"
            );
        }
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(
            decode_text(&[0xFF, 0xFE, 0x20, 0x00], &mut warnings),
            Err(IngestError::Empty)
        );
        assert_eq!(
            IngestError::Empty.to_string(),
            "empty file: nothing to index"
        );
    }
}
