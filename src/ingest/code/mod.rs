//! Source code: Python, Bash, Go, JavaScript/TypeScript and Rust parsed with tree-sitter into one chunk
//! per definition (function, class, method, type), with the comment block
//! right above a definition kept with it, and the code between definitions
//! packed into windows. Definitions over the size limit split at statement
//! boundaries. Files in other languages, or with `chunking.code.strategy:
//! fixed`, are cut into overlapping line windows.
//!
//! Every chunk covers a contiguous byte range of the file and the ranges
//! tile the file, so no code is lost between definitions.
//!
//! Here: the entry point and the list of languages; `unit` names the
//! pieces, `definitions` walks a syntax tree into definitions and the code
//! between them, with one file per language saying what its definitions
//! are (`python`, `bash`, `go`, `javascript`, `rust`: each a [`Language`]); `pack` sizes all
//! that into chunks, whatever the language.

mod bash;
mod definitions;
mod go;
mod javascript;
mod pack;
mod python;
mod rust;
#[cfg(test)]
mod test_support;
mod unit;

use std::path::Path;

use tree_sitter::{Parser, Tree};

use super::{decode_text, detect, file_title, ChunkContext, IngestError, ParsedDocument};
use crate::config::CodeStrategy;
use definitions::{first_error_line, Language, Walker};
use pack::Chunker;
use unit::{Lines, Sym};

/// The languages kb parses into definitions.
const LANGUAGES: &[&dyn Language] = &[
    &python::Python,
    &bash::Bash,
    &go::Go,
    &javascript::JAVASCRIPT,
    &javascript::TYPESCRIPT,
    &javascript::TSX,
    &rust::Rust,
];

/// The language of this name (as `detect::code_language` gives it).
fn language(name: &str) -> Option<&'static dyn Language> {
    LANGUAGES.iter().copied().find(|l| l.name() == name)
}

pub fn parse(path: &Path, bytes: &[u8], ctx: &ChunkContext) -> Result<ParsedDocument, IngestError> {
    let mut doc = ParsedDocument::default();
    let text = decode_text(bytes, &mut doc.warnings)?;
    doc.title = file_title(path);
    let head = &bytes[..bytes.len().min(detect::SNIFF_BYTES)];
    let lang = detect::code_language(path, head).and_then(language);
    doc.language = lang.map(|l| l.name().to_string());

    let cfg = &ctx.config.code;
    let max = ctx.cap(cfg.max_tokens).max(1);
    let tree = lang.and_then(|l| parse_tree(l, &text));
    let module = module_name(path, lang, tree.as_ref(), &text);
    let label = match lang {
        Some(l) => l.module_label(&module),
        None => format!("module {module}"),
    };
    let lines = Lines::new(&text);
    let module = Sym::module(module, label);
    let mut chunker = Chunker::new(&text, ctx, max, lang.map(|l| l.name()), module.clone());
    match (lang, &tree) {
        (Some(lang), Some(tree)) => {
            let mut walker = Walker::new(
                &text,
                lang,
                &lines,
                ctx.tokens,
                (max, cfg.include_context),
                module,
            );
            walker.collect_root(tree.root_node());
            doc.meta.headings = std::mem::take(&mut walker.headings);
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

/// `None` only when tree-sitter gives up entirely (it recovers from syntax
/// errors, so in practice never); the caller then falls back to windows.
fn parse_tree(lang: &dyn Language, text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.parse(text, None)
}

/// The name module-level code is filed under: the Go package, else the
/// file name without its extension.
fn module_name(
    path: &Path,
    lang: Option<&dyn Language>,
    tree: Option<&Tree>,
    text: &str,
) -> String {
    if let (Some(lang), Some(tree)) = (lang, tree) {
        if let Some(name) = lang.module_name(tree.root_node(), text) {
            return name;
        }
    }
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file_title(path))
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
        assert_eq!(doc.meta.headings.len(), 6);

        let src = "#!/usr/bin/ruby\nputs 1\n\ndef x\n  2\nend\n";
        let doc = parse(Path::new("tool"), src.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(src, &doc, 1024);
        assert_eq!(doc.language, None);
        assert_eq!(doc.chunks.len(), 1);
        assert!(doc.chunks[0].meta.language.is_none());
        assert_eq!(meta(&doc.chunks[0], "symbol_name"), "tool");
    }

    #[test]
    fn shebang_script_without_extension_is_parsed() {
        let src = "#!/usr/bin/env python3\nimport sys\n\ndef greet(name):\n    print(name)\n\ngreet(sys.argv[1])\n";
        let doc = parse(Path::new("bin/hello"), src.as_bytes(), &ctx(&config(1024))).unwrap();
        check_invariants(src, &doc, 1024);
        assert_eq!(doc.language.as_deref(), Some("python"));
        assert_eq!(
            by_symbol(&doc, "greet")[0].meta.section.as_deref(),
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
