//! `kb sources`: what is indexed, as a tree of folders and files with the
//! number of documents under each folder.

use std::collections::BTreeMap;
use std::path::PathBuf;

use globset::GlobMatcher;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{scope, Command, CommandSpec, Mcp, OutputKind};
use crate::db::RootKind;
use crate::error::{Hint, KbError, Result};
use crate::ingest::source_path;
use crate::output::{one_line, Render, Style};
use crate::session::Session;

const EXAMPLES: &str = "Examples:
  kb sources                          every added folder, as a tree
  kb sources --depth 1                one level: each folder with its document count
  kb sources --dir ~/docs/reports     the tree under one folder
  kb sources --pattern '*.pdf'        only the PDFs";

/// The indexed files as a tree: folders with their document counts
#[derive(Debug, Default, clap::Args, Deserialize, JsonSchema)]
#[command(after_help = EXAMPLES)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct SourcesArgs {
    /// Show at most this many levels below the top; deeper folders show their document count
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    #[schemars(range(min = 1))]
    pub depth: Option<usize>,
    /// Only the tree under this folder (an indexed folder or one inside an added folder)
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// Only files matching this glob (`*.md`; a glob with `/` matches the path below the top)
    #[arg(long, value_name = "GLOB")]
    pub pattern: Option<String>,
    /// Show at most N entries, then `... (M more)` (default 100; 0: all)
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub limit: Option<usize>,
}

/// One line of the tree.
#[derive(Debug, Serialize, JsonSchema, PartialEq)]
pub(crate) struct SourceEntry {
    /// The file or folder, below its top folder (a top folder: its whole path).
    pub path: String,
    /// folder or document
    pub kind: &'static str,
    /// Levels below the top (0: a top folder or file).
    pub depth: usize,
    /// Documents under the folder (1 for a document).
    pub documents: usize,
    /// Whether the folder's contents are listed below it (false past `depth`).
    pub expanded: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SourcesOutput {
    /// The entries shown, in tree order (folders before files, by name).
    pub entries: Vec<SourceEntry>,
    /// Documents in the tree (with `pattern`, those matching).
    pub documents: usize,
    /// Entries left out by `limit`.
    pub more: usize,
}

impl Command for SourcesArgs {
    const SPEC: CommandSpec = CommandSpec {
        name: "sources",
        title: "Indexed files as a tree",
        summary: "The indexed files as a tree: every added folder with its subfolders (each with \
                  its document count) and files; depth, dir, pattern and limit narrow it.",
        output: OutputKind::Query,
        mcp: Mcp::Read,
    };
    type Output = SourcesOutput;

    fn run(self, session: &mut Session) -> Result<SourcesOutput> {
        if self.depth == Some(0) {
            return Err(KbError::invalid("depth", "--depth must be at least 1"));
        }
        let pattern = match &self.pattern {
            Some(p) => Some(matcher(p)?),
            None => None,
        };
        let db = session.db()?;
        let paths: Vec<String> = db.indexed_files()?.into_keys().collect();
        let mut tops: Vec<String> = db
            .roots()?
            .into_iter()
            .filter(|r| r.kind == RootKind::Folder)
            .map(|r| r.path)
            .collect();
        if let Some(dir) = &self.dir {
            tops = vec![scoped_dir(dir, &paths)?];
        }
        let tree = Tree::of(&paths, &tops, self.dir.is_some(), pattern.as_ref());
        let limit = match self.limit {
            Some(0) => usize::MAX,
            Some(n) => n,
            None => 100,
        };
        let mut entries = Vec::new();
        tree.walk(self.depth.unwrap_or(usize::MAX), &mut entries);
        let more = entries.len().saturating_sub(limit);
        entries.truncate(limit);
        Ok(SourcesOutput {
            entries,
            documents: tree.documents(),
            more,
        })
    }
}

/// `--pattern`: a file name glob, or a path glob below the top folder.
fn matcher(pattern: &str) -> Result<GlobMatcher> {
    let full = scope::any_folder(pattern).unwrap_or_else(|| pattern.to_string());
    Ok(scope::glob(&full, pattern, "pattern")?.compile_matcher())
}

/// `--dir`: a folder that holds indexed documents, in its stored form.
fn scoped_dir(dir: &std::path::Path, paths: &[String]) -> Result<String> {
    let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| {
        std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())
    });
    let stored = source_path::encode(&canonical);
    let prefix = format!("{}/", stored.trim_end_matches('/'));
    if paths.iter().any(|p| p.starts_with(&prefix)) {
        Ok(stored.trim_end_matches('/').to_string())
    } else {
        Err(KbError::NotFound(format!(
            "{}: no indexed document is under this folder",
            dir.display()
        ))
        .hint(Hint::ListFolders))
    }
}

