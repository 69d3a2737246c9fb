//! The pieces a code file is cut into, whatever its language: units
//! (definitions and the code between them), the symbol a definition
//! stands for, and byte offsets as lines. The bottom of the `code` folder.

use std::ops::Range;

use tree_sitter::Node;

use crate::document::SymbolKind;

/// What a chunk is about: the metadata every chunk of it carries.
#[derive(Debug, Clone)]
pub(super) struct Sym {
    pub(super) name: String,
    pub(super) kind: SymbolKind,
    /// Readable label for `Chunk.section`, e.g. `class Foo > def bar`.
    pub(super) label: String,
    /// A Python method's or nested class's class.
    pub(super) class_name: Option<String>,
    /// A Go method's receiver type.
    pub(super) receiver: Option<String>,
    /// Prepended to every chunk of the symbol (a method's class and its
    /// docstring) so it embeds with that context.
    pub(super) context: Option<String>,
    /// Prepended to the parts after the first (the signature line).
    pub(super) continuation: Option<String>,
}

/// A contiguous piece of the file, before sizing.
#[derive(Debug)]
pub(super) enum Unit {
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
    pub(super) fn range_mut(&mut self) -> &mut Range<usize> {
        match self {
            Unit::Code { range, .. } | Unit::Def { range, .. } => range,
        }
    }
}

/// A sibling node of a definition list, after comments are attached.
pub(super) struct Item<'t> {
    pub(super) range: Range<usize>,
    pub(super) node: Node<'t>,
    pub(super) kind: ItemKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum ItemKind {
    Def,
    Comment,
    Other,
}

impl Sym {
    /// Module-level code: the file (or Go package) as a symbol.
    pub(super) fn module(name: String, label: String) -> Sym {
        Sym {
            name,
            kind: SymbolKind::Module,
            label,
            class_name: None,
            receiver: None,
            context: None,
            continuation: None,
        }
    }
}

/// The definition a nested definition sits in (a Python class, for its
/// methods): its dotted path, its label, the header its members are
/// embedded with, and its depth.
#[derive(Clone)]
pub(super) struct Scope {
    pub(super) path: String,
    pub(super) label: String,
    pub(super) header: Option<String>,
    pub(super) depth: u8,
}

/// Byte offset → 0-based line.
pub(super) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub(super) fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { starts }
    }

    pub(super) fn line_of(&self, byte: usize) -> usize {
        self.starts.partition_point(|s| *s <= byte) - 1
    }

    pub(super) fn line_start(&self, byte: usize) -> usize {
        self.starts[self.line_of(byte)]
    }
}
