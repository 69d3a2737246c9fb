//! Go definitions: functions, methods (filed under their receiver's type)
//! and type declarations; module-level code is filed under the package.

use std::ops::Range;

use tree_sitter::Node;

use super::definitions::{first_of_kind, Language, Walker};
use super::unit::{Scope, Sym};
use crate::document::SymbolKind;

pub(super) struct Go;

impl Language for Go {
    fn name(&self) -> &'static str {
        "go"
    }

    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_go::LANGUAGE.into()
    }

    fn is_definition(&self, kind: &str) -> bool {
        matches!(
            kind,
            "function_declaration" | "method_declaration" | "type_declaration"
        )
    }

    fn definition<'a>(
        &self,
        walker: &mut Walker<'a>,
        range: Range<usize>,
        node: Node<'a>,
        _scope: Option<&Scope>,
    ) {
        walker.go_def(range, node);
    }

    /// Module-level code is filed under the package.
    fn module_name(&self, root: Node, text: &str) -> Option<String> {
        let mut cur = root.walk();
        let package = root
            .named_children(&mut cur)
            .find(|n| n.kind() == "package_clause")?;
        package
            .named_child(0)
            .map(|id| text[id.byte_range()].to_string())
    }

    fn module_label(&self, module: &str) -> String {
        format!("package {module}")
    }
}

impl<'a> Walker<'a> {
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
                    kind: SymbolKind::Method,
                    label: format!("func {recv_text} {name}"),
                    class_name: None,
                    receiver: Some(recv_type),
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
                    kind: SymbolKind::Type,
                    class_name: None,
                    receiver: None,
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
                    kind: SymbolKind::Function,
                    class_name: None,
                    receiver: None,
                    context: None,
                    continuation,
                };
                (sym, node.child_by_field_name("body"))
            }
        };
        self.push_def(range, node, sym, body);
    }
}

/// Collapses runs of whitespace to one space.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::ingest::code::parse;
    use crate::ingest::code::test_support::*;

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
        assert_eq!(
            sections(&doc),
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
            .meta
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
}
