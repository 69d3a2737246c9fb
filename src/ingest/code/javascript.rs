//! JavaScript, TypeScript and TSX definitions (one syntax family, so one
//! file): functions (and `const f = () => ...`), classes with their
//! methods, TypeScript interfaces, type aliases, enums and namespaces;
//! `export` kept with what it exports.

use std::ops::Range;

use tree_sitter::Node;

use super::definitions::{Language, Walker};
use super::unit::{Scope, Sym};
use crate::document::SymbolKind;

/// One of the three grammars of the family.
pub(super) struct Ecma {
    name: &'static str,
    grammar: fn() -> tree_sitter::Language,
}

pub(super) const JAVASCRIPT: Ecma = Ecma {
    name: "javascript",
    grammar: || tree_sitter_javascript::LANGUAGE.into(),
};
pub(super) const TYPESCRIPT: Ecma = Ecma {
    name: "typescript",
    grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
};
pub(super) const TSX: Ecma = Ecma {
    name: "tsx",
    grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
};

impl Language for Ecma {
    fn name(&self) -> &'static str {
        self.name
    }

    fn grammar(&self) -> tree_sitter::Language {
        (self.grammar)()
    }

    fn is_definition(&self, kind: &str) -> bool {
        matches!(
            kind,
            "function_declaration"
                | "generator_function_declaration"
                | "function_signature"
                | "class_declaration"
                | "abstract_class_declaration"
                | "interface_declaration"
                | "type_alias_declaration"
                | "enum_declaration"
                | "internal_module"
                | "module"
                | "export_statement"
                | "lexical_declaration"
                | "variable_declaration"
                // Class members.
                | "method_definition"
                | "method_signature"
                | "abstract_method_signature"
        )
    }

    fn definition<'a>(
        &self,
        walker: &mut Walker<'a>,
        range: Range<usize>,
        node: Node<'a>,
        _scope: Option<&Scope>,
    ) {
        walker.ecma_def(range, node);
    }
}

/// What a top-level statement defines, once `export` is looked through.
fn declared(node: Node) -> Option<Node> {
    let inner = if node.kind() == "export_statement" {
        node.child_by_field_name("declaration")
            .or_else(|| node.child_by_field_name("value"))?
    } else {
        node
    };
    match inner.kind() {
        // `const f = () => {...}`: a function by the name it is bound to.
        "lexical_declaration" | "variable_declaration" => {
            let mut cur = inner.walk();
            let declarators: Vec<Node> = inner
                .named_children(&mut cur)
                .filter(|n| n.kind() == "variable_declarator")
                .collect();
            let [one] = declarators.as_slice() else {
                return None;
            };
            let value = one.child_by_field_name("value")?;
            matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function" | "class"
            )
            .then_some(inner)
        }
        _ => Some(inner),
    }
}

