//! Web pages: `.html`, `.htm`, `.xhtml`. The main content (`<main>`, else
//! a single `<article>`, else `<body>`) without navigation, scripts,
//! styles, forms and cookie banners, nor the chrome documentation sites put
//! inside it: in-page tables of contents, permalink marks beside headings
//! (`console.time([label])#`), empty list items and template placeholders
//! left unfilled (`__CONTENT__`, `{{ css }}`); `h1`-`h6` as sections, tables as
//! rows of ` | `-joined cells, `<title>` as the title. The charset is the
//! byte-order mark's, else the one the page declares, else UTF-8 (or, when
//! the bytes are not UTF-8, the likeliest legacy encoding: see
//! `decode_legacy`). The page is parsed with
//! the bounds of `html_parse`. E-books reuse [`render`].

use std::path::Path;

use ego_tree::iter::Edge;
use scraper::{ElementRef, Html, Node, Selector};

use super::extracted::TextBuilder;
use super::{file_title, html_parse, ChunkContext, IngestError, ParsedDocument};

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let text = decode(bytes, &mut doc.warnings);
    if text.trim().is_empty() {
        return Err(IngestError::Empty);
    }
    let html = html_parse::parse(&text, "the page")?;
    let mut b = TextBuilder::default();
    render(&html, &mut b);
    if b.too_long() {
        return Err(TextBuilder::too_long_error());
    }
    doc.title = page_title(&html)
        .or_else(|| first_heading(&html))
        .unwrap_or_else(|| file_title(path));
    b.finish(&mut doc, ctx).map_err(|e| match e {
        IngestError::NoText(_) => IngestError::no_text(
            "no text in the page's main content (navigation, scripts, forms and hidden parts \
             are left out)",
        ),
        e => e,
    })?;
    Ok(doc)
}

