//! Walking a syntax tree into units, whatever the language: definitions
//! (with the comment block right above them) and the code between them,
//! in file order, tiling the file. What a definition is and what it is
//! called is each language's part: a [`Language`] (`python`, `bash`, `go`).

use std::ops::Range;

use tree_sitter::Node;

use super::unit::{Item, ItemKind, Lines, Scope, Sym, Unit};
use crate::document::{Heading, SymbolKind};
use crate::embed::TokenCounter;

/// What the walker needs to know of a programming language.
pub(super) trait Language: Sync {
    /// The name kb records (`language` of the document and its chunks).
    fn name(&self) -> &'static str;

    /// The tree-sitter grammar.
    fn grammar(&self) -> tree_sitter::Language;

    /// Node kinds that are definitions at the top level or inside a
    /// container (a class body, a Rust impl).
    fn is_definition(&self, kind: &str) -> bool;

    /// Node kinds that are comments, or (Rust attributes) go with the
    /// definition below them as comments do.
    fn is_comment(&self, kind: &str) -> bool {
        kind == "comment"
    }

    /// Turns one definition (`node`, with the comments above it in
    /// `range`) into units and headings on the walker; `scope` is the
    /// definition it sits in, if any.
    fn definition<'a>(
        &self,
        walker: &mut Walker<'a>,
        range: Range<usize>,
        node: Node<'a>,
        scope: Option<&Scope>,
    );

    /// The name module-level code is filed under when the file declares
    /// one (Go's package); else the file name is.
    fn module_name(&self, _root: Node, _text: &str) -> Option<String> {
        None
    }

    /// How module-level code is labelled: `module shlex`, `package main`.
    fn module_label(&self, module: &str) -> String {
        format!("module {module}")
    }
}

/// Names a container's member that is a definition: (its name, its label
/// in the section: `start`, `fn new`); `None` for what is not one.
pub(super) type MemberName<'a> = dyn Fn(&Walker<'a>, Node<'a>) -> Option<(String, String)>;

/// Walks the syntax tree into units (in file order) and headings.
pub(super) struct Walker<'a> {
    pub(super) src: &'a str,
    pub(super) lang: &'static dyn Language,
    pub(super) lines: &'a Lines,
    pub(super) tokens: &'a TokenCounter,
    pub(super) max: usize,
    pub(super) include_context: bool,
    pub(super) owners: Vec<Sym>,
    pub(super) units: Vec<Unit>,
    pub(super) headings: Vec<Heading>,
}

