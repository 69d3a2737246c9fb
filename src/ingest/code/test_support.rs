//! What the code chunker's tests share: settings, lookups, the invariants
//! every code document keeps, and a sample Python module.

use serde_json::Value;

use crate::config::ChunkingConfig;
use crate::embed::TokenCounter;
pub(super) use crate::ingest::test_support::ctx;
use crate::ingest::{Chunk, ParsedDocument};

pub(super) fn config(max: usize) -> ChunkingConfig {
    let mut c = ChunkingConfig::default();
    c.code.max_tokens = max;
    c
}

/// A chunk's stored metadata field by its key (what the database holds).
pub(super) fn meta(c: &Chunk, key: &str) -> Value {
    serde_json::to_value(&c.meta).unwrap()[key].clone()
}

/// Each chunk's section label, in order.
pub(super) fn sections(doc: &ParsedDocument) -> Vec<String> {
    doc.chunks
        .iter()
        .map(|c| c.meta.section.clone().unwrap_or_default())
        .collect()
}

pub(super) fn by_symbol<'d>(doc: &'d ParsedDocument, name: &str) -> Vec<&'d Chunk> {
    doc.chunks
        .iter()
        .filter(|c| meta(c, "symbol_name") == name)
        .collect()
}

/// The invariants every code document keeps: no empty chunk, none over
/// the limit, every chunk with its metadata, and every non-blank line of
/// the file inside a chunk whose line range holds it.
pub(super) fn check_invariants(src: &str, doc: &ParsedDocument, max: usize) {
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
            assert!(!meta(c, key).is_null(), "{key} missing: {:?}", c.meta);
        }
        assert!(c.meta.section.is_some());
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

pub(super) const PY: &str = r#"#!/usr/bin/env python3
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
