//! Source code: Python, Bash and Go parsed with tree-sitter into one chunk
//! per definition (function, class, method, type), with the comment block
//! right above a definition kept with it, and the code between definitions
//! packed into windows. Definitions over the size limit split at statement
//! boundaries. Files in other languages, or with `chunking.code.strategy:
//! fixed`, are cut into overlapping line windows.
//!
//! Every chunk covers a contiguous byte range of the file and the ranges
//! tile the file, so no code is lost between definitions.
//!
//! Here: the entry point and the languages; `definitions` walks a syntax
//! tree into definitions and the code between them, with one file per
//! language saying what its definitions are (`python`, `bash`, `go`);
//! `pack` sizes all that into chunks, whatever the language.

mod bash;
mod definitions;
mod go;
mod pack;
mod python;
#[cfg(test)]
mod test_support;

use std::path::Path;

use tree_sitter::{Parser, Tree};

use super::{decode_text, detect, file_title, ChunkContext, IngestError, ParsedDocument};
use crate::config::CodeStrategy;
use definitions::{first_error_line, Walker};
use pack::Chunker;

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
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
            let mut walker = Walker::new(&text, lang, &chunker, cfg.include_context);
            walker.collect_root(tree.root_node());
            doc.headings = std::mem::take(&mut walker.headings);
            if let Some(line) = first_error_line(tree.root_node()) {
                doc.warnings.push(format!(
                    "syntax error near line {line}; code the parser could not read is indexed as top-level code"
                ));
            }
            if cfg.strategy == CodeStrategy::Ast {
                let (units, owners) = walker.finish();
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
        return Err(IngestError::failed("no code to index"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::*;

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
