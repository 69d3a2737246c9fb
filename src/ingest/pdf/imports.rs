//! The files of `pdf/` depend on one another without a cycle: each file's
//! production code (its tests left out) names the modules it uses through
//! `super::…`, `crate::ingest::pdf::…`, `self::…` or a child's name, and
//! those uses must form a DAG, so every stage can be read and tested on
//! top of the files below it.

use std::collections::BTreeMap;
use std::path::Path;

/// A module's path below `pdf` (`[]` is `pdf.rs`, `["layout", "demote"]`
/// is `pdf/layout/demote.rs`).
pub(super) type Module = Vec<String>;

/// The uses of one module: the modules its production code names.
type Graph = BTreeMap<Module, Vec<Module>>;

/// The module of a file below `src/ingest/`, or `None` outside `pdf`.
pub(super) fn module_of(relative: &str) -> Option<Module> {
    let rest = relative.strip_suffix(".rs")?;
    if rest == "pdf" {
        return Some(Vec::new());
    }
    let rest = rest.strip_prefix("pdf/")?;
    Some(rest.split('/').map(str::to_string).collect())
}

/// The lines of a file before its inline `#[cfg(test)]` module.
pub(super) fn production_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let tests = lines.windows(2).position(|w| {
        w[0].split("//").next().unwrap_or_default().trim() == "#[cfg(test)]"
            && w[1].contains("mod ")
            && w[1].ends_with('{')
    });
    lines[..tests.unwrap_or(lines.len())].to_vec()
}

/// The code of a file with comments and its inline `#[cfg(test)]` module
/// cut away: what production builds compile.
fn production_code(text: &str) -> String {
    let mut out = String::new();
    for line in production_lines(text) {
        let code = line.split("//").next().unwrap_or_default();
        // `pub(in super::super)` says who may see an item, not what it uses.
        let code = match code.find("pub(in ") {
            Some(at) => {
                let end = code[at..].find(')').map_or(code.len(), |e| at + e + 1);
                format!("{}pub(crate){}", &code[..at], &code[end..])
            }
            None => code.to_string(),
        };
        out.push_str(&code);
        out.push('\n');
    }
    out
}

/// The child modules a file declares under a `cfg` naming tests (test
/// code, not part of the production graph).
fn test_only_children(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut test_cfg = false;
    for line in code.lines().map(str::trim) {
        if line.starts_with("#[cfg(") {
            test_cfg = line.contains("test");
            continue;
        }
        if line.starts_with("#[") {
            continue;
        }
        let declared = line
            .strip_prefix("pub ")
            .unwrap_or(line)
            .strip_prefix("mod ")
            .and_then(|r| r.strip_suffix(';'));
        if let (true, Some(name)) = (test_cfg, declared) {
            out.push(name.trim().to_string());
        }
        test_cfg = false;
    }
    out
}

