//! Rust definitions: functions, structs, enums, unions, type aliases,
//! modules, macros, and impls and traits with their functions (filed
//! under the type: `Config.load`); doc comments and attributes stay with
//! the item below them.

use std::ops::Range;

use tree_sitter::Node;

use super::definitions::{Language, Walker};
use super::unit::{Scope, Sym};
use crate::document::SymbolKind;

pub(super) struct Rust;

impl Language for Rust {
    fn name(&self) -> &'static str {
        "rust"
    }

    fn grammar(&self) -> tree_sitter::Language {
        tree_sitter_rust::LANGUAGE.into()
    }

    fn is_definition(&self, kind: &str) -> bool {
        matches!(
            kind,
            "function_item"
                | "function_signature_item"
                | "struct_item"
                | "enum_item"
                | "union_item"
                | "type_item"
                | "trait_item"
                | "impl_item"
                | "mod_item"
                | "macro_definition"
        )
    }

    fn is_comment(&self, kind: &str) -> bool {
        matches!(kind, "line_comment" | "block_comment" | "attribute_item")
    }

    fn definition<'a>(
        &self,
        walker: &mut Walker<'a>,
        range: Range<usize>,
        node: Node<'a>,
        _scope: Option<&Scope>,
    ) {
        walker.rust_def(range, node);
    }
}

impl<'a> Walker<'a> {
    fn rust_def(&mut self, range: Range<usize>, node: Node<'a>) {
        let text_of = |f: &str| node.child_by_field_name(f).map(|n| self.text(n));
        let (name, kind, label) = match node.kind() {
            "impl_item" => {
                let ty = node
                    .child_by_field_name("type")
                    .map(|t| self.type_name(t))
                    .unwrap_or_else(|| "<anonymous>".into());
                let label = match node.child_by_field_name("trait") {
                    Some(t) => format!("impl {} for {ty}", self.type_name(t)),
                    None => format!("impl {ty}"),
                };
                (ty, SymbolKind::Class, label)
            }
            kind => {
                let name = text_of("name").unwrap_or("<anonymous>").to_string();
                let (sk, keyword) = match kind {
                    "function_item" | "function_signature_item" => (SymbolKind::Function, "fn"),
                    "struct_item" => (SymbolKind::Type, "struct"),
                    "enum_item" => (SymbolKind::Type, "enum"),
                    "union_item" => (SymbolKind::Type, "union"),
                    "type_item" => (SymbolKind::Type, "type"),
                    "trait_item" => (SymbolKind::Class, "trait"),
                    "mod_item" => (SymbolKind::Module, "mod"),
                    _ => (SymbolKind::Function, "macro_rules!"),
                };
                let label = format!("{keyword} {name}");
                (name, sk, label)
            }
        };
        // An impl block is not the type it is for: its heading says which
        // it is (`impl Config`, `impl fmt::Display for Config`), so
        // `kb show --section` and the outline tell it from `struct Config`.
        let heading = if node.kind() == "impl_item" {
            &label
        } else {
            &name
        };
        self.heading(1, heading, range.start);
        let sym = Sym {
            name,
            kind,
            label,
            class_name: None,
            receiver: None,
            context: None,
            continuation: self.signature(node),
        };
        let body = node.child_by_field_name("body");
        if matches!(node.kind(), "impl_item" | "trait_item") {
            return self.container_def(range, node, sym, body, &|w, n| {
                let name = w.text(n.child_by_field_name("name")?).to_string();
                Some((name.clone(), format!("fn {name}")))
            });
        }
        self.push_def(range, node, sym, body);
    }

    /// `Wrapper` for `Wrapper<T>`, `fmt::Display` for itself, `&'a Foo`
    /// for `Foo`.
    fn type_name(&self, t: Node) -> String {
        let mut t = t;
        while let Some(inner) = t.child_by_field_name("type") {
            t = inner;
        }
        self.text(t).to_string()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::ingest::code::parse;
    use crate::ingest::code::test_support::*;

    const RS: &str = r#"//! Configuration for the server.
use std::fmt;

/// Where the server listens.
#[derive(Debug, Clone)]
pub struct Config {
    pub port: u16,
    pub host: String,
}

impl Config {
    /// The default configuration on port 8080.
    pub fn new() -> Config {
        Config { port: 8080, host: "localhost".into() }
    }

    pub fn address(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.address())
    }
}

pub trait Validate {
    fn validate(&self) -> Result<(), String>;
}

pub enum Mode {
    Dev,
    Prod,
}

const LIMIT: usize = 10;

fn main() {
    println!("{}", Config::new());
}
"#;

    #[test]
    fn rust_items_impls_and_traits() {
        let doc = parse(Path::new("config.rs"), RS.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(RS, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("rust"));
        assert_eq!(
            sections(&doc),
            [
                "module config",
                "struct Config",
                "impl Config",
                "impl fmt::Display for Config",
                "trait Validate",
                "enum Mode",
                "module config",
                "fn main"
            ]
        );
        let st = by_symbol(&doc, "Config");
        assert!(st[0]
            .text
            .starts_with("/// Where the server listens.\n#[derive"));
        assert_eq!(meta(st[0], "symbol_kind"), "type");
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str()))
            .collect();
        assert_eq!(
            hs,
            [
                (1, "Config"),
                (1, "impl Config"),
                (2, "Config.new"),
                (2, "Config.address"),
                (1, "impl fmt::Display for Config"),
                (2, "Config.fmt"),
                (1, "Validate"),
                (2, "Validate.validate"),
                (1, "Mode"),
                (1, "main")
            ]
        );
    }

    #[test]
    fn a_large_impl_splits_into_its_functions() {
        let doc = parse(Path::new("config.rs"), RS.as_bytes(), &ctx(&config(30))).unwrap();
        check_invariants(RS, &doc, 30);
        let new = by_symbol(&doc, "Config.new")[0];
        assert_eq!(meta(new, "symbol_kind"), "method");
        assert_eq!(new.meta.section.as_deref(), Some("impl Config > fn new"));
        assert!(new.text.contains("/// The default configuration"));
        assert_eq!(new.context.as_deref(), Some("impl Config {"));
    }
}
