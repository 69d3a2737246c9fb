//! Reading a PDF with pdfium: the document's title, and per page the
//! characters with their boxes (turned into lines by `reading`), or,
//! where the page has no usable text layer, the words Tesseract reads
//! off a 300-dpi rendering (`ocr`).

use pdfium_render::prelude::*;

use super::engine;
use super::glyphs::{push_char, TURNS};
use super::lexicon::{
    BOLD_FONT_WORDS, FAMILY_SUFFIXES, ITALIC_FONT_WORDS, REGULAR_FONT_WORDS, TEX_STYLE_FAMILIES,
    UPRIGHT_FONT_WORDS,
};
use super::page::{Extracted, OutlineEntry, Page};
use super::page_cache::PageCache;
use super::reading::{self, Glyph};
use super::settings::ReadOptions;
use super::tuning::TUNING;
use crate::config::OcrMode;
use crate::ingest::ocr;
use crate::ingest::symbol_font::{private_use, SymbolFont};

/// The largest rendering side in pixels (a poster-sized page is rendered
/// at less than 300 dpi rather than into gigabytes).
const MAX_RENDER_SIDE: f32 = 12_000.0;

/// A unit: the bytes of a BGRA pixel.
const PIXEL_BYTES: usize = 4;

/// ITU-R BT.601 luma's weights of blue, green and red, in 256ths.
const LUMA: [u32; 3] = [29, 150, 77];

/// Reads every page, calling `on_page(done, total)` after loading the
/// file (done = 0) and after each page.
pub(super) fn read(
    bytes: &[u8],
    opts: &ReadOptions,
    on_page: &mut dyn FnMut(u32, u32),
) -> Result<Extracted, String> {
    let pdfium = engine::lock(&opts.pdfium)?;
    let doc = pdfium
        .load_pdf_from_byte_slice(bytes, None)
        .map_err(load_error)?;
    let title = doc
        .metadata()
        .get(PdfDocumentMetadataTagType::Title)
        .map(|t| clean_title(t.value()))
        .filter(|t| !t.is_empty());
    let encrypted = doc
        .permissions()
        .security_handler_revision()
        .is_ok_and(|r| r != PdfSecurityHandlerRevision::Unprotected);
    let total = doc.pages().len() as u32;
    if total == 0 {
        return Err("truncated or malformed PDF (or one of no page): no pages found".into());
    }
    let mut cache = opts
        .page_cache
        .as_deref()
        .and_then(|p| PageCache::open(p, opts, total));
    on_page(0, total);
    let mut pages = Vec::with_capacity(total as usize);
    for i in 0..total {
        let cached = cache.as_mut().and_then(|c| c.take(i));
        pages.push(cached.unwrap_or_else(|| {
            let page = match doc.pages().get(i as PdfPageIndex) {
                Ok(p) => read_page(&p, opts),
                Err(e) => Page {
                    error: Some(format!("could not load the page: {}", describe(&e))),
                    ..Page::default()
                },
            };
            if let Some(c) = cache.as_mut() {
                c.keep(i, &page);
            }
            page
        }));
        on_page(i + 1, total);
    }
    read_in_usual_columns(&doc, &mut pages, cache.as_mut());
    Ok(Extracted {
        title,
        encrypted,
        pages,
        outline: outline(&doc),
    })
}

/// Reads again with the document's usual gutter each text-layer page that
/// found no columns of its own: a two-column filing's page with a table in
/// one column and two rows of prose in the other is read by column.
fn read_in_usual_columns(doc: &PdfDocument, pages: &mut [Page], mut cache: Option<&mut PageCache>) {
    let gutters: Vec<Option<f32>> = pages.iter().map(|p| p.gutter).collect();
    let with_text = pages.iter().filter(|p| !p.without_text()).count();
    let Some(usual) = reading::usual_gutter(&gutters, with_text) else {
        return;
    };
    for (i, page) in pages.iter_mut().enumerate() {
        if page.gutter.is_some() || page.ocr || page.error.is_some() || page.without_text() {
            continue;
        }
        let Ok(g) = doc.pages().get(i as PdfPageIndex).and_then(|p| glyphs(&p)) else {
            continue;
        };
        let (lines, gutter) = reading::lines_in_columns(&g, Some(usual));
        if gutter.is_some() {
            page.lines = lines;
            page.gutter = gutter;
            if let Some(c) = cache.as_deref_mut() {
                c.keep(i as u32, page);
            }
        }
    }
}