/// The identifier at the start of `s` and the rest after it.
fn identifier(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Follows a path from `base` (`page::Line`, `{engine, ocr}`, `layout::{self,
/// Block}`) down the known modules, pushing the deepest module each
/// branch names.
fn resolve(base: &Module, path: &str, modules: &[Module], out: &mut Vec<Module>) {
    let path = path.trim_start();
    if let Some(group) = path.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    resolve(base, &group[start..i], modules, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    resolve(base, &group[start..i], modules, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let (name, rest) = identifier(path);
    let mut next = base.clone();
    next.push(name.to_string());
    if !name.is_empty() && name != "self" && modules.contains(&next) {
        match rest.strip_prefix("::") {
            Some(rest) => resolve(&next, rest, modules, out),
            None => out.push(next),
        }
    } else {
        out.push(base.clone());
    }
}

/// The modules `module`'s code uses.
fn uses(module: &Module, code: &str, modules: &[Module]) -> Vec<Module> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let after_path = i > 0
            && (bytes[i - 1] == b':'
                || bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_');
        let (word, _) = identifier(rest);
        if word.is_empty() || after_path {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let mut base = module.clone();
        let mut path = rest;
        if let Some(p) = rest.strip_prefix("crate::ingest::pdf::") {
            base.clear();
            path = p;
        } else if rest.starts_with("super::") {
            while let Some(p) = path.strip_prefix("super::") {
                if base.pop().is_none() {
                    // Above `pdf`: not part of this graph.
                    path = "";
                    break;
                }
                path = p;
            }
        } else if let Some(p) = rest.strip_prefix("self::") {
            path = p;
        } else {
            let mut child = module.clone();
            child.push(word.to_string());
            if !(modules.contains(&child) && rest[word.len()..].starts_with("::")) {
                i += word.len();
                continue;
            }
        }
        if !path.is_empty() {
            resolve(&base, path, modules, &mut out);
        }
        i += word.len();
    }
    out.retain(|m| m != module);
    out.sort();
    out.dedup();
    out
}

/// The modules of `files` (paths below `src/ingest/` and their text)
/// that production builds compile: those declared under a `cfg` naming
/// tests, and their children, left out.
pub(super) fn production_modules(files: &[(String, String)]) -> Vec<Module> {
    let mut modules: Vec<Module> = files.iter().filter_map(|(p, _)| module_of(p)).collect();
    let test_only: Vec<Module> = files
        .iter()
        .filter_map(|(p, text)| {
            let m = module_of(p)?;
            Some(test_only_children(text).into_iter().map(move |c| {
                let mut child = m.clone();
                child.push(c);
                child
            }))
        })
        .flatten()
        .collect();
    modules.retain(|m| !test_only.iter().any(|t| m.starts_with(t)));
    modules
}

/// The graph of `files` (paths below `src/ingest/` and their text).
fn graph(files: &[(String, String)]) -> Graph {
    let modules = production_modules(files);
    files
        .iter()
        .filter_map(|(p, text)| Some((module_of(p)?, text)))
        .filter(|(m, _)| modules.contains(m))
        .map(|(m, text)| {
            let used = uses(&m, &production_code(text), &modules);
            (m, used)
        })
        .collect()
}

/// Every cycle found by a depth-first walk, each as the modules around it.
fn cycles(graph: &Graph) -> Vec<Vec<Module>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn walk(
        m: &Module,
        graph: &Graph,
        marks: &mut BTreeMap<Module, Mark>,
        stack: &mut Vec<Module>,
        out: &mut Vec<Vec<Module>>,
    ) {
        marks.insert(m.clone(), Mark::Open);
        stack.push(m.clone());
        for next in graph.get(m).into_iter().flatten() {
            match marks.get(next).copied().unwrap_or(Mark::New) {
                Mark::New => walk(next, graph, marks, stack, out),
                Mark::Open => {
                    let from = stack.iter().position(|s| s == next).unwrap_or(0);
                    out.push(stack[from..].to_vec());
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        marks.insert(m.clone(), Mark::Done);
    }
    let mut marks = BTreeMap::new();
    let mut out = Vec::new();
    for m in graph.keys() {
        if marks.get(m).copied().unwrap_or(Mark::New) == Mark::New {
            walk(m, graph, &mut marks, &mut Vec::new(), &mut out);
        }
    }
    out
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "pdf".to_string()
    } else {
        m.join("::")
    }
}

/// `pdf.rs` and every file below `pdf/`, as paths below `src/ingest/`.
pub(super) fn pdf_files() -> Vec<(String, String)> {
    fn walk(dir: &Path, ingest: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, ingest, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path
                    .strip_prefix(ingest)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let ingest = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ingest");
    let mut out = vec![(
        "pdf.rs".to_string(),
        std::fs::read_to_string(ingest.join("pdf.rs")).unwrap(),
    )];
    walk(&ingest.join("pdf"), &ingest, &mut out);
    out
}

#[test]
fn the_pdf_modules_have_no_import_cycle() {
    let g = graph(&pdf_files());
    assert!(g.len() > 20, "too few modules found: {:?}", g.keys());
    let found: Vec<String> = cycles(&g)
        .iter()
        .map(|c| {
            c.iter()
                .chain(c.first())
                .map(name)
                .collect::<Vec<_>>()
                .join(" -> ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "import cycles in src/ingest/pdf/:\n{}",
        found.join("\n")
    );
}

#[test]
fn uses_through_super_groups_children_and_the_crate_path_are_edges() {
    let file = |p: &str, t: &str| (p.to_string(), t.to_string());
    let files = [
        file("pdf.rs", "mod a;\nmod b;\nmod c;\n#[cfg(test)]\nmod t;\npub use a::X;\n"),
        file("pdf/a.rs", "mod inner;\nuse super::{b::Y, c};\nfn f() { inner::g(); }\n"),
        file("pdf/a/inner.rs", "use super::super::c::Z; // super::b::Q\n"),
        file("pdf/b.rs", "fn f() -> crate::ingest::pdf::c::Z { todo!() }\n#[cfg(test)]\nmod tests {\n use super::super::a::X;\n}\n"),
        file("pdf/c.rs", "pub(in super::super) struct Z;\n"),
        file("pdf/t.rs", "use super::a::X;\n"),
    ];
    let g = graph(&files);
    let m = |s: &str| -> Module {
        s.split('/')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    assert_eq!(g[&m("")], vec![m("a")]);
    assert_eq!(g[&m("a")], vec![m("a/inner"), m("b"), m("c")]);
    assert_eq!(g[&m("a/inner")], vec![m("c")]);
    assert_eq!(g[&m("b")], vec![m("c")]);
    assert!(!g.contains_key(&m("t")), "test-only modules are left out");
    assert!(cycles(&g).is_empty());

    let mut with_cycle = files.to_vec();
    with_cycle[4] = file("pdf/c.rs", "use super::a::inner;\npub struct Z;\n");
    let found = cycles(&graph(&with_cycle));
    assert_eq!(found, vec![vec![m("a/inner"), m("c")]]);
}