/// Folders and files below the top folders.
#[derive(Default)]
struct Tree {
    /// Top folders by their whole path, and files outside every top folder
    /// by theirs.
    tops: BTreeMap<String, Node>,
}

#[derive(Default)]
struct Node {
    folders: BTreeMap<String, Node>,
    files: Vec<String>,
    documents: usize,
}

impl Tree {
    /// The tree of `paths` (stored forms) under `tops`: a path under no top
    /// folder hangs from its own folder. Only paths the pattern matches
    /// (below their top) are kept; with `scoped`, only paths under a top.
    fn of(
        paths: &[String],
        tops: &[String],
        scoped: bool,
        pattern: Option<&GlobMatcher>,
    ) -> Tree {
        let mut tree = Tree::default();
        let mut sorted: Vec<&String> = paths.iter().collect();
        sorted.sort();
        for path in sorted {
            // The deepest top holding the path.
            let top = tops
                .iter()
                .filter(|t| path.starts_with(&format!("{}/", t.trim_end_matches('/'))))
                .max_by_key(|t| t.len());
            let (top, rest) = match top {
                Some(t) => {
                    let t = t.trim_end_matches('/');
                    (t.to_string(), &path[t.len() + 1..])
                }
                None if scoped => continue,
                None => match path.rsplit_once('/') {
                    Some((dir, name)) => (dir.to_string(), name),
                    None => (String::new(), path.as_str()),
                },
            };
            if pattern.is_some_and(|m| !m.is_match(rest)) {
                continue;
            }
            let mut node = tree.tops.entry(top).or_default();
            node.documents += 1;
            let mut parts: Vec<&str> = rest.split('/').collect();
            let file = parts.pop().unwrap_or_default();
            for part in parts {
                node = node.folders.entry(part.to_string()).or_default();
                node.documents += 1;
            }
            node.files.push(file.to_string());
        }
        tree
    }

    fn documents(&self) -> usize {
        self.tops.values().map(|n| n.documents).sum()
    }

    /// The entries in tree order, folders expanded down to `depth` levels.
    fn walk(&self, depth: usize, out: &mut Vec<SourceEntry>) {
        for (path, node) in &self.tops {
            out.push(SourceEntry {
                path: format!("{path}/"),
                kind: "folder",
                depth: 0,
                documents: node.documents,
                expanded: depth > 0,
            });
            if depth > 0 {
                node.walk("", 1, depth, out);
            }
        }
    }
}

impl Node {
    fn walk(&self, prefix: &str, level: usize, depth: usize, out: &mut Vec<SourceEntry>) {
        for (name, folder) in &self.folders {
            let path = format!("{prefix}{name}/");
            let expanded = level < depth;
            out.push(SourceEntry {
                path: path.clone(),
                kind: "folder",
                depth: level,
                documents: folder.documents,
                expanded,
            });
            if expanded {
                folder.walk(&path, level + 1, depth, out);
            }
        }
        for file in &self.files {
            out.push(SourceEntry {
                path: format!("{prefix}{file}"),
                kind: "document",
                depth: level,
                documents: 1,
                expanded: false,
            });
        }
    }
}

plain_outcome!(SourcesOutput);