/// The page's text: the bytes decoded by the charset the page names.
pub fn decode(bytes: &[u8], warnings: &mut Vec<String>) -> String {
    if let Some((enc, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        return enc
            .decode_without_bom_handling(&bytes[bom..])
            .0
            .into_owned();
    }
    let declared = declared_charset(&bytes[..bytes.len().min(4096)])
        .and_then(|l| encoding_rs::Encoding::for_label(l.as_bytes()));
    let enc = match declared {
        // A page declaring UTF-16 without a byte-order mark was decoded to
        // ASCII to be read at all: its declaration is wrong.
        Some(e) if e != encoding_rs::UTF_16LE && e != encoding_rs::UTF_16BE => e,
        _ if std::str::from_utf8(bytes).is_ok() => encoding_rs::UTF_8,
        _ => return super::decode_legacy(bytes, warnings),
    };
    let (text, _, bad) = enc.decode(bytes);
    if bad {
        warnings.push(format!(
            "bytes invalid in {} were replaced with U+FFFD",
            enc.name()
        ));
    }
    text.into_owned()
}

/// `<meta charset="x">` or `<meta http-equiv=... content="...; charset=x">`,
/// or an XML declaration's `encoding="x"`.
fn declared_charset(head: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(head).to_ascii_lowercase();
    for key in ["charset=", "encoding="] {
        let mut from = 0;
        while let Some(i) = head[from..].find(key) {
            let at = from + i + key.len();
            let rest = head[at..].trim_start_matches(['"', '\'', ' ']);
            let label: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
                .collect();
            if !label.is_empty() {
                return Some(label);
            }
            from = at;
        }
    }
    None
}

fn page_title(html: &Html) -> Option<String> {
    let sel = Selector::parse("title").ok()?;
    let t: String = html.select(&sel).next()?.text().collect();
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    (!t.is_empty()).then_some(t)
}

fn first_heading(html: &Html) -> Option<String> {
    let sel = Selector::parse("h1").ok()?;
    let t: String = html.select(&sel).next()?.text().collect();
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    (!t.is_empty()).then_some(t)
}

/// The main content of a page: `<main>` (or `role="main"`), else its one
/// `<article>`, else the body.
fn main_content(html: &Html) -> ElementRef<'_> {
    let pick = |css: &str| {
        Selector::parse(css)
            .ok()
            .map(|s| html.select(&s).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    if let Some(m) = pick("main, [role=main]").into_iter().next() {
        return m;
    }
    let articles = pick("article");
    if articles.len() == 1 {
        return articles[0];
    }
    pick("body")
        .into_iter()
        .next()
        .unwrap_or(html.root_element())
}

/// Elements that are never content.
fn skipped(el: &scraper::node::Element, in_main: bool) -> bool {
    let name = el.name();
    // An e-book's notes are asides (EPUB 3's `epub:type="footnote"`).
    let note = || {
        let kinds = [el.attr("epub:type"), el.attr("role")];
        let words = kinds.into_iter().flatten().flat_map(str::split_whitespace);
        words
            .map(|w| w.trim_start_matches("doc-"))
            .any(|w| w.ends_with("note"))
    };
    if name == "aside" && !note() {
        return true;
    }
    if matches!(
        name,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "svg"
            | "canvas"
            | "nav"
            | "form"
            | "button"
            | "select"
            | "iframe"
            | "dialog"
            | "head"
            | "object"
    ) {
        return true;
    }
    // Outside an explicit main part, a page's header and footer are its
    // site's banner and footer.
    if !in_main && matches!(name, "header" | "footer") {
        return true;
    }
    if el.attr("hidden").is_some()
        || el.attr("aria-hidden") == Some("true")
        || el.attr("style").is_some_and(hidden_by_style)
    {
        return true;
    }
    if matches!(
        el.attr("role"),
        Some("navigation" | "banner" | "contentinfo" | "complementary" | "search" | "dialog")
    ) {
        return true;
    }
    let marked = |v: &str| {
        v.to_ascii_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| {
                matches!(
                    w,
                    "cookie"
                        | "cookies"
                        | "consent"
                        | "gdpr"
                        | "nav"
                        | "navbar"
                        | "navigation"
                        | "menu"
                        | "breadcrumb"
                        | "breadcrumbs"
                        | "sidebar"
                        | "footer"
                        | "advert"
                        | "ads"
                        | "share"
                        | "social"
                        | "skip"
                        | "toc"
                        | "toctree"
                        | "tableofcontents"
                        | "headerlink"
                        | "permalink"
                        | "anchorjs"
                )
            })
    };
    // A heading or section carries its title's slug ("setting-cookies",
    // "skip-connections") as its id: its words say what it is about.
    let classes = el.attr("class").unwrap_or("");
    let section = matches!(
        name,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "section" | "article"
    ) || classes.split_whitespace().any(|c| c == "section");
    !section && (el.attr("id").is_some_and(marked) || marked(classes))
}

/// Whether an inline style hides the element (`display: none`,
/// `visibility: hidden` or `collapse`): a browser shows nothing of it.
/// Style sheets are not read.
fn hidden_by_style(style: &str) -> bool {
    style.split(';').any(|declaration| {
        let Some((property, value)) = declaration.split_once(':') else {
            return false;
        };
        let value = value.trim().to_ascii_lowercase();
        let value = value.trim_end_matches("!important").trim_end();
        match property.trim().to_ascii_lowercase().as_str() {
            "display" => value == "none",
            "visibility" => matches!(value, "hidden" | "collapse"),
            _ => false,
        }
    })
}

/// What the page's own chrome is, found by its content: a permalink mark
/// beside a heading (a link to a place in the page whose text is a sign:
/// `#`, `¶`, `§`, `🔗`), or a list of links to places in the page (a table
/// of contents).
fn in_page_chrome(el: ElementRef<'_>) -> bool {
    let in_page = |a: &ElementRef<'_>| a.value().attr("href").is_some_and(|h| h.starts_with('#'));
    match el.value().name() {
        "a" => {
            in_page(&el) && {
                let text: String = el.text().collect();
                let t = text.trim();
                t.is_empty() || t.chars().count() <= 2 && !t.chars().any(char::is_alphanumeric)
            }
        }
        "ul" | "ol" => {
            let Ok(links) = Selector::parse("a") else {
                return false;
            };
            let items = el
                .children()
                .filter_map(ElementRef::wrap)
                .filter(|c| c.value().name() == "li");
            let (mut n, mut all_in_page) = (0usize, true);
            for item in items {
                n += 1;
                let mut anchors = item.select(&links).peekable();
                if anchors.peek().is_none() {
                    all_in_page = false;
                    break;
                }
                // Text outside the item's links is content, not a contents.
                let linked: usize = item
                    .select(&links)
                    .map(|a| a.text().map(str::len).sum::<usize>())
                    .sum();
                let own: usize = item.text().map(|t| t.trim().len()).sum();
                if !anchors.all(|a| in_page(&a)) || own > linked + 4 {
                    all_in_page = false;
                    break;
                }
            }
            all_in_page && n >= 3
        }
        _ => false,
    }
}

/// A template's placeholder the page was saved with unfilled, outside
/// code: text that is only `__NAME__` (capitals), `{{ name }}`, `{% ... %}`,
/// `${name}` or `<%= name %>`.
fn placeholder(text: &str) -> bool {
    let t = text.trim();
    let inner = |open: &str, close: &str, ok: &dyn Fn(char) -> bool| {
        t.strip_prefix(open)
            .and_then(|r| r.strip_suffix(close))
            .is_some_and(|r| !r.trim().is_empty() && r.chars().all(ok))
    };
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | ' ' | '-' | '|');
    let capital = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_';
    inner("__", "__", &capital)
        || inner("{{", "}}", &word)
        || inner("{%", "%}", &word)
        || inner("${", "}", &word)
        || inner("<%=", "%>", &word)
}

