//! Packing units into chunks within the token limit, whatever the
//! language: a definition that fits is one chunk, a larger one splits at
//! statement starts (with its context and signature repeated), code
//! between definitions packs into windows, and a single statement still
//! too large falls back to line windows. Split definitions get `part`
//! numbers.

use std::ops::Range;

use super::unit::{Lines, Sym, Unit};
use crate::ingest::split::line_windows;
use crate::ingest::{Chunk, ChunkContext};

/// A chunk on its way out, with the group whose parts get numbered.
struct Out {
    chunk: Chunk,
    group: Option<usize>,
}

/// Sizes units into chunks.
pub(super) struct Chunker<'a> {
    src: &'a str,
    ctx: &'a ChunkContext<'a>,
    max: usize,
    /// The language's name, recorded on every chunk.
    lang: Option<&'static str>,
    lines: Lines,
    module: Sym,
    out: Vec<Out>,
    groups: usize,
    /// Groups that have a chunk already.
    filled: std::collections::HashSet<usize>,
}

impl<'a> Chunker<'a> {
    pub(super) fn new(
        src: &'a str,
        ctx: &'a ChunkContext<'a>,
        max: usize,
        lang: Option<&'static str>,
        module: Sym,
    ) -> Chunker<'a> {
        Chunker {
            src,
            ctx,
            max,
            lang,
            lines: Lines::new(src),
            module,
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
    pub(super) fn fixed(&mut self, overlap: usize) {
        let module = self.module.clone();
        for w in line_windows(self.src, self.max, overlap, self.ctx.tokens) {
            self.push(
                &module,
                w.text,
                &None,
                w.tokens,
                w.first_line,
                w.last_line,
                None,
            );
        }
    }

    pub(super) fn emit_units(&mut self, units: Vec<Unit>, owners: &[Sym]) {
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
            let tokens = self.count(body);
            self.push(
                sym,
                body.to_string(),
                &header,
                tokens,
                first_line,
                last_line,
                group,
            );
            return;
        }
        let budget = self.budget(&header);
        for w in line_windows(body, budget, 0, self.ctx.tokens) {
            let tokens = self.count(&w.text);
            self.push(
                sym,
                w.text,
                &header,
                tokens,
                first_line + w.first_line,
                first_line + w.last_line,
                group,
            );
        }
    }

    /// Emits one chunk: `text` is the file's own lines, `header` the
    /// context embedded before it (not part of the quoted text).
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        sym: &Sym,
        text: String,
        header: &Option<String>,
        tokens: usize,
        first_line: usize,
        last_line: usize,
        group: Option<usize>,
    ) {
        let section = (!sym.label.is_empty()).then(|| sym.label.clone());
        let mut chunk = Chunk::new(text, tokens, section);
        chunk.meta.language = self.lang.map(str::to_string);
        chunk.meta.symbol_name = Some(sym.name.clone());
        chunk.meta.symbol_kind = Some(sym.kind);
        chunk.meta.line_start = Some(first_line as u64 + 1);
        chunk.meta.line_end = Some(last_line as u64 + 1);
        chunk.meta.class_name = sym.class_name.clone();
        chunk.meta.receiver = sym.receiver.clone();
        chunk.context = header.clone();
        if let Some(g) = group {
            self.filled.insert(g);
        }
        self.out.push(Out { chunk, group });
    }

    /// The chunks, with `part` numbers on definitions that were split.
    pub(super) fn finish(self) -> Vec<Chunk> {
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
                    o.chunk.meta.part = Some(*part as u32);
                }
                o.chunk
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::ingest::code::parse;
    use crate::ingest::code::test_support::*;

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
            assert_eq!(c.meta.section.as_deref(), Some("def big"));
            // Whole statements: every `if` keeps its body.
            assert_eq!(
                c.text.matches("    if ").count(),
                c.text.matches("total +=").count()
            );
            if i > 0 {
                // The signature is embedded before later parts, not quoted.
                assert_eq!(c.context.as_deref(), Some("def big(rows):"));
                assert!(c.text.starts_with("    if rows["), "{}", c.text);
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
}
