//! Python definitions: functions, classes and methods (decorators and
//! docstrings kept with them). A class that fits is one chunk; a larger
//! one is its header, docstring and attributes, then each method with the
//! class line and docstring as context.

use std::ops::Range;

use tree_sitter::Node;

use super::definitions::{Language, Walker};
use super::unit::{ItemKind, Scope, Sym, Unit};
use crate::document::SymbolKind;

pub(super) struct Python;

impl Language for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_python::LANGUAGE.into()
    }

    fn is_definition(&self, kind: &str) -> bool {
        matches!(
            kind,
            "function_definition" | "class_definition" | "decorated_definition"
        )
    }

    /// A method's scope is its class (the context its chunks embed with).
    fn definition<'a>(
        &self,
        walker: &mut Walker<'a>,
        range: Range<usize>,
        node: Node<'a>,
        scope: Option<&Scope>,
    ) {
        walker.python_def(range, node, scope);
    }
}

impl<'a> Walker<'a> {
    fn python_def(&mut self, range: Range<usize>, node: Node<'a>, class: Option<&Scope>) {
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
            let sym = Sym {
                name: path,
                kind: if class.is_some() {
                    SymbolKind::Method
                } else {
                    SymbolKind::Function
                },
                label: format!("{label_prefix}{keyword} {name}"),
                class_name: class.map(|c| c.path.clone()),
                receiver: None,
                context,
                continuation: self.signature(inner),
            };
            return self.push_def(range, node, sym, body);
        }
        // A class: whole when it fits, else its header, docstring and
        // class-level statements are one symbol and each method another.
        let header = self.python_class_header(inner, body);
        let sym = Sym {
            name: path.clone(),
            kind: SymbolKind::Class,
            label: format!("{label_prefix}class {name}"),
            class_name: class.map(|c| c.path.clone()),
            receiver: None,
            context,
            continuation: self.signature(inner),
        };
        let ctx = Scope {
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
}

fn is_docstring(n: Node) -> bool {
    n.kind() == "expression_statement"
        && n.named_child_count() == 1
        && n.named_child(0).is_some_and(|s| s.kind() == "string")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::ingest::code::parse;
    use crate::ingest::code::test_support::*;

    #[test]
    fn python_definitions_are_chunks() {
        let c = config(1024);
        let doc = parse(Path::new("inventory.py"), PY.as_bytes(), &ctx(&c)).unwrap();
        check_invariants(PY, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("python"));
        assert_eq!(doc.title, "inventory.py");
        assert_eq!(doc.content, PY);
        assert_eq!(
            sections(&doc),
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
            .meta
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
        assert_eq!(class[0].meta.section.as_deref(), Some("class Report"));
        // Each method: its own chunk, labelled, with the class line and its
        // docstring as the context embedded before it (not in the quoted
        // text) and the class name recorded.
        let render = by_symbol(&doc, "Report.render");
        assert_eq!(render.len(), 1);
        let r = render[0];
        assert_eq!(r.meta.section.as_deref(), Some("class Report > def render"));
        assert_eq!(meta(r, "symbol_kind"), "method");
        assert_eq!(meta(r, "class_name"), "Report");
        assert_eq!(
            r.context.as_deref(),
            Some("class Report(Base):\n    \"\"\"A shortage report for one warehouse, rendered as text.\"\"\"")
        );
        assert!(r.text.starts_with("    def render(self):"), "{}", r.text);
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
}