/// Renders the main content of a parsed page into the builder.
pub fn render(html: &Html, b: &mut TextBuilder) {
    let root = main_content(html);
    let in_main = root.value().name() != "body" && root.value().name() != "html";
    let mut skip_depth = 0usize;
    let mut heading: Option<(u8, String)> = None;
    let mut pre: Option<String> = None;
    let mut pre_depth = 0usize;
    // Inside code, a placeholder is what the page is about.
    let mut code_depth = 0usize;
    for edge in root.traverse() {
        if b.too_long() {
            return;
        }
        match edge {
            Edge::Open(node) => {
                if skip_depth > 0 {
                    if node.value().is_element() {
                        skip_depth += 1;
                    }
                    continue;
                }
                match node.value() {
                    Node::Element(el) => {
                        if skipped(el, in_main)
                            || ElementRef::wrap(node).is_some_and(in_page_chrome)
                        {
                            skip_depth = 1;
                            continue;
                        }
                        let name = el.name();
                        if is_code(name) {
                            code_depth += 1;
                        }
                        if let Some(level) = heading_level(name) {
                            b.end_block();
                            heading = Some((level, String::new()));
                        } else if name == "pre" {
                            b.end_block();
                            pre_depth += 1;
                            pre.get_or_insert_with(String::new);
                        } else if name == "br" {
                            match (&mut pre, &mut heading) {
                                (Some(p), _) => p.push('\n'),
                                (_, Some((_, h))) => h.push(' '),
                                _ => b.end_line(),
                            }
                        } else if name == "li" {
                            b.end_line();
                            b.push_inline(LIST_MARK);
                        } else if name == "table" {
                            b.start_table();
                        } else if name == "tr" {
                            b.start_row();
                        } else if is_block(name) {
                            b.end_block();
                        } else if name == "img" {
                            if let Some(alt) = el.attr("alt").filter(|a| !a.trim().is_empty()) {
                                b.push_inline(&format!(" {alt} "));
                            }
                        }
                    }
                    Node::Text(t) if pre.is_none() && code_depth == 0 && placeholder(t) => {}
                    Node::Text(t) => match (&mut pre, &mut heading) {
                        (Some(p), _) => p.push_str(t),
                        (_, Some((_, h))) => h.push_str(t),
                        _ => b.push_inline(t),
                    },
                    _ => {}
                }
            }
            Edge::Close(node) => {
                let Node::Element(el) = node.value() else {
                    continue;
                };
                if skip_depth > 0 {
                    skip_depth -= 1;
                    continue;
                }
                let name = el.name();
                if is_code(name) {
                    code_depth = code_depth.saturating_sub(1);
                }
                if heading_level(name).is_some() {
                    if let Some((level, text)) = heading.take() {
                        b.heading(level, &text);
                    }
                } else if name == "pre" {
                    pre_depth = pre_depth.saturating_sub(1);
                    if pre_depth == 0 {
                        if let Some(p) = pre.take() {
                            b.preformatted(&p);
                        }
                    }
                } else if matches!(name, "td" | "th") {
                    b.end_cell();
                } else if name == "tr" {
                    b.end_row();
                } else if name == "li" {
                    b.end_item();
                } else if matches!(name, "dt" | "dd") {
                    b.end_line();
                } else if name == "table" {
                    b.end_table();
                } else if is_block(name) {
                    b.end_block();
                }
            }
        }
    }
}

