//! Source code: Python, Bash and Go parsed with tree-sitter into one chunk
//! per definition (function, class, method, type), with the comment block
//! right above a definition kept with it, and the code between definitions
//! packed into windows. Definitions over the size limit split at statement
//! boundaries. Files in other languages, or with `chunking.code.strategy:
//! fixed`, are cut into overlapping line windows.
//!
//! Every chunk covers a contiguous byte range of the file and the ranges
//! tile the file, so no code is lost between definitions.

use std::ops::Range;
use std::path::Path;

use serde_json::{Map, Value};
use tree_sitter::{Node, Parser, Tree};

use super::split::line_windows;
use super::{decode_text, detect, file_title, Chunk, ChunkContext, Heading, ParsedDocument};
use crate::config::CodeStrategy;

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, String> {
    let mut doc = ParsedDocument::default();
    let text = decode_text(bytes, &mut doc.warnings)?;
    doc.title = file_title(path);
    let head = &bytes[..bytes.len().min(detect::SNIFF_BYTES)];
    let lang = detect::code_language(path, head).and_then(Lang::from_name);
    doc.language = lang.map(|l| l.name().to_string());

    let cfg = &ctx.config.code;
    let max = ctx.cap(cfg.max_tokens).max(1);
    let tree = lang.and_then(|l| parse_tree(l, &text));
    let module = module_name(path, lang, tree.as_ref(), &text);
    let mut chunker = Chunker::new(&text, ctx, max, lang, module);
    match (lang, &tree) {
        (Some(lang), Some(tree)) => {
            let mut b = Builder::new(&text, lang, &chunker, cfg.include_context);
            b.collect_root(tree.root_node());
            doc.headings = std::mem::take(&mut b.headings);
            if let Some(line) = first_error_line(tree.root_node()) {
                doc.warnings.push(format!(
                    "syntax error near line {line}; code the parser could not read is indexed as top-level code"
                ));
            }
            if cfg.strategy == CodeStrategy::Ast {
                let (units, owners) = b.finish();
                chunker.emit_units(units, &owners);
            } else {
                chunker.fixed(ctx.overlap(max));
            }
        }
        _ => chunker.fixed(ctx.overlap(max)),
    }
    doc.chunks = chunker.finish();
    doc.content = text;
    if doc.chunks.is_empty() {
        return Err("no code to index".into());
    }
    Ok(doc)
}

/// The languages kb parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    Bash,
    Go,
}

impl Lang {
    fn from_name(name: &str) -> Option<Lang> {
        match name {
            "python" => Some(Lang::Python),
            "bash" => Some(Lang::Bash),
            "go" => Some(Lang::Go),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Bash => "bash",
            Lang::Go => "go",
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Bash => tree_sitter_bash::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }

    /// Node kinds that are definitions at the top level.
    fn is_definition(self, kind: &str) -> bool {
        match self {
            Lang::Python => matches!(
                kind,
                "function_definition" | "class_definition" | "decorated_definition"
            ),
            Lang::Bash => kind == "function_definition",
            Lang::Go => matches!(
                kind,
                "function_declaration" | "method_declaration" | "type_declaration"
            ),
        }
    }
}

/// `None` only when tree-sitter gives up entirely (it recovers from syntax
/// errors, so in practice never); the caller then falls back to windows.
fn parse_tree(lang: Lang, text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.parse(text, None)
}

/// The name module-level code is filed under: the Go package, else the
/// file name without its extension.
fn module_name(path: &Path, lang: Option<Lang>, tree: Option<&Tree>, text: &str) -> String {
    if let (Some(Lang::Go), Some(tree)) = (lang, tree) {
        let root = tree.root_node();
        let mut cur = root.walk();
        for n in root.named_children(&mut cur) {
            if n.kind() == "package_clause" {
                if let Some(id) = n.named_child(0) {
                    return text[id.byte_range()].to_string();
                }
            }
        }
    }
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file_title(path))
}

/// What a chunk is about: the metadata every chunk of it carries.
#[derive(Debug, Clone)]
struct Sym {
    name: String,
    /// function | method | class | type | module
    kind: &'static str,
    /// Readable label for `Chunk.section`, e.g. `class Foo > def bar`.
    label: String,
    /// Extra metadata (class_name, receiver).
    extra: Vec<(&'static str, String)>,
    /// Prepended to every chunk of the symbol (a method's class and its
    /// docstring) so it embeds with that context.
    context: Option<String>,
    /// Prepended to the parts after the first (the signature line).
    continuation: Option<String>,
}

/// A contiguous piece of the file, before sizing.
#[derive(Debug)]
enum Unit {
    /// Statements outside definitions; consecutive ones with the same owner
    /// (an index into the owners: 0 is the module, others large classes)
    /// pack into windows.
    Code { range: Range<usize>, owner: usize },
    /// A definition; `cuts` are the starts of its body statements, where it
    /// may be split when too large.
    Def {
        range: Range<usize>,
        sym: Sym,
        cuts: Vec<usize>,
    },
}

impl Unit {
    fn range_mut(&mut self) -> &mut Range<usize> {
        match self {
            Unit::Code { range, .. } | Unit::Def { range, .. } => range,
        }
    }
}

/// Byte offset → 0-based line.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { starts }
    }

    fn line_of(&self, byte: usize) -> usize {
        self.starts.partition_point(|s| *s <= byte) - 1
    }

    fn line_start(&self, byte: usize) -> usize {
        self.starts[self.line_of(byte)]
    }
}

/// A sibling node of a definition list, after comments are attached.
struct Item<'t> {
    range: Range<usize>,
    node: Node<'t>,
    kind: ItemKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum ItemKind {
    Def,
    Comment,
    Other,
}