/// The most bookmarks read, and the deepest nesting followed: a hostile
/// outline (a cycle, millions of entries) costs no more than this.
const MAX_BOOKMARKS: usize = 10_000;
const MAX_BOOKMARK_DEPTH: u8 = 16;

/// The document's bookmarks, depth first, each with the page and the
/// height it points at; bookmarks without a page in this document (links
/// to other files, named actions) are left out.
fn outline(doc: &PdfDocument) -> Vec<OutlineEntry> {
    fn walk(
        first: Option<PdfBookmark>,
        level: u8,
        tops: &[f32],
        seen: &mut usize,
        out: &mut Vec<OutlineEntry>,
    ) {
        let mut next = first;
        while let Some(b) = next {
            *seen += 1;
            if *seen > MAX_BOOKMARKS {
                return;
            }
            let title = b.title().map(|t| clean_title(&t)).unwrap_or_default();
            let target = b.destination().and_then(|d| target(&d, tops)).or_else(|| {
                b.action().and_then(|a| {
                    let d = a.as_local_destination_action()?.destination().ok()?;
                    target(&d, tops)
                })
            });
            if let Some((page, top)) = target.filter(|_| !title.is_empty()) {
                out.push(OutlineEntry {
                    title,
                    level,
                    page,
                    top,
                });
            }
            if level < MAX_BOOKMARK_DEPTH {
                walk(b.first_child(), level + 1, tops, seen, out);
            }
            next = b.next_sibling();
        }
    }
    /// The 1-based page a destination names, and the height on it in
    /// points from the page's top when it names one.
    fn target(d: &PdfDestination, tops: &[f32]) -> Option<(u32, Option<f32>)> {
        let index = d.page_index().ok()?;
        let page_top = *tops.get(index as usize)?;
        let y = match d.view_settings() {
            Ok(PdfDestinationViewSettings::SpecificCoordinatesAndZoom(_, y, _))
            | Ok(PdfDestinationViewSettings::FitPageHorizontallyToWindow(y))
            | Ok(PdfDestinationViewSettings::FitBoundsHorizontallyToWindow(y)) => y,
            Ok(PdfDestinationViewSettings::FitPageToRectangle(r)) => Some(r.top()),
            _ => None,
        };
        let top = y
            .map(|y| page_top - y.value)
            .filter(|t| t.is_finite() && *t >= 0.0);
        Some((index as u32 + 1, top))
    }
    let Some(root) = doc.bookmarks().root() else {
        return Vec::new();
    };
    // A page's top edge, to measure heights from the top as lines are.
    let tops: Vec<f32> = match doc.pages().page_sizes() {
        Ok(sizes) => sizes.iter().map(|r| r.top().value).collect(),
        Err(_) => return Vec::new(),
    };
    let mut out = Vec::new();
    walk(Some(root), 1, &tops, &mut 0, &mut out);
    out
}

fn load_error(e: PdfiumError) -> String {
    match e {
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::PasswordError) => {
            "encrypted PDF: not supported (it needs a password to open)".into()
        }
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::SecurityError) => {
            "encrypted PDF: not supported (unknown security handler)".into()
        }
        e => format!("truncated or malformed PDF: {}", describe(&e)),
    }
}

/// pdfium's error in words.
fn describe(e: &PdfiumError) -> String {
    use PdfiumError::PdfiumLibraryInternalError as Internal;
    match e {
        Internal(PdfiumInternalError::FormatError) => {
            "pdfium cannot parse it (format error)".into()
        }
        Internal(PdfiumInternalError::FileError) => "pdfium cannot read it (file error)".into(),
        Internal(PdfiumInternalError::PageError) => "pdfium cannot load the page".into(),
        Internal(other) => format!("pdfium: {other:?}"),
        other => format!("pdfium: {other:?}"),
    }
}

