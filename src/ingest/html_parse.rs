//! Parsing a web page, or an e-book's XHTML chapter, with bounds.
//!
//! html5ever's tree builder walks its stack of open elements for most
//! tags, so its cost grows with the square of the nesting: 40,000 nested
//! `<div>`s take seconds, 200,000 minutes. The page is therefore fed in
//! small pieces while a sink around scraper's records each element's
//! depth, and the parse stops at the first piece that nests deeper than
//! XML formats may ([`MAX_DEPTH`]): the work done is at most that depth
//! per tag. A page that stays just under that depth around most of its
//! tags would still cost the depth per tag, so the walks are counted too,
//! and the parse stops past a budget proportional to the page's size:
//! whatever the page, parsing it costs time linear in its size.
//!
//! Text with NUL bytes is refused as a file's is, and an XHTML DOCTYPE's
//! internal subset, which HTML does not know, is dropped before parsing
//! rather than read as text.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use ego_tree::NodeId;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName};
use scraper::{Html, HtmlTreeSink};

use super::container::MAX_DEPTH;
use super::IngestError;

/// Bytes fed to the parser at a time: the most it reads past the depth
/// limit before stopping (a few hundred tags).
const PIECE_BYTES: usize = 4096;

/// Steps through the stack of open elements (each element name the tree
/// builder reads) a page may cost per byte: real pages take 0.2-0.3 (65
/// pages of Rust's documentation measured, the book among them), a page
/// holding thousands of elements open around each of its tags hundreds.
const STEPS_PER_BYTE: u64 = 16;
/// And at any size: enough to open [`MAX_DEPTH`] elements one inside the
/// other (two walks of the stack per element: 25 million steps).
const BASE_STEPS: u64 = 32 << 20;

/// Parses a page's decoded text; `what` names it in errors ("the page",
/// or a chapter's part name).
pub fn parse(text: &str, what: &str) -> Result<Html, IngestError> {
    if super::detect::looks_binary(text.as_bytes()) {
        return Err(IngestError::Unsupported(format!(
            "binary content (NUL bytes) in {what}, not text"
        )));
    }
    let text = without_internal_subset(text);
    let sink = DepthSink::new();
    let (deepest, steps) = (sink.deepest.clone(), sink.steps.clone());
    let budget = STEPS_PER_BYTE * text.len() as u64 + BASE_STEPS;
    let mut parser = html5ever::parse_document(sink, Default::default());
    let mut rest: &str = &text;
    while !rest.is_empty() {
        let mut end = rest.len().min(PIECE_BYTES);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        parser.process(StrTendril::from_slice(&rest[..end]));
        rest = &rest[end..];
        if deepest.get() > MAX_DEPTH {
            return Err(too_deep(what));
        }
        if steps.get() > budget {
            return Err(too_costly(what));
        }
    }
    Ok(parser.finish())
}

fn too_deep(what: &str) -> IngestError {
    IngestError::failed(format!(
        "{what} nests elements more than {MAX_DEPTH} deep (no document needs that many levels; \
         reading them would take time growing with the square of the depth)"
    ))
}

fn too_costly(what: &str) -> IngestError {
    IngestError::failed(format!(
        "{what} keeps thousands of elements open around its tags: reading it would take far \
         longer than its size warrants (more than {STEPS_PER_BYTE} steps of the parser per byte)"
    ))
}

/// scraper's sink, recording how deep each element is placed and how
/// often the tree builder reads an element's name (each step of its walks
/// through the open elements).
struct DepthSink {
    inner: HtmlTreeSink,
    depth: RefCell<HashMap<NodeId, usize>>,
    /// The deepest placement so far, read between pieces.
    deepest: Rc<Cell<usize>>,
    steps: Rc<Cell<u64>>,
}

impl DepthSink {
    fn new() -> DepthSink {
        DepthSink {
            inner: HtmlTreeSink::new(Html::new_document()),
            depth: RefCell::new(HashMap::new()),
            deepest: Rc::new(Cell::new(0)),
            steps: Rc::new(Cell::new(0)),
        }
    }