/// The context a Python class gives its methods.
#[derive(Clone)]
struct ClassCtx {
    path: String,
    label: String,
    header: Option<String>,
    depth: u8,
}

/// Walks the syntax tree into units (in file order) and headings.
struct Builder<'a> {
    src: &'a str,
    lang: Lang,
    lines: &'a Lines,
    tokens: &'a crate::embed::TokenCounter,
    max: usize,
    include_context: bool,
    owners: Vec<Sym>,
    units: Vec<Unit>,
    headings: Vec<Heading>,
}

impl<'a> Builder<'a> {
    fn new(src: &'a str, lang: Lang, c: &'a Chunker, include_context: bool) -> Builder<'a> {
        Builder {
            src,
            lang,
            lines: &c.lines,
            tokens: c.ctx.tokens,
            max: c.max,
            include_context,
            owners: vec![c.module.clone()],
            units: Vec::new(),
            headings: Vec::new(),
        }
    }

    fn text(&self, n: Node) -> &'a str {
        &self.src[n.byte_range()]
    }

    fn count(&self, s: &str) -> usize {
        self.tokens.count(s)
    }

    fn heading(&mut self, level: u8, text: &str, start: usize) {
        self.headings.push(Heading {
            level: level.min(6),
            text: text.to_string(),
            line: self.lines.line_of(start) + 1,
        });
    }

    fn collect_root(&mut self, root: Node<'a>) {
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
    fn items(&self, nodes: Vec<Node<'a>>) -> Vec<Item<'a>> {
        let mut items: Vec<Item> = Vec::new();
        for n in nodes {
            let kind = if n.kind() == "comment" {
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

    fn last_line(&self, r: &Range<usize>) -> usize {
        self.lines.line_of(r.end.saturating_sub(1).max(r.start))
    }

    /// The starts of a body's statements (a comment block right above a
    /// statement goes with it): the places a large definition may split.
    fn cuts(&self, body: Option<Node<'a>>) -> Vec<usize> {
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
                p.kind() == "comment"
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
    fn signature(&self, n: Node) -> Option<String> {
        if !self.include_context {
            return None;
        }
        let start = self.lines.line_start(n.start_byte());
        let line = self.src[start..].lines().next()?.trim_end();
        (!line.trim().is_empty()).then(|| line.to_string())
    }

    fn definition(&mut self, range: Range<usize>, node: Node<'a>, class: Option<&ClassCtx>) {
        match self.lang {
            Lang::Python => self.python_def(range, node, class),
            Lang::Bash => self.bash_def(range, node),
            Lang::Go => self.go_def(range, node),
        }
    }

    /// `node` is the definition itself, after the comments attached above.
    fn push_def(&mut self, range: Range<usize>, node: Node, sym: Sym, body: Option<Node<'a>>) {
        // A long doc comment may part from the signature before statements do.
        let mut cuts = vec![node.start_byte()];
        cuts.extend(self.cuts(body));
        self.units.push(Unit::Def { range, sym, cuts });
    }

    fn python_def(&mut self, range: Range<usize>, node: Node<'a>, class: Option<&ClassCtx>) {
        let inner = if node.kind() == "decorated_definition" {
            node.child_by_field_name("definition")
        } else {
            Some(node)
        };
        let Some(inner) = inner else {
            return self.units.push(Unit::Code { range, owner: 0 });
        };
        let name = inner
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_else(|| "<anonymous>".into());
        let (path, label_prefix, depth) = match class {
            Some(c) => (
                format!("{}.{name}", c.path),
                format!("{} > ", c.label),
                c.depth,
            ),
            None => (name.clone(), String::new(), 0),
        };
        self.heading(depth + 1, &path, range.start);
        let body = inner.child_by_field_name("body");
        let context = class.and_then(|c| c.header.clone());
        if inner.kind() == "function_definition" {
            let keyword = if self.text(inner).starts_with("async") {
                "async def"
            } else {
                "def"
            };
            let mut extra = Vec::new();
            if let Some(c) = class {
                extra.push(("class_name", c.path.clone()));
            }
            let sym = Sym {
                name: path,
                kind: if class.is_some() {
                    "method"
                } else {
                    "function"
                },
                label: format!("{label_prefix}{keyword} {name}"),
                extra,
                context,
                continuation: self.signature(inner),
            };
            return self.push_def(range, node, sym, body);
        }
        // A class: whole when it fits, else its header, docstring and
        // class-level statements are one symbol and each method another.
        let mut extra = Vec::new();
        if let Some(c) = class {
            extra.push(("class_name", c.path.clone()));
        }
        let header = self.python_class_header(inner, body);
        let sym = Sym {
            name: path.clone(),
            kind: "class",
            label: format!("{label_prefix}class {name}"),
            extra,
            context,
            continuation: self.signature(inner),
        };
        let ctx = ClassCtx {
            path,
            label: sym.label.clone(),
            header: header.filter(|_| self.include_context),
            depth: depth + 1,
        };
        let Some(body) = body else {
            return self.push_def(range, node, sym, None);
        };
        let mut cur = body.walk();
        let mut children: Vec<Node> = body.named_children(&mut cur).collect();
        let docstring = children.first().copied().filter(|n| is_docstring(*n));
        if docstring.is_some() {
            children.remove(0);
        }
        let mut whole = sym.context.clone().unwrap_or_default();
        whole.push_str(&self.src[range.clone()]);
        let fits = self.count(&whole) <= self.max;
        let first_unit = self.units.len();
        let owner = self.owners.len();
        self.owners.push(sym.clone());
        let header_end = match docstring {
            Some(d) => d.end_byte(),
            None => children.first().map_or(range.end, |c| c.start_byte()),
        };
        self.units.push(Unit::Code {
            range: range.start..header_end,
            owner,
        });
        for item in self.items(children) {
            match item.kind {
                ItemKind::Def => self.python_def(item.range, item.node, Some(&ctx)),
                _ => self.units.push(Unit::Code {
                    range: item.range,
                    owner,
                }),
            }
        }
        if fits {
            // Keep the headings the walk added, but chunk the class whole.
            self.units.truncate(first_unit);
            self.owners.truncate(owner);
            self.push_def(range, node, sym, Some(body));
        }
    }

    /// `class Foo(Base):` and its docstring, as context for its methods;
    /// shortened to the docstring's first line, then the class line alone,
    /// to stay within a quarter of the chunk size.
    fn python_class_header(&self, class: Node, body: Option<Node>) -> Option<String> {
        let start = self.lines.line_start(class.start_byte());
        let colon_end = {
            let mut cur = class.walk();
            let colon = class.children(&mut cur).find(|c| c.kind() == ":");
            colon.map_or(class.end_byte(), |c| c.end_byte())
        };
        let line = self.src[start..colon_end].trim_end().to_string();
        let budget = self.max / 4;
        let doc = body
            .and_then(|b| b.named_child(0))
            .filter(|n| is_docstring(*n));
        if let Some(d) = doc {
            let full = format!(
                "{line}\n{}",
                &self.src[self.lines.line_start(d.start_byte())..d.end_byte()]
            );
            if self.count(&full) <= budget {
                return Some(full);
            }
            let indent = &self.src[self.lines.line_start(d.start_byte())..d.start_byte()];
            let first = self
                .text(d)
                .trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace())
                .lines()
                .next()
                .unwrap_or("")
                .trim();
            let short = format!("{line}\n{indent}\"\"\"{first}\"\"\"");
            if !first.is_empty() && self.count(&short) <= budget {
                return Some(short);
            }
        }
        (self.count(&line) <= budget).then_some(line)
    }

    fn bash_def(&mut self, range: Range<usize>, node: Node<'a>) {
        let name = node
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string())
            .unwrap_or_else(|| "<anonymous>".into());
        self.heading(1, &name, range.start);
        let sym = Sym {
            label: format!("function {name}"),
            name,
            kind: "function",
            extra: Vec::new(),
            context: None,
            continuation: self.signature(node),
        };
        self.push_def(range, node, sym, node.child_by_field_name("body"));
    }

    fn go_def(&mut self, range: Range<usize>, node: Node<'a>) {
        let field = |f: &str| {
            node.child_by_field_name(f)
                .map(|n| self.text(n).to_string())
        };
        let name = field("name").unwrap_or_else(|| "<anonymous>".into());
        let continuation = self.signature(node);
        let (sym, body) = match node.kind() {
            "method_declaration" => {
                let receiver = node.child_by_field_name("receiver");
                let recv_type = receiver
                    .and_then(|r| first_of_kind(r, "type_identifier"))
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let recv_text = receiver.map(|r| squash(self.text(r))).unwrap_or_default();
                let full = if recv_type.is_empty() {
                    name.clone()
                } else {
                    format!("{recv_type}.{name}")
                };
                self.heading(2, &full, range.start);
                let sym = Sym {
                    name: full,
                    kind: "method",
                    label: format!("func {recv_text} {name}"),
                    extra: vec![("receiver", recv_type)],
                    context: None,
                    continuation,
                };
                (sym, node.child_by_field_name("body"))
            }
            "type_declaration" => {
                let mut cur = node.walk();
                let specs: Vec<Node> = node
                    .named_children(&mut cur)
                    .filter(|n| n.kind() == "type_spec" || n.kind() == "type_alias")
                    .collect();
                let names: Vec<String> = specs
                    .iter()
                    .filter_map(|s| s.child_by_field_name("name"))
                    .map(|n| self.text(n).to_string())
                    .collect();
                let joined = if names.is_empty() {
                    "<anonymous>".to_string()
                } else {
                    names.join(", ")
                };
                self.heading(1, &joined, range.start);
                // A group splits between its specs; a single struct or
                // interface between its fields.
                let body = if specs.len() == 1 {
                    specs[0]
                        .child_by_field_name("type")
                        .and_then(|t| first_of_kind(t, "field_declaration_list").or(Some(t)))
                } else {
                    Some(node)
                };
                let sym = Sym {
                    label: format!("type {joined}"),
                    name: joined,
                    kind: "type",
                    extra: Vec::new(),
                    context: None,
                    continuation,
                };
                (sym, body)
            }
            _ => {
                self.heading(1, &name, range.start);
                let sym = Sym {
                    label: format!("func {name}"),
                    name,
                    kind: "function",
                    extra: Vec::new(),
                    context: None,
                    continuation,
                };
                (sym, node.child_by_field_name("body"))
            }
        };
        self.push_def(range, node, sym, body);
    }

    /// The units, made to tile the file: each starts at the beginning of
    /// its line (so indentation is kept) unless the previous one ends on
    /// that line, and anything between units that is not whitespace (never
    /// expected) becomes module-level code.
    fn finish(self) -> (Vec<Unit>, Vec<Sym>) {
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
fn first_error_line(root: Node) -> Option<usize> {
    if !root.has_error() {
        return None;
    }
    let n = find_node(root, |n| n.has_error(), |n| n.is_error() || n.is_missing());
    Some(n.unwrap_or(root).start_position().row + 1)
}

fn is_docstring(n: Node) -> bool {
    n.kind() == "expression_statement"
        && n.named_child_count() == 1
        && n.named_child(0).is_some_and(|s| s.kind() == "string")
}

/// The first node of `kind` in a depth-first walk.
fn first_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    find_node(node, |_| true, |n| n.is_named() && n.kind() == kind)
}

/// Collapses runs of whitespace to one space.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A chunk on its way out, with the group whose parts get numbered.
struct Out {
    chunk: Chunk,
    group: Option<usize>,
}

/// Sizes units into chunks.
struct Chunker<'a> {
    src: &'a str,
    ctx: &'a ChunkContext<'a>,
    max: usize,
    lang: Option<Lang>,
    lines: Lines,
    module: Sym,
    out: Vec<Out>,
    groups: usize,
    /// Groups that have a chunk already.
    filled: std::collections::HashSet<usize>,
}

impl<'a> Chunker<'a> {
    fn new(
        src: &'a str,
        ctx: &'a ChunkContext<'a>,
        max: usize,
        lang: Option<Lang>,
        module: String,
    ) -> Chunker<'a> {
        let label = match lang {
            Some(Lang::Go) => format!("package {module}"),
            Some(Lang::Bash) => format!("script {module}"),
            _ => format!("module {module}"),
        };
        Chunker {
            src,
            ctx,
            max,
            lang,
            lines: Lines::new(src),
            module: Sym {
                name: module,
                kind: "module",
                label,
                extra: Vec::new(),
                context: None,
                continuation: None,
            },
            out: Vec::new(),
            groups: 0,
            filled: Default::default(),
        }
    }

    fn count(&self, s: &str) -> usize {
        self.ctx.tokens.count(s)
    }

    fn new_group(&mut self) -> usize {
        self.groups += 1;
        self.groups
    }

    /// The no-AST fallback: overlapping line windows over the whole file.
    fn fixed(&mut self, overlap: usize) {
        let module = self.module.clone();
        for w in line_windows(self.src, self.max, overlap, self.ctx.tokens) {
            self.push(&module, w.text, w.tokens, w.first_line, w.last_line, None);
        }
    }

    fn emit_units(&mut self, units: Vec<Unit>, owners: &[Sym]) {
        let owner_groups: Vec<Option<usize>> = (0..owners.len())
            .map(|i| (i > 0).then(|| self.new_group()))
            .collect();
        let mut run: Vec<Range<usize>> = Vec::new();
        let mut run_owner = 0;
        for u in units {
            match u {
                Unit::Code { range, owner } => {
                    if owner != run_owner && !run.is_empty() {
                        self.emit_run(&run, &owners[run_owner], owner_groups[run_owner]);
                        run.clear();
                    }
                    run_owner = owner;
                    run.push(range);
                }
                Unit::Def { range, sym, cuts } => {
                    if !run.is_empty() {
                        self.emit_run(&run, &owners[run_owner], owner_groups[run_owner]);
                        run.clear();
                    }
                    self.emit_def(range, &sym, &cuts);
                }
            }
        }
        if !run.is_empty() {
            self.emit_run(&run, &owners[run_owner], owner_groups[run_owner]);
        }
    }

    /// The header a piece of `sym` starts with: its context always, its
    /// signature line on parts after the first. Dropped when it would leave
    /// less than half the chunk for code.
    fn header(&self, sym: &Sym, later_part: bool) -> Option<String> {
        let parts: Vec<&str> = [
            sym.context.as_deref(),
            sym.continuation.as_deref().filter(|_| later_part),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            return None;
        }
        let h = parts.join("\n");
        if self.count(&h) <= self.max / 2 {
            Some(h)
        } else {
            sym.context
                .clone()
                .filter(|c| self.count(c) <= self.max / 2)
        }
    }

    fn budget(&self, header: &Option<String>) -> usize {
        let h = header.as_deref().map_or(0, |h| self.count(h));
        self.max.saturating_sub(h).max(1)
    }

    /// Whether the group already has a chunk (so the next one is a later part).
    fn has_parts(&self, group: Option<usize>) -> bool {
        group.is_some_and(|g| self.filled.contains(&g))
    }

    /// Packs consecutive code statements into windows within the limit.
    fn emit_run(&mut self, atoms: &[Range<usize>], owner: &Sym, group: Option<usize>) {
        let mut start = atoms[0].start;
        let mut budget = self.budget(&self.header(owner, self.has_parts(group)));
        let mut n = 0;
        for a in atoms {
            let an = self.count(&self.src[a.clone()]);
            if n > 0 && n + an > budget {
                self.piece(owner, start..a.start, group);
                start = a.start;
                n = 0;
                budget = self.budget(&self.header(owner, self.has_parts(group)));
            }
            n += an;
        }
        let end = atoms[atoms.len() - 1].end;
        self.piece(owner, start..end, group);
    }

    /// One chunk for a definition that fits, else parts cut at statement
    /// starts, packed greedily.
    fn emit_def(&mut self, range: Range<usize>, sym: &Sym, cuts: &[usize]) {
        let group = Some(self.new_group());
        let first = self.header(sym, false);
        let mut whole = first.clone().unwrap_or_default();
        whole.push_str(&self.src[range.clone()]);
        if self.count(&whole) <= self.max {
            self.piece(sym, range, group);
            return;
        }
        let mut bounds = vec![range.start];
        for &c in cuts {
            let c = self.lines.line_start(c);
            if c > *bounds.last().unwrap_or(&0) && c < range.end {
                bounds.push(c);
            }
        }
        let later = self.header(sym, true);
        let mut start = range.start;
        let mut n = 0;
        for (i, &b) in bounds.iter().enumerate() {
            let end = bounds.get(i + 1).copied().unwrap_or(range.end);
            let sn = self.count(&self.src[b..end]);
            let budget = self.budget(if start == range.start { &first } else { &later });
            if n > 0 && n + sn > budget {
                self.piece(sym, start..b, group);
                start = b;
                n = 0;
            }
            n += sn;
        }
        self.piece(sym, start..range.end, group);
    }

    /// Emits the source in `range` (blank edges trimmed, indentation kept)
    /// under `sym`, with its header; falls back to line windows when it is
    /// still over the limit (a single huge statement).
    fn piece(&mut self, sym: &Sym, range: Range<usize>, group: Option<usize>) {
        let text = &self.src[range.clone()];
        let Some(first) = text.find(|c: char| !c.is_whitespace()) else {
            return;
        };
        let last = text.trim_end().len();
        let begin = self.lines.line_start(range.start + first).max(range.start);
        let body = &self.src[begin..range.start + last];
        let first_line = self.lines.line_of(begin);
        // A later part that starts at the signature needs no copy of it.
        let at_signature = sym
            .continuation
            .as_deref()
            .is_some_and(|c| body.trim_start().starts_with(c.trim()));
        let header = self.header(sym, self.has_parts(group) && !at_signature);
        let with_header = |t: &str| match &header {
            Some(h) => format!("{h}\n{t}"),
            None => t.to_string(),
        };
        let full = with_header(body);
        let n = self.count(&full);
        if n <= self.max {
            let last_line = self.lines.line_of(range.start + last - 1);
            self.push(sym, full, n, first_line, last_line, group);
            return;
        }
        let budget = self.budget(&header);
        for w in line_windows(body, budget, 0, self.ctx.tokens) {
            let text = with_header(&w.text);
            let n = self.count(&text);
            self.push(
                sym,
                text,
                n,
                first_line + w.first_line,
                first_line + w.last_line,
                group,
            );
        }
    }

    fn push(
        &mut self,
        sym: &Sym,
        text: String,
        tokens: usize,
        first_line: usize,
        last_line: usize,
        group: Option<usize>,
    ) {
        let mut extra = Map::new();
        if let Some(l) = self.lang {
            extra.insert("language".into(), Value::from(l.name()));
        }
        extra.insert("symbol_name".into(), Value::from(sym.name.clone()));
        extra.insert("symbol_kind".into(), Value::from(sym.kind));
        extra.insert("line_start".into(), Value::from(first_line + 1));
        extra.insert("line_end".into(), Value::from(last_line + 1));
        for (k, v) in &sym.extra {
            extra.insert((*k).into(), Value::from(v.clone()));
        }
        let section = (!sym.label.is_empty()).then(|| sym.label.clone());
        let mut chunk = Chunk::new(text, tokens, section);
        chunk.extra = extra;
        if let Some(g) = group {
            self.filled.insert(g);
        }
        self.out.push(Out { chunk, group });
    }

    /// The chunks, with `part` numbers on definitions that were split.
    fn finish(self) -> Vec<Chunk> {
        let mut sizes = std::collections::HashMap::new();
        for o in &self.out {
            if let Some(g) = o.group {
                *sizes.entry(g).or_insert(0usize) += 1;
            }
        }
        let mut seen = std::collections::HashMap::new();
        self.out
            .into_iter()
            .map(|mut o| {
                if let Some(g) = o.group.filter(|g| sizes[g] > 1) {
                    let part = seen.entry(g).or_insert(0usize);
                    *part += 1;
                    o.chunk.extra.insert("part".into(), Value::from(*part));
                }
                o.chunk
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkingConfig;
    use crate::embed::TokenCounter;

    use crate::ingest::test_support::ctx;
    fn config(max: usize) -> ChunkingConfig {
        let mut c = ChunkingConfig::default();
        c.code.max_tokens = max;
        c
    }

    fn meta<'c>(c: &'c Chunk, key: &str) -> &'c Value {
        c.extra.get(key).unwrap_or(&Value::Null)
    }

    fn by_symbol<'d>(doc: &'d ParsedDocument, name: &str) -> Vec<&'d Chunk> {
        doc.chunks
            .iter()
            .filter(|c| meta(c, "symbol_name") == name)
            .collect()
    }

    /// The invariants every code document keeps: no empty chunk, none over
    /// the limit, every chunk with its metadata, and every non-blank line of
    /// the file inside a chunk whose line range holds it.
    fn check_invariants(src: &str, doc: &ParsedDocument, max: usize) {
        assert!(!doc.chunks.is_empty());
        for c in &doc.chunks {
            assert!(!c.text.trim().is_empty(), "empty chunk");
            assert!(
                c.token_count <= max,
                "{} > {max}: {}",
                c.token_count,
                c.text
            );
            assert_eq!(c.token_count, TokenCounter::Whitespace.count(&c.text));
            for key in ["symbol_name", "symbol_kind", "line_start", "line_end"] {
                assert!(c.extra.contains_key(key), "{key} missing: {:?}", c.extra);
            }
            assert!(c.section.is_some());
        }
        for (i, line) in src.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() {
                continue;
            }
            let n = (i + 1) as u64;
            let found = doc.chunks.iter().any(|c| {
                meta(c, "line_start").as_u64().unwrap() <= n
                    && n <= meta(c, "line_end").as_u64().unwrap()
                    && c.text.contains(t)
            });
            assert!(found, "line {n} lost: {line:?}");
        }
    }

    const PY: &str = r#"#!/usr/bin/env python3
"""Inventory tool: loads stock levels and reports shortages."""
import json
import os
from pathlib import Path

DEFAULT_PATH = Path("~/stock.json")
THRESHOLD = 5


# Reads the file the warehouse exports every night.
@cache
def load_stock(path=DEFAULT_PATH):
    """Return the stock levels as a dict of item -> count."""
    def expand(p):
        return os.path.expanduser(str(p))
    with open(expand(path)) as f:
        return json.load(f)


LOG = []


class Report(Base):
    """A shortage report for one warehouse, rendered as text."""

    title = "Shortages"
    width = 40

    def __init__(self, stock, threshold=THRESHOLD):
        self.stock = stock
        self.threshold = threshold

    @property
    def short_items(self):
        # Items below the threshold, fewest first.
        items = [k for k, v in self.stock.items() if v < self.threshold]
        return sorted(items, key=lambda k: self.stock[k])

    def render(self):
        lines = [self.title.center(self.width)]
        for item in self.short_items:
            lines.append(f"{item}: {self.stock[item]} left")
        return "\n".join(lines)


def main():
    report = Report(load_stock())
    print(report.render())
    LOG.append("rendered")


if __name__ == "__main__":
    main()
"#;

    #[test]
    fn python_definitions_are_chunks() {
        let c = config(1024);
        let doc = parse(Path::new("inventory.py"), PY.as_bytes(), &ctx(&c)).unwrap();
        check_invariants(PY, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("python"));
        assert_eq!(doc.title, "inventory.py");
        assert_eq!(doc.content, PY);
        let sections: Vec<_> = doc
            .chunks
            .iter()
            .map(|c| c.section.clone().unwrap())
            .collect();
        assert_eq!(
            sections,
            [
                "module inventory",
                "def load_stock",
                "module inventory",
                "class Report",
                "def main",
                "module inventory"
            ]
        );
        // Imports and constants merge into one window.
        assert!(doc.chunks[0].text.starts_with("#!/usr/bin/env python3"));
        assert!(doc.chunks[0].text.contains("THRESHOLD = 5"));
        assert_eq!(meta(&doc.chunks[0], "symbol_kind"), "module");
        assert_eq!(meta(&doc.chunks[0], "symbol_name"), "inventory");
        // The comment, decorator, docstring and nested function stay with
        // the function.
        let load = by_symbol(&doc, "load_stock");
        assert_eq!(load.len(), 1);
        let t = &load[0].text;
        assert!(t.starts_with("# Reads the file") && t.contains("@cache"));
        assert!(t.contains("def expand(p):") && t.contains("json.load(f)"));
        assert_eq!(meta(load[0], "symbol_kind"), "function");
        assert_eq!(meta(load[0], "language"), "python");
        assert_eq!(meta(load[0], "line_start"), 11);
        assert_eq!(meta(load[0], "line_end"), 18);
        // A class that fits is one chunk, methods included.
        let report = by_symbol(&doc, "Report");
        assert_eq!(report.len(), 1);
        assert!(report[0].text.contains("def render(self):"));
        assert_eq!(meta(report[0], "symbol_kind"), "class");
        // Headings: top-level definitions at level 1, methods at 2.
        let hs: Vec<_> = doc
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str(), h.line))
            .collect();
        assert_eq!(
            hs,
            [
                (1, "load_stock", 11),
                (1, "Report", 24),
                (2, "Report.__init__", 30),
                (2, "Report.short_items", 34),
                (2, "Report.render", 40),
                (1, "main", 47),
            ]
        );
        assert!(doc.warnings.is_empty());
    }

    #[test]
    fn large_class_splits_into_methods_with_class_context() {
        let c = config(60);
        let doc = parse(Path::new("inventory.py"), PY.as_bytes(), &ctx(&c)).unwrap();
        check_invariants(PY, &doc, 60);
        // The class chunk: header, docstring and class attributes, no methods.
        let class = by_symbol(&doc, "Report");
        assert_eq!(class.len(), 1, "{class:?}");
        let ct = &class[0].text;
        assert!(ct.starts_with("class Report(Base):") && ct.contains("width = 40"));
        assert!(!ct.contains("def "));
        assert_eq!(class[0].section.as_deref(), Some("class Report"));
        // Each method: its own chunk, labelled, with the class and its
        // docstring prepended and the class name recorded.
        let render = by_symbol(&doc, "Report.render");
        assert_eq!(render.len(), 1);
        let r = render[0];
        assert_eq!(r.section.as_deref(), Some("class Report > def render"));
        assert_eq!(meta(r, "symbol_kind"), "method");
        assert_eq!(meta(r, "class_name"), "Report");
        assert!(
            r.text.starts_with(
                "class Report(Base):\n    \"\"\"A shortage report for one warehouse, rendered as text.\"\"\"\n    def render(self):"
            ),
            "{}",
            r.text
        );
        assert_eq!(meta(r, "line_start"), 40);
        assert_eq!(meta(r, "line_end"), 44);
        // The decorator and the comment inside stay with their method.
        let short = by_symbol(&doc, "Report.short_items");
        assert!(short[0]
            .text
            .contains("    @property\n    def short_items(self):"));
        assert!(short[0].text.contains("# Items below the threshold"));
    }

    #[test]
    fn context_header_can_be_switched_off() {
        let mut c = config(60);
        c.code.include_context = false;
        let doc = parse(Path::new("inventory.py"), PY.as_bytes(), &ctx(&c)).unwrap();
        check_invariants(PY, &doc, 60);
        let r = by_symbol(&doc, "Report.render")[0];
        assert!(r.text.starts_with("    def render(self):"), "{}", r.text);
        assert_eq!(meta(r, "class_name"), "Report");
    }

    #[test]
    fn python_with_syntax_errors_still_indexes() {
        let src = "import sys\n\ndef ok():\n    return 1\n\ndef broken(:\n    x = = 2\n\nclass C:\n    def m(self):\n        pass\n\nprint(ok())\n";
        let doc = parse(Path::new("bad.py"), src.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(src, &doc, 1024);
        assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
        assert!(doc.warnings[0].contains("syntax error near line"));
        // What tree-sitter recovered is still a definition.
        let ok = by_symbol(&doc, "ok");
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].text, "def ok():\n    return 1");
    }

    const SH: &str = r#"#!/bin/bash