/// A title or bookmark as the page's text reads: controls are spaces,
/// ligatures spelled out (`predeﬁned` is found as `predefined`).
fn clean_title(s: &str) -> String {
    let mut text = String::with_capacity(s.len());
    s.chars()
        .for_each(|c| push_char(&mut text, if c.is_control() { ' ' } else { c }));
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn read_page(page: &PdfPage, opts: &ReadOptions) -> Page {
    let mut out = Page::default();
    match glyphs(page) {
        Ok(g) => (out.lines, out.gutter) = reading::lines_in_columns(&g, None),
        Err(e) => out.error = Some(format!("could not read the page's text: {}", describe(&e))),
    }
    // A page that draws nothing is blank without a 300-dpi rendering.
    out.blank = out.error.is_none()
        && out.without_text()
        && page.objects().is_empty()
        && page.annotations().is_empty();
    if out.blank {
        return out;
    }
    let wanted = match opts.ocr {
        OcrMode::Never => false,
        OcrMode::Always => true,
        OcrMode::Auto => out.without_text() || ocr::garbage(&out.lines),
    };
    if !wanted {
        return out;
    }
    let Some(tesseract) = &opts.tesseract else {
        out.ocr_error = Some(format!("no OCR engine: {}", ocr::HOW_TO_INSTALL));
        return out;
    };
    let image = render_at(page, ocr::DPI);
    if image.as_ref().is_ok_and(|img| img.blank()) {
        out.blank = out.without_text();
        return out;
    }
    match image.and_then(|img| ocr::recognise(tesseract, &opts.ocr_languages, &img)) {
        Ok(lines) => {
            let recognised = Page {
                lines,
                ..Page::default()
            };
            // OCR that finds nothing (a blank page) leaves the page as it
            // was; a text layer judged garbage is replaced only by a
            // reading that is better (`always` replaces every page).
            let better = out.without_text()
                || opts.ocr == OcrMode::Always
                || ocr::reads_better(&recognised.lines, &out.lines);
            if !recognised.without_text() && better {
                out.lines = recognised.lines;
                out.ocr = true;
                out.error = None;
            }
        }
        Err(e) => out.ocr_error = Some(e),
    }
    out
}

/// The page's characters in content order, in points from its top-left.
fn glyphs(page: &PdfPage) -> Result<Vec<Glyph>, PdfiumError> {
    let text = page.text()?;
    let top = page.page_size().top().value;
    // What a reader sees: the crop box within the media box. A word drawn
    // wholly outside it (a slide's items before they are revealed) is not
    // shown; one running over its edge (a long line of code) is kept whole.
    let shown = page.boundaries().bounding().ok().map(|b| b.bounds);
    let mut unseen: Vec<Glyph> = Vec::new();
    let mut word_seen = false;
    let chars = text.chars();
    let mut out = Vec::with_capacity(chars.len());
    let mut high_surrogate: Option<u32> = None;
    let mut font_style = FontStyle::default();
    for c in chars.iter() {
        let v = c.unicode_value();
        let ch = match v {
            0xD800..=0xDBFF => {
                high_surrogate = Some(v);
                continue;
            }
            0xDC00..=0xDFFF => match high_surrogate.take() {
                Some(h) => char::from_u32(0x10000 + ((h - 0xD800) << 10) + (v - 0xDC00))
                    .unwrap_or('\u{fffd}'),
                None => '\u{fffd}',
            },
            // A glyph without a Unicode value (a font with no map).
            0 => '\u{fffd}',
            // pdfium's mark for a hyphen that ends a line.
            2 => '-',
            v => char::from_u32(v).unwrap_or('\u{fffd}'),
        };
        if ch.is_whitespace() {
            if word_seen {
                out.append(&mut unseen);
            }
            unseen.clear();
            word_seen = false;
            let guessed = matches!(ch, '\r' | '\n') && c.is_generated().unwrap_or(false);
            out.push(if guessed {
                Glyph::line_break()
            } else {
                Glyph::space()
            });
            continue;
        }
        let Some((glyph, off_page)) = placed(&c, ch, top, shown, &mut font_style) else {
            continue;
        };
        if off_page && !word_seen {
            unseen.push(glyph);
            continue;
        }
        word_seen = true;
        out.append(&mut unseen);
        out.push(glyph);
    }
    if word_seen {
        out.append(&mut unseen);
    }
    Ok(out)
}

/// A character where the page draws it, and whether it lies wholly
/// outside what a reader sees (`shown`); `None` without a box.
fn placed(
    c: &PdfPageTextChar,
    ch: char,
    top: f32,
    shown: Option<PdfRect>,
    font_style: &mut FontStyle,
) -> Option<(Glyph, bool)> {
    let bounds = c.loose_bounds().or_else(|_| c.tight_bounds()).ok()?;
    let off_page = shown.is_some_and(|s| {
        bounds.right() < s.left()
            || bounds.left() > s.right()
            || bounds.top() < s.bottom()
            || bounds.bottom() > s.top()
    });
    let (ox, oy) = c.origin().unwrap_or((bounds.left(), bounds.bottom()));
    let mut size = c.scaled_font_size().value;
    if !size.is_finite() || size < TUNING.least_font_points {
        size = (bounds.top().value - bounds.bottom().value).abs().max(1.0);
    }
    let (bold, italic, face) = font_style.of(
        c.font_name(),
        || c.font_weight(),
        || c.font_is_italic(),
        || c.font_is_fixed_pitch(),
    );
    let ch = private_use(font_style.symbols, ch).unwrap_or(ch);
    let ink = c
        .fill_color()
        .map_or(0, |k| ink_of([k.red(), k.green(), k.blue()]));
    // pdfium measures the angle clockwise (in its y-down device
    // space); turns count counter-clockwise.
    let quarter_turn = std::f32::consts::FRAC_PI_2;
    let turns = c
        .angle_radians()
        .map(|a| (-a / quarter_turn).round().rem_euclid(TURNS.into()) as u8)
        .unwrap_or(0);
    let glyph = Glyph {
        ch,
        left: bounds.left().value,
        right: bounds.right().value,
        top: top - bounds.top().value,
        bottom: top - bounds.bottom().value,
        origin: (ox.value, top - oy.value),
        size,
        bold,
        italic,
        face,
        ink,
        turns,
    };
    Some((glyph, off_page))
}

/// Whether characters are set in bold and in italics, and in which face. A
/// page's characters come in runs of one font, so a font's name is looked at
/// once a run: only when it differs from the last character's.
#[derive(Default)]
struct FontStyle {
    name: String,
    bold: Option<bool>,
    italic: bool,
    face: u32,
    /// The symbol font the name says, whose private codes are read as
    /// what it draws (Word's bullet `U+F0B7`, `•`).
    symbols: Option<SymbolFont>,
}

impl FontStyle {
    /// A font's weight is optional in a PDF, and what pdfium reports
    /// without it is a guess from the strokes (Times-Roman 695,
    /// LMRoman12-Bold 545): a name that says its weight is believed first;
    /// so with its slant, over the font's italic flag (asked once a run).
    fn of(
        &mut self,
        name: String,
        weight: impl Fn() -> Option<PdfFontWeight>,
        italic: impl Fn() -> bool,
        fixed_pitch: impl Fn() -> bool,
    ) -> (bool, bool, u32) {
        if name != self.name {
            let n = name.to_ascii_lowercase();
            self.bold = named(&n, BOLD_FONT_WORDS, REGULAR_FONT_WORDS);
            self.italic = named(&n, ITALIC_FONT_WORDS, UPRIGHT_FONT_WORDS).unwrap_or_else(&italic);
            // A monospaced face says nothing of headings: code is told by its pitch.
            self.face = if fixed_pitch() { 0 } else { face_of(&n) };
            self.symbols = SymbolFont::named(&name);
            self.name = name;
        }
        let bold = self.bold.unwrap_or_else(|| match weight() {
            Some(PdfFontWeight::Weight600 | PdfFontWeight::Weight700Bold)
            | Some(PdfFontWeight::Weight800 | PdfFontWeight::Weight900) => true,
            Some(PdfFontWeight::Custom(w)) => w >= TUNING.bold_weight,
            _ => false,
        });
        (bold, self.italic, self.face)
    }
}

/// A font's family as a number, from its name (lower case) without what
/// tells its style: the subset's tag (`abcdef+`), what follows a dash or
/// a comma (`-bold`, `,italic`), the size's digits, the style's and the
/// foundry's words at its end (`arialmt`, `lmromandemi10`); TeX's
/// Computer Modern and EC styles (`cmbx12`, `sfti1000`) are their roman's.
/// "DejaVuSans-Bold" is DejaVuSans's face, "DejaVuSerif" another. 0 for a
/// font without a name.
fn face_of(n: &str) -> u32 {
    let n = match n.split_once('+') {
        Some((tag, rest)) if tag.chars().all(|c| c.is_ascii_alphabetic()) => rest,
        _ => n,
    };
    let mut family = n.split(['-', ',']).next().unwrap_or("");
    loop {
        let before = family;
        family = family.trim_end_matches(|c: char| c.is_ascii_digit());
        for w in FAMILY_SUFFIXES {
            family = family.strip_suffix(w).unwrap_or(family);
        }
        if family == before {
            break;
        }
    }
    let roman = TEX_STYLE_FAMILIES
        .iter()
        .find(|(style, _)| *style == family);
    let family = roman.map_or(family, |(_, roman)| *roman);
    if family.is_empty() {
        return 0;
    }
    let mut h = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(family, &mut h);
    (std::hash::Hasher::finish(&h) as u32).max(1)
}

/// A character's colour, told apart coarsely (`TUNING.ink_levels` a
/// channel), as a number: 0 for black and near-blacks (`#212529`), so a
/// heading set in the text's face but in its own colour (a filing's blue
/// "Capital actions" over its black text) is known by it.
fn ink_of(rgb: [u8; 3]) -> u32 {
    let levels = TUNING.ink_levels;
    let step = |c: u8| (u32::from(c) * levels) >> u8::BITS;
    rgb.iter().fold(0, |ink, &c| ink * levels + step(c))
}

/// Whether a font's name (lower case) says it has a style (`Some(true)`:
/// "Helvetica-Bold" for bold) or another (`Some(false)`: "Times-Roman");
/// `None` when it names neither ("CMBX10", "Arial").
fn named(n: &str, yes: &[&str], no: &[&str]) -> Option<bool> {
    let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
    if has(yes) {
        Some(true)
    } else {
        has(no).then_some(false)
    }
}

/// The page rendered in grey at `dpi` (300 for OCR).
pub(super) fn render_at(page: &PdfPage, dpi: f32) -> Result<ocr::GreyImage, String> {
    let (w, h) = (page.width().value, page.height().value);
    let mut scale = dpi / ocr::POINTS_PER_INCH;
    if w.max(h) * scale > MAX_RENDER_SIDE {
        scale = MAX_RENDER_SIDE / w.max(h);
    }
    // Rendered in colour and turned grey here: pdfium draws images into a
    // one-byte grey bitmap as blank.
    let config = PdfRenderConfig::new()
        .set_target_width((w * scale).round().max(1.0) as Pixels)
        .set_maximum_height((h * scale).round().max(1.0) as Pixels)
        .set_format(PdfBitmapFormat::BGRA)
        .render_form_data(true);
    let bitmap = page
        .render_with_config(&config)
        .map_err(|e| format!("could not render the page for OCR: {}", describe(&e)))?;
    let (width, height) = (bitmap.width() as usize, bitmap.height() as usize);
    let bgra = bitmap.as_raw_bytes();
    let stride = bgra.len().checked_div(height).unwrap_or(0);
    if stride < width * PIXEL_BYTES {
        return Err("could not render the page for OCR: unexpected bitmap layout".into());
    }
    let mut pixels = Vec::with_capacity(width * height);
    for row in bgra.chunks(stride).take(height) {
        for px in row[..width * PIXEL_BYTES].chunks_exact(PIXEL_BYTES) {
            let y = (LUMA[0] * px[0] as u32 + LUMA[1] * px[1] as u32 + LUMA[2] * px[2] as u32) >> 8;
            pixels.push(y as u8);
        }
    }
    Ok(ocr::GreyImage {
        width,
        height,
        stride: width,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::{clean_title, face_of, ink_of, FontStyle};
    use pdfium_render::prelude::PdfFontWeight;

    #[test]
    fn titles_and_bookmarks_read_as_the_text_does() {
        assert_eq!(
            clean_title("2.3  Overview of the prede\u{fb01}ned\ttexmf trees\u{0}"),
            "2.3 Overview of the predefined texmf trees"
        );
    }

    /// A font's style read from its name; the weight and the italic flag
    /// pdfium reports (here heavy and slanted) only when the name is silent.
    fn style(name: &str) -> (bool, bool) {
        let (bold, italic, _) = FontStyle::default().of(
            name.into(),
            || Some(PdfFontWeight::Weight900),
            || true,
            || false,
        );
        (bold, italic)
    }

    #[test]
    fn a_font_name_that_says_its_weight_is_believed() {
        for bold in [
            "MJZZBH+LMRoman12-Bold",
            "TimesNewRomanPS-BoldMT",
            "Bookman-Demi",
        ] {
            assert!(style(bold).0, "{bold}");
        }
        for regular in ["WHNFJK+Times-Roman", "LMRoman12-Regular", "Times-Italic"] {
            assert!(!style(regular).0, "{regular}");
        }
        for unsaid in ["KEMKDI+CMBX9", "Arial", "Courier"] {
            assert!(style(unsaid).0, "{unsaid}");
        }
    }

    #[test]
    fn a_font_name_that_says_its_slant_is_believed() {
        for italic in [
            "Times-Italic",
            "DejaVuSansMono-Oblique",
            "NimbusRomNo9L-ReguItal",
            "ABCDEF+CMTI10",
            "LMRomanSlant10-Regular",
        ] {
            assert!(style(italic).1, "{italic}");
        }
        for upright in ["Times-Roman", "DejaVuSans-Bold", "Arial-Regular"] {
            assert!(!style(upright).1, "{upright}");
        }
        // Silent names: the font's flag (math italic, CMMI, says so there).
        for unsaid in ["KEMKDI+CMMI10", "Arial"] {
            assert!(style(unsaid).1, "{unsaid}");
        }
    }

    /// Colours are told apart, near-blacks are black.
    #[test]
    fn a_colour_is_told_apart_and_near_blacks_are_black() {
        let blue = ink_of([0x4f, 0x81, 0xbd]);
        assert_ne!(blue, 0);
        assert_eq!(ink_of([0x50, 0x88, 0xb0]), blue);
        assert_ne!(ink_of([0xe8, 0x77, 0x22]), blue);
        assert_ne!(ink_of([0xff, 0xff, 0xff]), blue);
        for black in [[0, 0, 0], [0x21, 0x25, 0x29], [0x33, 0x33, 0x33]] {
            assert_eq!(ink_of(black), 0, "{black:?}");
        }
    }

    /// A font's family is its name without its style: a bold or italic
    /// style of a face is that face, TeX's styles their roman's; a sans,
    /// a serif and a typewriter face are three.
    #[test]
    fn a_fonts_face_is_its_name_without_its_style() {
        let same = [
            ("ABCDEF+DejaVuSans-Bold", "DejaVuSans"),
            ("TimesNewRomanPS-BoldMT", "TimesNewRomanPSMT"),
            ("Arial,BoldItalic", "ArialMT"),
            ("LMRomanDemi10-Regular", "LMRoman12-Italic"),
            ("KEMKDI+CMBX12", "CMR10"),
            ("SFTI1000", "SFRM1095"),
        ];
        for (a, b) in same {
            let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
            assert_eq!(face_of(&a), face_of(&b), "{a} {b}");
            assert_ne!(face_of(&a), 0, "{a}");
        }
        let faces = [
            "dejavusans",
            "dejavuserif",
            "dejavusansmono",
            "cmr10",
            "cmss10",
        ];
        let ids: std::collections::HashSet<u32> = faces.iter().map(|f| face_of(f)).collect();
        assert_eq!(ids.len(), faces.len());
        assert_eq!(face_of(""), 0);
    }
}