impl<'a> Walker<'a> {
    pub(super) fn new(
        src: &'a str,
        lang: &'static dyn Language,
        lines: &'a Lines,
        tokens: &'a TokenCounter,
        (max, include_context): (usize, bool),
        module: Sym,
    ) -> Walker<'a> {
        Walker {
            src,
            lang,
            lines,
            tokens,
            max,
            include_context,
            owners: vec![module],
            units: Vec::new(),
            headings: Vec::new(),
        }
    }

    pub(super) fn text(&self, n: Node) -> &'a str {
        &self.src[n.byte_range()]
    }

    pub(super) fn count(&self, s: &str) -> usize {
        self.tokens.count(s)
    }

    pub(super) fn heading(&mut self, level: u8, text: &str, start: usize) {
        self.headings.push(Heading {
            level: level.min(6),
            text: text.to_string(),
            line: self.lines.line_of(start) + 1,
        });
    }

    pub(super) fn collect_root(&mut self, root: Node<'a>) {
        let items = self.items(flatten_errors(root));
        for item in items {
            match item.kind {
                ItemKind::Def => self.definition(item.range, item.node, None),
                _ => self.units.push(Unit::Code {
                    range: item.range,
                    owner: 0,
                }),
            }
        }
    }

    /// Classifies sibling nodes; a comment on the line where the previous
    /// node ends joins it, and a comment block right above a definition or
    /// statement (no blank line between) becomes part of it.
    pub(super) fn items(&self, nodes: Vec<Node<'a>>) -> Vec<Item<'a>> {
        let mut items: Vec<Item> = Vec::new();
        for n in nodes {
            let kind = if self.lang.is_comment(n.kind()) {
                ItemKind::Comment
            } else if self.lang.is_definition(n.kind()) {
                ItemKind::Def
            } else {
                ItemKind::Other
            };
            let range = n.byte_range();
            if kind == ItemKind::Comment {
                if let Some(prev) = items.last_mut() {
                    if self.lines.line_of(range.start) == self.last_line(&prev.range) {
                        prev.range.end = range.end;
                        continue;
                    }
                }
            }
            let mut item = Item {
                range,
                node: n,
                kind,
            };
            if kind != ItemKind::Comment {
                while let Some(prev) = items.last() {
                    let adjacent =
                        self.last_line(&prev.range) + 1 == self.lines.line_of(item.range.start);
                    let shebang = prev.range.start == 0 && self.src.starts_with("#!");
                    if prev.kind != ItemKind::Comment || !adjacent || shebang {
                        break;
                    }
                    item.range.start = prev.range.start;
                    items.pop();
                }
            }
            items.push(item);
        }
        items
    }

    pub(super) fn last_line(&self, r: &Range<usize>) -> usize {
        self.lines.line_of(r.end.saturating_sub(1).max(r.start))
    }

    /// The starts of a body's statements (a comment block right above a
    /// statement goes with it): the places a large definition may split.
    pub(super) fn cuts(&self, body: Option<Node<'a>>) -> Vec<usize> {
        let Some(mut body) = body else {
            return Vec::new();
        };
        // Go wraps statements in a statement_list inside the block.
        if body.named_child_count() == 1 {
            if let Some(only) = body.named_child(0) {
                if only.kind() == "statement_list" {
                    body = only;
                }
            }
        }
        let mut cur = body.walk();
        let nodes: Vec<Node> = body.named_children(&mut cur).collect();
        let mut cuts = Vec::new();
        let mut prev: Option<Node> = None;
        for n in nodes {
            let glued = prev.is_some_and(|p| {
                self.lang.is_comment(p.kind())
                    && self.lines.line_of(p.end_byte().saturating_sub(1)) + 1
                        >= self.lines.line_of(n.start_byte())
            });
            if !glued {
                cuts.push(n.start_byte());
            }
            prev = Some(n);
        }
        cuts
    }

    /// The first line of a definition (from the start of its line), for the
    /// parts after the first.
    pub(super) fn signature(&self, n: Node) -> Option<String> {
        if !self.include_context {
            return None;
        }
        let start = self.lines.line_start(n.start_byte());
        let line = self.src[start..].lines().next()?.trim_end();
        (!line.trim().is_empty()).then(|| line.to_string())
    }

    pub(super) fn definition(
        &mut self,
        range: Range<usize>,
        node: Node<'a>,
        scope: Option<&Scope>,
    ) {
        let lang = self.lang;
        lang.definition(self, range, node, scope);
    }

    /// A definition holding others (a JS/TS class, a Rust impl or trait),
    /// already headed at `level`: one chunk when it fits; else its own
    /// lines are one symbol and each member definition (named by
    /// `member`, `None` for what is not one) another, embedded with the
    /// container's first line as context.
    pub(super) fn container_def(
        &mut self,
        range: Range<usize>,
        node: Node<'a>,
        sym: Sym,
        body: Option<Node<'a>>,
        member: &MemberName<'a>,
    ) {
        let Some(body) = body else {
            return self.push_def(range, node, sym, None);
        };
        let level = self.headings.last().map_or(1, |h| h.level);
        let header = self
            .signature(node)
            .filter(|h| self.count(h) <= self.max / 4);
        let mut whole = sym.context.clone().unwrap_or_default();
        whole.push_str(&self.src[range.clone()]);
        let fits = self.count(&whole) <= self.max;
        let first_unit = self.units.len();
        let owner = self.owners.len();
        self.owners.push(sym.clone());
        let mut cur = body.walk();
        let children: Vec<Node> = body
            .children(&mut cur)
            .filter(|n| n.is_named() || !matches!(n.kind(), "{" | "}"))
            .collect();
        // Punctuation between members (`;` after a field) goes with the
        // member before it.
        let mut items: Vec<Item> = Vec::new();
        for item in self.items(children) {
            match items.last_mut() {
                Some(prev) if !item.node.is_named() => prev.range.end = item.range.end,
                _ => items.push(item),
            }
        }
        let head_end = items.first().map_or(range.end, |i| i.range.start);
        self.units.push(Unit::Code {
            range: range.start..head_end,
            owner,
        });
        let mut end = head_end;
        for item in items {
            end = item.range.end;
            let named = (item.kind == ItemKind::Def)
                .then(|| member(self, item.node))
                .flatten();
            let Some((name, label)) = named else {
                self.units.push(Unit::Code {
                    range: item.range,
                    owner,
                });
                continue;
            };
            let full = format!("{}.{name}", sym.name);
            self.heading(level + 1, &full, item.range.start);
            let method = Sym {
                name: full,
                kind: SymbolKind::Method,
                label: format!("{} > {label}", sym.label),
                class_name: Some(sym.name.clone()),
                receiver: None,
                context: header.clone(),
                continuation: self.signature(item.node),
            };
            let method_body = item.node.child_by_field_name("body");
            self.push_def(item.range, item.node, method, method_body);
        }
        if end < range.end {
            self.units.push(Unit::Code {
                range: end..range.end,
                owner,
            });
        }
        if fits {
            // Keep the members' headings, but chunk the container whole.
            self.units.truncate(first_unit);
            self.owners.truncate(owner);
            self.push_def(range, node, sym, Some(body));
        }
    }

    /// `node` is the definition itself, after the comments attached above.
    pub(super) fn push_def(
        &mut self,
        range: Range<usize>,
        node: Node,
        sym: Sym,
        body: Option<Node<'a>>,
    ) {
        // A long doc comment may part from the signature before statements do.
        let mut cuts = vec![node.start_byte()];
        cuts.extend(self.cuts(body));
        self.units.push(Unit::Def { range, sym, cuts });
    }

    /// The units, made to tile the file: each starts at the beginning of
    /// its line (so indentation is kept) unless the previous one ends on
    /// that line, and anything between units that is not whitespace (never
    /// expected) becomes module-level code.
    pub(super) fn finish(self) -> (Vec<Unit>, Vec<Sym>) {
        let mut out: Vec<Unit> = Vec::with_capacity(self.units.len());
        let mut prev_end = 0;
        for mut u in self.units {
            let r = u.range_mut();
            if r.end <= prev_end {
                continue;
            }
            r.start = self.lines.line_start(r.start).max(prev_end);
            if !self.src[prev_end..r.start].trim().is_empty() {
                out.push(Unit::Code {
                    range: prev_end..r.start,
                    owner: 0,
                });
            }
            prev_end = r.end;
            out.push(u);
        }
        if !self.src[prev_end..].trim().is_empty() {
            out.push(Unit::Code {
                range: prev_end..self.src.len(),
                owner: 0,
            });
        }
        (out, self.owners)
    }
}