    fn depth_of(&self, node: &NodeId) -> usize {
        self.depth.borrow().get(node).copied().unwrap_or(0)
    }

    /// Records an element placed at `depth` (text has no depth of its own).
    fn placed(&self, child: &NodeOrText<NodeId>, depth: usize) {
        if let NodeOrText::AppendNode(id) = child {
            self.depth.borrow_mut().insert(*id, depth);
            self.deepest.set(self.deepest.get().max(depth));
        }
    }

    fn has_parent(&self, node: &NodeId) -> bool {
        let html = self.inner.0.borrow();
        html.tree.get(*node).is_some_and(|n| n.parent().is_some())
    }
}

impl TreeSink for DepthSink {
    type Handle = NodeId;
    type Output = Html;
    type ElemName<'a> = <HtmlTreeSink as TreeSink>::ElemName<'a>;

    fn finish(self) -> Html {
        self.inner.finish()
    }

    fn parse_error(&self, msg: Cow<'static, str>) {
        self.inner.parse_error(msg)
    }

    fn get_document(&self) -> NodeId {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Self::ElemName<'a> {
        self.steps.set(self.steps.get() + 1);
        self.inner.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        self.inner.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.placed(&child, self.depth_of(parent) + 1);
        self.inner.append(parent, child)
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        // scraper places the child before `element` when it has a parent,
        // else under `prev_element`; so does the depth.
        if self.has_parent(element) {
            self.append_before_sibling(element, child)
        } else {
            self.append(prev_element, child)
        }
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id)
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode)
    }

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        self.placed(&new_node, self.depth_of(sibling).max(1));
        self.inner.append_before_sibling(sibling, new_node)
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.inner.add_attrs_if_missing(target, attrs)
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.inner.remove_from_parent(target)
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        // The children keep the depth they were placed at: the adoption
        // agency moves them one level at most.
        self.inner.reparent_children(node, new_parent)
    }
}

/// The text without the internal subset of its DOCTYPE (`<!DOCTYPE html [
/// <!ENTITY ...> ]>`, which XHTML may have): HTML ends a DOCTYPE at its
/// first `>`, so the rest of the subset would become text. Its entities
/// are not expanded (kb never expands custom entities).
fn without_internal_subset(text: &str) -> Cow<'_, str> {
    let Some(start) = find_ascii_ci(text, "<!doctype") else {
        return Cow::Borrowed(text);
    };
    // Only a DOCTYPE before any element: after the XML declaration,
    // comments and whitespace.
    if !prolog_only(&text[..start]) {
        return Cow::Borrowed(text);
    }
    let after = start + "<!doctype".len();
    let bytes = text.as_bytes();
    let mut i = after;
    let mut quote: Option<u8> = None;
    // The declaration up to its `[`, or its end without one.
    while i < bytes.len() {
        match (quote, bytes[i]) {
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(bytes[i]),
            (None, b'>') => return Cow::Borrowed(text),
            (None, b'[') => break,
            _ => {}
        }
        i += 1;
    }
    if i >= bytes.len() {
        return Cow::Borrowed(text);
    }
    let declaration = &text[after..i];
    let Some(end) = subset_end(text, i + 1) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    out.push_str("<!DOCTYPE");
    out.push_str(declaration.trim_end());
    out.push('>');
    out.push_str(&text[end..]);
    Cow::Owned(out)
}

/// Where the DOCTYPE ends after an internal subset that starts at `from`:
/// past its `]` and the `>` after it. Quoted strings and comments inside
/// the subset may hold either.
fn subset_end(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = from;
    let mut quote: Option<u8> = None;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if text[i..].starts_with("<!--") => {
                i += text[i..].find("-->")? + 3;
                continue;
            }
            None if b == b']' => {
                let rest = text[i + 1..].trim_start();
                return rest.strip_prefix('>').map(|after| text.len() - after.len());
            }
            None => {}
        }
        i += 1;
    }
    None
}