# Deploy script for the web app.
set -euo pipefail
APP_DIR=/srv/app
LOG=/var/log/deploy.log

# Copies the build to the server and restarts the service.
# Usage: deploy HOST
deploy() {
    local host="$1"
    rsync -a build/ "$host:$APP_DIR"
    ssh "$host" systemctl restart app
}

function cleanup {
    rm -rf build/
}

function rollback() { ssh "$1" "cd $APP_DIR && git checkout HEAD~1"; }

trap cleanup EXIT
for host in web1 web2; do
    deploy "$host" >>"$LOG"
done
"#;

    #[test]
    fn bash_functions_with_comments_and_top_level_windows() {
        let doc = parse(Path::new("deploy.sh"), SH.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(SH, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("bash"));
        let sections: Vec<_> = doc
            .chunks
            .iter()
            .map(|c| c.section.clone().unwrap())
            .collect();
        assert_eq!(
            sections,
            [
                "script deploy",
                "function deploy",
                "function cleanup",
                "function rollback",
                "script deploy"
            ]
        );
        // Top-level statements merge into one window.
        assert!(
            doc.chunks[0].text.starts_with("#!/bin/bash") && doc.chunks[0].text.contains("LOG=")
        );
        let d = by_symbol(&doc, "deploy");
        let d = d
            .iter()
            .find(|c| meta(c, "symbol_kind") == "function")
            .unwrap();
        assert!(d.text.starts_with("# Copies the build") && d.text.ends_with("restart app\n}"));
        assert_eq!(meta(d, "line_start"), 7);
        assert_eq!(meta(d, "line_end"), 13);
        assert_eq!(
            by_symbol(&doc, "cleanup")[0].text,
            "function cleanup {\n    rm -rf build/\n}"
        );
        assert_eq!(meta(by_symbol(&doc, "rollback")[0], "line_start"), 19);
        let last = doc.chunks.last().unwrap();
        assert!(last.text.starts_with("trap cleanup EXIT") && last.text.ends_with("done"));
        let names: Vec<_> = doc.headings.iter().map(|h| h.text.as_str()).collect();
        assert_eq!(names, ["deploy", "cleanup", "rollback"]);
    }

    const GO: &str = r#"// Package server runs the HTTP API.
package server

import (
	"fmt"
	"net/http"
)

// Server holds the listener settings.
// It is safe to copy.
type Server struct {
	Addr string
	mux  *http.ServeMux
}

type (
	Handler  func(http.ResponseWriter, *http.Request)
	Registry = map[string]Handler
)

// Start listens on the configured address.
func (s *Server) Start() error {
	fmt.Println("listening on", s.Addr)
	return http.ListenAndServe(s.Addr, s.mux)
}

func (s Server) String() string { return s.Addr }

// New returns a server for addr.
func New(addr string) *Server {
	return &Server{Addr: addr, mux: http.NewServeMux()}
}
"#;

    #[test]
    fn go_functions_methods_and_types() {
        let doc = parse(Path::new("server.go"), GO.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(GO, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("go"));
        let sections: Vec<_> = doc
            .chunks
            .iter()
            .map(|c| c.section.clone().unwrap())
            .collect();
        assert_eq!(
            sections,
            [
                "package server",
                "type Server",
                "type Handler, Registry",
                "func (s *Server) Start",
                "func (s Server) String",
                "func New"
            ]
        );
        let pkg = &doc.chunks[0];
        assert_eq!(meta(pkg, "symbol_name"), "server");
        assert!(pkg.text.contains("\"net/http\""));
        let ty = by_symbol(&doc, "Server");
        assert_eq!(meta(ty[0], "symbol_kind"), "type");
        assert!(
            ty[0].text.starts_with("// Server holds") && ty[0].text.contains("mux  *http.ServeMux")
        );
        assert_eq!(meta(ty[0], "line_start"), 9);
        let start = by_symbol(&doc, "Server.Start")[0];
        assert_eq!(meta(start, "symbol_kind"), "method");
        assert_eq!(meta(start, "receiver"), "Server");
        assert!(start.text.starts_with("// Start listens"));
        let string = by_symbol(&doc, "Server.String")[0];
        assert_eq!(meta(string, "receiver"), "Server");
        assert_eq!(meta(string, "line_start"), 27);
        assert_eq!(meta(string, "line_end"), 27);
        assert_eq!(meta(by_symbol(&doc, "New")[0], "symbol_kind"), "function");
        let hs: Vec<_> = doc
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str()))
            .collect();
        assert_eq!(
            hs,
            [
                (1, "Server"),
                (1, "Handler, Registry"),
                (2, "Server.Start"),
                (2, "Server.String"),
                (1, "New")
            ]
        );
    }

    #[test]
    fn oversized_function_splits_at_statements() {
        let mut src = String::from("def big(rows):\n    \"\"\"Sums rows.\"\"\"\n    total = 0\n");
        for i in 0..30 {
            src.push_str(&format!(
                "    if rows[{i}] > limit_{i}:\n        total += rows[{i}] * weight_{i}\n"
            ));
        }
        src.push_str("    return total\n");
        let max = 50;
        let doc = parse(Path::new("big.py"), src.as_bytes(), &ctx(&config(max))).unwrap();
        check_invariants(&src, &doc, max);
        assert!(doc.chunks.len() >= 4, "{}", doc.chunks.len());
        for (i, c) in doc.chunks.iter().enumerate() {
            assert_eq!(meta(c, "symbol_name"), "big");
            assert_eq!(meta(c, "part"), i + 1);
            assert_eq!(c.section.as_deref(), Some("def big"));
            // Whole statements: every `if` keeps its body.
            assert_eq!(
                c.text.matches("    if ").count(),
                c.text.matches("total +=").count()
            );
            if i > 0 {
                assert!(
                    c.text.starts_with("def big(rows):\n    if rows["),
                    "{}",
                    c.text
                );
            }
        }
        assert!(doc.chunks[0].text.contains("\"\"\"Sums rows.\"\"\""));
        // Line ranges tile the function.
        for pair in doc.chunks.windows(2) {
            let end = meta(&pair[0], "line_end").as_u64().unwrap();
            assert_eq!(meta(&pair[1], "line_start").as_u64().unwrap(), end + 1);
        }
    }

    #[test]
    fn one_statement_too_large_falls_back_to_lines() {
        let mut src = String::from("func table() []int {\n\treturn []int{\n");
        for i in 0..60 {
            src.push_str(&format!("\t\t{i}, {i}, {i},\n"));
        }
        src.push_str("\t}\n}\n");
        let max = 40;
        let doc = parse(Path::new("t.go"), src.as_bytes(), &ctx(&config(max))).unwrap();
        check_invariants(&src, &doc, max);
        assert!(doc.chunks.len() >= 5);
        assert!(doc.chunks.iter().all(|c| meta(c, "symbol_name") == "table"));
        // A single word-long line beyond the limit is cut by words.
        let long = format!("echo {}\n", vec!["x"; 100].join(" "));
        let doc = parse(Path::new("l.sh"), long.as_bytes(), &ctx(&config(max))).unwrap();
        assert!(doc.chunks.iter().all(|c| c.token_count <= max));
        assert_eq!(doc.chunks.iter().map(|c| c.token_count).sum::<usize>(), 101);
    }

    #[test]
    fn long_doc_comment_parts_from_the_signature() {
        // A doc comment longer than a chunk: it is cut by lines, and the
        // signature starts the next part with the statements.
        let mut src = String::new();
        for i in 0..12 {
            src.push_str(&format!("// Explains detail number {i} of the parser.\n"));
        }
        src.push_str("func Parse(input string) error {\n");
        for i in 0..6 {
            src.push_str(&format!("\tstep{i}(input)\n"));
        }
        src.push_str("\treturn nil\n}\n");
        let max = 80;
        let doc = parse(Path::new("p.go"), src.as_bytes(), &ctx(&config(max))).unwrap();
        check_invariants(&src, &doc, max);
        assert_eq!(doc.chunks.len(), 3, "{:#?}", doc.chunks);
        for c in &doc.chunks[..2] {
            assert!(c.text.lines().all(|l| l.starts_with("// ")), "{}", c.text);
        }
        let last = &doc.chunks[2].text;
        assert!(last.starts_with("func Parse(input string) error {\n\tstep0"));
        assert_eq!(last.matches("func Parse").count(), 1);
        assert_eq!(meta(&doc.chunks[2], "part"), 3);
    }

    #[test]
    fn comment_stays_with_the_statement_below() {
        let mut src = String::from("echo start\n\n# Retry the upload three times.\n");
        src.push_str("for i in 1 2 3; do\n");
        for i in 0..8 {
            src.push_str(&format!("    upload part{i} && break\n"));
        }
        src.push_str("done\n");
        let doc = parse(Path::new("u.sh"), src.as_bytes(), &ctx(&config(40))).unwrap();
        check_invariants(&src, &doc, 40);
        assert_eq!(doc.chunks[0].text, "echo start");
        assert!(doc.chunks[1]
            .text
            .starts_with("# Retry the upload three times.\nfor i in"));
    }

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

    #[test]
    fn model_limit_caps_chunks() {
        let c = config(1024);
        let cx = ChunkContext {
            model_max_tokens: Some(30),
            ..ctx(&c)
        };
        let doc = parse(Path::new("inventory.py"), PY.as_bytes(), &cx).unwrap();
        check_invariants(PY, &doc, 30);
    }

    #[test]
    fn fixed_strategy_and_unknown_language_use_line_windows() {
        let mut c = config(40);
        c.code.strategy = CodeStrategy::Fixed;
        c.defaults.overlap_tokens = 8;
        let doc = parse(Path::new("inventory.py"), PY.as_bytes(), &ctx(&c)).unwrap();
        check_invariants(PY, &doc, 40);
        assert!(doc.chunks.len() >= 4, "{:#?}", doc.chunks);
        assert!(doc
            .chunks
            .iter()
            .all(|c| meta(c, "symbol_kind") == "module"));
        assert_eq!(meta(&doc.chunks[0], "language"), "python");
        // Windows overlap where the lines fit the overlap (lines 12-13 here).
        assert!(doc.chunks.windows(2).any(|pair| {
            meta(&pair[1], "line_start").as_u64() <= meta(&pair[0], "line_end").as_u64()
        }));
        // The outline still lists the symbols.
        assert_eq!(doc.headings.len(), 6);

        let src = "#!/usr/bin/ruby\nputs 1\n\ndef x\n  2\nend\n";
        let doc = parse(Path::new("tool"), src.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(src, &doc, 1024);
        assert_eq!(doc.language, None);
        assert_eq!(doc.chunks.len(), 1);
        assert!(!doc.chunks[0].extra.contains_key("language"));
        assert_eq!(meta(&doc.chunks[0], "symbol_name"), "tool");
    }

    #[test]
    fn shebang_script_without_extension_is_parsed() {
        let src = "#!/usr/bin/env python3\nimport sys\n\ndef greet(name):\n    print(name)\n\ngreet(sys.argv[1])\n";
        let doc = parse(Path::new("bin/hello"), src.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(src, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("python"));
        assert_eq!(
            by_symbol(&doc, "greet")[0].section.as_deref(),
            Some("def greet")
        );
    }

    #[test]
    fn empty_binary_and_crlf() {
        let c = config(1024);
        assert!(parse(Path::new("e.py"), b"\n  \n", &ctx(&c)).is_err());
        assert!(parse(Path::new("b.py"), b"\x00\x01", &ctx(&c)).is_err());
        let doc = parse(Path::new("w.py"), b"def f():\r\n    return 1\r\n", &ctx(&c)).unwrap();
        assert_eq!(doc.chunks[0].text, "def f():\n    return 1");
    }
}