/// The children of the root, with ERROR nodes replaced by their own
/// children so definitions tree-sitter did recognise inside still count.
/// The tree walks here are iterative: a deeply nested file must not
/// overflow the stack, which would abort the whole run.
fn flatten_errors(root: Node) -> Vec<Node> {
    fn children(n: Node) -> Vec<Node> {
        let mut cur = n.walk();
        n.children(&mut cur).collect()
    }
    let mut stack: Vec<Node> = children(root);
    stack.reverse();
    let mut out = Vec::new();
    while let Some(n) = stack.pop() {
        if n.kind() == "ERROR" && n.child_count() > 0 {
            stack.extend(children(n).into_iter().rev());
        } else {
            out.push(n);
        }
    }
    out
}

/// The first node in pre-order below and including `root` that `hit`
/// accepts, entering only the nodes `enter` accepts.
fn find_node<'t>(
    root: Node<'t>,
    enter: impl Fn(Node<'t>) -> bool,
    hit: impl Fn(Node<'t>) -> bool,
) -> Option<Node<'t>> {
    let mut cur = root.walk();
    let mut depth = 0usize;
    loop {
        let n = cur.node();
        if hit(n) {
            return Some(n);
        }
        if enter(n) && cur.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return None;
            }
            if cur.goto_next_sibling() {
                break;
            }
            cur.goto_parent();
            depth -= 1;
        }
    }
}

/// The 1-based line of the first syntax error, if any.
pub(super) fn first_error_line(root: Node) -> Option<usize> {
    if !root.has_error() {
        return None;
    }
    let n = find_node(root, |n| n.has_error(), |n| n.is_error() || n.is_missing());
    Some(n.unwrap_or(root).start_position().row + 1)
}

/// The first node of `kind` in a depth-first walk.
pub(super) fn first_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    find_node(node, |_| true, |n| n.is_named() && n.kind() == kind)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::ingest::code::parse;
    use crate::ingest::code::test_support::*;

    #[test]
    fn deeply_nested_input_does_not_overflow_the_stack() {
        let n = 100_000;
        let src = format!("x = {}1 +* 2{}\n", "[".repeat(n), "]".repeat(n));
        let doc = parse(Path::new("deep.py"), src.as_bytes(), &ctx(&config(1024))).unwrap();
        assert!(doc.chunks.iter().all(|c| c.token_count <= 1024));
        let src = format!("type T {}int\n", "*[]".repeat(n));
        let doc = parse(Path::new("deep.go"), src.as_bytes(), &ctx(&config(1024))).unwrap();
        assert_eq!(meta(&doc.chunks[0], "symbol_name"), "T");
    }
}