/// Whether `head` holds only an XML declaration, processing instructions,
/// comments and whitespace.
fn prolog_only(head: &str) -> bool {
    let mut rest = head.trim_start_matches('\u{feff}').trim_start();
    while !rest.is_empty() {
        let end = if rest.starts_with("<?") {
            rest.find("?>").map(|i| i + 2)
        } else if rest.starts_with("<!--") {
            rest.find("-->").map(|i| i + 3)
        } else {
            None
        };
        match end {
            Some(e) => rest = rest[e..].trim_start(),
            None => return false,
        }
    }
    true
}

/// The byte where `needle` (lower-case ASCII) first occurs in `text`,
/// in any case.
fn find_ascii_ci(text: &str, needle: &str) -> Option<usize> {
    let (hay, n) = (text.as_bytes(), needle.as_bytes());
    hay.windows(n.len()).position(|w| w.eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn nested(levels: usize) -> String {
        format!(
            "<html><body>{}deep words{}</body></html>",
            "<div>".repeat(levels),
            "</div>".repeat(levels)
        )
    }

    #[test]
    fn nesting_past_the_limit_fails_in_time_whatever_the_depth() {
        let ok = parse(&nested(MAX_DEPTH - 10), "the page").unwrap();
        assert!(ok.root_element().text().any(|t| t.contains("deep words")));
        for levels in [40_000, 200_000] {
            let started = Instant::now();
            let e = parse(&nested(levels), "the page").err().unwrap();
            assert!(e.to_string().contains("more than 5000 deep"), "{e}");
            // Quadratic, 200,000 levels took minutes; the bound stops it
            // within a few pieces of the limit.
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{levels} levels: {:?}",
                started.elapsed()
            );
        }
    }

    #[test]
    fn a_page_kept_just_under_the_limit_fails_on_its_cost() {
        // Thousands of open elements around each of 100,000 small ones: a
        // walk of the whole stack per tag.
        let page = format!(
            "<html><body>{}{}</body></html>",
            "<div>".repeat(MAX_DEPTH - 10),
            "<div>x</div>".repeat(100_000)
        );
        let started = Instant::now();
        let e = parse(&page, "the page").err().unwrap();
        assert!(e.to_string().contains("far longer than its size"), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        // A page of ordinary depth and the same size costs a fraction of it.
        let flat = format!(
            "<html><body>{}</body></html>",
            "<div><p>x</p></div>".repeat(70_000)
        );
        assert!(parse(&flat, "the page").is_ok());
    }

    #[test]
    fn binary_text_is_refused() {
        let e = parse("<p>PK\u{3}\u{4}\u{0}\u{0}</p>", "OEBPS/c1.xhtml")
            .err()
            .unwrap();
        assert!(
            matches!(&e, IngestError::Unsupported(m) if m.contains("binary") && m.contains("OEBPS/c1.xhtml")),
            "{e}"
        );
    }

    #[test]
    fn a_doctype_internal_subset_is_not_text() {
        let page = "<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.1//EN\" \
                    \"x.dtd\" [\n  <!ENTITY copy \"(c) 2024 >]\">\n  <!-- a ] comment> -->\n]>\n\
                    <html><body><p>Body text &copy;</p></body></html>";
        let html = parse(page, "c.xhtml").unwrap();
        let text: String = html.root_element().text().collect();
        assert!(!text.contains("]>") && !text.contains("ENTITY"), "{text:?}");
        assert!(text.contains("Body text"), "{text:?}");
        // A page without a subset, and a `[` later in the page, are left alone.
        for plain in [
            "<!DOCTYPE html><p>a [b]> c</p>",
            "<p>x</p><!DOCTYPE html [ ]><p>y</p>",
        ] {
            assert_eq!(without_internal_subset(plain), plain);
        }
    }
}