fn is_code(name: &str) -> bool {
    matches!(name, "code" | "kbd" | "samp" | "tt" | "var")
}

/// What opens a list item's line.
const LIST_MARK: &str = "- ";

fn heading_level(name: &str) -> Option<u8> {
    match name {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "header"
            | "footer"
            | "blockquote"
            | "figure"
            | "figcaption"
            | "ul"
            | "ol"
            | "dl"
            | "table"
            | "hr"
            | "address"
            | "details"
            | "summary"
            | "body"
            | "caption"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;

    const PAGE: &str = r#"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Backup Guide</title>
<style>body { color: red }</style><script>var tracking = 1;</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About us</a></nav>
<div id="cookie-banner">We use cookies to improve your experience.</div>
<main>
<h1>Backups</h1>
<p>Run the <a href="x">nightly job</a> at two o'clock.<br>Check the log after.</p>
<h2>Restoring</h2>
<ul><li>Stop the service</li><li>Copy the snapshot back</li></ul>
<table><tr><th>Host</th><th>Path</th></tr><tr><td>db1</td><td>/srv/backup</td></tr></table>
<pre>tar xzf snap.tgz
  -C /srv</pre>
</main>
<footer>Copyright 2024 Example Corp</footer>
</body></html>"#;

    #[test]
    fn main_content_headings_tables_and_title() {
        let c = ChunkingConfig::default();
        let doc = parse(
            Path::new("b.html"),
            PAGE.as_bytes(),
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(doc.title, "Backup Guide");
        assert_eq!(
            doc.content,
            "Backups\n\nRun the nightly job at two o'clock.\nCheck the log after.\n\n\
             Restoring\n\n- Stop the service\n- Copy the snapshot back\n\n\
             Host | Path\ndb1 | /srv/backup\n\ntar xzf snap.tgz\n  -C /srv"
        );
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.text.as_str(), h.line))
            .collect();
        assert_eq!(hs, [("Backups", 1), ("Restoring", 6)]);
        for bad in ["cookies", "About us", "tracking", "Copyright", "color"] {
            assert!(!doc.content.contains(bad), "{bad} in {}", doc.content);
        }
        assert!(doc
            .chunks
            .iter()
            .any(|c| c.meta.section.as_deref() == Some("Backups > Restoring")
                || c.meta.section.as_deref() == Some("Backups")));
    }

    /// A cell's line breaks, paragraphs, lists and headings are its words:
    /// a row stays one line whatever its cells hold, and a table in a cell
    /// is read inside that cell.
    #[test]
    fn a_row_stays_one_line_whatever_its_cells_hold() {
        let c = ChunkingConfig::default();
        let page = "<html><body><table><caption>Fasteners</caption>\
            <tr><th>Part</th><th>Notes</th></tr>\
            <tr><td>Bolt<br>M8</td><td><p>Zinc plated</p><p>Torque 25 Nm</p></td></tr>\
            <tr><td><h4>Washer</h4></td><td><ul><li>flat</li><li>spring</li></ul></td></tr>\
            <tr><td>Kit</td><td><table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table></td></tr>\
            </table><p>After the table.<br>Second line.</p></body></html>";
        let doc = parse(
            Path::new("t.html"),
            page.as_bytes(),
            &crate::ingest::test_support::ctx(&c),
        )
        .unwrap();
        assert_eq!(
            doc.content,
            "Fasteners\n\nPart | Notes\nBolt M8 | Zinc plated Torque 25 Nm\n\
             Washer | - flat - spring\nKit | a b / c\n\nAfter the table.\nSecond line."
        );
        assert!(doc.meta.headings.is_empty(), "{:?}", doc.meta.headings);
    }

    /// Generated documentation puts each title's slug on its section or
    /// heading; an e-book's footnotes are asides. Both are content.
    #[test]
    fn sections_named_like_chrome_and_ebook_notes_are_kept() {
        let c = ChunkingConfig::default();
        let page = r##"<html><body><div role="main">
<section id="guide"><h1>Guide</h1><p>Intro.</p>
<section id="setting-cookies"><h2>Setting cookies</h2><p>Use HttpOnly cormorant.</p></section>
<div class="section" id="skip-connections"><h2>Skip connections</h2><p>Petrel.</p></div>
<h2 id="context-menu">Context menu</h2><p>Fulmar.</p>
<p>Noted<a epub:type="noteref" href="#n1">1</a>.</p>
<aside epub:type="footnote" id="n1"><p>Darwin 1859, p. 12.</p></aside>
<aside class="related"><p>Other posts</p></aside>
<div id="cookie-banner">We use cookies.</div>
</section></div></body></html>"##;
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(Path::new("g.html"), page.as_bytes(), &ctx).unwrap();
        for kept in [
            "cormorant",
            "Skip connections",
            "Context menu",
            "Fulmar",
            "Darwin 1859",
        ] {
            assert!(
                doc.content.contains(kept),
                "{kept} missing from {}",
                doc.content
            );
        }
        for dropped in ["Other posts", "We use cookies"] {
            assert!(
                !doc.content.contains(dropped),
                "{dropped} in {}",
                doc.content
            );
        }
    }

    /// An element an inline style hides is left out as a `hidden` one
    /// is; a style that shows it is not read as hiding it.
    #[test]
    fn elements_hidden_by_inline_style_are_left_out() {
        let c = ChunkingConfig::default();
        let page = r#"<html><body><main><p>Shown gannet.</p>
<p style="display:none">DISPLAYNONETEXT</p>
<div style="color: red; DISPLAY : None !important"><p>UPPERHIDDEN</p></div>
<span style="visibility: hidden">INVISIBLETEXT</span>
<p style="display: block; visibility: visible">Shown skua.</p>
<p style="content: 'display:none'">Shown tern.</p>
</main></body></html>"#;
        let ctx = crate::ingest::test_support::ctx(&c);
        let doc = parse(Path::new("h.html"), page.as_bytes(), &ctx).unwrap();
        assert_eq!(doc.content, "Shown gannet.\n\nShown skua.\n\nShown tern.");
    }

    #[test]
    fn declared_charsets_are_decoded() {
        let mut w = Vec::new();
        let latin = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"></head><body><p>Caf\xe9 cr\xe8me</p></body></html>";
        assert!(decode(latin, &mut w).contains("Café crème"));
        let undeclared = b"<p>na\xefve</p>";
        assert!(decode(undeclared, &mut w).contains("naïve"));
        w.clear();
        let sjis = "<meta charset=\"shift_jis\"><p>日本語</p>";
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(sjis);
        assert!(decode(&bytes, &mut w).contains("日本語"));
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn deep_nesting_and_empty_pages() {
        let c = ChunkingConfig::default();
        let ctx = crate::ingest::test_support::ctx(&c);
        let deep = format!(
            "<body>{}deep words{}</body>",
            "<div>".repeat(50_000),
            "</div>".repeat(50_000)
        );
        let e = parse(Path::new("d.html"), deep.as_bytes(), &ctx).unwrap_err();
        assert!(e.to_string().contains("the page nests elements"), "{e}");
        assert!(parse(Path::new("e.html"), b"<html><nav>menu</nav></html>", &ctx).is_err());
    }
}