impl Render for SourcesOutput {
    /// `tree`-style lines: `├── name/ (N files)` for a folder not expanded.
    fn human(&self, _style: &Style) -> String {
        if self.entries.is_empty() {
            return "No documents.\n".into();
        }
        let mut out = String::new();
        for (i, e) in self.entries.iter().enumerate() {
            let name = if e.depth == 0 {
                e.path.clone()
            } else {
                let trimmed = e.path.trim_end_matches('/');
                let base = trimmed.rsplit('/').next().unwrap_or(trimmed);
                if e.kind == "folder" {
                    format!("{base}/")
                } else {
                    base.to_string()
                }
            };
            let count = if e.kind == "folder" && !e.expanded {
                format!(
                    " ({} {})",
                    e.documents,
                    if e.documents == 1 { "file" } else { "files" }
                )
            } else {
                String::new()
            };
            let mut line = String::new();
            for level in 1..e.depth {
                line.push_str(if continues(&self.entries, i, level) {
                    "│   "
                } else {
                    "    "
                });
            }
            if e.depth > 0 {
                line.push_str(if continues(&self.entries, i, e.depth) {
                    "├── "
                } else {
                    "└── "
                });
            }
            out.push_str(&format!("{line}{}{count}\n", one_line(&name)));
        }
        if self.more > 0 {
            out.push_str(&format!("... ({} more)\n", self.more));
        }
        out
    }
}

/// Whether another entry at `level` follows entry `i` before the tree
/// climbs above that level: the line at that level continues.
fn continues(entries: &[SourceEntry], i: usize, level: usize) -> bool {
    entries[i + 1..]
        .iter()
        .take_while(|e| e.depth >= level)
        .any(|e| e.depth == level)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_tree_with_counts_folders_first_and_depth() {
        let docs = paths(&[
            "/d/notes/b.md",
            "/d/a.md",
            "/d/notes/deep/c.md",
            "/d/guides/x.md",
            "/other/lone.txt",
        ]);
        let tree = Tree::of(&docs, &paths(&["/d"]), false, None);
        let mut all = Vec::new();
        tree.walk(usize::MAX, &mut all);
        let shown: Vec<(&str, usize, usize)> =
            all.iter().map(|e| (e.path.as_str(), e.depth, e.documents)).collect();
        assert_eq!(
            shown,
            [
                ("/d/", 0, 4),
                ("guides/", 1, 1),
                ("guides/x.md", 2, 1),
                ("notes/", 1, 2),
                ("notes/deep/", 2, 1),
                ("notes/deep/c.md", 3, 1),
                ("notes/b.md", 2, 1),
                ("a.md", 1, 1),
                // Outside every added folder: under its own folder.
                ("/other/", 0, 1),
                ("lone.txt", 1, 1),
            ]
        );
        let mut one = Vec::new();
        tree.walk(1, &mut one);
        let out = SourcesOutput {
            documents: tree.documents(),
            more: 0,
            entries: one,
        };
        assert_eq!(
            out.human(&Style::PLAIN),
            "/d/\n├── guides/ (1 file)\n├── notes/ (2 files)\n└── a.md\n/other/\n└── lone.txt\n"
        );
        let md = matcher("notes/**").unwrap();
        let only = Tree::of(&docs, &paths(&["/d"]), true, Some(&md));
        assert_eq!(only.documents(), 2);
    }

    #[test]
    fn tree_lines_continue_past_expanded_folders() {
        let docs = paths(&["/d/a/x.md", "/d/a/y.md", "/d/z.md"]);
        let tree = Tree::of(&docs, &paths(&["/d"]), false, None);
        let mut all = Vec::new();
        tree.walk(usize::MAX, &mut all);
        let out = SourcesOutput {
            documents: 3,
            more: 2,
            entries: all,
        };
        assert_eq!(
            out.human(&Style::PLAIN),
            "/d/\n├── a/\n│   ├── x.md\n│   └── y.md\n└── z.md\n... (2 more)\n"
        );
    }
}