impl<'a> Walker<'a> {
    fn ecma_def(&mut self, range: Range<usize>, node: Node<'a>) {
        let Some(inner) = declared(node) else {
            return self.units.push(super::unit::Unit::Code { range, owner: 0 });
        };
        let (name, value) = match inner.kind() {
            "lexical_declaration" | "variable_declaration" => {
                let mut cur = inner.walk();
                let d = inner
                    .named_children(&mut cur)
                    .find(|n| n.kind() == "variable_declarator");
                (
                    d.and_then(|d| d.child_by_field_name("name")),
                    d.and_then(|d| d.child_by_field_name("value")),
                )
            }
            _ => (inner.child_by_field_name("name"), Some(inner)),
        };
        let name = name
            .map(|n| self.text(n).to_string())
            .unwrap_or_else(|| "default".into());
        let value = value.unwrap_or(inner);
        let (kind, keyword) = match value.kind() {
            "class_declaration" | "abstract_class_declaration" | "class" => {
                (SymbolKind::Class, "class")
            }
            "interface_declaration" => (SymbolKind::Type, "interface"),
            "type_alias_declaration" => (SymbolKind::Type, "type"),
            "enum_declaration" => (SymbolKind::Type, "enum"),
            "internal_module" | "module" => (SymbolKind::Module, "namespace"),
            _ => (SymbolKind::Function, "function"),
        };
        self.heading(1, &name, range.start);
        let sym = Sym {
            label: format!("{keyword} {name}"),
            name,
            kind,
            class_name: None,
            receiver: None,
            context: None,
            continuation: self.signature(node),
        };
        let body = value.child_by_field_name("body");
        if kind == SymbolKind::Class {
            return self.container_def(range, node, sym, body, &|w, n| {
                let name = n.child_by_field_name("name")?;
                let name = w.text(name).to_string();
                Some((name.clone(), name))
            });
        }
        self.push_def(range, node, sym, body);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::ingest::code::parse;
    use crate::ingest::code::test_support::*;

    const TS: &str = r#"import { readFile } from "fs/promises";

// Settings read from disk.
export interface Settings {
  port: number;
  host: string;
}

export type Mode = "dev" | "prod";

/** Loads the settings file and fills in defaults. */
export async function loadSettings(path: string): Promise<Settings> {
  const raw = await readFile(path, "utf8");
  return { port: 8080, host: "localhost", ...JSON.parse(raw) };
}

export class Server {
  private running = false;

  constructor(private settings: Settings) {}

  /** Starts listening on the configured port. */
  start(): void {
    this.running = true;
    console.log(`listening on ${this.settings.port}`);
  }

  stop(): void {
    this.running = false;
  }
}

const greet = (name: string) => `hello ${name}`;

loadSettings("kb.json").then((s) => new Server(s).start());
"#;

    #[test]
    fn typescript_functions_classes_methods_and_types() {
        let doc = parse(Path::new("server.ts"), TS.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(TS, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("typescript"));
        assert_eq!(
            sections(&doc),
            [
                "module server",
                "interface Settings",
                "type Mode",
                "function loadSettings",
                "class Server",
                "function greet",
                "module server"
            ]
        );
        let load = by_symbol(&doc, "loadSettings")[0];
        assert_eq!(meta(load, "symbol_kind"), "function");
        assert!(load.text.starts_with("/** Loads the settings"));
        assert_eq!(meta(by_symbol(&doc, "Server")[0], "symbol_kind"), "class");
        let hs: Vec<_> = doc
            .meta
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str()))
            .collect();
        assert_eq!(
            hs,
            [
                (1, "Settings"),
                (1, "Mode"),
                (1, "loadSettings"),
                (1, "Server"),
                (2, "Server.constructor"),
                (2, "Server.start"),
                (2, "Server.stop"),
                (1, "greet")
            ]
        );
    }

    #[test]
    fn a_large_class_splits_into_its_methods() {
        let doc = parse(Path::new("server.ts"), TS.as_bytes(), &ctx(&config(25))).unwrap();
        check_invariants(TS, &doc, 25);
        let start = by_symbol(&doc, "Server.start")[0];
        assert_eq!(meta(start, "symbol_kind"), "method");
        assert_eq!(meta(start, "class_name"), "Server");
        assert_eq!(start.meta.section.as_deref(), Some("class Server > start"));
        assert!(
            start.text.contains("/** Starts listening"),
            "{}",
            start.text
        );
        assert_eq!(start.context.as_deref(), Some("export class Server {"));
        assert!(!by_symbol(&doc, "Server").is_empty());
    }

    #[test]
    fn javascript_and_tsx() {
        let js = "function add(a, b) {\n  return a + b;\n}\n\nmodule.exports = { add };\n";
        let doc = parse(Path::new("m.js"), js.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(js, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("javascript"));
        assert_eq!(sections(&doc), ["function add", "module m"]);
        let tsx = "export const Hello = ({ who }: { who: string }) => <p>Hi {who}</p>;\n";
        let doc = parse(Path::new("Hello.tsx"), tsx.as_bytes(), &ctx(&config(1024))).unwrap();
        assert_eq!(doc.language.as_deref(), Some("tsx"));
        assert_eq!(sections(&doc), ["function Hello"]);
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    }
}
